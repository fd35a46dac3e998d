package maxwell

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// Speed on third-party-style kernels (issue 15 item 6): PolyBench's
// correlation, whose inner loop loads two values and loads, adds and
// stores a global accumulator (no restrict: every access goes to memory),
// in one block of 256 threads with different trip counts (divergent warps).

// corrJob is corr_corr (testdata/corpus/linalg.cu) on m variables and n
// samples: one block of m threads.
func corrJob(tb testing.TB, m, n int) (*emu.Device, *emu.Job) {
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", "linalg.sm_52.O3.cubin"))
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(61, 1))
	in := make([]float32, m*n)
	for i := range in {
		in[i] = rng.Float32() - 0.5
	}
	dev := emu.NewDevice([]emu.Emulator{Emulator()})
	j := &emu.Job{Program: &emu.Program{Name: "linalg", Data: data, Kernel: "corr_corr"}, Grid: emu.Dim3{1}, Block: emu.Dim3{uint32(m)},
		Buffers: []emu.Alloc{{Name: "sym", Data: make([]byte, 4*m*m)}, {Name: "data", Data: fromF32(in)}},
		Args:    []emu.Arg{emu.Ptr("sym"), emu.Ptr("data"), emu.S32(int32(m)), emu.S32(int32(n))}}
	return dev, j
}

// BenchmarkCorrelation: 256 variables, 512 samples: one block, about 5M
// warp-instructions; its warps on the cores the launch leaves idle
// (parallel rounds, emu/parallel.go).
func BenchmarkCorrelation(b *testing.B) {
	dev, j := corrJob(b, 256, 512)
	benchJob(b, dev, j)
}

// BenchmarkCorrelationOneCore: the same on one core (the speed before
// parallel rounds), for the ratio measured side by side.
func BenchmarkCorrelationOneCore(b *testing.B) {
	dev, j := corrJob(b, 256, 512)
	j.WarpCores = 1
	benchJob(b, dev, j)
}

// benchJob runs a job b.N times on a device and reports warp-instructions
// per wall second and per CPU second.
func benchJob(b *testing.B, dev *emu.Device, j *emu.Job) {
	b.ReportAllocs()
	var insts int64
	var secs float64
	cpu0 := benchcpu.Now()
	for b.Loop() {
		res, err := dev.Run(j)
		if err != nil {
			b.Fatal(err)
		}
		insts += res.Stats.WarpInsts
		secs += res.Stats.Duration.Seconds()
	}
	b.ReportMetric(float64(insts)/secs/1e6, "Mwarpinst/s")
	if cpu := (benchcpu.Now() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(insts)/cpu/1e6, "Mwarpinst/cpu-s")
		b.ReportMetric(cpu*1e6/float64(b.N), "cpu-us/op")
	}
	b.ReportMetric(float64(insts)/float64(b.N), "warpinst/op")
}

// linalgJob is a launch of a kernel of testdata/corpus/linalg.cu on
// random float buffers.
func linalgJob(tb testing.TB, kernel string, grid, block emu.Dim3, bufs []int, args ...emu.Arg) (*emu.Device, *emu.Job) {
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", "linalg.sm_52.O3.cubin"))
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(62, 1))
	j := &emu.Job{Program: &emu.Program{Name: "linalg", Data: data, Kernel: kernel}, Grid: grid, Block: block}
	for i, n := range bufs {
		v := make([]float32, n)
		for k := range v {
			v[k] = rng.Float32() - 0.5
		}
		name := string(rune('a' + i))
		j.Buffers = append(j.Buffers, emu.Alloc{Name: name, Data: fromF32(v)})
		j.Args = append(j.Args, emu.Ptr(name))
	}
	j.Args = append(j.Args, args...)
	return emu.NewDevice([]emu.Emulator{Emulator()}), j
}

// BenchmarkSgemm: the corpus' shared-memory tiled SGEMM, 256x256x256
// (256 blocks of 16x16 threads).
func BenchmarkSgemm(b *testing.B) {
	const n = 256
	dev, j := linalgJob(b, "sgemm_tiled", emu.Dim3{n / 16, n / 16, 1}, emu.Dim3{16, 16, 1}, []int{n * n, n * n, n * n},
		emu.S32(n), emu.S32(n), emu.S32(n), emu.F32(1.5), emu.F32(-0.5))
	benchJob(b, dev, j)
}

// BenchmarkSgemv: the corpus' warp-per-row SGEMV, 1024x1024.
func BenchmarkSgemv(b *testing.B) {
	const rows, cols = 1024, 1024
	dev, j := linalgJob(b, "sgemv_warp", emu.Dim3{32 * rows / 128, 1, 1}, emu.Dim3{128, 1, 1}, []int{rows * cols, cols, rows},
		emu.S32(rows), emu.S32(cols))
	benchJob(b, dev, j)
}
