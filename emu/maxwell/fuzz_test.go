package maxwell

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// FuzzRun lowers and runs arbitrary code on a small launch: whatever the
// words are, the emulator must stop with a result or a *emu.Fault, never
// panic or hang.
func FuzzRun(f *testing.F) {
	for _, arch := range archs {
		img, err := ProgramImage("k", ownCubin(f, arch), "saxpy", arch)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(img.Code)
	}
	img, err := ProgramImage("k", ownCubin(f, "sm_52"), "reduce", "sm_52")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(img.Code)
	f.Add([]byte{0xf1, 0x07, 0xe0, 0xfe, 0x00, 0xc4, 0x1f, 0x00, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, code []byte) {
		if len(code) > 4096 {
			return
		}
		for len(code)%32 != 0 {
			code = append(code, 0)
		}
		// end with a bundle of EXITs so that straight-line code stops
		exit := make([]byte, 32)
		binary.LittleEndian.PutUint64(exit, 0x001fc400fe2007f1)
		for i := 1; i < 4; i++ {
			binary.LittleEndian.PutUint64(exit[8*i:], 0xe30000000007000f)
		}
		code = append(code, exit...)
		l := &emu.Launch{Arch: "sm_52"}
		name := "buf"
		l.Params = []emu.Param{{Ptr: &name}, {U32: &emu.Num{Text: "7"}}}
		s := &emu.Setup{Arch: l.Arch, Job: jobOf(t, l), Grid: emu.Dim3{2, 1, 1}, Block: emu.Dim3{40, 1, 1}, Global: make([]byte, 1024),
			Buffers: map[string]emu.BufferPlace{"buf": {Addr: 256, Bytes: 512}}, SharedBytes: 256, LocalBytes: 64}
		img := &Image{Code: code, ParamBase: cbParamBase}
		k, err := NewKernel(s, img)
		if err != nil {
			return
		}
		cfg := k.Config(s, img)
		cfg.MaxSteps = 2000
		_, err = emu.Run(cfg, k)
		var fault *emu.Fault
		if err != nil && !errors.As(err, &fault) {
			t.Fatalf("not a fault: %v", err)
		}
	})
}
