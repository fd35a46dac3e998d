package maxwell

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// fdivRef is IEEE-754 binary32 division rounded to nearest even, with
// subnormals kept (CUDA's div.rn.f32 without flush to zero): the float64
// quotient is correctly rounded and has more than 2*24+2 bits, so rounding
// it again to float32 gives the correctly rounded float32 quotient.
func fdivRef(a, b float32) float32 { return float32(float64(a) / float64(b)) }

// fdivInputs are the dividends that take ptxas's slow path (tiny,
// subnormal, huge) and ordinary ones, both signs.
func fdivInputs(rng *rand.Rand, n int) []float32 {
	special := []uint32{0, 0x80000000, 1, 0x80000001, 2, 0x7fffff, 0x807fffff, 0x400000, 0x800000, 0x80800000,
		0x00ffffff, 0x01000000, 0x0a000000, 0x0b800000, 0x0c7fffff, 0x1e000000, 0x2f800000, 0x3f800000,
		0x7f7fffff, 0xff7fffff, 0x7f000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x34000000, 0x35800000}
	v := make([]float32, n)
	for i := range v {
		switch {
		case i < len(special):
			v[i] = math.Float32frombits(special[i])
		case i%3 == 0: // subnormal
			v[i] = math.Float32frombits(rng.Uint32()&0x807fffff | 1)
		case i%3 == 1: // tiny normal: the quotient is subnormal or zero
			v[i] = math.Float32frombits(rng.Uint32()&0x81ffffff | 0x00800000)
		default:
			v[i] = math.Float32frombits(rng.Uint32())
		}
	}
	return v
}

// sameF32 compares bit patterns, any NaN matching any NaN.
func sameF32(t *testing.T, what string, in []float32, got, want []float32) {
	t.Helper()
	bad := 0
	for i := range want {
		g, w := math.Float32bits(got[i]), math.Float32bits(want[i])
		if g != w && !(got[i] != got[i] && want[i] != want[i]) {
			if bad < 5 {
				t.Errorf("%s: a[%d] = %g (%#08x): got %g (%#08x), want %g (%#08x)", what, i, in[i], math.Float32bits(in[i]), got[i], g, want[i], w)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d differ", what, bad, len(want))
	}
}

func fdivCubin(t testing.TB, arch, opt string) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "fdiv."+arch+"."+opt+".cubin"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestFdivSlowPath: a[i] / 3214212.01f for tiny and subnormal a[i] runs
// ptxas's slow path, whose exponent adjustment is IADD3 R6, R6, 0xfffeb, R3:
// read as +0xfffeb the quotients came out infinite; the hardware (and
// IEEE) gives 0, -0 or subnormals. fdiv_var divides by every kind of b.
func TestFdivSlowPath(t *testing.T) {
	for _, arch := range archs {
		for _, opt := range []string{"O3", "O0"} {
			t.Run(arch+"."+opt, func(t *testing.T) {
				prog := fdivCubin(t, arch, opt)
				rng := rand.New(rand.NewPCG(41, 42))
				const n = 4096
				a := fdivInputs(rng, n)
				r := run{program: prog, arch: arch, kernel: "fdiv_const", grid: emu.Dim3{n / 256, 1, 1}, block: emu.Dim3{256, 1, 1},
					args: []arg{fromF32(a), make([]byte, 4*n), uint32(n)}}
				res, err := r.exec(t)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]float32, n)
				subnormal := 0
				for i := range want {
					want[i] = fdivRef(a[i], 3214212.01)
					if want[i] != 0 && math.Abs(float64(want[i])) < 0x1p-126 {
						subnormal++
					}
				}
				if subnormal < n/4 {
					t.Fatalf("only %d subnormal quotients: the inputs miss the slow path", subnormal)
				}
				sameF32(t, "fdiv_const", a, f32s(res.bufs[1]), want)

				b := fdivInputs(rng, n)
				rng.Shuffle(n, func(i, j int) { b[i], b[j] = b[j], b[i] })
				r.kernel = "fdiv_var"
				r.args = []arg{fromF32(a), fromF32(b), make([]byte, 4*n), uint32(n)}
				if res, err = r.exec(t); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					want[i] = fdivRef(a[i], b[i])
				}
				sameF32(t, "fdiv_var", a, f32s(res.bufs[2]), want)
			})
		}
	}
}

// TestFdivCubinsUpToDate rebuilds the fdiv cubins from fdiv.ptx with
// ptxas when it is installed.
func TestFdivCubinsUpToDate(t *testing.T) {
	nb := newNVBuilder(t, "ptxas", "gen_fdiv.sh")
	for _, arch := range archs {
		for _, opt := range []string{"O3", "O0"} {
			nb.build("fdiv."+arch+"."+opt+".cubin", "ptxas", "-arch", arch, "-"+opt, testdataPTX("fdiv"))
		}
	}
}
