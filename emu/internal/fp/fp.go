// Package fp holds the floating-point operations the Fermi (sm_2x) and
// Maxwell (sm_5x) emulators share: the special function unit's functions
// (MUFU, same codes on both) and double-precision results in the directed
// rounding modes, computed exactly. Operand modifiers, flushing and NaN
// encodings stay with each ISA.
package fp

import (
	"math"
	"math/big"
)

// MUFU function codes (the mufu field of sm_2x and sm_5x alike).
const (
	Cos uint8 = iota
	Sin
	Ex2
	Lg2
	Rcp
	Rsq
	Rcp64H // high word of a double in, of 1/x out
	Rsq64H // high word of a double in, of 1/sqrt(x) out
	Sqrt   // sm_5x only
)

// SFU is the correctly rounded value (in float64) of MUFU function fn of
// x, for the single-precision functions (the hardware's results are within
// the few ulp PTX allows of it); the ISA rounds it to float32.
func SFU(fn uint8, x float64) float64 {
	switch fn {
	case Cos:
		return math.Cos(x)
	case Sin:
		return math.Sin(x)
	case Ex2:
		return math.Exp2(x)
	case Lg2:
		return math.Log2(x)
	case Rcp:
		return 1 / x
	case Rsq:
		return 1 / math.Sqrt(x)
	case Sqrt:
		return math.Sqrt(x)
	}
	return 0
}

// High64 is RCP64H or RSQ64H of the double whose high word is hi (the low
// word zero): the whole double result, whose high word the instruction
// writes.
func High64(fn uint8, hi uint32) float64 {
	x := math.Float64frombits(uint64(hi) << 32)
	if fn == Rsq64H {
		return 1 / math.Sqrt(x)
	}
	return 1 / x
}

// Arithmetic of Round64.
const (
	Add = iota // x + y
	Mul        // x * y
	FMA        // x * y + z, fused
)

// Round64 computes op of x, y (and z) in double precision rounded in mode
// rnd (0 to nearest even, 1 down, 2 up, 3 toward zero). Directed modes of
// inexact results are computed exactly with math/big: the nearest double
// moves one step when the exact value lies on the other side of it. An
// exact zero sum is -0 when rounding down unless every summand is +0
// (IEEE 754); overflow in a directed mode stops at the largest finite
// value unless the mode rounds away from it.
func Round64(op int, x, y, z float64, rnd uint8) float64 {
	var r float64
	switch op {
	case Add:
		r = x + y
	case Mul:
		r = x * y
	default:
		r = math.FMA(x, y, z)
	}
	if rnd == 0 || r != r {
		return r
	}
	if math.IsInf(r, 0) {
		if math.IsInf(x, 0) || math.IsInf(y, 0) || op == FMA && math.IsInf(z, 0) {
			return r
		}
		// overflow
		if rnd == 3 || rnd == 1 && r > 0 || rnd == 2 && r < 0 {
			return math.Copysign(math.MaxFloat64, r)
		}
		return r
	}
	// exact: a sum spans from 2^1024 down to a product's 2^-2148
	const prec = 3300
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	by := new(big.Float).SetPrec(prec).SetFloat64(y)
	t := new(big.Float).SetPrec(prec)
	switch op {
	case Add:
		t.Add(bx, by)
	case Mul:
		t.Mul(bx, by)
	default:
		t.Mul(bx, by)
		t.Add(t, new(big.Float).SetPrec(prec).SetFloat64(z))
	}
	if t.Sign() == 0 {
		if rnd == 1 && op != Mul {
			a, b := x, y
			if op == FMA {
				a, b = x*y, z
			}
			if !(a == 0 && b == 0 && !math.Signbit(a) && !math.Signbit(b)) {
				return math.Copysign(0, -1)
			}
			return 0
		}
		return r
	}
	// r is the nearest double; the exact value lies between r and the
	// neighbour on its side
	c := new(big.Float).SetPrec(prec).SetFloat64(r).Cmp(t) // r above (1) or below (-1) it
	switch {
	case c == 0:
	case rnd == 1 && c > 0:
		return math.Nextafter(r, math.Inf(-1))
	case rnd == 2 && c < 0:
		return math.Nextafter(r, math.Inf(1))
	case rnd == 3 && (c > 0 && t.Sign() > 0 || c < 0 && t.Sign() < 0):
		return math.Nextafter(r, 0)
	}
	return r
}
