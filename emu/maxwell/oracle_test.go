package maxwell

import (
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

func forVariants(t *testing.T, ptx string, f func(t *testing.T, prog []byte, arch string)) {
	for _, v := range variants {
		t.Run(v.arch+"."+v.opt, func(t *testing.T) {
			f(t, oracleCubin(t, v.arch, ptx+"."+v.opt+".cubin"), v.arch)
		})
	}
}

func TestOracleVecadd(t *testing.T) {
	forVariants(t, "01_vecadd", func(t *testing.T, prog []byte, arch string) {
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 1000
		a, b := make([]float32, n), make([]float32, n)
		ai, bi := make([]uint32, n), make([]uint32, n)
		for i := range a {
			a[i], b[i] = rng.Float32()*100-50, rng.Float32()*100-50
			ai[i], bi[i] = rng.Uint32(), rng.Uint32()
		}
		r := run{program: prog, arch: arch, kernel: "vecadd_f32", grid: emu.Dim3{8, 1, 1}, block: emu.Dim3{128, 1, 1},
			args: []arg{fromF32(a), fromF32(b), make([]byte, 4*n), uint32(n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, n)
		for i := range want {
			want[i] = a[i] + b[i]
		}
		if err := sameWords(u32s(res.bufs[2]), u32s(fromF32(want))); err != nil {
			t.Fatal("vecadd_f32:", err)
		}
		r.kernel = "vecadd_s32"
		r.args = []arg{fromU32(ai), fromU32(bi), make([]byte, 4*n), uint32(n)}
		if res, err = r.exec(t); err != nil {
			t.Fatal(err)
		}
		wi := make([]uint32, n)
		for i := range wi {
			wi[i] = ai[i] + bi[i]
		}
		if err := sameWords(u32s(res.bufs[2]), wi); err != nil {
			t.Fatal("vecadd_s32:", err)
		}
	})
}
