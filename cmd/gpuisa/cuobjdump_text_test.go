package main

import (
	"path/filepath"
	"testing"
)

// cuobjdump 11.8 -ltext on the corpus' fatbin (its output, verbatim).
func TestCuobjdumpListText(t *testing.T) {
	_, got, _ := runCLI(t, "", "cuobjdump", "-ltext", filepath.Join(nvtoolsDir, "cubin", "tex.fatbin"))
	want := "SASS text section 1 : tex-texobj.sm_50.elf.bin\nSASS text section 2 : tex-texref.sm_50.elf.bin\n" +
		"SASS text section 3 : tex-texobj.sm_53.elf.bin\nSASS text section 4 : tex-texref.sm_53.elf.bin\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
