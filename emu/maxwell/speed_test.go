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
