package maxwell

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// relaunchJob is a launch of about 300 warp-instructions (corpus
// jacobi2d_step on a 16x16 grid: one block of 8 warps) on a device.
func relaunchJob(tb testing.TB) (*emu.Device, *emu.Job) {
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", "stencil.sm_52.O3.cubin"))
	if err != nil {
		tb.Fatal(err)
	}
	const n = 16
	dev := emu.NewDevice([]emu.Emulator{Emulator()})
	prog := &emu.Program{Name: "stencil", Data: data, Kernel: "jacobi2d_step"}
	j := &emu.Job{Program: prog, Grid: emu.Dim3{1, 1, 1}, Block: emu.Dim3{16, 12, 1},
		Buffers: []emu.Alloc{{Name: "a", Data: make([]byte, 4*n*n)}, {Name: "b", Data: make([]byte, 4*n*n)}},
		Args:    []emu.Arg{emu.Ptr("a"), emu.Ptr("b"), emu.S32(n)}}
	if _, err := dev.Run(j); err != nil {
		tb.Fatal(err)
	}
	j.Buffers = []emu.Alloc{{Name: "a"}, {Name: "b"}}
	return dev, j
}

// BenchmarkRelaunch is the cost of a launch after the first on a device
// (cpu-us/op: the machine is shared, CPU time is what a launch costs).
func BenchmarkRelaunch(b *testing.B) {
	dev, j := relaunchJob(b)
	benchJob(b, dev, j)
}

// TestDeviceVariablesPersist: a program's __device__ variables keep their
// place and values from one launch to the next on a device, and a clone
// goes on from the original's values without changing them (the ticket
// kernel hands out tickets from a global counter).
func TestDeviceVariablesPersist(t *testing.T) {
	dev := emu.NewDevice([]emu.Emulator{Emulator()})
	prog := &emu.Program{Name: "kernels", Data: ownCubin(t, "sm_52"), Kernel: "ticket"}
	const n = 32
	launch := func(d *emu.Device, data []byte) []uint32 {
		t.Helper()
		j := &emu.Job{Program: prog, Grid: emu.Dim3{1}, Block: emu.Dim3{n}, Buffers: []emu.Alloc{{Name: "out", Data: data}},
			Args: []emu.Arg{emu.Ptr("out")}}
		if _, err := d.Run(j); err != nil {
			t.Fatal(err)
		}
		b, err := d.Buffer("out")
		if err != nil {
			t.Fatal(err)
		}
		return u32s(b)
	}
	tickets := func(from uint32) []uint32 {
		w := make([]uint32, n)
		for i := range w {
			w[i] = from + uint32(i)
		}
		return w
	}
	if err := sameWords(launch(dev, make([]byte, 4*n)), tickets(0)); err != nil {
		t.Fatal("first launch:", err)
	}
	clone := dev.Clone()
	if err := sameWords(launch(dev, nil), tickets(n)); err != nil {
		t.Fatal("second launch:", err)
	}
	if err := sameWords(launch(clone, nil), tickets(n)); err != nil {
		t.Fatal("the clone's launch:", err)
	}
	if err := sameWords(launch(dev, nil), tickets(2*n)); err != nil {
		t.Fatal("third launch:", err)
	}
}

// TestRelaunchCost: a launch of about 300 warp-instructions after the
// first on a device costs well under the first (which reads and lowers the
// program): the relaunch does not lower again.
func TestRelaunchCost(t *testing.T) {
	dev, j := relaunchJob(t)
	res, err := dev.Run(j)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.WarpInsts < 250 || res.Stats.WarpInsts > 350 {
		t.Fatalf("%d warp-instructions, want about 300", res.Stats.WarpInsts)
	}
	n := testing.AllocsPerRun(20, func() {
		if _, err := dev.Run(j); err != nil {
			t.Fatal(err)
		}
	})
	if n > 40 {
		t.Errorf("%.0f allocations per relaunch, want at most 40 (lowering allocates hundreds)", n)
	}
}

// BenchmarkSequence is the cost per launch of a launch file's repeated
// step (the relaunch kernel, 306 warp-instructions, with a parameter that
// changes every launch): what a host loop costs in `gpuisa run`.
func BenchmarkSequence(b *testing.B) {
	dir := b.TempDir()
	data := []byte(`{"program": "` + filepath.Join(mustAbs(b, "testdata/corpus"), "stencil.sm_52.O3.cubin") + `", "kernel": "jacobi2d_step",
		"buffers": {"a": {"bytes": 1024}, "b": {"bytes": 1024}},
		"launches": [{"repeat": 1000, "grid": [1], "block": [16, 12], "params": [{"ptr": "a"}, {"ptr": "b"}, {"s32": "{16+$i%2}"}]}]}`)
	l, err := emu.ParseLaunch(data)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	launches := 0
	for b.Loop() {
		seq, err := l.NewSequence(emu.NewDevice([]emu.Emulator{Emulator()}), dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := seq.Run(); err != nil {
			b.Fatal(err)
		}
		launches += seq.Launches
	}
	b.ReportMetric(float64((benchcpu.Now()-start).Microseconds())/float64(launches), "cpu-us/launch")
}

func mustAbs(tb testing.TB, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}
