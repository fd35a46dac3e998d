package fermi

import (
	"os"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestCubin runs an sm_20 cubin (isa/all's copy kernel, written by our
// cubin writer): the function found by name, the parameters placed where
// its .nv.info says, pointers as wide as the cubin's addresses.
func TestCubin(t *testing.T) {
	data, err := os.ReadFile("../../isa/all/testdata/copy.sm_20.cubin")
	if err != nil {
		t.Fatal(err)
	}
	img, err := ProgramImage("copy", data, "copy", "sm_20")
	if err != nil {
		t.Fatal(err)
	}
	if len(img.Params) != 2 {
		t.Fatalf("%d parameters from .nv.info, want 2", len(img.Params))
	}
	in := make([]uint32, 128)
	for i := range in {
		in[i] = uint32(i*i + 7)
	}
	dev := emu.NewDevice([]emu.Emulator{Emulator()})
	res, err := dev.Run(&emu.Job{Program: &emu.Program{Name: "copy", Data: data, Kernel: "copy"}, Block: emu.Dim3{128},
		Buffers: []emu.Alloc{{Name: "in", Data: fromU32(in)}, {Name: "out", Data: make([]byte, 4*128)}},
		Args:    []emu.Arg{emu.Ptr("in"), emu.Ptr("out")}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := res.Buffer("out")
	if err != nil {
		t.Fatal(err)
	}
	if err := sameWords(u32s(out), in); err != nil {
		t.Fatal(err)
	}
}
