package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunTextures runs emu/maxwell's texmore.json: textures from files,
// tex parameters passing bindless handles, and an expected output.
func TestRunTextures(t *testing.T) {
	dir := copyTestdata(t, "texmore.json", "texsurf.sm_52.O3.cubin", "texmore_a3.bin", "texmore_arr.bin", "texmore_mip.bin", "texmore_expected.bin")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "", "run", "-out", out, filepath.Join(dir, "texmore.json"))
	if code != 0 || !strings.Contains(stdout, "expectations met: 2048 values checked") {
		t.Fatalf("run: %d\n%s%s", code, stdout, stderr)
	}
}
