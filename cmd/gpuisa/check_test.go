package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCommand: ptxas's cubins check clean; a listing that reads a load's
// result before waiting on its barrier does not, with gpuisa check and with
// gpuisa as -check; a whole-cubin listing is checked as its cubin.
func TestCheckCommand(t *testing.T) {
	for _, c := range []string{"kernels.sm_52.cubin", "calls.sm_50.cubin", "texsurf.sm_52.O3.cubin"} {
		code, out, stderr := runCLI(t, "", "check", filepath.Join(maxwellDir, c))
		if code != 0 || !strings.Contains(out, "0 errors") {
			t.Errorf("check %s: %d %s%s", c, code, out, stderr)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.s")
	os.WriteFile(bad, []byte("[B------:R-:W2:Y:S04] LDG.E R2, [R4] ;\n[B------:R-:W-:Y:S06] IADD R3, R2, R2 ;\n[B--2---:R-:W-:Y:S01] MOV R5, R3 ;\n"), 0o644)
	code, out, _ := runCLI(t, "", "check", "-arch", "sm_52", bad)
	if code != 1 || !strings.Contains(out, "/*0010*/ error: raw: reads R2 before waiting on barrier 2, which guards LDG at 0008's result") {
		t.Errorf("check bad.s: %d %s", code, out)
	}
	code, _, stderr := runCLI(t, "", "as", "-arch", "sm_52", "-check", "-o", filepath.Join(dir, "bad.bin"), bad)
	if code != 1 || !strings.Contains(stderr, "error: raw") {
		t.Errorf("as -check bad.s: %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.bin")); err != nil {
		t.Errorf("as -check did not write its output: %v", err)
	}
	_, listing, _ := runCLI(t, "", "dis", filepath.Join(maxwellDir, "kernels.sm_52.cubin"))
	lst := filepath.Join(dir, "kernels.s")
	os.WriteFile(lst, []byte(listing), 0o644)
	if code, out, stderr := runCLI(t, "", "check", lst); code != 0 || !strings.Contains(out, "0 errors") {
		t.Errorf("check kernels.s: %d %s%s", code, out, stderr)
	}
}
