package maxwell

import (
	"math"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/internal/fp"
)

// fsrc applies an operand's |x| and -x to float bits (and .H1 for halves).
func fsrc(v uint32, s *opnd) uint32 {
	if s.abs {
		v &^= 1 << 31
	}
	if s.neg {
		v ^= 1 << 31
	}
	return v
}

// flush turns denormals into zeros of the same sign.
func flush(v uint32) uint32 {
	if v&0x7f800000 == 0 {
		return v & 0x80000000
	}
	return v
}

// round32 rounds the float64 x (exact, or within float64 precision of the
// exact result) to float32 in mode rnd (0 RN, 1 RM, 2 RP, 3 RZ).
func round32(x float64, rnd uint8) float32 {
	f := float32(x)
	if rnd == 0 || math.IsNaN(x) || math.IsInf(x, 0) || float64(f) == x {
		return f
	}
	// f is the nearest; step towards the required side when it lies on the wrong one
	switch rnd {
	case 1: // down
		if float64(f) > x {
			f = math.Nextafter32(f, float32(math.Inf(-1)))
		}
	case 2: // up
		if float64(f) < x {
			f = math.Nextafter32(f, float32(math.Inf(1)))
		}
	case 3: // toward zero
		if math.Abs(float64(f)) > math.Abs(x) {
			f = math.Nextafter32(f, 0)
		}
	}
	return f
}

// round64 rounds an exact result given as float64 sum hi+lo (hi the nearest) in mode rnd.
func round64(hi, lo float64, rnd uint8) float64 {
	if rnd == 0 || lo == 0 || math.IsNaN(hi) || math.IsInf(hi, 0) {
		return hi
	}
	switch rnd {
	case 1:
		if lo < 0 {
			return math.Nextafter(hi, math.Inf(-1))
		}
	case 2:
		if lo > 0 {
			return math.Nextafter(hi, math.Inf(1))
		}
	case 3:
		if (hi > 0 && lo < 0) || (hi < 0 && lo > 0) {
			return math.Nextafter(hi, 0)
		}
	}
	return hi
}

// fout is the bits written for a float32 result: .SAT clamps to [0, 1],
// .FTZ flushes denormals, NaN results are the canonical NaN.
func fout(f float32, o *op) uint32 {
	if o.flags&fSAT != 0 {
		switch {
		case f != f:
			f = 0
		case f < 0:
			f = 0
		case f > 1:
			f = 1
		}
	}
	v := math.Float32bits(f)
	if f != f {
		return 0x7fffffff
	}
	if o.flags&fFTZ != 0 {
		v = flush(v)
	}
	return v
}

func fcmp(cond uint8, x, y float64) bool {
	var rel uint8
	switch {
	case x != x || y != y:
		rel = 8
	case x < y:
		rel = 1
	case x == y:
		rel = 2
	default:
		rel = 4
	}
	return cond&rel != 0
}

func (k *Kernel) falu(w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	d := int(o.d.row) * 32
	a, b, c := &o.s[0], &o.s[1], &o.s[2]
	ftz := o.flags&fFTZ != 0
	in := func(s *opnd, l int) float32 {
		v := fsrc(k.val(regs, s, l), s)
		if ftz {
			v = flush(v)
		}
		return math.Float32frombits(v)
	}
	var pOut, pOut2 uint32
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		var r uint32
		switch o.kind {
		case kFadd:
			// as x*1 + y: the float64 sum of two float32s may be inexact,
			// and fma32 rounds the exact one
			x, y := in(a, l), in(b, l)
			r = fout(fma32(x, 1, y, o.rnd), o)
		case kFmul:
			x, y := in(a, l), in(b, l)
			p := float64(x) * float64(y)
			if o.sub != 0 {
				p *= [7]float64{1, 0.5, 0.25, 0.125, 8, 4, 2}[o.sub]
			}
			r = fout(round32(p, o.rnd), o)
		case kFfma:
			x, y, z := in(a, l), in(b, l), in(c, l)
			r = fout(fma32(x, y, z, o.rnd), o)
		case kFmnmx:
			x, y := in(a, l), in(b, l)
			isMin := pred(regs, c)>>l&1 != 0
			var f float32
			switch {
			case x != x:
				f = y
			case y != y:
				f = x
			case isMin:
				f = min(x, y)
			default:
				f = max(x, y)
			}
			r = fout(f, o)
		case kFsetp, kFset:
			x, y := in(a, l), in(b, l)
			t := fcmp(o.sub, float64(x), float64(y))
			pc := pred(regs, c)>>l&1 != 0
			res := combine(o.bop, t, pc)
			if o.kind == kFsetp {
				if res {
					pOut |= 1 << l
				}
				if combine(o.bop, !t, pc) {
					pOut2 |= 1 << l
				}
				continue
			}
			if res {
				r = ^uint32(0)
				if o.flags&fBF != 0 {
					r = 0x3f800000
				}
			}
		case kFcmp:
			z := in(c, l)
			if fcmp(o.sub, float64(z), 0) {
				r = k.val(regs, a, l)
			} else {
				r = k.val(regs, b, l)
			}
		case kMufu:
			r = mufu(o.sub, fsrc(k.val(regs, a, l), a), o)
		case kRro:
			r = math.Float32bits(in(a, l)) // MUFU reads RRO's output as the plain value
		case kFchk:
			// FCHK.DIVIDE P, a, b: P when a/b needs the slow path (denormal,
			// huge or special operands); the fast path is exact enough otherwise
			x, y := in(a, l), in(b, l)
			if !divFast(x, y) {
				pOut |= 1 << l
			}
			continue
		}
		regs[d+l] = r
	}
	switch o.kind {
	case kFsetp:
		setPred(regs, &o.d, mask, pOut)
		setPred(regs, &o.d2, mask, pOut2)
	case kFchk:
		setPred(regs, &o.d, mask, pOut)
	default:
		if o.flags&fCC != 0 {
			// FSET.CC: ptxas branches on CC.EQ/NE of the 0 / -1 result
			writeCC(regs, k.Prog.rowCC()*32, mask, d, 0, 0)
		}
	}
}

// fma32 is x*y+z rounded once (float64 holds x*y exactly; the sum is rounded
// twice only when it is inexact in float64, off by at most a tie).
func fma32(x, y, z float32, rnd uint8) float32 {
	p := float64(x) * float64(y)
	s := p + float64(z)
	if math.IsInf(s, 0) || s != s {
		return float32(s)
	}
	if s == 0 && rnd == 1 && (p != 0 || math.Signbit(p) || math.Signbit(float64(z))) {
		// IEEE: an exact zero sum is -0 when rounding down, unless both
		// addends are +0 (Go's float64 sum gives +0)
		return float32(math.Copysign(0, -1))
	}
	// error of the float64 sum (TwoSum), to round directed modes correctly
	bb := s - p
	e := (p - (s - bb)) + (float64(z) - bb)
	if rnd == 0 {
		if e != 0 && tie32(s) {
			// s is inexact and rounding it again is wrong only when it
			// lies exactly halfway between two float32s (every such
			// midpoint is a float64, so the true value lies on s's side
			// of all others): the true value is on the residual's side
			if e > 0 {
				return float32(math.Nextafter(s, math.Inf(1)))
			}
			return float32(math.Nextafter(s, math.Inf(-1)))
		}
		return float32(s)
	}
	if e != 0 && float64(float32(s)) == s {
		// s is an exact float32 and the residual says on which side the true value lies
		f := float32(s)
		switch rnd {
		case 1:
			if e < 0 {
				return math.Nextafter32(f, float32(math.Inf(-1)))
			}
		case 2:
			if e > 0 {
				return math.Nextafter32(f, float32(math.Inf(1)))
			}
		case 3:
			if (e < 0) != (f < 0) && f != 0 {
				return math.Nextafter32(f, 0)
			}
		}
		return f
	}
	return round32(s, rnd)
}

// tie32 reports whether s lies halfway between two adjacent float32s
// (above the largest, between it and 2^128, where rounding overflows).
func tie32(s float64) bool {
	f := float32(s)
	if math.IsInf(float64(f), 0) {
		return math.Abs(s) == math.MaxFloat32+0x1p103
	}
	if float64(f) == s {
		return false
	}
	other := math.Nextafter32(f, float32(math.Inf(1))) // the float32 on s's other side
	if float64(f) > s {
		other = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return (float64(f)+float64(other))/2 == s
}

// divFast reports whether ptxas's fast division path (q = a*rcp(b), then
// one correction with the residual a - b*q) gives the correctly rounded
// a/b: every operand normal, quotient and rcp(b) normal, and the residual
// exact, which needs the dividend's exponent at least -102 (the residual's
// lowest bit, 2^(ea-47), must not fall below 2^-149). Zero dividends take
// the slow path too: the fast path's a*rcp + 0 turns -0 into +0. The slow
// path is exact, so erring towards it changes no result.
func divFast(x, y float32) bool {
	ex := int(math.Float32bits(x)>>23&0xff) - 127
	ey := int(math.Float32bits(y)>>23&0xff) - 127
	if ex == 128 || ey == 128 || ex == -127 || ey == -127 {
		return false
	}
	return ex-ey < 126 && ex-ey > -126 && ey < 126 && ex >= -102
}

// mufu is the special function unit: results are the correctly rounded
// function values (fp.SFU; the hardware's are within 2 ulp, see the
// package tests). RCP64H and RSQ64H take and give a double's high word.
func mufu(fn uint8, v uint32, o *op) uint32 {
	if fn == mRcp64h || fn == mRsq64h {
		return uint32(math.Float64bits(fp.High64(fn, v)) >> 32)
	}
	r := fp.SFU(fn, float64(math.Float32frombits(flush(v))))
	return flush(fout(float32(r), o))
}

// dsrc reads a double operand with |x| and -x.
func (k *Kernel) dsrc(regs []uint32, s *opnd, l int) float64 {
	v := k.val64(regs, s, l)
	if s.abs {
		v &^= 1 << 63
	}
	if s.neg {
		v ^= 1 << 63
	}
	return math.Float64frombits(v)
}

func (k *Kernel) dalu(w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	d := int(o.d.row) * 32
	a, b, c := &o.s[0], &o.s[1], &o.s[2]
	var pOut, pOut2 uint32
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		var r float64
		switch o.kind {
		case kDadd:
			x, y := k.dsrc(regs, a, l), k.dsrc(regs, b, l)
			r = x + y
			if o.rnd != 0 {
				r = fp.Round64(fp.Add, x, y, 0, o.rnd)
			}
		case kDmul:
			x, y := k.dsrc(regs, a, l), k.dsrc(regs, b, l)
			r = x * y
			if o.rnd != 0 {
				r = fp.Round64(fp.Mul, x, y, 0, o.rnd)
			}
		case kDfma:
			x, y, z := k.dsrc(regs, a, l), k.dsrc(regs, b, l), k.dsrc(regs, c, l)
			r = math.FMA(x, y, z)
			if o.rnd != 0 {
				r = fp.Round64(fp.FMA, x, y, z, o.rnd)
			}
		case kDmnmx:
			x, y := k.dsrc(regs, a, l), k.dsrc(regs, b, l)
			isMin := pred(regs, c)>>l&1 != 0
			switch {
			case x != x:
				r = y
			case y != y:
				r = x
			case isMin:
				r = min(x, y)
			default:
				r = max(x, y)
			}
		case kDsetp, kDset:
			x, y := k.dsrc(regs, a, l), k.dsrc(regs, b, l)
			t := fcmp(o.sub, x, y)
			pc := pred(regs, c)>>l&1 != 0
			res := combine(o.bop, t, pc)
			if o.kind == kDsetp {
				if res {
					pOut |= 1 << l
				}
				if combine(o.bop, !t, pc) {
					pOut2 |= 1 << l
				}
				continue
			}
			v := uint32(0)
			if res {
				v = ^uint32(0)
				if o.flags&fBF != 0 {
					v = 0x3f800000
				}
			}
			regs[d+l] = v
			continue
		}
		bitsOut := math.Float64bits(r)
		if r != r {
			bitsOut = 0xfff8000000000000
		}
		regs[d+l] = uint32(bitsOut)
		regs[d+32+l] = uint32(bitsOut >> 32)
	}
	if o.kind == kDsetp {
		setPred(regs, &o.d, mask, pOut)
		setPred(regs, &o.d2, mask, pOut2)
	}
}
