package maxwell

import (
	"math"
	"math/big"
)

// An independent reference for the edge-value checks (edge_test.go),
// written from the ISA facts (IEEE-754 with the rounding each modifier
// names, subnormals flushed under .FTZ, PTX's saturation and conversion
// rules), not from the emulator's code: exact values in math/big, rounded
// here to binary32/binary64 with subnormals.

// Rounding modes as the RND table numbers them.
const (
	rRN = iota
	rRM
	rRP
	rRZ
)

var bigModes = [4]big.RoundingMode{big.ToNearestEven, big.ToNegativeInf, big.ToPositiveInf, big.ToZero}

// xbig is a big.Float wide enough for any sum or product of two or three
// binary64 values.
func xbig() *big.Float { return new(big.Float).SetPrec(4096) }

// roundBin rounds a finite exact value to a binary format with mant
// significand bits (24, 53, 11) and minimum normal exponent emin (-126,
// -1022, -14), returning the value as a float64 (exact for the formats).
// Overflow gives infinity or the largest finite value as the mode says.
func roundBin(x *big.Float, mant int, emin int, emax int, mode int) float64 {
	if x.Sign() == 0 {
		if x.Signbit() {
			return math.Copysign(0, -1)
		}
		return 0
	}
	neg := x.Signbit()
	a := xbig().Abs(x)
	// the value's binary exponent e: 2^e <= a < 2^(e+1)
	e := a.MantExp(nil) - 1
	prec := mant
	if e < emin { // subnormal: fewer significant bits
		prec = mant - (emin - e)
	}
	var r *big.Float
	if prec <= 0 {
		// below half the smallest subnormal's spacing: 0 or the smallest
		tiny := math.Ldexp(1, emin-mant+1)
		half := xbig().SetMantExp(xbig().SetInt64(1), emin-mant) // tiny/2, below float64's range for binary64
		up := false
		switch mode {
		case rRN:
			up = a.Cmp(half) > 0
		case rRM:
			up = neg
		case rRP:
			up = !neg
		}
		v := 0.0
		if up {
			v = tiny
		}
		return sign(v, neg)
	}
	m := bigModes[mode]
	r = new(big.Float).SetPrec(uint(prec)).SetMode(m).Set(x)
	f, _ := r.Float64()
	if math.Abs(f) >= math.Ldexp(1, emax+1) { // overflow
		maxf := math.Ldexp(2-math.Ldexp(1, 1-mant), emax)
		switch {
		case mode == rRZ, mode == rRM && !neg, mode == rRP && neg:
			return sign(maxf, neg)
		}
		return sign(math.Inf(1), neg)
	}
	return f
}

func sign(v float64, neg bool) float64 {
	if neg {
		return -v
	}
	return v
}

// f32 helpers
func f32(b uint32) float32    { return math.Float32frombits(b) }
func b32(f float32) uint32    { return math.Float32bits(f) }
func nan32(b uint32) bool     { return b&0x7fffffff > 0x7f800000 }
func isSub32(b uint32) bool   { return b&0x7f800000 == 0 && b&0x7fffff != 0 }
func flush32(b uint32) uint32 { return map[bool]uint32{true: b & 0x80000000, false: b}[isSub32(b)] }
func nan64(b uint64) bool     { return b&(1<<63-1) > 0x7ff0000000000000 }

const canonNaN32 = 0x7fffffff

// round32 rounds an exact value to binary32 bits.
func refRound32(x *big.Float, mode int) uint32 {
	return b32(float32(roundBin(x, 24, -126, 127, mode)))
}

func refRound64(x *big.Float, mode int) uint64 {
	return math.Float64bits(roundBin(x, 53, -1022, 1023, mode))
}

// fop32 is FADD/FMUL/FFMA: a*b+c (mul: c absent; add: b absent) rounded
// once, with .FTZ on inputs and result and .SAT.
type fop32 struct {
	kind     byte // '+', '*', 'f'
	mode     int
	ftz, sat bool
	scl      int // FMUL's scale: the product times 2^scl
}

func (o fop32) eval(a, b, c uint32) uint32 {
	if o.ftz {
		a, b, c = flush32(a), flush32(b), flush32(c)
	}
	fa, fb, fc := float64(f32(a)), float64(f32(b)), float64(f32(c))
	var r uint32
	// infinities and NaNs by IEEE's rules (float64 holds every such case
	// exactly: an f32 product cannot overflow it)
	var sp float64
	switch o.kind {
	case '+':
		sp = fa + fb
	case '*':
		sp = fa * fb * o.scale()
	default:
		sp = fa*fb + fc
	}
	switch {
	case math.IsNaN(sp):
		r = canonNaN32
	case math.IsInf(sp, 0):
		r = b32(float32(sp))
	default:
		x := xbig()
		switch o.kind {
		case '+':
			x.Add(xbig().SetFloat64(fa), xbig().SetFloat64(fb))
			if x.Sign() == 0 {
				x = zeroSum(fa, fb, o.mode)
			}
		case '*':
			x.Mul(xbig().SetFloat64(fa), xbig().SetFloat64(fb))
			x.Mul(x, xbig().SetFloat64(o.scale()))
			if x.Sign() == 0 { // the sign of a zero product is the signs' xor
				x = xbig()
				if math.Signbit(fa) != math.Signbit(fb) {
					x.Neg(x)
				}
			}
		default:
			x = fmaExact(fa, fb, fc, o.mode)
		}
		r = refRound32(x, o.mode)
	}
	if o.ftz {
		r = flush32(r)
	}
	if o.sat {
		switch {
		case nan32(r) || r&0x80000000 != 0:
			r = 0
		case f32(r) > 1:
			r = 0x3f800000
		}
	}
	return r
}

// scale is FMUL's .D2 ... .M8 factor.
func (o fop32) scale() float64 {
	if o.scl == 0 {
		return 1
	}
	return math.Ldexp(1, o.scl)
}

// fmaExact is a*b + c exactly, with IEEE's sign when it is zero.
func fmaExact(a, b, c float64, mode int) *big.Float {
	p := xbig().Mul(xbig().SetFloat64(a), xbig().SetFloat64(b))
	x := xbig().Add(p, xbig().SetFloat64(c))
	if x.Sign() != 0 {
		return x
	}
	pz := 1.0 // a non-zero product
	if p.Sign() == 0 {
		pz = math.Copysign(0, math.Copysign(1, a)*math.Copysign(1, b))
	}
	return zeroSum(pz, c, mode)
}

// zeroSum is the signed zero of x + y when the exact sum is zero: -0 when
// both are -0 (or either under round-down), or +0 for x = -y except under
// round-down.
func zeroSum(x, y float64, mode int) *big.Float {
	var neg bool
	if x == 0 && y == 0 {
		neg = math.Signbit(x) && math.Signbit(y)
		if mode == rRM {
			neg = math.Signbit(x) || math.Signbit(y)
		}
	} else {
		neg = mode == rRM
	}
	z := xbig()
	if neg {
		z.Neg(z)
	}
	return z
}

// fcmpRef is a floating compare by the FCMP table's code: bit 0 less,
// bit 1 equal, bit 2 greater, bit 3 unordered.
func fcmpRef(code uint8, a, b float64) bool {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return code&8 != 0
	case a < b:
		return code&1 != 0
	case a == b:
		return code&2 != 0
	}
	return code&4 != 0
}

// intRoundings round to an integral value: nearest even, floor, ceil, trunc.
var intRoundings = [4]func(float64) float64{math.RoundToEven, math.Floor, math.Ceil, math.Trunc}

// f2iRef converts with PTX's cvt rules: NaN is 0, out-of-range values
// saturate, rounding as the mode says (0 nearest even, 1 floor, 2 ceil,
// 3 trunc).
func f2iRef(x float64, mode int, signed bool, bits int) uint64 {
	if math.IsNaN(x) {
		return 0
	}
	x = intRoundings[mode](x)
	// the range [lo, hi]; past it the largest or smallest value (float64
	// cannot hold 2^64-1 or 2^63-1, so the top is compared as 2^bits)
	lo, top := 0.0, math.Ldexp(1, bits)
	maxv := uint64(1)<<bits - 1
	if bits == 64 {
		maxv = math.MaxUint64
	}
	if signed {
		lo, top = -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)
		maxv = uint64(1)<<(bits-1) - 1
	}
	switch {
	case x >= top:
		return maxv
	case x <= lo:
		x = lo
	}
	if signed {
		return uint64(int64(x)) & (1<<bits - 1 | map[bool]uint64{true: math.MaxUint64}[bits == 64])
	}
	return uint64(x)
}

// f64 helpers
func f64of(lo, hi uint32) float64 { return math.Float64frombits(uint64(hi)<<32 | uint64(lo)) }
func words64(f float64) (uint32, uint32) {
	b := math.Float64bits(f)
	return uint32(b), uint32(b >> 32)
}

// dop is DADD/DMUL/DFMA (no .FTZ or .SAT on doubles).
func dop(kind byte, mode int, a, b, c float64) uint64 {
	// NaNs and infinities by IEEE's rules; an infinite input decides the
	// result (a finite product never does, however large)
	const nan = 0x7ff8000000000000 // compared as any NaN
	if math.IsNaN(a) || math.IsNaN(b) || math.IsNaN(c) {
		return nan
	}
	if kind == '+' { // as a*1 + b
		b, c, kind = 1, b, 'f'
	}
	prodInf := math.IsInf(a, 0) || math.IsInf(b, 0)
	if prodInf && (a == 0 || b == 0) {
		return nan
	}
	if kind == '*' {
		c = 0
	}
	switch {
	case prodInf && math.IsInf(c, 0) && math.Signbit(a) != math.Signbit(b) != math.Signbit(c):
		return nan
	case prodInf:
		return math.Float64bits(math.Copysign(math.Inf(1), a*b))
	case math.IsInf(c, 0):
		return math.Float64bits(c)
	}
	x := xbig()
	switch kind {
	case '+':
		x.Add(xbig().SetFloat64(a), xbig().SetFloat64(b))
		if x.Sign() == 0 {
			x = zeroSum(a, b, mode)
		}
	case '*':
		x.Mul(xbig().SetFloat64(a), xbig().SetFloat64(b))
		if x.Sign() == 0 {
			x = xbig()
			if math.Signbit(a) != math.Signbit(b) {
				x.Neg(x)
			}
		}
	default:
		x = fmaExact(a, b, c, mode)
	}
	return refRound64(x, mode)
}

// i2fRef converts an exact integer to binary32 (bits 32) or binary64.
func i2fRef(v *big.Float, mode int, bits int) uint64 {
	if bits == 32 {
		return uint64(refRound32(v, mode))
	}
	return refRound64(v, mode)
}

// f16bits encodes a value exactly representable in binary16 (or infinite).
func f16bits(x float64) uint16 {
	var s uint16
	if math.Signbit(x) {
		s, x = 0x8000, -x
	}
	switch {
	case math.IsNaN(x):
		return 0x7fff
	case math.IsInf(x, 0):
		return s | 0x7c00
	case x == 0:
		return s
	case x < 0x1p-14:
		return s | uint16(x*0x1p24)
	}
	fr, e := math.Frexp(x) // x = fr * 2^e, 0.5 <= fr < 1
	return s | uint16(e+14)<<10 | uint16((fr*2-1)*1024)
}

// f16val decodes binary16 bits.
func f16val(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return s * m * 0x1p-24
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return s * math.Inf(1)
	}
	return s * (1 + m/1024) * math.Ldexp(1, e-15)
}
