package maxwell

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestLaunchFile runs our saxpy cubin from a launch file (LAUNCH.md):
// buffers from files, parameters in constant bank 0, expectations checked,
// and a trace of one warp.
func TestLaunchFile(t *testing.T) {
	dir := t.TempDir()
	abs, _ := filepath.Abs(filepath.Join("testdata", "kernels.sm_53.cubin"))
	const n = 300
	x, y, want := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i)/7, float32(n-i)
		want[i] = float32(math.FMA(3, float64(x[i]), float64(y[i])))
	}
	files := map[string][]byte{"x.bin": fromF32(x), "y.bin": fromF32(y), "want.bin": fromF32(want), "launch.json": []byte(`{
  "program": "` + abs + `", "arch": "sm_53", "kernel": "saxpy",
  "grid": [2], "block": [64],
  "buffers": {"x": {"file": "x.bin"}, "y": {"file": "y.bin"}},
  "params": [{"u32": 300}, {"f32": "3.0"}, {"ptr": "x"}, {"ptr": "y"}],
  "outputs": [{"buffer": "y", "file": "y.out.bin"}],
  "expect": [{"output": "y.out.bin", "file": "want.bin", "type": "f32", "max_ulp": 0}]
}`)}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := emu.LoadFile(filepath.Join(dir, "launch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var trace bytes.Buffer
	out, err := RunSetup(s, func(cfg *emu.Config) { cfg.Trace, cfg.TraceBlock, cfg.TraceWarp = &trace, 1, 0 })
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Check(out.Result); err != nil || n != 300 {
		t.Fatalf("expectations: %d checked, %v", n, err)
	}
	if out.Stats.Blocks != 2 || out.Stats.Warps != 4 || out.Stats.WarpInsts == 0 {
		t.Errorf("stats %+v", out.Stats)
	}
	// block 1 warp 0 (threads 64..95) loops twice: 64+128 < 300, then exits
	lines := strings.Split(strings.TrimSpace(trace.String()), "\n")
	if len(lines) < 20 || !strings.Contains(lines[0], "block (1,0,0) warp 0 0x0008 ffffffff/ffffffff MOV R1, c[0x0][0x20]") {
		t.Fatalf("trace:\n%s", trace.String())
	}
}
