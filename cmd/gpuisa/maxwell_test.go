package main

import (
	"os"
	"strings"
	"testing"
)

// An sm_5x cubin lists as `nvdisasm -hex -novliw file.cubin` does: the
// header lines and .text sections of the committed nvdisasm golden listing.
func TestDisMaxwellCubin(t *testing.T) {
	code, out, stderr := runCLI(t, "", "dis", "../../binfmt/cubin/testdata/small.sm_52.rel.cubin")
	if code != 0 || stderr != "" {
		t.Fatalf("dis: %d %s", code, stderr)
	}
	want, err := os.ReadFile("../../isa/maxwell/testdata/elf/small.sm_52.rel.nvdisasm.txt")
	if err != nil {
		t.Fatal(err)
	}
	wantLines := strings.Split(string(want), "\n")
	for _, l := range wantLines[:2] {
		if !strings.Contains(out, l+"\n") {
			t.Errorf("missing header line %q", l)
		}
	}
	// the .text.small section, exactly
	text := string(want)
	i := strings.Index(text, "//--------------------- .text.")
	if i < 0 {
		t.Fatal("golden listing has no .text section")
	}
	text = text[i:]
	if j := strings.Index(text[1:], "//---"); j >= 0 {
		text = text[:j+1]
	}
	if !strings.Contains(out, strings.TrimRight(text, "\n")) {
		t.Errorf("text section differs:\n%s", out)
	}
}
