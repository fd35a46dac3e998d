package fp

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// TestRound64 checks the directed modes against math/big's rounding of the
// exact result to 53 bits (with the subnormal range rounded at 2^-1074),
// on random operands, operands whose results are subnormal or overflow,
// and exact zeros.
func TestRound64(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	modes := [4]big.RoundingMode{big.ToNearestEven, big.ToNegativeInf, big.ToPositiveInf, big.ToZero}
	ref := func(op int, x, y, z float64, rnd uint8) float64 {
		bx, by := new(big.Float).SetPrec(3300).SetFloat64(x), new(big.Float).SetPrec(3300).SetFloat64(y)
		e := new(big.Float).SetPrec(3300)
		switch op {
		case Add:
			e.Add(bx, by)
		case Mul:
			e.Mul(bx, by)
		default:
			e.Mul(bx, by)
			e.Add(e, new(big.Float).SetPrec(3300).SetFloat64(z))
		}
		if e.Sign() == 0 {
			return math.NaN() // signs of zeros checked apart
		}
		prec := uint(53)
		if exp := e.MantExp(nil); exp < -1021 {
			// subnormal: the bits above 2^-1074
			if exp <= -1074 {
				prec = 0
			} else {
				prec = uint(exp + 1074)
			}
		}
		if prec == 0 {
			// below half the smallest subnormal or around it: compare by
			// rounding at 2^-1074 as an integer count
			s := new(big.Float).SetMantExp(e, 1074)
			f, _ := s.Float64()
			var n float64
			switch rnd {
			case 0:
				n = math.RoundToEven(f)
			case 1:
				n = math.Floor(f)
			case 2:
				n = math.Ceil(f)
			default:
				n = math.Trunc(f)
			}
			return math.Copysign(math.Ldexp(n, -1074), float64(e.Sign()))
		}
		f, _ := new(big.Float).SetMode(modes[rnd]).SetPrec(prec).Set(e).Float64()
		if math.IsInf(f, 0) && (rnd == 3 || rnd == 1 && f > 0 || rnd == 2 && f < 0) {
			return math.Copysign(math.MaxFloat64, f)
		}
		return f
	}
	pick := func() float64 {
		switch rng.Intn(5) {
		case 0:
			return math.Ldexp(rng.Float64()+0.5, rng.Intn(60)-1100) * float64(1-2*rng.Intn(2)) // near the subnormals
		case 1:
			return math.Ldexp(rng.Float64()+0.5, 1000+rng.Intn(24)) * float64(1-2*rng.Intn(2)) // near overflow
		}
		return math.Ldexp(rng.NormFloat64(), rng.Intn(40)-20)
	}
	for range 20000 {
		op := rng.Intn(3)
		x, y, z := pick(), pick(), pick()
		if rng.Intn(8) == 0 {
			y = -x // exact zero sums
		}
		for rnd := range uint8(4) {
			got, want := Round64(op, x, y, z, rnd), ref(op, x, y, z, rnd)
			if want != want {
				if got != 0 {
					t.Fatalf("op %d mode %d of %g %g %g: %g, want a zero", op, rnd, x, y, z, got)
				}
				continue
			}
			if got != want {
				t.Fatalf("op %d mode %d of %g %g %g: %g, want %g", op, rnd, x, y, z, got, want)
			}
		}
	}
	// a product below 2^-2148 under a large addend still moves a directed
	// result (3171 bits between them)
	if r := Round64(FMA, 0x1p-1074, 0x1p-1074, 0x1p1023, 2); r != math.Nextafter(0x1p1023, math.Inf(1)) {
		t.Errorf("FMA.RP of a tiny product and 2^1023: %g", r)
	}
	// signed zeros: -0 when rounding down unless both summands are +0
	for _, c := range []struct {
		x, y float64
		rnd  uint8
		neg  bool
	}{{1, -1, 1, true}, {1, -1, 0, false}, {0, 0, 1, false}, {math.Copysign(0, -1), 0, 1, true},
		{math.Copysign(0, -1), math.Copysign(0, -1), 2, true}} {
		if r := Round64(Add, c.x, c.y, 0, c.rnd); r != 0 || math.Signbit(r) != c.neg {
			t.Errorf("%g + %g in mode %d: %g", c.x, c.y, c.rnd, r)
		}
	}
}

func TestSFU(t *testing.T) {
	for _, c := range []struct {
		fn   uint8
		x, r float64
	}{{Cos, 0, 1}, {Sin, 0, 0}, {Ex2, 3, 8}, {Lg2, 8, 3}, {Rcp, 4, 0.25}, {Rsq, 4, 0.5}, {Sqrt, 9, 3}} {
		if r := SFU(c.fn, c.x); r != c.r {
			t.Errorf("function %d of %g: %g, want %g", c.fn, c.x, r, c.r)
		}
	}
	if r := High64(Rcp64H, uint32(math.Float64bits(4)>>32)); r != 0.25 {
		t.Errorf("RCP64H of 4: %g", r)
	}
	if r := High64(Rsq64H, uint32(math.Float64bits(4)>>32)); r != 0.5 {
		t.Errorf("RSQ64H of 4: %g", r)
	}
}
