package all_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"os"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
)

// float32s and fromFloat32s convert between []float32 and the bytes of
// buffers (little-endian).
func float32s(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func fromFloat32s(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Run a Maxwell kernel (saxpy, y = a*x + y, from an nvcc-built cubin) with
// the library alone: the architecture comes from the cubin.
func ExampleRun() {
	cub, err := os.ReadFile("../../examples/maxwell/saxpy.sm_52.cubin")
	if err != nil {
		log.Fatal(err)
	}
	x := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	y := []float32{10, 20, 30, 40, 50, 60, 70, 80}
	res, err := all.Run(&emu.Job{
		Program: &emu.Program{Name: "saxpy.sm_52.cubin", Data: cub, Kernel: "saxpy"},
		Grid:    emu.Dim3{1},
		Block:   emu.Dim3{32},
		Buffers: []emu.Alloc{{Name: "x", Data: fromFloat32s(x)}, {Name: "y", Data: fromFloat32s(y)}},
		Args:    []emu.Arg{emu.U32(uint32(len(x))), emu.F32(0.5), emu.Ptr("x"), emu.Ptr("y")},
	})
	if err != nil {
		log.Fatal(err)
	}
	out, err := res.Buffer("y")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Arch, float32s(out))
	// Output:
	// sm_52 [10.5 21 31.5 42 52.5 63 73.5 84]
}

// Run a Tesla kernel (vecadd, c = a + b for i < n) from a cubin.
func ExampleRun_tesla() {
	cub, err := os.ReadFile("../../examples/tesla/vecadd.cubin")
	if err != nil {
		log.Fatal(err)
	}
	a := []float32{1, 2, 3, 4}
	b := []float32{0.5, 0.25, 0.125, 0.0625}
	res, err := all.Run(&emu.Job{
		Program: &emu.Program{Name: "vecadd.cubin", Data: cub},
		Grid:    emu.Dim3{1},
		Block:   emu.Dim3{4},
		Buffers: []emu.Alloc{
			{Name: "a", Data: fromFloat32s(a)},
			{Name: "b", Data: fromFloat32s(b)},
			{Name: "c", Data: make([]byte, 4*len(a))},
		},
		Args: []emu.Arg{emu.Ptr("a"), emu.Ptr("b"), emu.Ptr("c"), emu.U32(4)},
	})
	if err != nil {
		log.Fatal(err)
	}
	c, _ := res.Buffer("c")
	fmt.Println(res.Arch, float32s(c), res.Stats.WarpInsts, "warp-instructions")
	// Output:
	// sm_10 [1.5 2.25 3.125 4.0625] 13 warp-instructions
}

// A device keeps its buffers from one launch to the next: here saxpy runs
// three times with a changing factor, and the program is read once.
func ExampleDevice() {
	cub, err := os.ReadFile("../../examples/maxwell/saxpy.sm_52.cubin")
	if err != nil {
		log.Fatal(err)
	}
	prog := &emu.Program{Name: "saxpy.sm_52.cubin", Data: cub}
	dev := all.NewDevice()
	x := fromFloat32s([]float32{1, 2, 3, 4})
	for i, a := range []float32{1, 2, 4} {
		job := &emu.Job{Program: prog, Grid: emu.Dim3{1}, Block: emu.Dim3{32},
			// data for the first launch; later ones name the buffers only
			Buffers: []emu.Alloc{{Name: "x"}, {Name: "y"}},
			Args:    []emu.Arg{emu.U32(4), emu.F32(a), emu.Ptr("x"), emu.Ptr("y")}}
		if i == 0 {
			job.Buffers = []emu.Alloc{{Name: "x", Data: x}, {Name: "y", Data: make([]byte, len(x))}}
		}
		if _, err := dev.Run(job); err != nil {
			log.Fatal(err)
		}
	}
	y, _ := dev.Buffer("y")
	fmt.Println(float32s(y))
	// Output:
	// [7 14 21 28]
}
