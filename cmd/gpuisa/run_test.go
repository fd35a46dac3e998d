package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const saxpyDir = "../../emu/tesla/testdata"

// copySaxpy copies the committed saxpy example to a temporary directory.
func copySaxpy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range []string{"saxpy.json", "saxpy.s", "saxpy_x.bin", "saxpy_y.bin", "saxpy_expected.bin"} {
		b, err := os.ReadFile(filepath.Join(saxpyDir, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRunSaxpy(t *testing.T) {
	dir := copySaxpy(t)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "", "run", "-out", out, filepath.Join(dir, "saxpy.json"))
	if code != 0 {
		t.Fatalf("run: %d\n%s%s", code, stdout, stderr)
	}
	for _, w := range []string{"8 blocks", "32 warps", "warp-instructions", "divergent branches", "expectations met: 1000 values checked"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("summary lacks %q:\n%s", w, stdout)
		}
	}
	got, err := os.ReadFile(filepath.Join(out, "y.out.bin"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "saxpy_expected.bin"))
	if !bytes.Equal(got, want) {
		t.Error("y.out.bin differs from the expectation")
	}
}

func TestRunExpectationFails(t *testing.T) {
	dir := copySaxpy(t)
	exp := filepath.Join(dir, "saxpy_expected.bin")
	b, _ := os.ReadFile(exp)
	b[4*17] ^= 0x40 // element 17
	if err := os.WriteFile(exp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "run", filepath.Join(dir, "saxpy.json"))
	if code != 1 || !strings.Contains(stderr, "FAIL") || !strings.Contains(stderr, "first at 0x") || !strings.Contains(stderr, "expected") {
		t.Fatalf("run: %d %s", code, stderr)
	}
}

func TestRunFaultAndTrace(t *testing.T) {
	dir := t.TempDir()
	write := func(n, s string) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bad.s", "MVI R2, 0x7ffffff0;\nGLD.U32 R3, global14[R2];\nRET;\n")
	write("bad.json", `{"program": "bad.s", "arch": "sm_10", "grid": [1], "block": [2]}`)
	code, stdout, stderr := runCLI(t, "", "run", "-trace", filepath.Join(dir, "bad.json"))
	if code != 1 || !strings.Contains(stderr, "fault: block (0,0,0) thread (0,0,0)") || !strings.Contains(stderr, "out of bounds") {
		t.Fatalf("run: %d %s", code, stderr)
	}
	if !strings.Contains(stdout, "00000003/00000003 MVI R2, 0x7ffffff0;") {
		t.Errorf("trace lacks the first instruction:\n%s", stdout)
	}
	write("loop.s", "loop:\nBRA loop;\n")
	write("loop.json", `{"program": "loop.s", "arch": "sm_10", "grid": [1], "block": [1]}`)
	code, _, stderr = runCLI(t, "", "run", "-max-steps", "5000", filepath.Join(dir, "loop.json"))
	if code != 1 || !strings.Contains(stderr, "step limit") {
		t.Fatalf("runaway: %d %s", code, stderr)
	}
	write("nope.json", `{"program": "loop.s", "arch": "sm_10", "grid": [0], "block": [1]}`)
	code, _, stderr = runCLI(t, "", "run", filepath.Join(dir, "nope.json"))
	if code != 1 || !strings.Contains(stderr, "grid[0] is 0") {
		t.Fatalf("bad launch: %d %s", code, stderr)
	}
	write("kepler.json", `{"program": "loop.s", "arch": "sm_30", "grid": [1], "block": [1]}`)
	code, _, stderr = runCLI(t, "", "run", filepath.Join(dir, "kepler.json"))
	if code != 1 || !strings.Contains(stderr, "sm_30") {
		t.Fatalf("other arch: %d %s", code, stderr)
	}
}

// A cubin names its architecture, so the launch file may leave it out.
func TestRunCubinWithoutArch(t *testing.T) {
	dir := t.TempDir()
	cub, err := filepath.Abs("../../examples/tesla/vecadd.cubin")
	if err != nil {
		t.Fatal(err)
	}
	launch := `{"program": "` + cub + `", "kernel": "vecadd", "grid": [2], "block": [32],
		"buffers": {"a": {"bytes": 256, "fill": 0}, "b": {"bytes": 256, "fill": 0}, "c": {"bytes": 256, "fill": 1}},
		"params": [{"ptr": "a"}, {"ptr": "b"}, {"ptr": "c"}, {"u32": 64}],
		"outputs": [{"buffer": "c", "file": "c.bin"}]}`
	if err := os.WriteFile(filepath.Join(dir, "l.json"), []byte(launch), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "run", "-out", dir, filepath.Join(dir, "l.json"))
	if code != 0 || !strings.Contains(stdout, "sm_10") {
		t.Fatalf("run: %d %s %s", code, stdout, stderr)
	}
	c, _ := os.ReadFile(filepath.Join(dir, "c.bin"))
	if !bytes.Equal(c, make([]byte, 256)) {
		t.Errorf("c = % x, want zeros (0 + 0)", c[:8])
	}
	os.WriteFile(filepath.Join(dir, "r.json"), []byte(`{"program": "l.json", "grid": [1], "block": [1]}`), 0o644)
	if code, _, stderr := runCLI(t, "", "run", filepath.Join(dir, "r.json")); code != 1 || !strings.Contains(stderr, "needs \"arch\"") {
		t.Errorf("no arch: %d %s", code, stderr)
	}
}

// "-" reads the launch file from standard input; its paths are then relative
// to the working directory.
func TestRunLaunchFromStdin(t *testing.T) {
	dir := copySaxpy(t)
	launch, err := os.ReadFile(filepath.Join(dir, "saxpy.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, stdout, stderr := runCLI(t, string(launch), "run", "-")
	if code != 0 || !strings.Contains(stdout, "expectations met: 1000 values checked") {
		t.Fatalf("run -: %d\n%s%s", code, stdout, stderr)
	}
}
