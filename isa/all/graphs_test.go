package all

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gpuisa/gpuisa/isa/jsonl"
)

// Any bytes, as code of any arch: Graphs and WriteJSON return errors for
// what does not decode, never panic; every JSON line parses, every edge
// goes to a block of its graph, and every block's instructions are in
// address order within the code.
func FuzzGraphsJSON(f *testing.F) {
	f.Add([]byte{0x03, 0x1c, 0x00, 0x14, 0x00, 0xc0, 0x00, 0x60}, uint8(4), uint16(0))
	f.Add(bytes.Repeat([]byte{0xff}, 40), uint8(0), uint16(8))
	f.Add([]byte{0xfe, 0xff, 0x0f, 0, 0x40, 0, 0, 0xfd}, uint8(9), uint16(0))
	f.Add(make([]byte, 64), uint8(7), uint16(0x100))
	archs := Archs()
	f.Fuzz(func(t *testing.T, code []byte, which uint8, base uint16) {
		if len(code) > 4096 {
			return // 128 bundles, 512 Tesla words: enough for every branch form
		}
		a := archs[int(which)%len(archs)]
		fns, _ := a.Graphs(code, uint64(base), "f")
		for _, fn := range fns {
			g := fn.Graph
			for _, b := range g.Blocks {
				if b.Start >= b.End || b.End > len(g.Insts) {
					t.Fatalf("%s: block %+v of %d instructions", a.Name, b, len(g.Insts))
				}
				for _, e := range b.Succs {
					if e.To < 0 || e.To >= len(g.Blocks) {
						t.Fatalf("%s: edge to block %d of %d", a.Name, e.To, len(g.Blocks))
					}
				}
			}
			if len(fn.Lines) != len(g.Insts) {
				t.Fatalf("%s: %d lines for %d instructions", a.Name, len(fn.Lines), len(g.Insts))
			}
		}
		var buf bytes.Buffer
		if _, err := a.WriteJSON(jsonl.NewWriter(&buf), code, uint64(base), "f", ""); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(&buf)
		sc.Buffer(nil, 1<<20)
		last := int64(-1)
		for sc.Scan() {
			var rec jsonl.Instruction
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s: %v: %s", a.Name, err, sc.Text())
			}
			if int64(rec.Address) <= last || rec.Address < uint64(base) || rec.Address >= uint64(base)+uint64(len(code)) {
				t.Fatalf("%s: record address %#x after %#x (code at %#x, %d bytes)", a.Name, rec.Address, last, base, len(code))
			}
			last = int64(rec.Address)
		}
	})
}
