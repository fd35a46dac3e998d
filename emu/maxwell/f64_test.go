package maxwell

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// rnd64 rounds an exact value to float64 in mode m with math/big.
func rnd64(x *big.Float, m int) float64 {
	if x.Sign() != 0 && x.MantExp(nil) < -1021 {
		// subnormal range: round to a multiple of 2^-1074 in mode m
		y := new(big.Float).SetPrec(x.Prec()).SetMantExp(x, 1074)
		q, acc := y.Int(nil) // toward zero
		if acc != big.Exact {
			frac := new(big.Float).Sub(y, new(big.Float).SetInt(q))
			frac.Abs(frac)
			half := frac.Cmp(big.NewFloat(0.5))
			up := false // away from zero
			switch m {
			case 0:
				up = half > 0 || half == 0 && q.Bit(0) == 1
			case 1:
				up = x.Sign() < 0
			case 2:
				up = x.Sign() > 0
			}
			if up {
				q.Add(q, big.NewInt(int64(x.Sign())))
			}
		}
		f, _ := new(big.Float).SetInt(q).Float64()
		return math.Ldexp(f, -1074)
	}
	modes := [4]big.RoundingMode{big.ToNearestEven, big.ToNegativeInf, big.ToPositiveInf, big.ToZero}
	z := new(big.Float).SetMode(modes[m]).SetPrec(53).Set(x)
	f, _ := z.Float64()
	return f
}

func special64(v ...float64) bool {
	for _, x := range v {
		if x != x || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}

func ex(v float64) *big.Float { return new(big.Float).SetPrec(2200).SetFloat64(v) }

func add64(a, b float64, m int) float64 {
	if special64(a, b) {
		return a + b
	}
	return rnd64(new(big.Float).SetPrec(2200).Add(ex(a), ex(b)), m)
}

func mul64(a, b float64, m int) float64 {
	if special64(a, b) {
		return a * b
	}
	return rnd64(new(big.Float).SetPrec(2200).Mul(ex(a), ex(b)), m)
}

func fma64(a, b, c float64, m int) float64 {
	if special64(a, b, c) {
		return math.FMA(a, b, c)
	}
	p := new(big.Float).SetPrec(2200).Mul(ex(a), ex(b))
	return rnd64(p.Add(p, ex(c)), m)
}

func div64(a, b float64, m int) float64 {
	if special64(a, b) || b == 0 {
		return a / b
	}
	return rnd64(new(big.Float).SetPrec(2200).Quo(ex(a), ex(b)), m)
}

func f64Ref(a, b, c, d float64) (x [22]float64, tol [22]bool, r0, r1 uint32) {
	x[0] = a + b
	x[1] = add64(a, -c, 3)
	x[2] = a * b
	x[3] = mul64(c, d, 2)
	x[4] = math.FMA(a, b, c)
	x[5] = fma64(b, c, d, 1)
	x[6] = a + 1
	x[7] = b * math.Float64frombits(0x400921FB54442D18)
	x[8] = a / b
	x[9] = 1 / c
	x[10], tol[10] = 1/d, true
	x[11] = math.Sqrt(a)
	x[12], tol[12] = 1/math.Sqrt(b), true
	x[13] = ptxMin(a, b)
	x[14] = ptxMax(c, d)
	x[15] = math.Abs(a)
	x[16] = -b
	if a < b {
		x[17] = a
	} else {
		x[17] = c
	}
	if c > d || c != c || d != d {
		x[18] = b
	} else {
		x[18] = d
	}
	if math.IsInf(a, 0) {
		x[19] = 0
	} else {
		x[19] = a
	}
	x[20] = div64(c, d, 3)
	x[21] = math.FMA(x[20], x[20], x[0])
	if x[21] == x[21] && a == a {
		r0 = 1
	}
	if a <= c {
		r1 = 0xffffffff
	}
	return
}

func TestOracleF64(t *testing.T) {
	forVariants(t, "07_f64ops", func(t *testing.T, prog []byte, arch string) {
		const n = 64
		rng := rand.New(rand.NewPCG(13, 14))
		in := make([]float64, 4*n)
		for i := range in {
			in[i] = (rng.Float64()*2 - 1) * math.Exp2(float64(rng.IntN(40)-20))
		}
		copy(in[4:], []float64{math.Inf(1), 0, 5e-310, -3})
		copy(in[8:], []float64{4, math.NaN(), -0.0, math.Inf(-1)})
		copy(in[12:], []float64{-2, 1e300, 1e-300, 1e300})
		buf := make([]byte, 8*len(in))
		for i, v := range in {
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v))
		}
		r := run{program: prog, arch: arch, kernel: "f64ops", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{buf, make([]byte, 192*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		out := res.bufs[1]
		for i := 0; i < n; i++ {
			a, b, c, d := in[4*i], in[4*i+1], in[4*i+2], in[4*i+3]
			want, tol, r0, r1 := f64Ref(a, b, c, d)
			for j, w := range want {
				g := math.Float64frombits(binary.LittleEndian.Uint64(out[192*i+8*j:]))
				ok := math.Float64bits(g) == math.Float64bits(w) || g != g && w != w
				if tol[j] && !ok {
					// rcp.approx.ftz.f64 and rsqrt.approx.f64 are MUFU.RCP64H /
					// RSQ64H alone: a high word (20 fraction bits) and a zero low
					// word, within 2^-19 relative
					ok = math.Abs(g-w) <= math.Abs(w)*math.Exp2(-19) || math.IsInf(w, 0) && g == w
				}
				if !ok {
					t.Errorf("thread %d (a=%g b=%g c=%g d=%g) x%d: got %g (%#x), want %g (%#x)", i, a, b, c, d, j,
						g, math.Float64bits(g), w, math.Float64bits(w))
				}
			}
			g0, g1 := binary.LittleEndian.Uint32(out[192*i+176:]), binary.LittleEndian.Uint32(out[192*i+180:])
			if g0 != r0 || g1 != r1 {
				t.Errorf("thread %d r0, r1: got %#x %#x, want %#x %#x", i, g0, g1, r0, r1)
			}
		}
	})
}
