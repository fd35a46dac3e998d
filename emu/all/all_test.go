package all_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// saxpyJob is y = a*x + y over n elements with ptxas's sm_52 saxpy.
func saxpyJob(t testing.TB, prog *emu.Program, n int, a float32, x, y []float32) *emu.Job {
	return &emu.Job{Program: prog, Grid: emu.Dim3{3}, Block: emu.Dim3{128},
		Buffers: []emu.Alloc{{Name: "x", Data: fromFloat32s(x)}, {Name: "y", Data: fromFloat32s(y)}},
		Args:    []emu.Arg{emu.U32(uint32(n)), emu.F32(a), emu.Ptr("x"), emu.Ptr("y")}}
}

func TestRunArchFromCubin(t *testing.T) {
	prog := &emu.Program{Name: "kernels.sm_52.cubin", Data: readFile(t, "../maxwell/testdata/kernels.sm_52.cubin"), Kernel: "saxpy"}
	const n = 1000
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), float32(2*i)
	}
	res, err := all.Run(saxpyJob(t, prog, n, 1.5, x, y))
	if err != nil {
		t.Fatal(err)
	}
	if res.Arch != "sm_52" || res.Stats.Blocks != 3 {
		t.Errorf("arch %q, %d blocks", res.Arch, res.Stats.Blocks)
	}
	b, err := res.Buffer("y")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range float32s(b) {
		if want := 1.5*x[i] + y[i]; v != want {
			t.Fatalf("y[%d] = %g, want %g", i, v, want)
		}
	}
	if _, err := res.Buffer("z"); err == nil || !strings.Contains(err.Error(), `"z"`) {
		t.Errorf("unknown buffer: %v", err)
	}
}

// TestDeviceSequence: buffers keep their place and contents from one job to
// the next, parameters change, a second kernel of the same cubin reads what
// the first wrote, and each program is read once.
func TestDeviceSequence(t *testing.T) {
	data := readFile(t, "../maxwell/testdata/kernels.sm_52.cubin")
	saxpy := &emu.Program{Name: "kernels", Data: data, Kernel: "saxpy"}
	reduce := &emu.Program{Name: "kernels", Data: data, Kernel: "reduce"}
	const n = 256
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(i % 7)
	}
	dev := all.NewDevice()
	if _, err := dev.Run(saxpyJob(t, saxpy, n, 1, x, y)); err != nil {
		t.Fatal(err)
	}
	for _, a := range []float32{2, 0.5} {
		// the buffers exist: the job names them without data and keeps them
		j := &emu.Job{Program: saxpy, Grid: emu.Dim3{2}, Block: emu.Dim3{128},
			Buffers: []emu.Alloc{{Name: "x"}, {Name: "y"}},
			Args:    []emu.Arg{emu.U32(n), emu.F32(a), emu.Ptr("x"), emu.Ptr("y")}}
		if _, err := dev.Run(j); err != nil {
			t.Fatal(err)
		}
	}
	b, err := dev.Buffer("y")
	if err != nil {
		t.Fatal(err)
	}
	var sum uint32
	for i, v := range float32s(b) {
		if want := 3.5 * x[i]; v != want {
			t.Fatalf("y[%d] = %g after three launches, want %g", i, v, want)
		}
		sum += math.Float32bits(v)
	}
	// reduce sums one block's 256 words (u32, wrapping) into out[block]
	res, err := dev.Run(&emu.Job{Program: reduce, Grid: emu.Dim3{1}, Block: emu.Dim3{256},
		Buffers: []emu.Alloc{{Name: "y"}, {Name: "out", Data: make([]byte, 4)}},
		Args:    []emu.Arg{emu.Ptr("y"), emu.Ptr("out")}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := res.Buffer("out")
	if got := binary.LittleEndian.Uint32(out); got != sum {
		t.Errorf("reduce of the device's y = %#x, want %#x", got, sum)
	}
	// a clone runs on without changing the device
	fork := dev.Clone()
	if _, err := fork.Run(&emu.Job{Program: saxpy, Grid: emu.Dim3{2}, Block: emu.Dim3{128},
		Buffers: []emu.Alloc{{Name: "x"}, {Name: "y"}},
		Args:    []emu.Arg{emu.U32(n), emu.F32(100), emu.Ptr("x"), emu.Ptr("y")}}); err != nil {
		t.Fatal(err)
	}
	fy, _ := fork.Buffer("y")
	dy, _ := dev.Buffer("y")
	if f, d := float32s(fy)[1], float32s(dy)[1]; d != 3.5*x[1] || f != d+100*x[1] {
		t.Errorf("after a run on the clone: clone y[1] = %g, device y[1] = %g", f, d)
	}
	// a buffer given again must keep its size
	_, err = dev.Run(&emu.Job{Program: saxpy, Buffers: []emu.Alloc{{Name: "x", Data: make([]byte, 8)}, {Name: "y"}},
		Args: []emu.Arg{emu.U32(0), emu.F32(0), emu.Ptr("x"), emu.Ptr("y")}})
	if err == nil || !strings.Contains(err.Error(), "has 1024 bytes on the device") {
		t.Errorf("resized buffer: %v", err)
	}
}

func TestRunTeslaCubin(t *testing.T) {
	const n = 200
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), 0.25
	}
	res, err := all.Run(&emu.Job{
		Program: &emu.Program{Name: "vecadd.cubin", Data: readFile(t, "../../examples/tesla/vecadd.cubin")},
		Grid:    emu.Dim3{4}, Block: emu.Dim3{64},
		Buffers: []emu.Alloc{{Name: "a", Data: fromFloat32s(a)}, {Name: "b", Data: fromFloat32s(b)}, {Name: "c", Data: make([]byte, 4*n)}},
		Args:    []emu.Arg{emu.Ptr("a"), emu.Ptr("b"), emu.Ptr("c"), emu.U32(n)},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := res.Buffer("c")
	for i, v := range float32s(c) {
		if v != a[i]+b[i] {
			t.Fatalf("c[%d] = %g", i, v)
		}
	}
	if res.Arch != "sm_10" {
		t.Errorf("arch %q", res.Arch)
	}
}

func TestRunErrors(t *testing.T) {
	cub := readFile(t, "../../examples/tesla/vecadd.cubin")
	cases := []struct {
		job  emu.Job
		want string
	}{
		{emu.Job{}, "no program"},
		{emu.Job{Program: &emu.Program{Name: "raw", Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}}}, `needs "arch"`},
		{emu.Job{Program: &emu.Program{Name: "raw", Data: make([]byte, 8), Arch: "sm_30"}}, `arch "sm_30" cannot be run`},
		{emu.Job{Program: &emu.Program{Data: cub}, Args: []emu.Arg{emu.Ptr("nope")}}, `unknown buffer "nope"`},
		{emu.Job{Program: &emu.Program{Data: cub}, Args: []emu.Arg{emu.Tex("t")}}, `no texture "t"`},
		{emu.Job{Program: &emu.Program{Data: cub}, Block: emu.Dim3{1 << 10, 1 << 10}}, "threads"},
		{emu.Job{Program: &emu.Program{Data: cub}, Buffers: []emu.Alloc{{Name: "a"}, {Name: "a"}}}, `two buffers named "a"`},
		{emu.Job{Program: &emu.Program{Data: cub}, Memory: []emu.Placement{{Space: emu.Local}}}, "not local"},
		{emu.Job{Program: &emu.Program{Data: cub}, Textures: []emu.TexImage{{Name: "t", Format: "r32f"}}}, "size needs"},
		{emu.Job{Program: &emu.Program{Data: cub, Kernel: "nosuch"}}, `no function "nosuch"`},
	}
	for _, c := range cases {
		res, err := all.Run(&c.job)
		if err == nil || !strings.Contains(err.Error(), c.want) || res != nil {
			t.Errorf("%+v: %v, want an error containing %q and no result", c.job, err, c.want)
		}
	}
	// a fault comes with the result so far
	res, err := all.Run(&emu.Job{Program: &emu.Program{Data: cub}, Args: []emu.Arg{emu.U32(0), emu.U32(0), emu.U32(0x7ffffff0), emu.U32(1)}})
	var f *emu.Fault
	if !errors.As(err, &f) || res == nil || res.Stats.WarpInsts == 0 {
		t.Errorf("fault: %v, result %v", err, res)
	}
}

func TestArchOf(t *testing.T) {
	for _, c := range []struct{ file, arch, err string }{
		{"../../examples/tesla/vecadd.cubin", "sm_10", ""},
		{"../maxwell/testdata/kernels.sm_53.cubin", "sm_53", ""},
		{"../maxwell/testdata/kernels.fatbin", "", "sm_50, sm_53"},
		{"../../examples/tesla/vecadd.s", "", `needs "arch"`},
	} {
		a, err := emu.ArchOf(readFile(t, c.file))
		if a != c.arch || c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %q, %v", c.file, a, err)
		}
	}
}

func TestRunnable(t *testing.T) {
	got := all.Runnable()
	for _, a := range []string{"sm_10", "sm_13", "sm_50", "sm_53"} {
		if !slices.Contains(got, a) {
			t.Errorf("%s is not runnable: %v", a, got)
		}
	}
}
