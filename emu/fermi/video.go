package fermi

import (
	"math/bits"

	"github.com/gpuisa/gpuisa/emu"
)

// Video instructions follow PTX's scalar video operations (vadd, vsub,
// vabsdiff, vmin, vmax, vshl, vshr, vmad, vset): each source is a byte,
// half or word of its register, sign- or zero-extended by its type; the
// operation works on the extended values; .SAT clamps to the destination
// type (signed unless .UD; to the byte or half a merge writes); then the
// secondary operation: .ACC adds c, .MIN and .MAX compare with c, .MRG_*
// merge the result into c's half or byte. Fermi spells vsub as a negated
// source and vmad's "plus one" as .PO.
func (k *Kernel) video(w *emu.Warp, o *op, mask uint32, sc *scratch) {
	regs := w.Regs
	a := k.row(regs, &o.s[0], &sc.a)
	b := k.row(regs, &o.s[1], &sc.b)
	var c *lanes = &zeroLanes
	if o.s[2].kind != oNone && o.s[2].kind != oPred {
		c = k.row(regs, &o.s[2], &sc.c)
	}
	if o.kind == kVadd && o.flags&(fSAT|fPO|fCCOut) == 0 && o.sub2 == vredAcc && o.s[0].sel == 6 && o.s[1].sel == 6 &&
		!o.s[0].neg && !o.s[1].neg {
		// the scans' three-way add: a + b + c (the word sources' signs do
		// not matter to a wrapped 32-bit sum)
		r := &sc.r
		if mask == ^uint32(0) {
			r = rowAt(regs, dstRow(&o.d, 0))
		}
		add3Lanes(r, a, b, c)
		if mask != ^uint32(0) {
			write(regs, dstRow(&o.d, 0), mask, r)
		}
		return
	}
	if o.kind == kVshr && o.flags&(fSAT|fUD|fW) == fUD|fW && o.sub2 == vredAcc && !o.s[0].sgn &&
		o.s[0].sel == 6 && o.s[1].sel == 0 && !o.s[0].neg && !o.s[1].neg {
		// the radix sorts' digit extraction: (a >> b.b0 % 32) + c
		r := &sc.r
		if mask == ^uint32(0) {
			r = rowAt(regs, dstRow(&o.d, 0))
		}
		for l := range r {
			r[l] = a[l]>>(b[l]&31) + c[l]
		}
		if mask != ^uint32(0) {
			write(regs, dstRow(&o.d, 0), mask, r)
		}
		return
	}
	if o.kind == kVshl && o.flags&(fSAT|fCCOut) == 0 && o.sub2 == vredAcc && o.s[0].sel == 6 && !o.s[0].neg && !o.s[1].neg {
		// the digit counters' increment: (a << b) + c; of a whole word a
		// the low 32 bits do not depend on its sign
		r := &sc.r
		if mask == ^uint32(0) {
			r = rowAt(regs, dstRow(&o.d, 0))
		}
		switch {
		case o.s[1].sel >= 6 && o.flags&fW != 0: // a whole-word amount, either sign
			for l := range r {
				r[l] = a[l]<<(b[l]&31) + c[l]
			}
		case o.s[1].sel >= 6:
			vshlAccLanes(r, a, b, c)
		default:
			for l := range r {
				n := uint64(uint32(vpart(b[l], o.s[1].sel, o.s[1].sgn)))
				if o.flags&fW != 0 {
					n &= 31
				} else {
					n = min(n, 32)
				}
				r[l] = uint32(uint64(a[l])<<n) + c[l]
			}
		}
		if mask != ^uint32(0) {
			write(regs, dstRow(&o.d, 0), mask, r)
		}
		return
	}
	signedD := o.flags&fUD == 0
	var t uint32
	r := &sc.r
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		ta := vpart(a[l], o.s[0].sel, o.s[0].sgn)
		tb := vpart(b[l], o.s[1].sel, o.s[1].sgn)
		if o.s[0].neg {
			ta = -ta
		}
		if o.s[1].neg {
			tb = -tb
		}
		var tmp int64
		switch o.kind {
		case kVadd:
			tmp = ta + tb
			if o.flags&fPO != 0 {
				tmp++
			}
		case kVabsdiff:
			tmp = ta - tb
			if tmp < 0 {
				tmp = -tmp
			}
		case kVmnmx:
			tmp = min(ta, tb)
			if o.flags&fMX != 0 {
				tmp = max(ta, tb)
			}
		case kVshl, kVshr:
			n := uint64(uint32(tb))
			if o.flags&fW != 0 {
				n &= 31
			} else {
				n = min(n, 32)
			}
			if o.kind == kVshl {
				tmp = int64(uint64(ta) << n)
			} else {
				tmp = ta >> n
			}
		case kVmad:
			// c is signed when either factor is (PTX vmad)
			tc := int64(c[l])
			if o.s[0].sgn || o.s[1].sgn {
				tc = int64(int32(c[l]))
			}
			if o.s[2].neg {
				tc = -tc
			}
			tmp = ta*tb + tc
			if o.flags&fPO != 0 {
				tmp++
			}
			tmp >>= []uint{0, 7, 15, 0}[o.sub2&3]
		case kVset, kVsetp:
			if vcmp(o.sub, ta, tb) {
				tmp = 1
				t |= 1 << l
			}
		}
		if o.kind == kVsetp {
			continue
		}
		if o.flags&fSAT != 0 && o.kind != kVset {
			red := o.sub2
			if o.kind == kVmad {
				red = vredNone
			}
			tmp = vsat(tmp, signedD, red)
		}
		r[l] = vsecond(o.kind, o.sub2, tmp, c[l], signedD)
	}
	if o.kind == kVsetp {
		p := pred(regs, &o.s[2])
		setPred(regs, &o.d, mask, bop(o.sub2, t, p))
		setPred(regs, &o.d2, mask, bop(o.sub2, ^t, p))
		return
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

// vpart is a video source: byte sel (0-3), half (4-5) or the word (6),
// sign- or zero-extended.
func vpart(v uint32, sel uint8, signed bool) int64 {
	switch {
	case sel < 4:
		x := v >> (8 * sel) & 0xff
		if signed {
			return int64(int8(x))
		}
		return int64(x)
	case sel < 6:
		x := v >> (16 * (sel - 4)) & 0xffff
		if signed {
			return int64(int16(x))
		}
		return int64(x)
	}
	if signed {
		return int64(int32(v))
	}
	return int64(v)
}

// vcmp compares with the icmp table (F LT EQ LE GT NE GE T).
func vcmp(c uint8, x, y int64) bool { return icmpResult(c, x < y, x == y) }

// Secondary operations (the vred table).
const (
	vredMrg16H = iota
	vredMrg16L
	vredMrg8B0
	vredMrg8B2
	vredAcc
	vredMin
	vredMax
	vredNone
)

// vsat clamps to the destination type, or to the byte or half a merge
// writes.
func vsat(x int64, signed bool, red uint8) int64 {
	n := uint(32)
	switch red {
	case vredMrg16H, vredMrg16L:
		n = 16
	case vredMrg8B0, vredMrg8B2:
		n = 8
	}
	lo, hi := int64(0), int64(1)<<n-1
	if signed {
		lo, hi = -(int64(1) << (n - 1)), int64(1)<<(n-1)-1
	}
	return min(max(x, lo), hi)
}

// vsecond applies the secondary operation with c.
func vsecond(k kind, red uint8, tmp int64, c uint32, signed bool) uint32 {
	if k == kVmad {
		return uint32(tmp)
	}
	switch red {
	case vredAcc:
		return uint32(tmp) + c
	case vredMin, vredMax:
		y := int64(c)
		if signed {
			y = int64(int32(c))
		}
		if red == vredMin {
			return uint32(min(tmp, y))
		}
		return uint32(max(tmp, y))
	case vredMrg16H:
		return c&0xffff | uint32(tmp)<<16
	case vredMrg16L:
		return c&0xffff0000 | uint32(tmp)&0xffff
	case vredMrg8B0:
		return c&^0xff | uint32(tmp)&0xff
	case vredMrg8B2:
		return c&^0xff0000 | uint32(tmp)&0xff<<16
	}
	return uint32(tmp)
}

// vshlAccLanes is VSHL.ACC of whole words: (a << b, clamped at 32) + c.
func vshlAccLanes(r, a, b, c *lanes) {
	qr, qa, qb, qc := od(r), od(a), od(b), od(c)
	for g := range qr {
		qr[g][0] = uint32(uint64(qa[g][0])<<(min(qb[g][0], 32)&63)) + qc[g][0]
		qr[g][1] = uint32(uint64(qa[g][1])<<(min(qb[g][1], 32)&63)) + qc[g][1]
		qr[g][2] = uint32(uint64(qa[g][2])<<(min(qb[g][2], 32)&63)) + qc[g][2]
		qr[g][3] = uint32(uint64(qa[g][3])<<(min(qb[g][3], 32)&63)) + qc[g][3]
		qr[g][4] = uint32(uint64(qa[g][4])<<(min(qb[g][4], 32)&63)) + qc[g][4]
		qr[g][5] = uint32(uint64(qa[g][5])<<(min(qb[g][5], 32)&63)) + qc[g][5]
		qr[g][6] = uint32(uint64(qa[g][6])<<(min(qb[g][6], 32)&63)) + qc[g][6]
		qr[g][7] = uint32(uint64(qa[g][7])<<(min(qb[g][7], 32)&63)) + qc[g][7]
	}
}
