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

// TestDualRivals: the marker level from the rival lists equals the full
// search's, for random dual-issue words and the golden ones.
func TestDualRivals(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var words []uint64
	for _, g := range readGolden(t) {
		if op := g.word >> 59; op == 4 || op == 5 {
			words = append(words, g.word)
		}
	}
	for i := 0; i < 60000; i++ {
		w := uint64(4+i%2)<<59 | r.Uint64()>>5
		if i%3 == 0 {
			w &^= 0x7f << 32 // low register numbers: more texts alike
		}
		words = append(words, w)
	}
	var levels [markLevels]int
	for _, w := range words {
		in, err := DecodeWord(w, 0)
		if err != nil {
			continue
		}
		f := &forms[in.Form]
		got, want := dualLevel(f, &in), dualLevelSearch(f, &in)
		if got != want {
			t.Fatalf("%016x (%s): level %d, full search %d", w, Print(in, 0), got, want)
		}
		levels[got]++
	}
	t.Logf("levels: %v", levels)
	for l := markNone; l < markLevels; l++ {
		if levels[l] == 0 {
			t.Errorf("no word needs level %d: the test does not cover it", l)
		}
	}
}

// TestDualPlainNamesWord: plainNamesWord says exactly when the word's own
// combination, built from its plain text, gives the word back.
func TestDualPlainNamesWord(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	named, unnamed := 0, 0
	for i := 0; i < 100000; i++ {
		w := uint64(4+i%2)<<59 | r.Uint64()>>5
		in, err := DecodeWord(w, 0)
		if err != nil {
			continue
		}
		d, _ := newDualView(&forms[in.Form], &in)
		base := in
		t0 := d.text()
		cons := freeCons()
		got, ok := dualBuild(int(in.Form), &base, &t0, &cons, d.get(dfOp1), d.get(dfOp2), d.get(dfPrimus), d.get(dfSrccfg))
		self := ok && got.Raw == w
		if self != d.plainNamesWord() {
			t.Fatalf("%016x (%s): builds itself %v, plainNamesWord %v", w, Print(in, 0), self, !self)
		}
		if self {
			named++
		} else {
			unnamed++
		}
	}
	if unnamed == 0 || named == 0 {
		t.Fatalf("named %d, unnamed %d: both kinds needed", named, unnamed)
	}
}

// TestDualForms: the dual-issue syntaxes (kDualm) are exactly those of the
// two dual forms, which the printer tells by form index.
func TestDualForms(t *testing.T) {
	for fi := range forms {
		for _, v := range forms[fi].variants {
			has := false
			for _, e := range v.elems {
				has = has || e.kind == kDualm
			}
			if isDual := fi == dualForms[0] || fi == dualForms[1]; has != isDual {
				t.Errorf("%s: kDualm %v, dual form %v", forms[fi].name, has, isDual)
			}
		}
	}
}

// TestDualCheck: the decoder's quick validity test agrees with newDualView
// on random words of both dual-issue groups.
func TestDualCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	bad := 0
	for _, fi := range dualForms {
		f := &forms[fi]
		for n := 0; n < 50000; n++ {
			w := r.Uint64()&^f.mask | f.value
			in := Inst{Form: int16(fi), Raw: w}
			decodeFields(int16(fi), w, &in.Args)
			d, ok := newDualView(f, &in)
			want := -1
			if !ok {
				want = d.bad
				bad++
			}
			if got := dualCheck(int16(fi), &in); got != want {
				t.Fatalf("%s %016x: dualCheck %d, newDualView %d", f.name, w, got, want)
			}
		}
	}
	if bad == 0 {
		t.Fatal("no invalid word tried")
	}
}

// TestParseDualPlain: texts without markers resolve to the same word with
// and without the plain-text shortcut, on random dual-issue words.
func TestParseDualPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	plain := 0
	for _, fi := range dualForms {
		f := &forms[fi]
		for n := 0; n < 4000; n++ {
			w := r.Uint64()&^f.mask | f.value
			in, err := DecodeWord(w, 0)
			if err != nil || int(in.Form) != fi {
				continue
			}
			var d dualView
			if !d.init(f, &in) {
				continue
			}
			text := string(d.appendMnem1(nil, markNone))
			rest := string(d.appendRest(nil, markNone))
			for _, g := range dualForms {
				base := Inst{Form: int16(g)}
				decodeFields(int16(g), w, &base.Args)
				fast, ok1 := parseDualMode(g, &base, text, rest, true, nil)
				full, ok2 := parseDualMode(g, &base, text, rest, false, nil)
				if ok1 != ok2 || ok1 && fast.Raw != full.Raw {
					t.Fatalf("%016x %s %s: shortcut %v %016x, full %v %016x", w, text, rest, ok1, fast.Raw, ok2, full.Raw)
				}
				if ok1 {
					plain++
				}
			}
		}
	}
	if plain < 1000 {
		t.Fatalf("only %d plain texts resolved", plain)
	}
}
