package maxwell

import (
	"math/bits"

	"github.com/gpuisa/gpuisa/emu"
)

// half selects a 16-bit half of v (sel .H1 the high one), sign-extended when signed.
func half(v uint32, sel uint8, signed bool) uint32 {
	if sel == 2 {
		v >>= 16
	}
	if signed {
		return uint32(int32(int16(v)))
	}
	return v & 0xffff
}

// selected applies a byte or half selector for conversions.
func selected(v uint32, sel uint8) uint32 {
	switch sel {
	case 1:
		return v & 0xffff
	case 2:
		return v >> 16
	case 3, 4, 5, 6:
		return v >> (8 * (sel - 3)) & 0xff
	}
	return v
}

func icmp(cond uint8, a, b uint32, unsigned bool) bool {
	var rel uint8
	switch {
	case a == b:
		rel = 2
	case unsigned && a < b, !unsigned && int32(a) < int32(b):
		rel = 1
	default:
		rel = 4
	}
	return cond&rel != 0
}

// ialu runs the integer instructions.
func (k *Kernel) ialu(w *emu.Warp, o *op, mask uint32, regs []uint32, sc *scratch) {
	d := int(o.d.row) * 32
	av, bv, cv := k.row(regs, &o.s[0], mask, &sc.a), k.row(regs, &o.s[1], mask, &sc.b), k.row(regs, &o.s[2], mask, &sc.c)
	ccRow := k.Prog.rowCC() * 32
	cc := regs[ccRow]
	var ccOut, ovOut uint32
	var pOut uint32
	a, b, c := &o.s[0], &o.s[1], &o.s[2]
	unsigned := o.flags&fU32 != 0
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		cin := uint64(cc >> l & 1)
		var r uint32
		var carry bool
		switch o.kind {
		case kMov:
			r = av[l]
		case kSel:
			if pred(regs, c)>>l&1 != 0 {
				r = av[l]
			} else {
				r = bv[l]
			}
		case kIAdd:
			x, y := uint64(av[l]), uint64(bv[l])
			var extra uint64
			if a.neg {
				x = uint64(^uint32(x))
				extra++
			}
			if b.neg {
				y = uint64(^uint32(y))
				extra++
			}
			if o.flags&fX != 0 {
				extra = cin
				if a.neg || b.neg {
					extra = cin
				}
			}
			if o.sub == 1 {
				extra++
			}
			s := x + y + extra
			r, carry = uint32(s), s>>32 != 0
			if (uint32(x)^r)&(uint32(y)^r)>>31 != 0 {
				ovOut |= 1 << l
			}
			if o.flags&fSAT != 0 {
				sv := int64(int32(x)) + int64(int32(y)) + int64(extra)
				if a.neg {
					sv = int64(int32(-int32(av[l])))
					sv += int64(int32(bv[l]))
				}
				r = uint32(max(min(sv, 1<<31-1), -1<<31))
			}
		case kIAdd3:
			v := func(s *opnd) uint64 {
				x := k.val(regs, s, l)
				if s.sel != 0 {
					x = half(x, s.sel, false)
				}
				if s.neg {
					return uint64(-x) & 0xffffffff
				}
				return uint64(x)
			}
			x, y, z := v(a), v(b), v(c)
			if o.flags&(fRS|fLS) == 0 {
				// two adders, two carries: the first's in CC.C, the
				// second's in CC.O, and .X adds both back in (a 64-bit
				// three-way add carries up to 2 into the high words)
				t := x + y
				if o.flags&fX != 0 {
					t += cin + uint64(regs[ccRow+3]>>l&1)
				}
				s := t&0xffffffff + z
				ovOut |= uint32(s>>32) << l
				r, carry = uint32(s), t>>32 != 0
				break
			}
			var s uint64
			if o.flags&fRS != 0 {
				s = (x+y)>>16 + z
			} else {
				s = (x+y)<<16 + z
			}
			if o.flags&fX != 0 {
				s += cin
			}
			r, carry = uint32(s), s>>32 != 0
		case kXmad:
			bv, av, cv := bv[l], av[l], cv[l]
			p := uint64(half(av, a.sel, o.flags&fS16A != 0) * half(bv, b.sel, o.flags&fS16B != 0))
			p &= 0xffffffff
			if o.flags&fPSL != 0 {
				p = p << 16 & 0xffffffff
			}
			switch {
			case o.flags&fCLO != 0:
				cv &= 0xffff
			case o.flags&fCHI != 0:
				cv >>= 16
			case o.flags&fCBCC != 0:
				cv += bv << 16
			case o.flags&fCSFU != 0:
				// sign fix-up for a signed high product built from 16-bit
				// partial products that IADD3.RS then sums as unsigned words:
				// each negative cross product (this XMAD's signed half times
				// the other operand's other, non-zero half) was added as
				// 2^32 too much, 2^16 after the shift
				other := func(v uint32, sel uint8) uint32 {
					if sel == 2 {
						return v & 0xffff
					}
					return v >> 16
				}
				if o.flags&fS16A != 0 && int16(half(av, a.sel, false)) < 0 && other(bv, b.sel) != 0 {
					cv -= 0x10000
				}
				if o.flags&fS16B != 0 && int16(half(bv, b.sel, false)) < 0 && other(av, a.sel) != 0 {
					cv -= 0x10000
				}
			}
			s := p + uint64(cv)
			if o.flags&fX != 0 {
				s += cin
			}
			r, carry = uint32(s), s>>32 != 0
			if o.flags&fMRG != 0 {
				r = r&0xffff | bv<<16
			}
		case kImad, kImul:
			x, y := av[l], bv[l]
			xs, ys := uint64(x), uint64(y)
			if o.sub&1 != 0 {
				xs = uint64(int64(int32(x)))
			}
			if o.sub&2 != 0 {
				ys = uint64(int64(int32(y)))
			}
			lo := xs * ys // the low 64 bits of the (sign-extended) product
			prod := uint64(uint32(lo))
			if o.flags&fHI != 0 {
				prod = lo >> 32
			}
			if o.kind == kImul {
				r = uint32(prod)
				break
			}
			z := uint64(cv[l])
			if c.neg {
				z = uint64(-uint32(z))
			}
			s := prod + z
			if o.flags&fX != 0 {
				s += cin
			}
			r, carry = uint32(s), s>>32 != 0
			if o.flags&fSAT != 0 {
				// IMAD.HI.SAT (PTX mad.hi.sat.s32): the signed sum clamped
				r = uint32(max(min(int64(int32(prod))+int64(int32(z)), 1<<31-1), -1<<31))
			}
		case kIscadd:
			// a negated operand enters the adder inverted with a carry
			// in of 1, as in IADD: subtracting 0 carries out
			x, y := uint64(av[l]<<(c.imm&31)), uint64(bv[l])
			var extra uint64
			if a.neg {
				x, extra = uint64(^uint32(x)), extra+1
			}
			if b.neg {
				y, extra = uint64(^uint32(y)), extra+1
			}
			s := x + y + extra
			r, carry = uint32(s), s>>32 != 0
		case kLea:
			x := uint64(av[l] << (c.imm & 31))
			var extra uint64
			if a.neg {
				x, extra = uint64(^uint32(x)), 1
			}
			if o.flags&fX != 0 {
				extra = cin
			}
			s := x + uint64(bv[l]) + extra
			r, carry = uint32(s), s>>32 != 0
		case kLeaHi:
			x, y, z := av[l], bv[l], cv[l]
			sh := o.s[3].imm & 63
			wide := uint64(z)<<32 | uint64(x)
			s := uint64(uint32(wide<<sh>>32)) + uint64(y)
			if o.flags&fX != 0 {
				s += cin
			}
			r, carry = uint32(s), s>>32 != 0
			if r != 0 {
				// the predicate output: our model of ptxas's generic-address
				// test, true for a global address (high word non-zero)
				pOut |= 1 << l
			}
		case kLop:
			x, y := av[l], bv[l]
			if a.not {
				x = ^x
			}
			if b.not {
				y = ^y
			}
			switch o.sub {
			case 0:
				r = x & y
			case 1:
				r = x | y
			case 2:
				r = x ^ y
			default:
				r = y
			}
			if r != 0 {
				pOut |= 1 << l
			}
		case kLop3:
			x, y, z := av[l], bv[l], cv[l]
			r = lop3(o.sub, x, y, z)
			if r != 0 {
				pOut |= 1 << l
			}
		case kShl:
			x, n := av[l], bv[l]
			if o.flags&fW != 0 {
				n &= 31
			}
			if n < 32 {
				r = x << n
			}
		case kShr:
			x, n := av[l], bv[l]
			if o.flags&fW != 0 {
				n &= 31
			}
			n = min(n, 31+uint32(b2u(o.flags&fSigned == 0)))
			if o.flags&fSigned != 0 {
				r = uint32(int32(x) >> n)
			} else if n < 32 {
				r = x >> n
			}
		case kShf:
			x, n, z := av[l], bv[l], cv[l]
			if o.flags&fW != 0 {
				n &= 31
			} else if o.flags&f64 != 0 {
				n = min(n, 64)
			} else {
				n = min(n, 32)
			}
			wide := uint64(z)<<32 | uint64(x)
			if o.flags&fL != 0 {
				if n < 64 {
					r = uint32(wide << n >> 32)
				}
			} else {
				var v uint64
				if o.flags&fSigned != 0 {
					v = uint64(int64(wide) >> min(n, 63))
				} else if n < 64 {
					v = wide >> n
				}
				r = uint32(v)
				if o.flags&fHI != 0 {
					r = uint32(v >> 32)
				}
			}
		case kBfe:
			x, ctl := av[l], bv[l]
			if o.flags&fBREV != 0 {
				x = bits.Reverse32(x)
			}
			pos, n := ctl&0xff, ctl>>8&0xff
			signed := !unsigned
			if n == 0 {
				r = 0
				break
			}
			var v uint64
			if pos < 32 {
				v = uint64(x) >> pos
			}
			if signed {
				sv := int64(int32(x)) >> min(pos, 31)
				v = uint64(sv)
			}
			if n < 32 {
				m := uint64(1)<<n - 1
				v &= m
				if signed && n < 64 && v>>(n-1)&1 != 0 {
					v |= ^m
				}
			}
			r = uint32(v)
		case kBfi:
			x, ctl, z := av[l], bv[l], cv[l]
			pos, n := ctl&0xff, ctl>>8&0xff
			if pos >= 32 || n == 0 {
				r = z
				break
			}
			m := uint32((uint64(1)<<min(n, 32) - 1) << pos)
			r = z&^m | x<<pos&m
		case kPopc:
			x := k.val(regs, &o.s[o.nsrc-1], l)
			if o.s[o.nsrc-1].not {
				x = ^x
			}
			if o.nsrc == 2 {
				x &= av[l]
			}
			r = uint32(bits.OnesCount32(x))
		case kFlo:
			x := av[l]
			if a.not {
				x = ^x
			}
			if !unsigned && int32(x) < 0 {
				x = ^x
			}
			if x == 0 {
				r = ^uint32(0)
			} else {
				r = uint32(31 - bits.LeadingZeros32(x))
				if o.flags&fSH != 0 {
					r = 31 - r
				}
			}
		case kImnmx:
			x, y := av[l], bv[l]
			isMin := pred(regs, c)>>l&1 != 0
			less := int32(x) < int32(y)
			if unsigned {
				less = x < y
			}
			switch {
			case o.flags&fXHI != 0:
				// the high words of a 64-bit min/max: remember equality and
				// order for the XLO half
				eq := x == y
				ccs := regs[ccRow : ccRow+4]
				ccs[1] = ccs[1]&^(1<<l) | uint32(b2u(eq))<<l
				ccs[0] = ccs[0]&^(1<<l) | uint32(b2u(less))<<l
			case o.flags&fXLO != 0:
				if regs[ccRow+1]>>l&1 == 0 {
					less = regs[ccRow]>>l&1 != 0
				} else {
					less = x < y
				}
			}
			if less == isMin {
				r = x
			} else {
				r = y
			}
		case kIsetp, kIset:
			x, y := av[l], bv[l]
			var t bool
			if o.flags&fX != 0 {
				// the high words of a 64-bit comparison: the low words'
				// subtraction left the carry (no borrow) and zero flags
				t = icmpX(o.sub, x, y, unsigned, cc>>l&1 != 0, regs[ccRow+1]>>l&1 != 0)
			} else {
				t = icmp(o.sub, x, y, unsigned)
			}
			pc := pred(regs, c)>>l&1 != 0
			res := combine(o.bop, t, pc)
			if o.kind == kIsetp {
				if res {
					pOut |= 1 << l
				}
				if combine(o.bop, !t, pc) {
					ccOut |= 1 << l // second destination
				}
				continue
			}
			if res {
				r = ^uint32(0)
				if o.flags&fBF != 0 {
					r = 0x3f800000
				}
			}
		case kIcmp:
			x, y, z := av[l], bv[l], cv[l]
			if icmp(o.sub, z, 0, unsigned) {
				r = x
			} else {
				r = y
			}
		case kVabsdiff:
			x := videoOperand(av[l], a.sel, o.st)
			y := videoOperand(bv[l], b.sel, o.dt)
			dv := x - y
			if dv < 0 {
				dv = -dv
			}
			r = uint32(dv)
			if o.flags&fArrive != 0 {
				r += cv[l]
			}
		case kVabsdiff4:
			x, y := av[l], bv[l]
			for i := 0; i < 32; i += 8 {
				p, q := int32(x>>i&0xff), int32(y>>i&0xff)
				if o.st == tS8 {
					p, q = int32(int8(p)), int32(int8(q))
				}
				r += uint32(max(p-q, q-p))
			}
			if o.flags&fArrive != 0 {
				r += cv[l]
			}
		case kVideo:
			r = video(o, a, b, av[l], bv[l], cv[l])
		case kPrmt:
			x, sel, z := av[l], bv[l], cv[l]
			r = prmt(o.sub, x, sel, z)
		}
		regs[d+l] = r
		if carry {
			ccOut |= 1 << l
		}
	}
	switch o.kind {
	case kIsetp:
		setPred(regs, &o.d, mask, pOut)
		setPred(regs, &o.d2, mask, ccOut)
		return
	case kLeaHi:
		setPred(regs, &o.d2, mask, pOut)
	case kLop, kLop3:
		v := pOut
		if o.flags&fZ != 0 {
			v = ^v
		}
		setPred(regs, &o.d2, mask, v)
	}
	if o.flags&fCC != 0 {
		if o.kind == kImnmx && o.flags&fXHI != 0 {
			return // the comparison flags were written per lane
		}
		writeCC(regs, ccRow, mask, d, ccOut, ovOut)
	}
}

// writeCC sets the condition code from results in row d: carry and overflow
// as given, zero and sign from the values.
func writeCC(regs []uint32, ccRow int, mask uint32, d int, carry, ov uint32) {
	var z, sg uint32
	for l := range 32 {
		v := regs[d+l]
		if v == 0 {
			z |= 1 << l
		}
		sg |= v >> 31 << l
	}
	cc := regs[ccRow : ccRow+4]
	cc[0] = cc[0]&^mask | carry&mask
	cc[1] = cc[1]&^mask | z&mask
	cc[2] = cc[2]&^mask | sg&mask
	cc[3] = cc[3]&^mask | ov&mask
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// icmpX compares the high words of a 64-bit subtraction whose low words set
// carry (no borrow) and zero.
func icmpX(cond uint8, a, b uint32, unsigned, carry, zero bool) bool {
	var rel uint8
	switch {
	case a == b && zero && carry:
		rel = 2
	case a == b:
		if carry {
			rel = 4
		} else {
			rel = 1
		}
	case unsigned && a < b, !unsigned && int32(a) < int32(b):
		rel = 1
	default:
		rel = 4
	}
	return cond&rel != 0
}

func lop3(lut uint8, a, b, c uint32) uint32 {
	var r uint32
	for i := range 8 {
		if lut>>i&1 == 0 {
			continue
		}
		t := ^uint32(0)
		if i&4 != 0 {
			t &= a
		} else {
			t &= ^a
		}
		if i&2 != 0 {
			t &= b
		} else {
			t &= ^b
		}
		if i&1 != 0 {
			t &= c
		} else {
			t &= ^c
		}
		r |= t
	}
	return r
}

// prmt permutes the bytes of {c, a} (a the low word) by selector sel.
func prmt(mode uint8, a, sel, c uint32) uint32 {
	src := uint64(c)<<32 | uint64(a)
	byteAt := func(i uint32) uint32 { return uint32(src >> (8 * (i & 7)) & 0xff) }
	var r uint32
	if mode == 0 {
		for i := range 4 {
			s := sel >> (4 * i) & 0xf
			v := byteAt(s & 7)
			if s&8 != 0 {
				if v&0x80 != 0 {
					v = 0xff
				} else {
					v = 0
				}
			}
			r |= v << (8 * i)
		}
		return r
	}
	n := sel & 3
	var idx [4]uint32
	switch mode {
	case 1: // F4E
		idx = [4]uint32{n, n + 1, n + 2, n + 3}
	case 2: // B4E
		idx = [4]uint32{n + 8 - 0, n + 7, n + 6, n + 5}
		for i := range idx {
			idx[i] = (n - uint32(i) + 8) & 7
		}
	case 3: // RC8
		idx = [4]uint32{n, n, n, n}
	case 4: // ECL
		idx = [4]uint32{n, max(n, 1), max(n, 2), 3}
	case 5: // ECR
		idx = [4]uint32{0, min(n, 1), min(n, 2), n}
	case 6: // RC16
		if n&1 != 0 {
			idx = [4]uint32{2, 3, 2, 3}
		} else {
			idx = [4]uint32{0, 1, 0, 1}
		}
	}
	for i := range 4 {
		r |= byteAt(idx[i]&7) << (8 * i)
	}
	return r
}

// video is a scalar video instruction (VADD, VMNMX, VSET, VSHL, VSHR, VMAD):
// the operation on the selected, extended operands, saturation to the
// destination type, then the secondary operation with c.
func video(o *op, a, b *opnd, x, y, c uint32) uint32 {
	ta := videoOperand(x, a.sel, o.st)
	tb := videoOperand(y, b.sel, o.dt)
	if a.neg {
		ta = -ta
	}
	if b.neg {
		tb = -tb
	}
	unsignedD := o.flags&fUD != 0
	var r int64
	switch o.sub {
	case vAdd:
		r = ta + tb
	case vMnmx:
		if (ta > tb) == (o.flags&fXHI != 0) {
			r = ta
		} else {
			r = tb
		}
	case vSet:
		var rel uint8 = 4
		switch {
		case ta < tb:
			rel = 1
		case ta == tb:
			rel = 2
		}
		if o.rnd&rel != 0 {
			r = 1
		}
	case vShl, vShr:
		n := uint64(uint32(y))
		if b.sel != 0 {
			n = uint64(tb)
		}
		if o.flags&fW != 0 {
			n &= 31
		} else {
			n = min(n, 32)
		}
		if o.sub == vShl {
			r = int64(uint64(ta) << n)
		} else {
			r = ta >> n // ta is sign- or zero-extended: arithmetic or logical
		}
	case vMad:
		// c is signed unless both operand types are unsigned
		r = ta*tb + int64(int32(c))
		if !isSigned(o.st) && !isSigned(o.dt) {
			r = ta*tb + int64(c)
		}
		if o.size != 0 {
			r >>= o.size
		}
	}
	if o.sub != vMad {
		r = videoSat(r, o, unsignedD)
		switch o.bop {
		case v2Add:
			r = int64(uint32(r) + c)
		case v2Min, v2Max:
			cv := int64(int32(c))
			if unsignedD {
				cv = int64(c)
			}
			if (o.bop == v2Max) == (cv > r) {
				r = cv
			}
		}
	} else {
		r = videoSat(r, o, unsignedD)
	}
	return uint32(r)
}

// videoSat clamps to the destination type's range under .SAT.
func videoSat(r int64, o *op, unsignedD bool) int64 {
	if o.flags&fSAT == 0 {
		return r
	}
	if unsignedD {
		return max(0, min(r, 1<<32-1))
	}
	return max(-1<<31, min(r, 1<<31-1))
}

// videoOperand is a video instruction's operand: a byte or half selected
// (or the whole word), extended by its type.
func videoOperand(v uint32, sel uint8, t uint8) int64 {
	if sel == 0 {
		switch t {
		case tU8, tS8:
			sel = 3 // .B0
		case tU16, tS16:
			sel = 1 // .H0
		}
	}
	switch sel {
	case 1, 2:
		v = v >> (16 * (sel - 1)) & 0xffff
		if t == tS16 || t == tS32 || t == tS8 {
			return int64(int16(v))
		}
		return int64(v)
	case 3, 4, 5, 6:
		v = v >> (8 * (sel - 3)) & 0xff
		if t == tS8 || t == tS16 || t == tS32 {
			return int64(int8(v))
		}
		return int64(v)
	}
	if t == tS32 || t == tS16 || t == tS8 {
		return int64(int32(v))
	}
	return int64(v)
}
