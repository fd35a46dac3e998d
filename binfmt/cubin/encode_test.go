package cubin

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// phnum reads e_phnum of an ELF file.
func phnum(b []byte) int {
	if b[4] == 2 {
		return int(binary.LittleEndian.Uint16(b[56:]))
	}
	return int(binary.LittleEndian.Uint16(b[44:]))
}

// TestEncodeOracle: every oracle cubin, parsed and encoded again, is the same
// file byte for byte.
func TestEncodeOracle(t *testing.T) {
	cubins := oracleCubins(t)
	testdata, _ := filepath.Glob("testdata/*.cubin")
	emu, _ := filepath.Glob("../../emu/maxwell/testdata/*.cubin")
	testdata = append(testdata, emu...)
	// cubins of ours (Write): an ELF32 Tesla one and a Fermi one
	testdata = append(testdata, "../../examples/tesla/vecadd.cubin", "../../isa/all/testdata/copy.sm_20.cubin")
	for _, p := range testdata {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cubins[p] = b
	}
	same := 0
	for name, b := range cubins {
		f, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := Encode(f, EncodeOptions{ProgramHeaders: phnum(b) > 0})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(out, b) {
			t.Errorf("%s: encoded file differs (%d bytes, want %d) first at 0x%x", name, len(out), len(b), firstDiff(out, b))
			continue
		}
		same++
	}
	t.Logf("%d/%d cubins encode byte for byte", same, len(cubins))
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
