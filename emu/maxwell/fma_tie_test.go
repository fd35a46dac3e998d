package maxwell

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestFma32Ties: x*y+z whose float64 sum lands exactly halfway between two
// float32s while the true value lies off it (double rounding), and random
// sums near such ties, against math/big.
func TestFma32Ties(t *testing.T) {
	exact := func(x, y, z float32) float32 {
		v := new(big.Float).SetPrec(300).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
		f, _ := v.Add(v, big.NewFloat(float64(z))).Float32()
		return f
	}
	ld := math.Ldexp
	cases := [][3]float32{
		// s = 1+2^-23+2^-24 (a tie), the true value 2^-54 below it
		{float32(ld(1+ld(1, -15), -24)), float32(1 - ld(1, -15)), float32(1 + ld(1, -23))},
		// s = 1+2^-24, the true value 2^-54 above it... and below it
		{float32(ld(1+ld(1, -15), -24)), float32(1 + ld(1, -15)), 1},
		{float32(ld(1+ld(1, -15), -24)), float32(1 - ld(1, -15)), 1},
		// near the largest float32: the tie with infinity
		{float32(ld(1+ld(1, -15), 103)), float32(1 - ld(1, -15)), math.MaxFloat32},
		{float32(ld(1+ld(1, -15), 103)), float32(1 + ld(1, -15)), math.MaxFloat32},
	}
	rng := rand.New(rand.NewPCG(5, 3))
	for range 200000 {
		// products of (1+a)(1±b) with 15-bit a, b: ties of z's last bit plus a small tail
		a, b := float64(rng.IntN(1<<8))*ld(1, -15), float64(rng.IntN(1<<8))*ld(1, -15)
		z := math.Float32frombits(0x3f800000 | rng.Uint32()&0x7fffff)
		x, y := float32(ld(1+a, -24)), float32(1-b)
		if rng.IntN(2) == 0 {
			y = float32(1 + b)
		}
		cases = append(cases, [3]float32{x, y, z}, [3]float32{-x, y, -z})
	}
	for range 200000 {
		// x*y near half an ulp of z, give or take a few float64 ulps: the
		// float64 sum lands beside a tie (not on it), where rounding it
		// again is right; the old check took its neighbours' disagreement
		// for a tie and rounded these towards the residual
		z := math.Float32frombits(0x3f800000 | rng.Uint32()&0x7fffff)
		x := math.Float32frombits(0x3f800000 | rng.Uint32()&0x7fffff)
		ulp := float64(math.Nextafter32(z, 2)) - float64(z)
		y := float32((ulp/2 + ulp*ld(float64(rng.IntN(5))-2, -29)) / float64(x))
		y = math.Float32frombits(math.Float32bits(y) + uint32(rng.IntN(5)) - 2)
		cases = append(cases, [3]float32{x, y, z}, [3]float32{x, -y, z})
	}
	for range 64000 { // any finite values: subnormals, overflow, cancellation
		f := func() float32 {
			for {
				if v := math.Float32frombits(rng.Uint32() &^ (uint32(rng.IntN(2)) << 30)); !math.IsInf(float64(v), 0) && v == v {
					return v
				}
			}
		}
		cases = append(cases, [3]float32{f(), f(), f()})
	}
	for _, c := range cases {
		if got, want := fma32(c[0], c[1], c[2], 0), exact(c[0], c[1], c[2]); got != want {
			t.Fatalf("fma32(%g, %g, %g) = %#x, want %#x", c[0], c[1], c[2], math.Float32bits(got), math.Float32bits(want))
		}
	}
	// FFMA's lane loop (its shortcut off the midpoints), 32 cases at a time
	for i := 0; i+32 <= len(cases); i += 32 {
		var d, a, b, c lanes
		for l := range 32 {
			a[l], b[l], c[l] = math.Float32bits(cases[i+l][0]), math.Float32bits(cases[i+l][1]), math.Float32bits(cases[i+l][2])
		}
		ffmaLanes(&d, &a, &b, &c, 0, 32)
		for l, x := range cases[i : i+32] {
			if want := math.Float32bits(exact(x[0], x[1], x[2])); d[l] != want && !(want&0x7fffffff > 0x7f800000 && d[l] == 0x7fffffff) {
				t.Fatalf("ffmaLanes(%g, %g, %g) = %#x, want %#x", x[0], x[1], x[2], d[l], want)
			}
		}
	}
}
