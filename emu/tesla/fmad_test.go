package tesla

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fmadOperand draws FMAD inputs that reach every path: zeros, denormals,
// infinities, NaNs, the normal range's edges, exponents whose products
// underflow or overflow single precision, and random bits.
func fmadOperand(rng *rand.Rand) uint32 {
	special := []uint32{0, 0x80000000, 1, 0x807fffff, 0x007fffff, 0x7f800000, 0xff800000, 0x7fc00000,
		0xffffffff, 0x7f800001, 0x7f7fffff, 0xff7fffff, 0x00800000, 0x80800000, 0x3f800000, 0x3f7fffff}
	switch rng.IntN(8) {
	case 0:
		return special[rng.IntN(len(special))]
	case 1:
		return rng.Uint32()
	case 2: // denormal
		return rng.Uint32() & 0x807fffff
	case 3: // tiny or huge: products leave the normal range
		e := uint32(rng.IntN(40))
		if rng.IntN(2) == 0 {
			e = 254 - e
		}
		return rng.Uint32()&0x807fffff | max(e, 1)<<23
	}
	// everyday values: sums cancel, round and carry
	return rng.Uint32()&0x807fffff | uint32(100+rng.IntN(55))<<23
}

// TestFMADFastPaths: the FMAD loops give fmadRef's bits on millions of
// inputs, for a per-lane and a warp-uniform first factor, also when the
// result row is the addend's.
func TestFMADFastPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	rounds := 1 << 17 // 4M lanes
	if testing.Short() {
		rounds = 1 << 12
	}
	var a, b, c, r lanes
	for range rounds {
		for l := range a {
			a[l], b[l], c[l] = fmadOperand(rng), fmadOperand(rng), fmadOperand(rng)
		}
		check := func(path string, x uint32, l int, got uint32) {
			if want := fmadRef(x, b[l], c[l]); got != want {
				t.Fatalf("%s: %#x*%#x+%#x = %#x, want %#x", path, x, b[l], c[l], got, want)
			}
		}
		fmadLanes(&a, &b, &c, &r)
		for l := range r {
			check("fmadLanes", a[l], l, r[l])
		}
		x := a[rng.IntN(32)]
		r = c // aliasing: the result overwrites the addend
		fmadLanesUniform(x, &b, &r, &r)
		for l := range r {
			check("fmadLanesUniform", x, l, r[l])
		}
	}
}

// TestFMADRef checks fmadRef itself against math/big on the same kind of
// inputs: the product rounded toward zero, the sum to nearest, denormal
// inputs and results flushed, NaN results 0x7fffffff.
func TestFMADRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	n := 1000000
	if testing.Short() {
		n = 5000
	}
	for range n {
		x, y, z := fmadOperand(rng), fmadOperand(rng), fmadOperand(rng)
		if got, want := fmadRef(x, y, z), refFMAD(x, y, z); got != want {
			t.Fatalf("%#x*%#x+%#x = %#x, want %#x", x, y, z, got, want)
		}
	}
}

func refFMAD(x, y, z uint32) uint32 {
	fx, fy, fz := math.Float32frombits(ftz(x)), math.Float32frombits(ftz(y)), math.Float32frombits(ftz(z))
	var fp float32
	if isSpecial(fx) || isSpecial(fy) {
		fp = fx * fy // infinite or NaN: nothing to round
	} else {
		// the product rounded toward zero to 24 bits; below the normal range
		// it is flushed to zero, above it the largest finite single
		p := new(big.Float).SetPrec(24).SetMode(big.ToZero)
		p.Mul(big.NewFloat(float64(fx)), big.NewFloat(float64(fy)))
		pbits := (x ^ y) & 0x80000000
		if a := new(big.Float).Abs(p); a.Cmp(big.NewFloat(0x1p-126)) >= 0 {
			if a.Cmp(big.NewFloat(math.MaxFloat32)) > 0 {
				pbits |= 0x7f7fffff
			} else {
				f, _ := a.Float32()
				pbits |= math.Float32bits(f)
			}
		}
		fp = math.Float32frombits(pbits)
	}
	if isSpecial(fp) || isSpecial(fz) {
		s := fp + fz // infinities and NaNs: nothing to round
		if s != s {
			return 0x7fffffff
		}
		return math.Float32bits(s)
	}
	s := new(big.Float).SetPrec(24).SetMode(big.ToNearestEven)
	s.Add(big.NewFloat(float64(fp)), big.NewFloat(float64(fz)))
	if s.Sign() == 0 {
		// an exact zero sum is +0 unless both addends are -0
		return math.Float32bits(fp) & math.Float32bits(fz) & 0x80000000
	}
	if new(big.Float).Abs(s).Cmp(big.NewFloat(0x1p-126)) < 0 {
		// a denormal sum (exact: it needs fewer than 24 bits) is flushed
		if s.Signbit() {
			return 0x80000000
		}
		return 0
	}
	r, _ := s.Float32() // ±Inf past the largest single
	return math.Float32bits(r)
}

func isSpecial(f float32) bool { return f != f || math.IsInf(float64(f), 0) }

// BenchmarkFMADLanes measures the two FMAD loops on a warp of everyday
// values, the result overwriting the addend as in a dot product.
func BenchmarkFMADLanes(b *testing.B) {
	rng := rand.New(rand.NewPCG(35, 36))
	var x, y, z lanes
	for l := range x {
		x[l] = math.Float32bits(float32(rng.IntN(17) - 8))
		y[l] = math.Float32bits(float32(rng.IntN(17) - 8))
	}
	b.Run("uniform", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			z = lanes{}
			fmadLanesUniform(x[3], &y, &z, &z)
		}
	})
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			z = lanes{}
			fmadLanes(&x, &y, &z, &z)
		}
	})
}
