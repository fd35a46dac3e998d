package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/jsonschema"
)

// runJSON runs gpuisa run -json ARGS and returns the exit status and the
// report, checked against docs/run.schema.json.
func runJSON(t *testing.T, schema *jsonschema.Schema, args ...string) (int, map[string]any, string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, "", append([]string{"run", "-json"}, args...)...)
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("run -json %v: %v\n%s", args, err, stdout)
	}
	if err := schema.Validate(rep); err != nil {
		t.Fatalf("run -json %v: %v\n%s", args, err, stdout)
	}
	if rep["ok"] != (code == 0) {
		t.Errorf("run -json %v: ok %v, exit %d", args, rep["ok"], code)
	}
	return code, rep, stderr
}

// run -json's reports of a clean kernel run, a failed expectation, a
// fault, a bad launch file and a shader validate against the schema and
// carry what happened.
func TestRunJSON(t *testing.T) {
	schema, err := jsonschema.Load("../../docs/run.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	code, rep, _ := runJSON(t, schema, "../../examples/tesla/vecadd.json")
	st, _ := rep["stats"].(map[string]any)
	ex, _ := rep["expectations"].(map[string]any)
	if code != 0 || rep["arch"] != "sm_10" || st["warps"] != 8.0 || st["blocks"] != 4.0 || ex["checked"] != 256.0 {
		t.Errorf("vecadd: %d %v", code, rep)
	}

	// one expected value changed: the mismatch names it
	dir := t.TempDir()
	for _, n := range []string{"vecadd.json", "vecadd.cubin", "vecadd_a.bin", "vecadd_b.bin", "vecadd_c_expected.bin"} {
		data, err := os.ReadFile(filepath.Join("../../examples/tesla", n))
		if err != nil {
			t.Fatal(err)
		}
		if n == "vecadd_c_expected.bin" {
			data[17*4+3] ^= 0x40
		}
		os.WriteFile(filepath.Join(dir, n), data, 0o644)
	}
	code, rep, stderr := runJSON(t, schema, filepath.Join(dir, "vecadd.json"))
	ex, _ = rep["expectations"].(map[string]any)
	ms, _ := ex["mismatches"].([]any)
	if code != 1 || len(ms) != 1 || !strings.Contains(stderr, "FAIL") {
		t.Fatalf("mismatch: %d %v", code, rep)
	}
	m := ms[0].(map[string]any)
	first := m["first"].([]any)[0].(map[string]any)
	if m["count"] != 1.0 || m["total"] != 256.0 || m["tolerance"] == "" || first["name"] != "c[17]" || first["expected"] == first["got"] {
		t.Errorf("mismatch: %v", m)
	}

	// a fault, and a launch file that cannot run
	os.WriteFile(filepath.Join(dir, "bad.s"), []byte("MVI R2, 0x7ffffff0;\nGLD.U32 R3, global14[R2];\nRET;\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"program": "bad.s", "arch": "sm_10", "grid": [1], "block": [2]}`), 0o644)
	code, rep, _ = runJSON(t, schema, "-trace", filepath.Join(dir, "bad.json"))
	if f, _ := rep["fault"].(string); code != 1 || !strings.Contains(f, "out of bounds") {
		t.Errorf("fault: %d %v", code, rep)
	}
	os.WriteFile(filepath.Join(dir, "nope.json"), []byte(`{"program": "bad.s", "arch": "sm_10", "grid": [0], "block": [1]}`), 0o644)
	code, rep, _ = runJSON(t, schema, filepath.Join(dir, "nope.json"))
	if e, _ := rep["error"].(string); code != 1 || !strings.Contains(e, "grid[0] is 0") {
		t.Errorf("bad launch: %d %v", code, rep)
	}

	// a shader
	code, rep, _ = runJSON(t, schema, "../../examples/usse/sum_v.json")
	sh, _ := rep["shader_stats"].(map[string]any)
	_, text, _ := runCLI(t, "", "run", "../../examples/usse/sum_v.json")
	n, _ := sh["instances"].(float64)
	if code != 0 || rep["program"] != "vertex" || n < 1 || !strings.Contains(text, fmt.Sprintf(" %d instances", int(n))) || rep["stats"] != nil {
		t.Errorf("shader: %d %v\n%s", code, rep, text)
	}
}
