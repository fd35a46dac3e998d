package maxwell

import (
	"testing"

	"gpuisa/emu"
)

// benchRun runs r b.N times and reports warp-instructions per second.
func benchRun(b *testing.B, r run) {
	b.ReportAllocs()
	var insts int64
	var secs float64
	for b.Loop() {
		res, err := r.exec(b)
		if err != nil {
			b.Fatal(err)
		}
		insts += res.stats.WarpInsts
		secs += res.stats.Duration.Seconds()
	}
	b.ReportMetric(float64(insts)/secs/1e6, "Mwarpinst/s")
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
