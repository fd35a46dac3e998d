package usse_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// TestDualAtlier: the only dual-issue words in the oracle's compiler output
// (vita3k-shader-tests scratch/atlier.gxp) print with the write masks and
// register numbering usse.spec derives for them, next to the code whose
// data flow bears those readings out (see usse.spec, op1 0x04/0x05).
func TestDualAtlier(t *testing.T) {
	fn := filepath.Join(oracle.Path(t, "oracle/usse/vita3k-shader-tests/scratch"), "atlier.gxp")
	data, err := os.ReadFile(fn)
	if err != nil {
		t.Fatal(err)
	}
	p, err := gxp.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{
		0x190: "dot.f32.rpt=2.nosched i1.x, sa0.xyzw, i0.xyzw",
		0x1a0: "dot.f32 i1.---w, i2.xyzw, i0.xyzw +mov.f32 pa8.xy, i1.xy",
		0x1a8: "dot.f32.rptmode=3.nosched i0.x, i1.xyzw, i1.xyzw",
		0x1b0: "mov.f32.nosched pa10.xy, i1.zw",
		0x1b8: "rsq.f32 i0.x, i0.x +dot.f32 pa3.x, pa12.xyz1, i2.xyzw",
		0x1c0: "mad.f32 pa6.x, sa32.x, i0.x, {0}",
	}
	duals := 0
	for i, w := range p.Primary {
		in, err := usse.DecodeWord(w, uint64(8*i))
		if err != nil {
			continue
		}
		text := usse.Print(in, 0)
		if op1 := w >> 59; op1 == 0x04 || op1 == 0x05 {
			duals++
			if _, ok := want[8*i]; !ok {
				t.Errorf("/*%04x*/ unexpected dual-issue word %016x: %s", 8*i, w, text)
			}
		}
		if s, ok := want[8*i]; ok && text != s {
			t.Errorf("/*%04x*/ %016x: %s, want %s", 8*i, w, text, s)
		}
	}
	if duals != 2 {
		t.Errorf("%d dual-issue words, want 2", duals)
	}
}
