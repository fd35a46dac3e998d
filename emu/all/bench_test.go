package all_test

import (
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
)

// The per-launch fixed cost of the library entry point: a small launch
// (one block of 128 threads, about 100-300 warp-instructions) run again and
// again, on one device (the program read once, the buffers kept) and on a
// fresh device each time (all.Run: the cubin read and the memory placed
// for every launch). Issue 15 compares against these.

func benchLaunch(b *testing.B, prog *emu.Program, job func() *emu.Job, fresh bool) {
	b.ReportAllocs()
	dev := all.NewDevice()
	var insts int64
	for b.Loop() {
		if fresh {
			dev = all.NewDevice()
		}
		res, err := dev.Run(job())
		if err != nil {
			b.Fatal(err)
		}
		insts = res.Stats.WarpInsts
	}
	b.ReportMetric(float64(insts), "warp-insts/launch")
}

func maxwellSaxpy(b *testing.B) (*emu.Program, func() *emu.Job) {
	prog := &emu.Program{Name: "kernels.sm_52.cubin", Data: readFile(b, "../maxwell/testdata/kernels.sm_52.cubin"), Kernel: "saxpy"}
	x, y := make([]float32, 128), make([]float32, 128)
	return prog, func() *emu.Job {
		j := saxpyJob(b, prog, 128, 2, x, y)
		j.Grid, j.Workers = emu.Dim3{1}, 1
		return j
	}
}

func teslaVecadd(b *testing.B) (*emu.Program, func() *emu.Job) {
	prog := &emu.Program{Name: "vecadd.cubin", Data: readFile(b, "../../examples/tesla/vecadd.cubin")}
	data := make([]byte, 4*128)
	return prog, func() *emu.Job {
		return &emu.Job{Program: prog, Grid: emu.Dim3{1}, Block: emu.Dim3{128}, Workers: 1,
			Buffers: []emu.Alloc{{Name: "a", Data: data}, {Name: "b", Data: data}, {Name: "c", Data: data}},
			Args:    []emu.Arg{emu.Ptr("a"), emu.Ptr("b"), emu.Ptr("c"), emu.U32(128)}}
	}
}

func BenchmarkLaunchMaxwellDevice(b *testing.B) {
	p, j := maxwellSaxpy(b)
	benchLaunch(b, p, j, false)
}

func BenchmarkLaunchMaxwellFresh(b *testing.B) {
	p, j := maxwellSaxpy(b)
	benchLaunch(b, p, j, true)
}

func BenchmarkLaunchTeslaDevice(b *testing.B) {
	p, j := teslaVecadd(b)
	benchLaunch(b, p, j, false)
}

func BenchmarkLaunchTeslaFresh(b *testing.B) {
	p, j := teslaVecadd(b)
	benchLaunch(b, p, j, true)
}
