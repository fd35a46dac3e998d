package maxwell

import (
	"math"

	"github.com/gpuisa/gpuisa/emu"
)

// halves splits a packed pair by an operand's swizzle (.H0_H0, .H1_H1, or
// both as they are) and applies its -x and |x| to each half.
func halves(v uint32, s *opnd) [2]uint16 {
	lo, hi := uint16(v), uint16(v>>16)
	switch s.sel {
	case 7:
		hi = lo
	case 8:
		lo = hi
	}
	h := [2]uint16{lo, hi}
	for i := range h {
		if s.abs {
			h[i] &^= 0x8000
		}
		if s.neg {
			h[i] ^= 0x8000
		}
	}
	return h
}

// flush16 turns a half denormal into a zero of the same sign.
func flush16(h uint16) uint16 {
	if h&0x7c00 == 0 {
		return h & 0x8000
	}
	return h
}

// halfOut rounds an exact result to a half with .SAT and .FTZ.
func halfOut(x float64, o *op) uint16 {
	if o.flags&fSAT != 0 {
		switch {
		case x != x || x < 0:
			x = 0
		case x > 1:
			x = 1
		}
	}
	h := floatToHalf(x, 0)
	if x != x {
		h = 0x7fff
	}
	if o.flags&fFTZ != 0 {
		h = flush16(h)
	}
	return h
}

// halfOps runs the sm_53 half-precision pair instructions. Sums and
// products of halves are exact in float64, so one rounding gives the
// correctly rounded result.
func (k *Kernel) halfOps(w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	d := int(o.d.row) * 32
	ftz := o.flags&fFTZ != 0
	val := func(s *opnd, l int) [2]float64 {
		h := halves(k.val(regs, s, l), s)
		var f [2]float64
		for i := range h {
			if ftz {
				h[i] = flush16(h[i])
			}
			f[i] = float64(halfToFloat(h[i]))
		}
		return f
	}
	var p0, p1 uint32
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		a, b := val(&o.s[0], l), val(&o.s[1], l)
		var r [2]uint16
		switch o.kind {
		case kHadd2:
			for i := range r {
				r[i] = halfOut(a[i]+b[i], o)
			}
		case kHmul2:
			for i := range r {
				r[i] = halfOut(a[i]*b[i], o)
			}
		case kHfma2:
			c := val(&o.s[2], l)
			for i := range r {
				r[i] = halfOut(math.FMA(a[i], b[i], c[i]), o)
			}
		case kHsetp2, kHset2:
			pc := pred(regs, &o.s[2])>>l&1 != 0
			for i := range r {
				if combine(o.bop, fcmp(o.sub, a[i], b[i]), pc) {
					r[i] = 0xffff
					if o.flags&fBF != 0 {
						r[i] = 0x3c00
					}
				}
			}
			if o.kind == kHsetp2 {
				p0 |= uint32(r[0]&1) << l
				p1 |= uint32(r[1]&1) << l
				continue
			}
		}
		regs[d+l] = uint32(r[0]) | uint32(r[1])<<16
	}
	if o.kind == kHsetp2 {
		setPred(regs, &o.d, mask, p0)
		setPred(regs, &o.d2, mask, p1)
	}
}
