package maxwell

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

func randF32(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = rng.Float32()*200 - 100
	}
	return v
}

func TestOracleSaxpy(t *testing.T) {
	forVariants(t, "02_saxpy", func(t *testing.T, prog []byte, arch string) {
		rng := rand.New(rand.NewPCG(5, 6))
		const n = 3001
		x, y := randF32(rng, n), randF32(rng, n)
		const a = float32(1.75)
		// grid-stride: 4 blocks of 96 threads cover n in several rounds
		r := run{program: prog, arch: arch, kernel: "saxpy", grid: emu.Dim3{4, 1, 1}, block: emu.Dim3{96, 1, 1},
			args: []arg{uint32(n), a, fromF32(x), fromF32(y)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, n)
		for i := range want {
			want[i] = float32(math.FMA(float64(a), float64(x[i]), float64(y[i])))
		}
		if err := sameWords(u32s(res.bufs[3]), u32s(fromF32(want))); err != nil {
			t.Fatal("saxpy:", err)
		}
		// the v4 variant: n4 groups of 4
		const n4 = 700
		x, y = randF32(rng, 4*n4), randF32(rng, 4*n4)
		r.kernel, r.grid, r.block = "saxpy_v4", emu.Dim3{3, 1, 1}, emu.Dim3{256, 1, 1}
		r.args = []arg{uint32(n4), a, fromF32(x), fromF32(y)}
		if res, err = r.exec(t); err != nil {
			t.Fatal(err)
		}
		want = make([]float32, 4*n4)
		for i := range want {
			want[i] = float32(math.FMA(float64(a), float64(x[i]), float64(y[i])))
		}
		if err := sameWords(u32s(res.bufs[3]), u32s(fromF32(want))); err != nil {
			t.Fatal("saxpy_v4:", err)
		}
	})
}

// reduceRef is reduce_sum's arithmetic in its order: a tree down to 64
// values with barriers, then the first warp in lockstep.
func reduceRef(in []float32, bid, bdim int) float32 {
	s := make([]float32, bdim+64)
	for t := 0; t < bdim; t++ {
		if i := bid*bdim + t; i < len(in) {
			s[t] = in[i]
		}
	}
	for st := bdim / 2; st > 32; st >>= 1 {
		for t := 0; t < st; t++ {
			s[t] += s[t+st]
		}
	}
	if bdim < 32 {
		return s[0] // not used by the test
	}
	var f3 [32]float32
	for t := range 32 {
		f3[t] = s[t] + s[t+32]
	}
	for t := range 32 {
		s[t] = f3[t]
	}
	for _, off := range []int{16, 8, 4, 2, 1} {
		var f2 [32]float32
		for t := range 32 {
			f2[t] = s[t+off]
		}
		for t := range 32 {
			f3[t] += f2[t]
			s[t] = f3[t]
		}
	}
	return s[0]
}

func TestOracleReduce(t *testing.T) {
	forVariants(t, "10_reduce_shared", func(t *testing.T, prog []byte, arch string) {
		rng := rand.New(rand.NewPCG(7, 8))
		const n, bdim, blocks = 2000, 256, 8
		in := randF32(rng, n)
		r := run{program: prog, arch: arch, kernel: "reduce_sum", grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{bdim, 1, 1},
			args: []arg{fromF32(in), make([]byte, 4*blocks), uint32(n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, blocks)
		for b := range want {
			want[b] = reduceRef(in, b, bdim)
		}
		if err := sameWords(u32s(res.bufs[1]), u32s(fromF32(want))); err != nil {
			t.Fatal("reduce_sum:", err)
		}
	})
}

// TestOracleBarriers: bar.red.popc/and/or, a producer/consumer named
// barrier with a thread count (bar.arrive), and small shared accesses.
// Racing stores to one shared word leave the last writer's value: with the
// emulator's order (warps in turn, lanes in order) that is thread 127's.
func TestOracleBarriers(t *testing.T) {
	forVariants(t, "10_reduce_shared", func(t *testing.T, prog []byte, arch string) {
		const n = 128
		r := run{program: prog, arch: arch, kernel: "barriers", grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{make([]byte, 32*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		var popc uint32
		all := true
		for i := 0; i < n; i++ {
			if i&5 != 0 {
				popc++
			} else {
				all = false
			}
		}
		want := []uint32{popc, b01(all), 1, 63, 0, 0, 0, 0}
		got := u32s(res.bufs[0])
		for i := 0; i < n; i++ {
			for j, w := range want {
				if g := got[8*i+j]; g != w {
					t.Errorf("thread %d word %d: got %#x, want %#x", i, j, g, w)
				}
			}
		}
	})
}
