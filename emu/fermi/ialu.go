package fermi

import (
	"math/bits"

	"github.com/gpuisa/gpuisa/emu"
)

// ialu runs the integer, move and select instructions.
func (k *Kernel) ialu(w *emu.Warp, o *op, mask uint32, sc *scratch) {
	regs := w.Regs
	switch o.kind {
	case kIsetp:
		k.isetp(regs, o, mask, sc)
		return
	case kIset:
		k.iset(regs, o, mask, sc)
		return
	}
	a := k.row(regs, &o.s[0], &sc.a)
	d := int(o.d.row)
	r := &sc.r
	direct := mask == ^uint32(0) && o.flags&(fCCOut|fX|fSAT) == 0 && o.kind != kMov
	if direct {
		r = rowAt(regs, d)
	}
	if o.flags&(fCCOut|fX|fSAT) != 0 {
		k.ialuCC(w, o, mask, sc)
		return
	}
	switch o.kind {
	case kMov:
		m := mask
		if o.lanes != 0xf {
			m &= quadLanes(o.lanes)
		}
		write(regs, d, m, a)
		return
	case kIadd:
		b := k.row(regs, &o.s[1], &sc.b)
		switch {
		case !o.s[0].neg && !o.s[1].neg:
			addLanes(r, a, b)
		case !o.s[0].neg:
			subLanes(r, a, b)
		case !o.s[1].neg:
			subLanes(r, b, a)
		default:
			for l := range r {
				r[l] = -a[l] - b[l]
			}
		}
	case kIscadd:
		b := k.row(regs, &o.s[1], &sc.b)
		sh := o.sub & 31
		if !o.s[0].neg && !o.s[1].neg {
			scaddLanes(r, a, b, sh)
			break
		}
		na, nb := negMask(o.s[0].neg), negMask(o.s[1].neg)
		for l := range r {
			r[l] = ((a[l]^na)-na)<<sh + (b[l] ^ nb) - nb
		}
	case kImul:
		b := k.row(regs, &o.s[1], &sc.b)
		if o.flags&fHI == 0 {
			mulLanes(r, a, b)
		} else {
			for l := range r {
				r[l] = uint32(product(a[l], b[l], o.flags) >> 32)
			}
		}
	case kImad:
		b := k.row(regs, &o.s[1], &sc.b)
		c := k.row(regs, &o.s[2], &sc.c)
		if o.flags&fHI == 0 && !o.s[0].neg && !o.s[2].neg {
			madLanes(r, a, b, c)
		} else {
			for l := range r {
				r[l], _, _ = imad(a[l], b[l], c[l], 0, o)
			}
		}
	case kShl:
		if o.s[1].kind == oImm {
			n := uint32(o.s[1].imm)
			if o.flags&fW != 0 {
				n &= 31
			}
			if n >= 32 {
				*r = lanes{}
				break
			}
			shlLanes(r, a, n)
			break
		}
		b := k.row(regs, &o.s[1], &sc.b)
		if o.flags&fW != 0 {
			for l := range r {
				r[l] = a[l] << (b[l] & 31)
			}
		} else {
			for l := range r {
				r[l] = uint32(uint64(a[l]) << min(b[l], 32))
			}
		}
	case kShr:
		if o.flags&fBREV != 0 {
			b := k.row(regs, &o.s[1], &sc.b)
			for l := range r {
				r[l] = shr(a[l], b[l], o.flags)
			}
			break
		}
		if o.s[1].kind == oImm {
			n := uint32(o.s[1].imm)
			if o.flags&fW != 0 {
				n &= 31
			}
			switch {
			case o.flags&fU32 == 0:
				sarLanes(r, a, min(n, 31))
			case n >= 32:
				*r = lanes{}
			default:
				shrLanes(r, a, n)
			}
			break
		}
		b := k.row(regs, &o.s[1], &sc.b)
		switch o.flags & (fW | fU32) {
		case fW | fU32:
			for l := range r {
				r[l] = a[l] >> (b[l] & 31)
			}
		case fW:
			for l := range r {
				r[l] = uint32(int32(a[l]) >> (b[l] & 31))
			}
		default:
			for l := range r {
				r[l] = shr(a[l], b[l], o.flags)
			}
		}
	case kLop:
		b := k.row(regs, &o.s[1], &sc.b)
		na, nb := notMask(o.s[0].not), notMask(o.s[1].not)
		switch o.sub {
		case 0:
			andLanes(r, a, b, na, nb)
		case 1:
			orLanes(r, a, b, na, nb)
		case 2:
			xorLanes(r, a, b, na, nb)
		default: // PASS_B
			for l := range r {
				r[l] = b[l] ^ nb
			}
		}
	case kBfe:
		b := k.row(regs, &o.s[1], &sc.b)
		if o.flags&(fU32|fBREV) == fU32 {
			// unsigned: the field's bits past 31 read 0, so one 64-bit
			// shift and mask serve every position and length
			if uniform(b) {
				pos, n := b[0]&0xff, min(b[0]>>8&0xff, 32)
				bfeUniform(r, a, min(pos, 63), uint64(1)<<n-1)
				break
			}
			for l := range r {
				pos, n := b[l]&0xff, min(b[l]>>8&0xff, 32)
				r[l] = uint32(uint64(a[l]) >> pos & (1<<n - 1))
			}
		} else {
			for l := range r {
				r[l] = bfe(a[l], b[l], o.flags)
			}
		}
	case kBfi:
		b := k.row(regs, &o.s[1], &sc.b)
		c := k.row(regs, &o.s[2], &sc.c)
		if o.s[1].kind == oImm || o.s[1].kind == oConst {
			bfiLanes(r, a, uint32(o.s[1].imm), c)
			break
		}
		for l := range r {
			r[l] = bfi(a[l], b[l], c[l])
		}
	case kFlo:
		for l := range r {
			r[l] = flo(a[l], o)
		}
	case kPopc:
		b := k.row(regs, &o.s[1], &sc.b)
		na, nb := notMask(o.s[0].not), notMask(o.s[1].not)
		for l := range r {
			r[l] = uint32(bits.OnesCount32((a[l] ^ na) & (b[l] ^ nb)))
		}
	case kImnmx:
		b := k.row(regs, &o.s[1], &sc.b)
		p := pred(regs, &o.s[2])
		unsigned := o.flags&fU32 != 0
		if p == ^uint32(0) || p == 0 {
			minMaxLanes(r, a, b, p != 0, unsigned)
			break
		}
		for l := range r {
			lt := a[l] < b[l]
			if !unsigned {
				lt = int32(a[l]) < int32(b[l])
			}
			if lt == (p>>l&1 != 0) { // min when the predicate holds, max when not
				r[l] = a[l]
			} else {
				r[l] = b[l]
			}
		}
	case kIcmp:
		b := k.row(regs, &o.s[1], &sc.b)
		c := k.row(regs, &o.s[2], &sc.c)
		unsigned := o.flags&fU32 != 0
		for l := range r {
			if icmp(o.sub, c[l], 0, unsigned) {
				r[l] = a[l]
			} else {
				r[l] = b[l]
			}
		}
	case kIsad:
		b := k.row(regs, &o.s[1], &sc.b)
		c := k.row(regs, &o.s[2], &sc.c)
		unsigned := o.flags&fU32 != 0
		for l := range r {
			x, y := a[l], b[l]
			var diff uint32
			switch {
			case unsigned && x >= y, !unsigned && int32(x) >= int32(y):
				diff = x - y
			default:
				diff = y - x
			}
			r[l] = diff + c[l]
		}
	case kSel:
		b := k.row(regs, &o.s[1], &sc.b)
		selLanes(r, a, b, pred(regs, &o.s[2]))
	case kPrmt:
		b := k.row(regs, &o.s[1], &sc.b)
		c := k.row(regs, &o.s[2], &sc.c)
		if bits.OnesCount32(mask) <= 4 {
			// a few lanes (a warp's leader): each by the table, not the
			// whole row's windows
			for m := mask; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m)
				r[l] = prmt(a[l], b[l], c[l], o.sub)
			}
			break
		}
		if sel, ok := scalarSource(&o.s[1]); ok && o.sub == 0 && sel&0x8888 == 0 {
			prmtScalar(r, a, sel, c)
			break
		}
		if o.sub == 0 {
			if sc.prmt.ok && *b == sc.prmt.sel {
				prmtBackward(r, a, &sc.prmt.shift, c)
				break
			}
			sel := *b // r may be the selector's row
			if prmtLanes(r, a, &sel, c) {
				sc.prmt.sel = sel
				for l := range sel {
					sc.prmt.shift[l] = sel[l] >> 9 & 0x38
				}
				sc.prmt.ok = true
			}
			break
		}
		for l := range r {
			r[l] = prmt(a[l], b[l], c[l], o.sub)
		}
	default:
		return
	}
	if !direct {
		write(regs, dstRow(&o.d, 0), mask, r)
	}
}

// quadLanes is the lane mask of a MOV lane mask: lane l writes when bit
// l%4 is set (as Tesla's MOV lane masks; no sm_2x listing shows one).
func quadLanes(m uint8) uint32 {
	var q uint32
	for l := range 32 {
		if m>>(l&3)&1 != 0 {
			q |= 1 << l
		}
	}
	return q
}

func negMask(neg bool) uint32 {
	if neg {
		return ^uint32(0)
	}
	return 0
}

func notMask(not bool) uint32 { return negMask(not) }

// product is a*b as 64 bits, each factor signed or not as the flags say.
func product(a, b uint32, flags uint32) uint64 {
	x, y := int64(a), int64(b)
	if flags&fASgn != 0 {
		x = int64(int32(a))
	}
	if flags&fBSgn != 0 {
		y = int64(int32(b))
	}
	return uint64(x * y)
}

// imad is a*b+c (the low or, with .HI, high word of the product; -a negates
// the product, -c the addend) with carry-in cin; it returns the result, the
// carry out and the signed overflow.
func imad(a, b, c, cin uint32, o *op) (r uint32, carry, ov bool) {
	p := product(a, b, o.flags)
	if o.s[0].neg {
		p = -p
	}
	x := uint32(p)
	if o.flags&fHI != 0 {
		x = uint32(p >> 32)
	}
	y := c
	if o.s[2].neg {
		y = ^c
		if o.flags&fX == 0 {
			cin = 1
		}
	}
	s := uint64(x) + uint64(y) + uint64(cin)
	r = uint32(s)
	return r, s>>32 != 0, (x^r)&(y^r)>>31 != 0
}

// shr is SHR: a shift right, arithmetic unless .U32; amounts past 31 clamp
// (or wrap with .W); .BREV reverses a's bits first.
func shr(a, b uint32, flags uint32) uint32 {
	if flags&fBREV != 0 {
		a = bits.Reverse32(a)
	}
	if flags&fW != 0 {
		b &= 31
	} else {
		b = min(b, 32)
	}
	if flags&fU32 != 0 {
		return uint32(uint64(a) >> b)
	}
	return uint32(int64(int32(a)) >> b)
}

// bfe extracts the field of b's length (bits 8..15) at b's position (bits
// 0..7) from a, sign-extending it unless .U32 (PTX bfe: bits past 31 read
// as the sign bit, the sign bit being the field's top bit within a).
func bfe(a, b uint32, flags uint32) uint32 {
	if flags&fBREV != 0 {
		a = bits.Reverse32(a)
	}
	pos, n := b&0xff, b>>8&0xff
	var sbit uint32
	if flags&fU32 == 0 && n > 0 {
		top := min(pos+n-1, 31)
		sbit = a >> top & 1
	}
	var r uint32
	for i := uint32(0); i < min(n, 32); i++ {
		var v uint32
		if pos+i < 32 {
			v = a >> (pos + i) & 1
		} else {
			v = sbit
		}
		r |= v << i
	}
	if sbit != 0 && n < 32 {
		r |= ^uint32(0) << n
	}
	return r
}

// bfi inserts a's low bits into c at the field b gives (position bits
// 0..7, length 8..15); bits past 31 are dropped.
func bfi(a, b, c uint32) uint32 {
	pos, n := b&0xff, b>>8&0xff
	if pos >= 32 || n == 0 {
		return c
	}
	n = min(n, 32-pos)
	m := uint32(uint64(1)<<n-1) << pos
	return c&^m | a<<pos&m
}

// bfiLanes is BFI with one field for every lane (b a constant).
func bfiLanes(r, a *lanes, b uint32, c *lanes) {
	pos, n := b&0xff, b>>8&0xff
	if pos >= 32 || n == 0 {
		*r = *c
		return
	}
	n = min(n, 32-pos)
	pos &= 31 // below 32: no shift needs a range check
	m := uint32(uint64(1)<<n-1) << pos
	qr, qa, qc := qd(r), qd(a), qd(c)
	for g := range qr {
		qr[g][0] = qc[g][0]&^m | qa[g][0]<<pos&m
		qr[g][1] = qc[g][1]&^m | qa[g][1]<<pos&m
		qr[g][2] = qc[g][2]&^m | qa[g][2]<<pos&m
		qr[g][3] = qc[g][3]&^m | qa[g][3]<<pos&m
	}
}

// flo is the bit position of the most significant 1 (unsigned) or of the
// most significant bit that differs from the sign (signed), 0xffffffff when
// none; .SH gives 31 minus it; ~ complements the source first.
func flo(a uint32, o *op) uint32 {
	if o.s[0].not {
		a = ^a
	}
	if o.flags&fU32 == 0 && int32(a) < 0 {
		a = ^a
	}
	if a == 0 {
		return ^uint32(0)
	}
	p := uint32(31 - bits.LeadingZeros32(a))
	if o.flags&fSH != 0 {
		return 31 - p
	}
	return p
}

// prmt picks bytes of the pair {b:a} (a bytes 0-3, b bytes 4-7) as the
// selector s says; the modes are PTX's prmt modes.
func prmt(a, s, b uint32, mode uint8) uint32 {
	src := uint64(b)<<32 | uint64(a)
	byteOf := func(i uint32) uint32 { return uint32(src >> (8 * (i & 7)) & 0xff) }
	var sel [4]uint32
	switch mode {
	case 0: // generic: a nibble per byte, bit 3 replicates the byte's sign
		var r uint32
		for i := range 4 {
			n := s >> (4 * i) & 0xf
			v := byteOf(n & 7)
			if n&8 != 0 {
				v = (v >> 7) * 0xff
			}
			r |= v << (8 * i)
		}
		return r
	case 1: // F4E forward 4 extract
		c := s & 3
		sel = [4]uint32{c, c + 1, c + 2, c + 3}
	case 2: // B4E backward 4 extract
		c := s & 3
		sel = [4]uint32{c, c - 1, c - 2, c - 3}
		for i := range sel {
			sel[i] &= 7
		}
	case 3: // RC8 replicate byte
		c := s & 3
		sel = [4]uint32{c, c, c, c}
	case 4: // ECL edge clamp left
		c := s & 3
		sel = [4]uint32{c, max(c, 1), max(c, 2), 3}
	case 5: // ECR edge clamp right
		c := s & 3
		sel = [4]uint32{0, min(c, 1), min(c, 2), c}
	case 6: // RC16 replicate half
		c := s & 1
		sel = [4]uint32{2 * c, 2*c + 1, 2 * c, 2*c + 1}
	default:
		return 0
	}
	var r uint32
	for i, x := range sel {
		r |= byteOf(x) << (8 * i)
	}
	return r
}

// prmtScalar is PRMT's generic mode with one selector for every lane
// that replicates no sign: four byte moves by fixed shifts.
func prmtScalar(r, a *lanes, sel uint32, b *lanes) {
	s0, s1, s2, s3 := sel<<3&0x38, sel>>1&0x38, sel>>5&0x38, sel>>9&0x38
	qr, qa, qb := qd(r), qd(a), qd(b)
	pick := func(b, a uint32) uint32 {
		src := uint64(b)<<32 | uint64(a)
		return uint32(src>>s0)&0xff | uint32(src>>s1)&0xff<<8 | uint32(src>>s2)&0xff<<16 | uint32(src>>s3)<<24
	}
	for g := range qr {
		qr[g][0] = pick(qb[g][0], qa[g][0])
		qr[g][1] = pick(qb[g][1], qa[g][1])
		qr[g][2] = pick(qb[g][2], qa[g][2])
		qr[g][3] = pick(qb[g][3], qa[g][3])
	}
}

// minMaxLanes is IMNMX with one choice for every lane: the minimum or
// the maximum, unsigned or signed.
func minMaxLanes(r, a, b *lanes, takeMin, unsigned bool) {
	switch {
	case takeMin && unsigned:
		minLanesOf[uint32](r, a, b)
	case unsigned:
		maxLanesOf[uint32](r, a, b)
	case takeMin:
		minLanesOf[int32](r, a, b)
	default:
		maxLanesOf[int32](r, a, b)
	}
}

// minLanesOf and maxLanesOf compare as T, eight lanes a step (a loop
// over single lanes checks its three rows for nil in every step).
func minLanesOf[T uint32 | int32](r, a, b *lanes) {
	qr, qa, qb := od(r), od(a), od(b)
	for g := range qr {
		qr[g][0] = uint32(min(T(qa[g][0]), T(qb[g][0])))
		qr[g][1] = uint32(min(T(qa[g][1]), T(qb[g][1])))
		qr[g][2] = uint32(min(T(qa[g][2]), T(qb[g][2])))
		qr[g][3] = uint32(min(T(qa[g][3]), T(qb[g][3])))
		qr[g][4] = uint32(min(T(qa[g][4]), T(qb[g][4])))
		qr[g][5] = uint32(min(T(qa[g][5]), T(qb[g][5])))
		qr[g][6] = uint32(min(T(qa[g][6]), T(qb[g][6])))
		qr[g][7] = uint32(min(T(qa[g][7]), T(qb[g][7])))
	}
}

func maxLanesOf[T uint32 | int32](r, a, b *lanes) {
	qr, qa, qb := od(r), od(a), od(b)
	for g := range qr {
		qr[g][0] = uint32(max(T(qa[g][0]), T(qb[g][0])))
		qr[g][1] = uint32(max(T(qa[g][1]), T(qb[g][1])))
		qr[g][2] = uint32(max(T(qa[g][2]), T(qb[g][2])))
		qr[g][3] = uint32(max(T(qa[g][3]), T(qb[g][3])))
		qr[g][4] = uint32(max(T(qa[g][4]), T(qb[g][4])))
		qr[g][5] = uint32(max(T(qa[g][5]), T(qb[g][5])))
		qr[g][6] = uint32(max(T(qa[g][6]), T(qb[g][6])))
		qr[g][7] = uint32(max(T(qa[g][7]), T(qb[g][7])))
	}
}

func builtinMin[T uint32 | int32](x, y T) T { return min(x, y) }
func builtinMax[T uint32 | int32](x, y T) T { return max(x, y) }

// uniform reports whether every lane of x holds the same word.
func uniform(x *lanes) bool {
	q, v := od(x), x[0]
	var d uint32
	for g := range q {
		d |= (q[g][0] ^ v) | (q[g][1] ^ v) | (q[g][2] ^ v) | (q[g][3] ^ v) | (q[g][4] ^ v) | (q[g][5] ^ v) | (q[g][6] ^ v) | (q[g][7] ^ v)
	}
	return d == 0
}

// bfeUniform is BFE.U32 with one position and length for every lane: a
// shift (pos below 64) and a mask.
func bfeUniform(r, a *lanes, pos uint32, m uint64) {
	sh, m32 := pos&63, uint32(m)
	qr, qa := od(r), od(a)
	for g := range qr {
		qr[g][0] = uint32(uint64(qa[g][0])>>sh) & m32
		qr[g][1] = uint32(uint64(qa[g][1])>>sh) & m32
		qr[g][2] = uint32(uint64(qa[g][2])>>sh) & m32
		qr[g][3] = uint32(uint64(qa[g][3])>>sh) & m32
		qr[g][4] = uint32(uint64(qa[g][4])>>sh) & m32
		qr[g][5] = uint32(uint64(qa[g][5])>>sh) & m32
		qr[g][6] = uint32(uint64(qa[g][6])>>sh) & m32
		qr[g][7] = uint32(uint64(qa[g][7])>>sh) & m32
	}
}

// prmtBackward is prmtLanes' backward windows with each lane's shift
// known (prmtCache).
func prmtBackward(r, a, shift, b *lanes) {
	qr, qa, qs, qb := qd(r), qd(a), qd(shift), qd(b)
	for g := range qr {
		qr[g][0] = bits.ReverseBytes32(uint32((uint64(qb[g][0])<<32 | uint64(qa[g][0])) >> (qs[g][0] & 63)))
		qr[g][1] = bits.ReverseBytes32(uint32((uint64(qb[g][1])<<32 | uint64(qa[g][1])) >> (qs[g][1] & 63)))
		qr[g][2] = bits.ReverseBytes32(uint32((uint64(qb[g][2])<<32 | uint64(qa[g][2])) >> (qs[g][2] & 63)))
		qr[g][3] = bits.ReverseBytes32(uint32((uint64(qb[g][3])<<32 | uint64(qa[g][3])) >> (qs[g][3] & 63)))
	}
}

// prmtLanes is PRMT's generic mode, each lane with its own selector s.
// Selectors that replicate no sign (the usual byte moves) take bytes by
// shifts alone. It reports whether every lane took a backward window.
func prmtLanes(r, a, s, b *lanes) (backward bool) {
	// a window of four consecutive bytes in every lane, backward
	// (c*0x1111 + 0x0123, mgpu's BWT keys) or forward (c*0x1111 +
	// 0x3210), c at most 4 (past it a nibble has the sign bit): one shift
	// a lane, into t first (r may be a source)
	var t lanes
	qt, qa, qs, qb := qd(&t), qd(a), qd(s), qd(b)
	back := func(a, s, b uint32) (uint32, uint32) {
		c := s >> 12 & 7
		return bits.ReverseBytes32(uint32((uint64(b)<<32 | uint64(a)) >> (c << 3 & 63))), s ^ (c*0x1111 + 0x0123) | (c+3)&8
	}
	var bad, e0, e1, e2, e3 uint32
	for g := range qt {
		qt[g][0], e0 = back(qa[g][0], qs[g][0], qb[g][0])
		qt[g][1], e1 = back(qa[g][1], qs[g][1], qb[g][1])
		qt[g][2], e2 = back(qa[g][2], qs[g][2], qb[g][2])
		qt[g][3], e3 = back(qa[g][3], qs[g][3], qb[g][3])
		bad |= e0 | e1 | e2 | e3
	}
	if bad == 0 {
		*r = t
		return true
	}
	bad = 0
	for l := range t {
		sel := s[l]
		c := sel & 7
		bad |= sel ^ (c*0x1111 + 0x3210) | (c+3)&8
		t[l] = uint32((uint64(b[l])<<32 | uint64(a[l])) >> (c << 3 & 63))
	}
	if bad == 0 {
		*r = t
		return false
	}
	for l := range r {
		sel := s[l]
		if sel&0x8888 != 0 {
			r[l] = prmt(a[l], sel, b[l], 0)
			continue
		}
		src := uint64(b[l])<<32 | uint64(a[l])
		r[l] = uint32(src>>(sel<<3&0x38))&0xff | uint32(src>>(sel>>1&0x38))&0xff<<8 |
			uint32(src>>(sel>>5&0x38))&0xff<<16 | uint32(src>>(sel>>9&0x38))<<24
	}
	return false
}

// icmp compares a and b with comparison c (the icmp table: F LT EQ LE GT
// NE GE T).
func icmp(c uint8, a, b uint32, unsigned bool) bool {
	var lt, eq bool
	if unsigned {
		lt, eq = a < b, a == b
	} else {
		lt, eq = int32(a) < int32(b), a == b
	}
	return icmpResult(c, lt, eq)
}

// icmpX is the extended (.X) comparison of the high words a, b of two
// 64-bit values whose low words a preceding subtraction compared, leaving
// the carry (no borrow) and zero flags: the high words are subtracted with
// that borrow, and the pair is equal only when both differences are zero.
func icmpX(c uint8, a, b uint32, unsigned, carry, zero bool) bool {
	borrow := uint64(1)
	if carry {
		borrow = 0
	}
	d := uint64(a) - uint64(b) - borrow
	eq := uint32(d) == 0 && zero
	var lt bool
	if unsigned {
		lt = d>>32 != 0 // borrow out
	} else {
		s := int64(int32(a)) - int64(int32(b)) - int64(borrow)
		lt = s < 0
	}
	return icmpResult(c, lt, eq)
}

// icmpResult answers comparison c (the icmp table: F LT EQ LE GT NE GE T)
// from the outcomes less-than and equal.
func icmpResult(c uint8, lt, eq bool) bool {
	switch c & 7 {
	case 1:
		return lt
	case 2:
		return eq
	case 3:
		return lt || eq
	case 4:
		return !lt && !eq
	case 5:
		return !eq
	case 6:
		return !lt
	case 7:
		return true
	}
	return false
}

// bop combines predicate-style masks: the bop table AND, OR, XOR.
func bop(op uint8, x, y uint32) uint32 {
	switch op {
	case 1:
		return x | y
	case 2:
		return x ^ y
	}
	return x & y
}

// isetp: P = (a cmp b) bop p, Q = !(a cmp b) bop p.
func (k *Kernel) isetp(regs []uint32, o *op, mask uint32, sc *scratch) {
	t := k.icmpMask(regs, o, mask, sc)
	p := pred(regs, &o.s[2])
	setPred(regs, &o.d, mask, bop(o.sub2, t, p))
	setPred(regs, &o.d2, mask, bop(o.sub2, ^t, p))
}

// iset: the comparison combined with p as a register: all ones (or 1 with
// .BF) when it holds, else 0.
func (k *Kernel) iset(regs []uint32, o *op, mask uint32, sc *scratch) {
	t := bop(o.sub2, k.icmpMask(regs, o, mask, sc), pred(regs, &o.s[2]))
	on := ^uint32(0)
	if o.flags&fBF != 0 {
		on = 0x3f800000
	}
	r := &sc.r
	for l := range r {
		r[l] = 0
		if t>>l&1 != 0 {
			r[l] = on
		}
	}
	write(regs, dstRow(&o.d, 0), mask, r)
	if o.flags&fCCOut != 0 {
		var z, s uint32
		for l := range r {
			if r[l] == 0 {
				z |= 1 << l
			}
			if int32(r[l]) < 0 {
				s |= 1 << l
			}
		}
		setCC(regs, mask, z, s, 0, 0)
	}
}

// icmpMask is the lanes of mask where a cmp b holds (.X: extended by the
// condition code).
func (k *Kernel) icmpMask(regs []uint32, o *op, mask uint32, sc *scratch) uint32 {
	a := k.row(regs, &o.s[0], &sc.a)
	b := k.row(regs, &o.s[1], &sc.b)
	unsigned := o.flags&fU32 != 0
	var t uint32
	if o.flags&fX != 0 {
		cf := regs[rowFlags*32+flagC]
		zf := regs[rowFlags*32+flagZ]
		for l := range 32 {
			if icmpX(o.sub, a[l], b[l], unsigned, cf>>l&1 != 0, zf>>l&1 != 0) {
				t |= 1 << l
			}
		}
		return t
	}
	flip := uint32(0x80000000)
	if unsigned {
		flip = 0
	}
	return cmpLanes(o.sub, a, b, flip)
}

// ialuCC is the general path of the integer instructions that read or
// write the condition code (.X, .CC) or saturate. Adds and multiply-adds
// produce carry and overflow; the others set only zero and sign (LOP.X
// chains the zero flag: zero only when the previous word was zero too).
func (k *Kernel) ialuCC(w *emu.Warp, o *op, mask uint32, sc *scratch) {
	regs := w.Regs
	switch o.kind {
	case kIadd, kIscadd, kImad:
	default:
		plain := *o
		plain.flags &^= fCCOut | fX | fSAT
		k.ialu(w, &plain, mask, sc)
		if o.flags&fCCOut != 0 {
			row := rowAt(regs, dstRow(&o.d, 0))
			var z, s uint32
			for l := range row {
				if row[l] == 0 {
					z |= 1 << l
				}
				if int32(row[l]) < 0 {
					s |= 1 << l
				}
			}
			if o.kind == kLop && o.flags&fX != 0 {
				z &= regs[rowFlags*32+flagZ]
			}
			setCC(regs, mask, z, s, 0, 0)
		}
		return
	}
	a := k.row(regs, &o.s[0], &sc.a)
	b := k.row(regs, &o.s[1], &sc.b)
	c := &zeroLanes
	if o.s[2].kind != oNone {
		c = k.row(regs, &o.s[2], &sc.c)
	}
	cf := regs[rowFlags*32+flagC]
	r := &sc.r
	var zOut, sOut, cOut, oOut uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		cin := cf >> l & 1
		var res uint32
		var carry, ov bool
		switch o.kind {
		case kIadd:
			x, y := a[l], b[l]
			var c0 uint32
			if o.s[0].neg {
				x, c0 = ^x, c0+1
			}
			if o.s[1].neg {
				y, c0 = ^y, c0+1
			}
			if o.flags&fX != 0 {
				c0 = cin
			}
			s := uint64(x) + uint64(y) + uint64(c0)
			res, carry = uint32(s), s>>32 != 0
			ov = (x^res)&(y^res)>>31 != 0
			if o.flags&fSAT != 0 && ov {
				if int32(x) < 0 {
					res = 0x80000000
				} else {
					res = 0x7fffffff
				}
			}
		case kIscadd:
			x, y := a[l], b[l]
			if o.s[0].neg {
				x = -x
			}
			if o.s[1].neg {
				y = -y
			}
			x <<= o.sub & 31
			s := uint64(x) + uint64(y)
			res, carry = uint32(s), s>>32 != 0
			ov = (x^res)&(y^res)>>31 != 0
		case kImad:
			if o.flags&fX == 0 {
				cin = 0
			}
			res, carry, ov = imad(a[l], b[l], c[l], cin, o)
			if o.flags&fSAT != 0 && ov {
				if int32(res) >= 0 {
					res = 0x80000000
				} else {
					res = 0x7fffffff
				}
			}
		}
		r[l] = res
		if res == 0 {
			zOut |= 1 << l
		}
		if int32(res) < 0 {
			sOut |= 1 << l
		}
		if carry {
			cOut |= 1 << l
		}
		if ov {
			oOut |= 1 << l
		}
	}
	write(regs, dstRow(&o.d, 0), mask, r)
	if o.flags&fCCOut != 0 {
		setCC(regs, mask, zOut, sOut, cOut, oOut)
	}
}
