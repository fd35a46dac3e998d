package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const maxwellDir = "../../emu/maxwell/testdata"

// copyTestdata copies the named files of emu/maxwell/testdata into a fresh
// directory (launch files name their data relative to themselves, and runs
// write their outputs beside them).
func copyTestdata(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(maxwellDir, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRunMaxwell runs the committed sm_52 saxpy (a ptxas cubin) and a kernel
// that faults on a misaligned load.
func TestRunMaxwell(t *testing.T) {
	dir := copyTestdata(t, "saxpy.json", "kernels.sm_52.cubin", "saxpy_x.bin", "saxpy_y.bin", "saxpy_expected.bin")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "", "run", "-out", out, filepath.Join(dir, "saxpy.json"))
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, stdout, stderr)
	}
	for _, w := range []string{"sm_52", "3 blocks", "12 warps", "divergent branches", "expectations met: 1000 values checked"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("summary lacks %q:\n%s", w, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "saxpy_y.out.bin")); err != nil {
		t.Error(err)
	}
	bad := `{"program": "kernels.sm_52.cubin", "kernel": "loadat", "grid": [1], "block": [32],
	  "buffers": {"in": {"bytes": 64}, "out": {"bytes": 4}},
	  "params": [{"ptr": "in"}, {"ptr": "out"}, {"u32": 2}]}`
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "", "run", filepath.Join(dir, "bad.json"))
	if code != 1 || !strings.Contains(stderr, "fault: block (0,0,0) thread (0,0,0)") || !strings.Contains(stderr, "LDG.E") {
		t.Fatalf("misaligned load: %d %s", code, stderr)
	}
}
