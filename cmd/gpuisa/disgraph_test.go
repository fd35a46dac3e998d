package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dis -cfg and dis -json on every ISA: cubins (sm_1x), GXP shaders, raw
// code of each arch, and raw input without -arch refused.
func TestDisGraphsAndJSONEveryISA(t *testing.T) {
	dir := t.TempDir()
	histogram := filepath.Join(dir, "histogram.bin")
	if code, _, stderr := runCLI(t, "", "as", "-arch", "sm_20", "-o", histogram, "../../examples/fermi/histogram.s"); code != 0 {
		t.Fatalf("as: %s", stderr)
	}
	for _, c := range []struct {
		args []string
		want []string // in the DOT graph
	}{
		// the loop of sum_v's primary program: a back edge of its middle block
		{[]string{"../../examples/usse/sum_v.gxp"}, []string{`subgraph "cluster_primary"`, `"f0b1" -> "f0b1" [style=solid]`, "p0 br -0x2 ;"}},
		// the histogram's loop after its @P0 EXIT
		{[]string{"-arch", "sm_20", histogram}, []string{`"f0b0" -> "f0b1" [style=dashed]`, `"f0b1" -> "f0b1" [style=solid]`, "@P0 BRA 0x48;"}},
		{[]string{"../../examples/tesla/vecadd.cubin"}, []string{`subgraph "cluster_vecadd"`, "GST.U32"}},
		{[]string{"-arch", "sm_10", "../../examples/tesla/vecadd.bin"}, []string{`subgraph "cluster_code"`}},
	} {
		code, dot, stderr := runCLI(t, "", append([]string{"dis", "-cfg"}, c.args...)...)
		if code != 0 {
			t.Errorf("dis -cfg %v: exit %d: %s", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(dot, w) {
				t.Errorf("dis -cfg %v: no %q in\n%s", c.args, w, dot)
			}
		}
		_, js, _ := runCLI(t, "", append([]string{"dis", "-cfg", "-format", "json"}, c.args...)...)
		var fns []map[string]any
		if err := json.Unmarshal([]byte(js), &fns); err != nil || len(fns) == 0 {
			t.Errorf("dis -cfg -format json %v: %v\n%.300s", c.args, err, js)
		}
		_, svg, _ := runCLI(t, "", append([]string{"dis", "-cfg", "-format", "svg"}, c.args...)...)
		if !strings.HasPrefix(svg, "<svg ") {
			t.Errorf("dis -cfg -format svg %v:\n%.200s", c.args, svg)
		}
		code, lines, stderr := runCLI(t, "", append([]string{"dis", "-json"}, c.args...)...)
		if code != 0 {
			t.Errorf("dis -json %v: exit %d: %s", c.args, code, stderr)
		}
		records := strings.Split(strings.TrimSpace(lines), "\n")
		for _, l := range records {
			var rec struct {
				Text     string
				Mnemonic string
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Mnemonic == "" || !strings.Contains(rec.Text, rec.Mnemonic) {
				t.Errorf("dis -json %v: %v: %s", c.args, err, l)
				break
			}
		}
	}
	// the GXP's JSON names the program (sum_v has no secondary program)
	_, js, _ := runCLI(t, "", "dis", "-json", "../../examples/usse/sum_v.gxp")
	if !strings.Contains(js, `"function":"primary"`) || strings.Contains(js, `"function":"secondary"`) {
		t.Errorf("GXP JSON without its programs:\n%.300s", js)
	}
	raw := filepath.Join(dir, "raw.bin")
	os.WriteFile(raw, []byte{1, 2, 3, 4, 5, 6, 7, 8}, 0o644)
	for _, flag := range []string{"-cfg", "-json"} {
		if code, _, stderr := runCLI(t, "", "dis", flag, raw); code != 2 || !strings.Contains(stderr, "needs -arch") {
			t.Errorf("dis %s of raw code without -arch: exit %d, %s", flag, code, stderr)
		}
	}
}
