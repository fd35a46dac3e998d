package all_test

import (
	"errors"
	"os"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
)

// FuzzSkeleton: whatever the bytes, Skeleton gives a launch file that
// parses, or an error; never a panic.
func FuzzSkeleton(f *testing.F) {
	for _, p := range []string{"../../examples/tesla/vecadd.cubin", "../../examples/maxwell/kinds.sm_52.cubin",
		"../../examples/maxwell/link_main.rel.sm_52.cubin", "../maxwell/testdata/kernels.fatbin"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := emu.Skeleton("k.cubin", data, "")
		if err != nil {
			return
		}
		if _, err := emu.ParseLaunch(text); err != nil {
			t.Fatalf("the skeleton does not parse: %v\n%s", err, text)
		}
	})
}

// FuzzRun: a job of any program bytes (raw code for sm_10 or sm_52, or a
// cubin) runs to an end, a fault or an error; never a panic or a hang.
func FuzzRun(f *testing.F) {
	for _, p := range []string{"../../examples/tesla/vecadd.bin", "../../examples/maxwell/saxpy.sm_52.cubin"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false)
		f.Add(data, true)
	}
	f.Fuzz(func(t *testing.T, code []byte, maxwell bool) {
		arch := "sm_10"
		if maxwell {
			arch = "sm_52"
		}
		if len(code) > 0 && code[0] == 0x7f {
			arch = "" // a cubin says
		}
		res, err := all.Run(&emu.Job{
			Program: &emu.Program{Name: "fuzz", Data: code, Arch: arch},
			Grid:    emu.Dim3{2}, Block: emu.Dim3{40},
			Buffers:  []emu.Alloc{{Name: "b", Data: make([]byte, 256)}},
			Args:     []emu.Arg{emu.Ptr("b"), emu.Ptr("b"), emu.U32(3), emu.U32(4)},
			MaxSteps: 2000, Workers: 1, LocalBytes: 64,
		})
		var fault *emu.Fault
		if err != nil && res != nil && !errors.As(err, &fault) {
			t.Fatalf("a result with an error that is not a fault: %v", err)
		}
	})
}
