package maxwell

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// rnd32 rounds the exact value x to float32 in mode m (0 RN, 1 RM, 2 RP, 3
// RZ) with math/big, independently of the emulator's float64 method.
func rnd32(x *big.Float, m int) float32 {
	f, _ := x.Float32()
	if x.IsInf() || m == 0 {
		return f
	}
	c := new(big.Float).SetFloat64(float64(f)).Cmp(x)
	switch {
	case c > 0 && (m == 1 || m == 3 && x.Sign() > 0):
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	case c < 0 && (m == 2 || m == 3 && x.Sign() < 0):
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	if m == 3 && x.Sign() > 0 && f < 0 || m == 3 && x.Sign() < 0 && f > 0 {
		f = 0
	}
	return f
}

func exact(v float32) *big.Float { return new(big.Float).SetPrec(400).SetFloat64(float64(v)) }

func addR(a, b float32, m int) float32 {
	if a != a || b != b || math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) {
		return a + b
	}
	return rnd32(new(big.Float).SetPrec(400).Add(exact(a), exact(b)), m)
}

func mulR(a, b float32, m int) float32 {
	if a != a || b != b || math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) {
		return a * b
	}
	return rnd32(new(big.Float).SetPrec(400).Mul(exact(a), exact(b)), m)
}

func fmaR(a, b, c float32, m int) float32 {
	if a != a || b != b || c != c || math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) || math.IsInf(float64(c), 0) {
		return float32(math.FMA(float64(a), float64(b), float64(c)))
	}
	p := new(big.Float).SetPrec(400).Mul(exact(a), exact(b))
	return rnd32(p.Add(p, exact(c)), m)
}

func ftz32(v float32) float32 { return math.Float32frombits(flushRef(math.Float32bits(v))) }

func flushRef(v uint32) uint32 {
	if v&0x7f800000 == 0 {
		return v & 0x80000000
	}
	return v
}

func sat(v float32) float32 {
	switch {
	case v != v || v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// tolerance kinds for approximate results
const (
	exactBits = iota
	relTol    // |got-want| <= 2^-21 |want| (MUFU's rcp/rsqrt/ex2/sqrt are within 1-2 ulp)
	absTol    // |got-want| <= 2^-20 (sin/cos, lg2 near 1)
)

func closeF(got, want float32, kind int) bool {
	if want != want {
		return got != got
	}
	if math.IsInf(float64(want), 0) || kind == exactBits {
		return math.Float32bits(got) == math.Float32bits(want) || got == want && got == 0 && kind != exactBits
	}
	d := math.Abs(float64(got) - float64(want))
	if kind == absTol {
		return d <= 1.0/(1<<20) || d <= math.Abs(float64(want))/(1<<20)
	}
	return d <= math.Abs(float64(want))/(1<<21) || d < 1e-37
}

func floatopsRef(a, b, c, d float32) (out [43]float32, tol [43]int) {
	f := func(i int, v float32, k int) { out[i], tol[i] = v, k }
	f(0, a+b, exactBits)
	f(1, a-c, exactBits)
	f(2, a*b, exactBits)
	f(3, fmaR(a, b, c, 0), exactBits)
	f(4, ftz32(addR(ftz32(a), ftz32(d), 3)), exactBits)
	f(5, mulR(b, c, 1), exactBits)
	f(6, sat(fmaR(b, c, d, 2)), exactBits)
	f(7, a*math.Float32frombits(0x40490FDB), exactBits)
	f(8, b+1, exactBits)
	f(9, float32(1/float64(a)), relTol)
	f(10, float32(1/float64(b)), exactBits)
	f(11, float32(math.Sqrt(float64(a))), relTol)
	f(12, float32(math.Sqrt(float64(b))), exactBits)
	f(13, float32(1/math.Sqrt(float64(c))), relTol)
	f(14, float32(math.Sin(float64(a))), absTol)
	f(15, float32(math.Cos(float64(b))), absTol)
	f(16, float32(math.Exp2(float64(c))), relTol)
	f(17, float32(math.Log2(float64(d))), absTol)
	f(18, float32(float64(a)/float64(b)), relTol)
	f(19, float32(float64(c)/float64(d)), relTol)
	f(20, float32(float64(a)/float64(c)), exactBits)
	f(21, ptxMin(a, b), exactBits)
	f(22, ptxMax(c, d), exactBits)
	f(23, float32(math.Abs(float64(a))), exactBits)
	f(24, -b, exactBits)
	f(25, float32(math.Copysign(float64(b), float64(a))), exactBits)
	f(26, ftz32(mulR(ftz32(c), ftz32(d), 0)), exactBits)
	f(27, ftz32(fmaR(ftz32(a), ftz32(c), ftz32(d), 0)), exactBits)
	f(28, sat(a-d), exactBits)
	f(29, ptxMin(ftz32(d), 0), exactBits)
	f(30, float32(math.Sqrt(float64(ftz32(d)))), relTol)
	f(31, float32(math.Exp2(float64(ftz32(a)))), relTol)
	f(32, float32(math.Log2(float64(ftz32(b)))), absTol)
	f(33, float32(1/float64(ftz32(c))), relTol)
	if !math.IsInf(float64(a), 0) && a == a {
		f(34, c, exactBits)
	} else {
		f(34, d, exactBits)
	}
	if b != b {
		f(35, a, exactBits)
	} else {
		f(35, float32(math.NaN()), exactBits)
	}
	if math.Float32bits(c)&0x7f800000 == 0 && c != 0 {
		f(36, 0.5, exactBits)
	} else {
		f(36, b, exactBits)
	}
	f(37, float32(math.Exp2(float64(a*math.Float32frombits(0x3FB8AA3B)))), relTol)
	f38 := float32(math.Abs(float64(a)))
	f(38, f38, exactBits)
	f39 := fmaR(f38, -0.5, d, 0)
	f(39, f39, exactBits)
	f40 := ftz32(float32(math.Abs(float64(ftz32(f39)))))
	f(40, f40, exactBits)
	f41 := ftz32(-f40)
	f(41, f41, exactBits)
	f(42, f41+math.Float32frombits(1), exactBits)
	return
}

func TestOracleFloatops(t *testing.T) {
	forVariants(t, "05_floatops", func(t *testing.T, prog []byte, arch string) {
		const n = 64
		rng := rand.New(rand.NewPCG(11, 12))
		in := make([]float32, 4*n)
		for i := range in {
			in[i] = (rng.Float32()*2 - 1) * float32(math.Exp2(float64(rng.IntN(20)-8)))
		}
		// special operands in a few threads
		den := math.Float32frombits(0x00012345)
		copy(in[4*1:], []float32{0, -0.0, den, -den})
		copy(in[4*2:], []float32{float32(math.Inf(1)), float32(math.NaN()), 1e-40, 1e30})
		copy(in[4*3:], []float32{-3, 4, -den, 0.75})
		copy(in[4*4:], []float32{1e-30, 1e30, 3e38, -1e-38})
		copy(in[4*5:], []float32{float32(math.Inf(-1)), 0, 2, float32(math.Inf(1))})
		r := run{program: prog, arch: arch, kernel: "floatops", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{fromF32(in), make([]byte, 192*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		got := f32s(res.bufs[1])
		for i := 0; i < n; i++ {
			a, b, c, d := in[4*i], in[4*i+1], in[4*i+2], in[4*i+3]
			want, tol := floatopsRef(a, b, c, d)
			for j := range want {
				if g := got[48*i+j]; !closeF(g, want[j], tol[j]) {
					t.Errorf("thread %d (a=%g b=%g c=%g d=%g) f%d: got %g (%#x), want %g (%#x)", i, a, b, c, d, j,
						g, math.Float32bits(g), want[j], math.Float32bits(want[j]))
				}
			}
		}
	})
}

// ptxMin and ptxMax return the other operand when one is NaN.
func ptxMin[T float32 | float64](a, b T) T {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return min(a, b)
}

func ptxMax[T float32 | float64](a, b T) T {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return max(a, b)
}
