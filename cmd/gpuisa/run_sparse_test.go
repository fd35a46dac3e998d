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
	dir := copyTestdata(t, "saxpy_far.json", "kernels.sm_52.cubin", "saxpy_x.bin", "saxpy_y.bin", "saxpy_expected.bin")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "", "run", "-out", out, filepath.Join(dir, "saxpy_far.json"))
	if code != 0 || !strings.Contains(stdout, "expectations met: 1000 values checked") {
		t.Fatalf("run: %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "saxpy_y.out.bin")); err != nil {
		t.Error(err)
	}
}
