package maxwell

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// benchRun runs the launch r b.N times on the same kernel and memory (the
// kernels are idempotent enough) and reports warp-instructions per second.
func benchRun(b *testing.B, r run) {
	k, cfg, _ := r.prepare(b)
	benchKernel(b, k, cfg)
}

// benchKernel runs a prepared kernel b.N times and reports
// warp-instructions per wall second and per CPU second.
func benchKernel(b *testing.B, k *Kernel, cfg emu.Config) {
	b.ReportAllocs()
	var insts int64
	var secs float64
	cpu0 := benchcpu.Now()
	for b.Loop() {
		st, err := emu.Run(cfg, k)
		if err != nil {
			b.Fatal(err)
		}
		insts += st.WarpInsts
		secs += st.Duration.Seconds()
	}
	b.ReportMetric(float64(insts)/secs/1e6, "Mwarpinst/s")
	// per CPU-second too: on a loaded machine the wall-clock rate says
	// more about the other processes than about the emulator
	if cpu := (benchcpu.Now() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(insts)/cpu/1e6, "Mwarpinst/cpu-s")
	}
	b.ReportMetric(float64(insts)/float64(b.N), "warpinst/op")
}

func BenchmarkOracleSaxpy(b *testing.B) {
	prog := oracleCubin(b, "sm_52", "02_saxpy.O3.cubin")
	const n = 1 << 20
	benchRun(b, run{program: prog, arch: "sm_52", kernel: "saxpy", grid: emu.Dim3{n / 256, 1, 1}, block: emu.Dim3{256, 1, 1},
		args: []arg{uint32(n), float32(2), make([]byte, 4*n), make([]byte, 4*n)}})
}

func BenchmarkOracleReduce(b *testing.B) {
	prog := oracleCubin(b, "sm_52", "10_reduce_shared.O3.cubin")
	const n = 1 << 20
	benchRun(b, run{program: prog, arch: "sm_52", kernel: "reduce_sum", grid: emu.Dim3{n / 256, 1, 1}, block: emu.Dim3{256, 1, 1},
		args: []arg{make([]byte, 4*n), make([]byte, 4*n/256), uint32(n)}})
}

// The speed targets, on our own cubins (no ../shared needed): a
// large saxpy and a shared-memory reduction.
// BenchmarkSaxpy: 4M elements, a thread each (the grid-stride loop runs
// once). BenchmarkSaxpyStride: 256 blocks stride through them; the emulator
// runs a warp for thousands of instructions before the next, so each load
// lands 256 KiB past the last and misses the caches.
func BenchmarkSaxpy(b *testing.B) {
	const n = 1 << 22
	benchRun(b, run{program: ownCubin(b, "sm_52"), arch: "sm_52", kernel: "saxpy", grid: emu.Dim3{n / 256, 1, 1}, block: emu.Dim3{256, 1, 1},
		args: []arg{uint32(n), float32(2), make([]byte, 4*n), make([]byte, 4*n)}})
}

func BenchmarkSaxpyStride(b *testing.B) {
	const n = 1 << 22
	benchRun(b, run{program: ownCubin(b, "sm_52"), arch: "sm_52", kernel: "saxpy", grid: emu.Dim3{256, 1, 1}, block: emu.Dim3{256, 1, 1},
		args: []arg{uint32(n), float32(2), make([]byte, 4*n), make([]byte, 4*n)}})
}

func BenchmarkReduce(b *testing.B) {
	const blocks = 4096
	benchRun(b, run{program: ownCubin(b, "sm_52"), arch: "sm_52", kernel: "reduce", grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{256, 1, 1},
		args: []arg{make([]byte, 4*256*blocks), make([]byte, 4*blocks)}})
}

// BenchmarkLower: decoding and lowering, once per launch.
func BenchmarkLower(b *testing.B) {
	data := ownCubin(b, "sm_52")
	img, err := ProgramImage("k", data, "reduce", "sm_52")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(img.Code)))
	for b.Loop() {
		if _, err := Lower(img.Code, 52); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(img.Code)/32*3), "insts/op")
}

// BenchmarkLowerRandom: lowering random words (most do not decode or have
// no semantics), as fuzzed code and damaged cubins are lowered.
func BenchmarkLowerRandom(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 52))
	code := make([]byte, 4096)
	for i := 0; i < len(code); i += 8 {
		binary.LittleEndian.PutUint64(code[i:], rng.Uint64())
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(code)))
	for b.Loop() {
		if _, err := Lower(code, 52); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(code)/32*3), "insts/op")
}
