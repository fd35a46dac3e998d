package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFarImage runs a launch file whose x is a memory image 8 GiB up (a
// segment of sparse global memory) and whose y is a dense buffer.
func TestRunFarImage(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"saxpy_far.json", "kernels.sm_52.cubin", "saxpy_x.bin", "saxpy_y.bin", "saxpy_expected.bin"} {
		b, err := os.ReadFile(filepath.Join(maxwellDir, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "", "run", "-out", out, filepath.Join(dir, "saxpy_far.json"))
	if code != 0 || !strings.Contains(stdout, "expectations met: 1000 values checked") {
		t.Fatalf("run: %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "saxpy_y.out.bin")); err != nil {
		t.Error(err)
	}
}
