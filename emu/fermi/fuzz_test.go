package fermi

import (
	"encoding/binary"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/fermi"
)

// FuzzRun runs mutated Fermi code (our kernels as seeds) on a small launch
// with a step limit: any fault is fine, a panic or a hang is not.
func FuzzRun(f *testing.F) {
	for _, src := range []string{vecAdd, benchReduce, instPrologue + "IADD R8.CC, R4, R5;\n IADD.X R9, R6, R7;" + instEpilogue,
		gtid + "SSY j;\n @P0 BRA j;\n NOP.S;\nj:\n PBK b;\nl:\n @P1 BRK;\n BRA l;\nb:\n EXIT;"} {
		code, err := fermi.Assemble("seed", []byte(src))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(code)
	}
	f.Add([]byte{0x08, 0, 0, 0})
	f.Fuzz(func(t *testing.T, code []byte) {
		if len(code) > 1<<12 {
			return
		}
		code = code[:len(code)&^3]
		if len(code) == 0 {
			return
		}
		// make the first word set a register from the thread index so
		// that lanes differ
		d := newDevice()
		d.alloc("x", make([]byte, 1024))
		d.alloc("y", make([]byte, 256))
		j := d.job(t, launch{program: code, grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{48, 1, 1}, shared: 256,
			params: []any{buf("x"), buf("y"), uint32(7)}, steps: 3000})
		j.LocalBytes = 256
		_, _ = d.dev.Run(j)
	})
}

// TestFuzzSeedsRun keeps the fuzz target's plumbing honest on the seeds.
func TestFuzzSeedsRun(t *testing.T) {
	code, err := fermi.Assemble("seed", []byte(vecAdd))
	if err != nil {
		t.Fatal(err)
	}
	// flip bits of every word in turn: every variant must run or fault cleanly
	for i := 0; i+8 <= len(code); i += 8 {
		for bit := 0; bit < 64; bit += 7 {
			c := append([]byte(nil), code...)
			w := binary.LittleEndian.Uint64(c[i:])
			binary.LittleEndian.PutUint64(c[i:], w^1<<bit)
			d := newDevice()
			d.alloc("x", make([]byte, 1024))
			j := d.job(t, launch{program: c, grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{48, 1, 1}, shared: 256,
				params: []any{buf("x"), buf("x"), buf("x"), uint32(7)}, steps: 3000})
			_, _ = d.dev.Run(j)
		}
	}
}
