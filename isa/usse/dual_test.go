package usse

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestDualTextStructure: the search that decides dual-issue markers builds
// a text's structure straight from the word (dualView.text); it must be what
// the parser reads from the printed plain text.
func TestDualTextStructure(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	checked := 0
	for i := 0; i < 20000; i++ {
		w := uint64(4+i%2)<<59 | r.Uint64()>>5
		in, err := DecodeWord(w, 0)
		if err != nil {
			continue
		}
		d, ok := newDualView(&forms[in.Form], &in)
		if !ok {
			t.Fatalf("%016x decodes but has no dual view", w)
		}
		var buf [256]byte
		m1 := d.appendMnem1(buf[:0], markNone)
		n := len(m1)
		rest := d.appendRest(m1[n:], markNone)
		parsed, ok := parseDualText(string(m1), string(rest))
		if !ok {
			t.Fatalf("%016x: %s %s does not parse", w, m1, rest)
		}
		if built := d.text(); !reflect.DeepEqual(built, parsed) {
			t.Fatalf("%016x: %s %s\nbuilt  %+v\nparsed %+v", w, m1, rest, built, parsed)
		}
		checked++
	}
	if checked < 5000 {
		t.Fatalf("only %d dual words", checked)
	}
}
