package maxwell

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// Corpus: testdata/corpus/arith.cu: the slow paths of division, square
// roots and integer division on edge values, against exact references.

// edgeF32 are values that take the slow paths: zeros, subnormals, the
// normal range's ends, infinities, NaN, and values whose quotients by the
// kernels' constants are subnormal or overflow.
var edgeF32 = []uint32{
	0, 0x80000000, 1, 0x80000001, 2, 0x007fffff, 0x807fffff, 0x00400000, 0x00800000, 0x80800000,
	0x00800001, 0x7f7fffff, 0xff7fffff, 0x7f000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001,
	0x3f800000, 0xbf800000, 0x3f7fffff, 0x3f800001, 0x4a442e10, 0xca442e10, 0x34000000, 0x3c800000, 0x0b000000,
	0x0a800000, 0x2a800000, 0x1f000000, 0x5f000000, 0x7e800000, 0x00000400, 0x3fc00000,
}

// randF32Bits is an f32 of any class: uniform bits, often with a tiny
// or huge exponent.
func randF32Bits(rng *rand.Rand) float32 {
	b := rng.Uint32()
	switch rng.IntN(4) {
	case 0: // subnormal or tiny normal
		b &= 0x80ffffff
	case 1: // huge
		b |= 0x7e000000
		b &^= 0x00800000 * uint32(rng.IntN(2))
	}
	return math.Float32frombits(b)
}

// sameBitsF32 compares f32 bit patterns; any NaN matches any NaN.
func sameBitsF32(d *diffs, i int, what string, got, want float32) {
	if got == want && math.Signbit(float64(got)) == math.Signbit(float64(want)) {
		return
	}
	if math.IsNaN(float64(got)) && math.IsNaN(float64(want)) {
		return
	}
	d.add("[%d].%s got %g (%#08x) want %g (%#08x)", i, what, got, math.Float32bits(got), want, math.Float32bits(want))
}

// exactF32 rounds an exact value to f32 (nearest even, subnormals included).
func exactF32(x *big.Float) float32 {
	f, _ := x.Float32()
	return f
}

// fmaF32 is fmaf: x*y+z rounded once.
func fmaF32(x, y, z float32) float32 {
	if math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) || math.IsInf(float64(z), 0) ||
		math.IsNaN(float64(x)) || math.IsNaN(float64(y)) || math.IsNaN(float64(z)) {
		return float32(float64(x)*float64(y) + float64(z))
	}
	p := new(big.Float).SetPrec(600).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
	s := p.Add(p, big.NewFloat(float64(z)))
	if s.Sign() == 0 {
		// exact zero: -0 only if both the product and z are -0 (or negative zero sum rules)
		return float32(float64(x)*float64(y) + float64(z))
	}
	return exactF32(s)
}

// sqrtDownF32 is the square root rounded towards -inf.
func sqrtDownF32(y float32) float32 {
	if y < 0 || math.IsNaN(float64(y)) {
		return float32(math.NaN())
	}
	if y == 0 || math.IsInf(float64(y), 1) {
		return y
	}
	c := float32(math.Sqrt(float64(y)))
	// squares of f32 values are exact in f64
	for float64(c)*float64(c) > float64(y) {
		c = math.Nextafter32(c, 0)
	}
	for n := math.Nextafter32(c, float32(math.Inf(1))); float64(n)*float64(n) <= float64(y); n = math.Nextafter32(n, float32(math.Inf(1))) {
		c = n
	}
	return c
}

// ulpDist is the distance in f32 ulps between two finite values of one sign.
func ulpDist(a, b float32) int64 {
	x, y := int64(math.Float32bits(a)&0x7fffffff), int64(math.Float32bits(b)&0x7fffffff)
	if x > y {
		return x - y
	}
	return y - x
}

func TestCorpusF32Slow(t *testing.T) {
	forCorpus(t, "arith", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(601, 1))
		var a, b []float32
		for _, x := range edgeF32 {
			for _, y := range edgeF32 {
				a = append(a, math.Float32frombits(x))
				b = append(b, math.Float32frombits(y))
			}
		}
		for range 3000 {
			a = append(a, randF32Bits(rng))
			b = append(b, randF32Bits(rng))
		}
		n := len(a)
		d.alloc("a", fromF32(a))
		d.alloc("b", fromF32(b))
		d.alloc("out", make([]byte, 32*n))
		d.launch("f32_slow", grid1(n, 128), dim(128, 1), 0, buf("a"), buf("b"), buf("out"), n)
		got := f32s(d.get("out"))
		diff := diffs{what: "f32_slow"}
		for i := range n {
			x, y := a[i], b[i]
			o := got[8*i : 8*i+8]
			sameBitsF32(&diff, i, "x/y", o[0], x/y)
			sameBitsF32(&diff, i, "x/3214212.01f", o[1], x/float32(3214212.01))
			sameBitsF32(&diff, i, "sqrtf", o[2], float32(math.Sqrt(float64(x))))
			// rsqrtf is the hardware's approximation: exact on special
			// values, within 2 ulp elsewhere
			r := float32(1 / math.Sqrt(float64(x)))
			switch {
			case x <= 0 || math.IsNaN(float64(x)) || math.IsInf(float64(x), 0):
				sameBitsF32(&diff, i, "rsqrtf", o[3], r)
			case math.IsNaN(float64(o[3])) || ulpDist(o[3], r) > 2 || o[3] < 0:
				diff.add("[%d].rsqrtf(%g) got %g want %g within 2 ulp", i, x, o[3], r)
			}
			sameBitsF32(&diff, i, "1/x", o[4], 1/x)
			sameBitsF32(&diff, i, "x/-2^-8", o[5], x/float32(-0.00390625))
			sameBitsF32(&diff, i, "fmaf", o[6], fmaF32(x, y, -x))
			sameBitsF32(&diff, i, "sqrt_rd", o[7], sqrtDownF32(y))
		}
		diff.report(t, 8*n)
	})
}

var edgeF64 = []uint64{
	0, 1 << 63, 1, 1<<63 | 1, 0x000fffffffffffff, 0x0008000000000000, 0x0010000000000000, 0x0010000000000001,
	0x7fefffffffffffff, 0xffefffffffffffff, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
	0x3ff0000000000000, 0xbff0000000000000, 0x3fefffffffffffff, 0x3ff0000000000001, 0x001fffffffffffff,
	0x7fd0000000000000, 0x0340000000000000, 0x1e3f3a8f4bf3f2a1, 0x4000000000000000, 0x3cb0000000000000,
}

func randF64Bits(rng *rand.Rand) float64 {
	b := rng.Uint64()
	switch rng.IntN(4) {
	case 0:
		b &= 0x801fffffffffffff
	case 1:
		b |= 0x7fc0000000000000
		b &^= 0x0010000000000000 * uint64(rng.IntN(2))
	}
	return math.Float64frombits(b)
}

func TestCorpusF64Slow(t *testing.T) {
	forCorpus(t, "arith", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(602, 1))
		var a, b []float64
		for _, x := range edgeF64 {
			for _, y := range edgeF64 {
				a = append(a, math.Float64frombits(x))
				b = append(b, math.Float64frombits(y))
			}
		}
		for range 2000 {
			a = append(a, randF64Bits(rng))
			b = append(b, randF64Bits(rng))
		}
		n := len(a)
		av, bv := make([]uint64, n), make([]uint64, n)
		for i := range a {
			av[i], bv[i] = math.Float64bits(a[i]), math.Float64bits(b[i])
		}
		d.alloc("a", fromU64(av))
		d.alloc("b", fromU64(bv))
		d.alloc("out", make([]byte, 32*n))
		d.launch("f64_slow", grid1(n, 128), dim(128, 1), 0, buf("a"), buf("b"), buf("out"), n)
		got := u64s(d.get("out"))
		diff := diffs{what: "f64_slow"}
		check := func(i int, what string, g uint64, want float64) {
			gf := math.Float64frombits(g)
			if g == math.Float64bits(want) || (math.IsNaN(gf) && math.IsNaN(want)) {
				return
			}
			diff.add("[%d].%s(%g, %g) got %g (%#x) want %g (%#x)", i, what, a[i], b[i], gf, g, want, math.Float64bits(want))
		}
		for i := range n {
			x, y := a[i], b[i]
			check(i, "x/y", got[4*i], x/y)
			check(i, "sqrt", got[4*i+1], math.Sqrt(x))
			check(i, "1/y", got[4*i+2], 1/y)
			check(i, "x/7e-300", got[4*i+3], x/7.0e-300)
		}
		diff.report(t, 4*n)
	})
}

func TestCorpusIntDivmod(t *testing.T) {
	forCorpus(t, "arith", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(603, 1))
		edges := []int32{0, 1, -1, 2, -2, 3, 7, -7, 16, -16, 1000, 65521, math.MaxInt32, math.MinInt32, math.MinInt32 + 1, math.MaxInt32 - 1}
		var a, b []int32
		for _, x := range edges {
			for _, y := range edges {
				if y != 0 && !(x == math.MinInt32 && y == -1) {
					a, b = append(a, x), append(b, y)
				}
			}
		}
		for len(a) < 4000 {
			x, y := int32(rng.Uint32()>>rng.IntN(32)), int32(rng.Uint32()>>rng.IntN(32))
			if rng.IntN(2) == 0 {
				y = -y
			}
			if y != 0 && !(x == math.MinInt32 && y == -1) {
				a, b = append(a, x), append(b, y)
			}
		}
		n := len(a)
		d.alloc("a", fromI32(a))
		d.alloc("b", fromI32(b))
		d.alloc("out", make([]byte, 40*n))
		d.launch("int_divmod", grid1(n, 128), dim(128, 1), 0, buf("a"), buf("b"), buf("out"), n)
		want := make([]int32, 0, 10*n)
		for i := range n {
			x, y := a[i], b[i]
			ux, uy := uint32(x), uint32(y)
			want = append(want, x/y, x%y, int32(ux/uy), int32(ux%uy), x/7, x%-3, int32(ux/1000), int32(ux%65521), x/16, x%16)
		}
		sameInts(t, "int_divmod", i32s(d.get("out")), want)
	})
}

func TestCorpusInt64(t *testing.T) {
	forCorpus(t, "arith", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(604, 1))
		edges := []int64{0, 1, -1, 2, 1 << 32, 1<<32 - 1, -(1 << 32), 1 << 31, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1000000007, -10, 0x5555555555555555}
		var a, b []int64
		var s []int32
		for _, x := range edges {
			for _, y := range edges {
				a, b, s = append(a, x), append(b, y), append(s, int32(rng.IntN(64)))
			}
		}
		for len(a) < 3000 {
			x, y := int64(rng.Uint64()>>rng.IntN(64)), int64(rng.Uint64()>>rng.IntN(64))
			if rng.IntN(2) == 0 {
				x = -x
			}
			a, b, s = append(a, x), append(b, y), append(s, int32(rng.Uint32()))
		}
		n := len(a)
		for i := range n {
			if a[i] == math.MinInt64 && b[i] == -1 {
				b[i] = -2 // the C quotient is undefined
			}
		}
		av, bv := make([]uint64, n), make([]uint64, n)
		for i := range a {
			av[i], bv[i] = uint64(a[i]), uint64(b[i])
		}
		d.alloc("a", fromU64(av))
		d.alloc("b", fromU64(bv))
		d.alloc("s", fromI32(s))
		d.alloc("out", make([]byte, 128*n))
		d.launch("int64_math", grid1(n, 64), dim(64, 1), 0, buf("a"), buf("b"), buf("s"), buf("out"), n)
		want := make([]uint64, 0, 16*n)
		for i := range n {
			x, y := a[i], b[i]
			ux, uy := uint64(x), uint64(y)
			k := uint(s[i] & 63)
			uhi, _ := bits.Mul64(ux, uy)
			shi := uhi
			if x < 0 {
				shi -= uy
			}
			if y < 0 {
				shi -= ux
			}
			var q, r, uq, ur int64
			if y != 0 {
				q, r = x/y, x%y
				uq, ur = int64(ux/uy), int64(ux%uy)
			}
			ffs := 0
			if ux != 0 {
				ffs = bits.TrailingZeros64(ux) + 1
			}
			var carry int64
			if ux+uy < ux {
				carry = 1
			}
			want = append(want, uint64(x*y), shi, uhi, uint64(q), uint64(r), uint64(uq), uint64(ur),
				uint64(x>>k), ux>>k, ux<<k,
				uint64(bits.OnesCount64(ux)|bits.LeadingZeros64(ux)<<8|ffs<<16), bits.Reverse64(ux),
				uint64(min(x, y))^max(ux, uy), uint64(x+y+carry), uint64(x/1000000007), ux%10)
		}
		got := u64s(d.get("out"))
		diff := diffs{what: "int64_math"}
		for i := range got {
			if got[i] != want[i] {
				diff.add("[%d].o%d (a=%#x b=%#x s=%d) got %#x want %#x", i/16, i%16, av[i/16], bv[i/16], s[i/16]&63, got[i], want[i])
			}
		}
		diff.report(t, len(got))
	})
}

// TestCorpusDivConst: the inlined slow path of a division by a constant
// (issue 15's IADD3 with a negative 20-bit immediate) on tiny, subnormal
// and special dividends.
func TestCorpusDivConst(t *testing.T) {
	forCorpus(t, "arith", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(605, 1))
		var a []float32
		for _, x := range edgeF32 {
			a = append(a, math.Float32frombits(x))
		}
		for range 2000 {
			a = append(a, randF32Bits(rng))
		}
		n := len(a)
		d.alloc("a", fromF32(a))
		d.alloc("out", make([]byte, 4*n))
		d.launch("f32_div_const", grid1(n, 128), dim(128, 1), 0, buf("a"), buf("out"), n)
		got := f32s(d.get("out"))
		diff := diffs{what: "x/3214212.01f"}
		for i, x := range a {
			sameBitsF32(&diff, i, "q", got[i], x/float32(3214212.01))
		}
		diff.report(t, n)
	})
}
