package main

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// An sm_5x cubin lists as `nvdisasm -hex -novliw file.cubin` does, byte for
// byte (the committed nvdisasm listing of a cubin we built).
func TestDisMaxwellCubin(t *testing.T) {
	code, out, stderr := runCLI(t, "", "dis", "../../binfmt/cubin/testdata/small.sm_52.rel.cubin")
	if code != 0 || stderr != "" {
		t.Fatalf("dis: %d %s", code, stderr)
	}
	want, err := os.ReadFile("../../isa/maxwell/testdata/elf/small.sm_52.rel.nvdisasm.txt")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("listing differs from nvdisasm's:\n%s", out)
	}
}

// -vliw -nohex is plain `nvdisasm file.cubin`: braced dual-issue pairs, no hex.
func TestDisMaxwellCubinVLIW(t *testing.T) {
	code, out, stderr := runCLI(t, "", "dis", "-vliw", "-nohex", "../../binfmt/cubin/testdata/small.sm_52.rel.cubin")
	if code != 0 || stderr != "" {
		t.Fatalf("dis: %d %s", code, stderr)
	}
	want, err := os.ReadFile("../../isa/maxwell/testdata/elf/small.sm_52.rel.vliw.txt")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("listing differs from nvdisasm's:\n%s", out)
	}
	if !strings.Contains(out, "}\n") {
		t.Error("no braced pair in the listing")
	}
}

// -nvn comments constant banks and attributes of sm_5x listings.
func TestDisNVN(t *testing.T) {
	words := []uint64{0x001fc400fe2007f1, 0x4c98078c00470001, 0x50b0000000070f00, 0x50b0000000070f00}
	raw := make([]byte, 0, 32)
	for _, w := range words {
		raw = binary.LittleEndian.AppendUint64(raw, w)
	}
	code, out, stderr := runCLI(t, string(raw), "dis", "-arch", "sm_52", "-nvn", "-")
	if code != 0 || stderr != "" {
		t.Fatalf("dis -nvn: %d %s", code, stderr)
	}
	if !strings.Contains(out, "MOV R1, c[0x3][0x10] ;") || !strings.Contains(out, "/* 0x4c98078c00470001 */ // c[0x3][0x10]: UBO 0 +0x10\n") {
		t.Errorf("no NVN comment:\n%s", out)
	}
	if strings.Count(out, "//") != 1 {
		t.Errorf("comments on lines without banks or attributes:\n%s", out)
	}
	if code, _, _ := runCLI(t, string(raw), "dis", "-arch", "sm_10", "-nvn", "-"); code != 2 {
		t.Errorf("-nvn with sm_10: exit %d, want 2", code)
	}
	// without -nvn the listing has no comments
	if _, out, _ := runCLI(t, string(raw), "dis", "-arch", "sm_52", "-"); strings.Contains(out, "//") {
		t.Errorf("comments without -nvn:\n%s", out)
	}
}
