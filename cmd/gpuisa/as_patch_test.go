package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPatchRun edits a real kernel (ptxas's saxpy, y = a*x + y) into
// y = a*x - y by turning its FFMA's addend negative, patches the cubin with
// `gpuisa as -patch`, runs the new cubin with `gpuisa run` and checks the
// changed output: once from the whole-cubin listing, once from the
// function's lines alone.
func TestPatchRun(t *testing.T) {
	dir := copyTestdata(t, "kernels.sm_52.cubin", "saxpy_x.bin", "saxpy_y.bin")
	cub := filepath.Join(dir, "kernels.sm_52.cubin")
	code, listing, stderr := runCLI(t, "", "dis", cub)
	if code != 0 {
		t.Fatalf("dis: %d %s", code, stderr)
	}
	const from, to = "FFMA R7, R4, c[0x0][0x144], R6 ;", "FFMA R7, R4, c[0x0][0x144], -R6 ;"
	if strings.Count(listing, from) != 1 {
		t.Fatalf("the listing has %d %q", strings.Count(listing, from), from)
	}
	edited := strings.Replace(listing, from, to, 1)
	fnOnly := edited[strings.Index(edited, "\nsaxpy:\n")+1:]
	x, y := floats(t, filepath.Join(dir, "saxpy_x.bin")), floats(t, filepath.Join(dir, "saxpy_y.bin"))
	for _, src := range []struct{ name, text string }{{"whole.s", edited}, {"saxpy.s", fnOnly}} {
		s := filepath.Join(dir, src.name)
		os.WriteFile(s, []byte(src.text), 0o644)
		patched := filepath.Join(dir, "sub."+src.name+".cubin")
		if code, _, stderr := runCLI(t, "", "as", "-patch", cub, "-fun", "saxpy", "-o", patched, s); code != 0 || stderr != "" {
			t.Fatalf("as -patch %s: %d %s", src.name, code, stderr)
		}
		launch := `{"program": "` + filepath.Base(patched) + `", "kernel": "saxpy", "grid": [3], "block": [128],
		  "buffers": {"x": {"file": "saxpy_x.bin"}, "y": {"file": "saxpy_y.bin"}},
		  "params": [{"u32": 1000}, {"f32": 1.5}, {"ptr": "x"}, {"ptr": "y"}],
		  "outputs": [{"buffer": "y", "file": "y.out.bin"}]}`
		lf := filepath.Join(dir, "sub.json")
		os.WriteFile(lf, []byte(launch), 0o644)
		out := filepath.Join(dir, "out-"+src.name)
		if code, stdout, stderr := runCLI(t, "", "run", "-out", out, lf); code != 0 {
			t.Fatalf("run: %d %s %s", code, stdout, stderr)
		}
		got := floats(t, filepath.Join(out, "y.out.bin"))
		for i := range got {
			want := float32(math.FMA(1.5, float64(x[i]), -float64(y[i])))
			if d := math.Abs(float64(got[i] - want)); d > math.Abs(float64(want))*1.2e-7 {
				t.Fatalf("%s: y[%d] = %g, want 1.5*%g - %g = %g", src.name, i, got[i], x[i], y[i], want)
			}
		}
		// the patched cubin lists as the edited listing, but for the new
		// FFMA's encoding: nothing else moved
		code, again, _ := runCLI(t, "", "dis", patched)
		a, b := strings.Split(again, "\n"), strings.Split(edited, "\n")
		if code != 0 || len(a) != len(b) {
			t.Fatalf("%s: the patched cubin lists %d lines, the edited listing has %d", src.name, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] && !strings.Contains(a[i], to) {
				t.Errorf("%s: line %d lists as %q, edited %q", src.name, i+1, a[i], b[i])
			}
		}
	}
}

func floats(t *testing.T, path string) []float32 {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(b)/4)
	binary.Read(bytes.NewReader(b), binary.LittleEndian, out)
	return out
}
