package maxwell

import (
	"math"
	"math/big"

	"github.com/gpuisa/gpuisa/emu"
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
		if e != 0 {
			// s is inexact; rounding it again is wrong only when it lies
			// halfway between two float32s (its float64 neighbours round
			// apart): the true value is on the residual's side
			up, down := math.Nextafter(s, math.Inf(1)), math.Nextafter(s, math.Inf(-1))
			if float32(up) != float32(down) {
				if e > 0 {
					return float32(up)
				}
				return float32(down)
			}
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
// function values (the hardware's are within 2 ulp; see the package tests).
func mufu(fn uint8, v uint32, o *op) uint32 {
	x := float64(math.Float32frombits(flush(v)))
	var r float64
	switch fn {
	case mCos:
		r = math.Cos(x)
	case mSin:
		r = math.Sin(x)
	case mEx2:
		r = math.Exp2(x)
	case mLg2:
		r = math.Log2(x)
	case mRcp:
		r = 1 / x
	case mRsq:
		r = 1 / math.Sqrt(x)
	case mSqrt:
		r = math.Sqrt(x)
	case mRcp64h, mRsq64h:
		// v is the high word of a double: the result's high word
		dx := math.Float64frombits(uint64(v) << 32)
		if fn == mRcp64h {
			return uint32(math.Float64bits(1/dx) >> 32)
		}
		return uint32(math.Float64bits(1/math.Sqrt(dx)) >> 32)
	}
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
				r = directed64(o.rnd, x, y, 0, 1)
			}
		case kDmul:
			x, y := k.dsrc(regs, a, l), k.dsrc(regs, b, l)
			r = x * y
			if o.rnd != 0 {
				r = directed64(o.rnd, x, y, 0, 2)
			}
		case kDfma:
			x, y, z := k.dsrc(regs, a, l), k.dsrc(regs, b, l), k.dsrc(regs, c, l)
			r = math.FMA(x, y, z)
			if o.rnd != 0 {
				r = directed64(o.rnd, x, y, z, 3)
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

// directed64 computes x+y (kind 1), x*y (2) or x*y+z (3) rounded in mode rnd
// (1 down, 2 up, 3 toward zero) exactly with math/big; special operands and
// results take the hardware's usual path.
// zeroSign is the signed zero of an exact zero result: a product's is
// the factors' sign (native has it); a sum's is -0 when both addends are
// -0, or under rounding down unless both are +0 (IEEE 754).
func zeroSign(rnd uint8, kind int, x, y, z, native float64) float64 {
	if kind == 2 || rnd != 1 {
		return native
	}
	p, q := x, y
	if kind == 3 {
		p, q = x*y, z
	}
	if p == 0 && q == 0 && !math.Signbit(p) && !math.Signbit(q) {
		return 0
	}
	return math.Copysign(0, -1)
}

func directed64(rnd uint8, x, y, z float64, kind int) float64 {
	var native float64
	switch kind {
	case 1:
		native = x + y
	case 2:
		native = x * y
	default:
		native = math.FMA(x, y, z)
	}
	// a zero from float64 is exact when nothing was multiplied (sums of
	// doubles do not underflow) or a factor is zero; a product may also
	// underflow to zero, which the exact computation below rounds
	exactZero := native == 0 && (kind == 1 || x == 0 || y == 0)
	if exactZero {
		return zeroSign(rnd, kind, x, y, z, native)
	}
	if math.IsInf(native, 0) || native != native {
		if math.IsInf(native, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) && !math.IsInf(z, 0) {
			// overflow: directed modes stop at the largest finite value
			if rnd == 3 || rnd == 1 && native > 0 || rnd == 2 && native < 0 {
				return math.Copysign(math.MaxFloat64, native)
			}
		}
		return native
	}
	// exact: a sum spans from 2^1024 down to a product's 2^-2148
	const prec = 3300
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	by := new(big.Float).SetPrec(prec).SetFloat64(y)
	res := new(big.Float).SetPrec(prec)
	switch kind {
	case 1:
		res.Add(bx, by)
	case 2:
		res.Mul(bx, by)
	default:
		res.Mul(bx, by)
		res.Add(res, new(big.Float).SetPrec(prec).SetFloat64(z))
	}
	if res.Sign() == 0 { // x*y = -z exactly
		return zeroSign(rnd, 1, 1, -1, 0, 0)
	}
	if res.MantExp(nil) < -1021 {
		// a subnormal result has fewer bits: round at 2^-1074 directly
		scaled := new(big.Float).SetPrec(prec).SetMantExp(res, 1074)
		mode := [4]big.RoundingMode{big.ToNearestEven, big.ToNegativeInf, big.ToPositiveInf, big.ToZero}[rnd&3]
		var i int64
		if e := scaled.MantExp(nil); e >= 1 {
			i, _ = new(big.Float).SetMode(mode).SetPrec(uint(e)).Set(scaled).Int64()
		} else { // below the smallest subnormal
			half := new(big.Float).Abs(scaled).Cmp(big.NewFloat(0.5))
			switch {
			case rnd == 1 && scaled.Sign() < 0, rnd == 2 && scaled.Sign() > 0, rnd == 0 && half > 0:
				i = int64(scaled.Sign())
			}
		}
		return math.Copysign(math.Ldexp(float64(i), -1074), float64(res.Sign()))
	}
	mode := [4]big.RoundingMode{big.ToNearestEven, big.ToNegativeInf, big.ToPositiveInf, big.ToZero}[rnd&3]
	f, _ := new(big.Float).SetMode(mode).SetPrec(53).Set(res).Float64()
	return f
}
