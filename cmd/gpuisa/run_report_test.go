package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunReportsEveryExpectation: two failing expectations are both
// reported, each with its differing count and first elements by index
// with the distance against the tolerance; the summary names the launch
// file; the outputs are written although a check fails.
func TestRunReportsEveryExpectation(t *testing.T) {
	dir := copySaxpy(t)
	exp := filepath.Join(dir, "saxpy_expected.bin")
	b, _ := os.ReadFile(exp)
	b[4*17] ^= 0x40
	b[4*300+1] ^= 0x01
	if err := os.WriteFile(filepath.Join(dir, "bad2.bin"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var l map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "saxpy.json"))
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	l["outputs"] = append(l["outputs"].([]any), map[string]any{"buffer": "x", "file": "x.out.bin"})
	l["expect"] = []any{
		map[string]any{"output": "y.out.bin", "file": "bad2.bin", "type": "f32", "max_ulp": 2},
		map[string]any{"output": "y.out.bin", "file": "saxpy_expected.bin", "type": "f32"},
		map[string]any{"output": "x.out.bin", "file": "bad2.bin", "type": "u32"},
	}
	data, _ = json.Marshal(l)
	path := filepath.Join(dir, "two.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "", "run", "-out", out, path)
	if code != 1 {
		t.Fatalf("run: %d\n%s%s", code, stdout, stderr)
	}
	for _, w := range []string{
		"expect[0] (output y.out.bin, buffer y, f32, max_ulp 2): 2 of 1000 values differ",
		"y[17] (0x", "y[300] (0x", "ulp, abs ", "(max_ulp 2)",
		"expect[2] (output x.out.bin, buffer x, u32, exact): 1000 of 1000 values differ", "x[0] (0x", "off by ", "... 995 more",
		path + ": FAIL: 2 of 3 expectations failed (3000 values checked)",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("report lacks %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "expect[1]") {
		t.Errorf("a met expectation is reported:\n%s", stderr)
	}
	if !strings.HasPrefix(stdout, path+": sm_10") {
		t.Errorf("the summary does not name %s:\n%s", path, stdout)
	}
	for _, f := range []string{"y.out.bin", "x.out.bin"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("output %s not written: %v", f, err)
		}
	}
}

// TestRunOutOnFault: -out-on-fault writes the outputs of a run that
// faults; without it they are not written.
func TestRunOutOnFault(t *testing.T) {
	dir := t.TempDir()
	write := func(n, s string) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// thread 0 stores 7 to its word, then every thread reads far out of bounds
	write("f.s", "MVI R1, 0x7;\nGST.U32 global14[R0], R1;\nMVI R2, 0x7ffffff0;\nGLD.U32 R3, global14[R2];\nRET;\n")
	write("f.json", `{"program": "f.s", "arch": "sm_10", "grid": [1], "block": [1],
		"memory": [{"space": "global", "addr": 0, "bytes": 16}], "outputs": [{"space": "global", "addr": 0, "bytes": 4, "file": "w.bin"}]}`)
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI(t, "", "run", "-out", out, filepath.Join(dir, "f.json"))
	if code != 1 || !strings.Contains(stderr, "fault") {
		t.Fatalf("run: %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "w.bin")); err == nil {
		t.Error("outputs written after a fault without -out-on-fault")
	}
	code, _, stderr = runCLI(t, "", "run", "-out", out, "-out-on-fault", filepath.Join(dir, "f.json"))
	if code != 1 || !strings.Contains(stderr, "fault") {
		t.Fatalf("run: %d %s", code, stderr)
	}
	w, err := os.ReadFile(filepath.Join(out, "w.bin"))
	if err != nil || w[0] != 7 {
		t.Errorf("w.bin = % x, %v; want the 7 stored before the fault", w, err)
	}
}

// TestRunProgress: a run longer than the progress interval prints progress
// lines (launch, blocks and warps done, warp-instructions, rate).
func TestRunProgress(t *testing.T) {
	path, err := filepath.Abs("../../examples/maxwell/bfs.json")
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "run", "-progress", "1ns", path)
	if code != 0 || !strings.Contains(stderr, "blocks and") || !strings.Contains(stderr, "warp-instructions,") ||
		!strings.Contains(stderr, "M/s") || !strings.Contains(stderr, path+":") {
		t.Fatalf("run: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "run", "-progress", "0", path); code != 0 || stderr != "" {
		t.Fatalf("-progress 0: %d %q", code, stderr)
	}
}
