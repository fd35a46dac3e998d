package cfg

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A loop with a conditional exit and dead code after the return:
//
//	0: a          3: @p jump 1   (back edge)
//	1: b (label)  4: exit
//	2: c          5: jump 5      (unreachable)
func loop() []Inst {
	return []Inst{
		{Addr: 0},
		{Addr: 8, Leader: true},
		{Addr: 16},
		{Addr: 24, Kind: Jump, Cond: true, Targets: []uint64{8}},
		{Addr: 32, Kind: Exit},
		{Addr: 40, Kind: Jump, Targets: []uint64{40}},
	}
}

func TestBuild(t *testing.T) {
	g := Build(loop(), 0)
	if len(g.Blocks) != 3 {
		t.Fatalf("blocks %+v", g.Blocks)
	}
	b0, b1, b2 := g.Blocks[0], g.Blocks[1], g.Blocks[2]
	if b0.Start != 0 || b0.End != 1 || b1.Start != 1 || b1.End != 4 || b2.Start != 4 || b2.End != 5 {
		t.Fatalf("bounds %+v", g.Blocks)
	}
	if len(b1.Succs) != 2 || b1.Succs[0] != (Edge{To: 1}) || b1.Succs[1] != (Edge{To: 2, Fall: true}) {
		t.Fatalf("loop successors %+v", b1.Succs)
	}
	if len(b1.Preds) != 2 || len(b2.Succs) != 0 {
		t.Fatalf("preds %v, exit succs %v", b1.Preds, b2.Succs)
	}
	// the exit block joins the loop's hyperblock; the labeled loop head does not join the entry
	h := g.Hyperblocks()
	if len(h) != 2 || len(h[1].Blocks) != 2 {
		t.Fatalf("hyperblocks %+v", h)
	}
	// an entry out of range gives an empty graph, not a panic
	if g := Build(loop(), 99); len(g.Blocks) != 0 {
		t.Fatal("blocks from a bad entry")
	}
	// a root adds what it reaches (the dead jump at 5), in address order;
	// roots out of range are passed over
	g = Build(loop(), 0, 5, -1, 99)
	if len(g.Blocks) != 4 || g.Blocks[3].Start != 5 || len(g.Blocks[3].Succs) != 1 || g.Blocks[3].Succs[0].To != 3 {
		t.Fatalf("with a root: %+v", g.Blocks)
	}
}

func TestRenderers(t *testing.T) {
	fns := []Function{{Name: "f", Graph: Build(loop(), 0), Lines: []string{"A", "B", "C", "@P0 BRA 0x8", "EXIT", "BRA 0x28"}}}
	var js, dot, svg bytes.Buffer
	if err := WriteJSON(&js, fns); err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back) != 1 || len(back[0]["blocks"].([]any)) != 3 {
		t.Fatalf("json %v: %s", err, js.String())
	}
	WriteDOT(&dot, fns)
	if !strings.Contains(dot.String(), `"f0b1" -> "f0b1" [style=solid]`) || !strings.Contains(dot.String(), `"f0b1" -> "f0b2" [style=dashed]`) {
		t.Fatalf("dot:\n%s", dot.String())
	}
	WriteSVG(&svg, fns)
	if !strings.HasPrefix(svg.String(), "<svg ") || strings.Count(svg.String(), "<rect ") != 4 || !strings.Contains(svg.String(), "@P0 BRA 0x8") {
		t.Fatalf("svg:\n%s", svg.String())
	}
}
