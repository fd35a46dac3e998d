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
		words = append(words, lowRegDualWord(r, i))
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

// TestDualSourcesFitSat: the look-up dualSourcesFit makes (dualSrcReqs
// against dualSourceSat) answers as the layout's letters read one by one
// do, for every pair of operations and configuration, on the texts of
// random dual-issue words (low register numbers in a third: more internal
// and doubled registers).
func TestDualSourcesFitSat(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	fits, tried := 0, 0
	for i := 0; i < 4000; i++ {
		w := lowRegDualWord(r, i)
		in, err := DecodeWord(w, 0)
		if err != nil {
			continue
		}
		d, _ := newDualView(&forms[in.Form], &in)
		var txt dualText
		d.fillText(&txt, true)
		for i1 := range dualOps[0] {
			for i2 := range dualOps[1] {
				if !dualOps[0][i1].ok || !dualOps[1][i2].ok {
					continue
				}
				o1, o2 := &dualOps[0][i1].op, &dualOps[1][i2].op
				for cfg := uint32(0); cfg < 4; cfg++ {
					got, want := dualSourcesFit(&txt, o1, o2, cfg), sourcesFitByLetters(&txt, o1, o2, cfg)
					if got != want {
						t.Fatalf("%016x, operations %d %d, configuration %d: fit %v, by letters %v", w, i1, i2, cfg, got, want)
					}
					tried++
					fits += int(b2u(got))
				}
			}
		}
	}
	if fits == 0 || fits == tried {
		t.Fatalf("%d of %d fit: the test needs both answers", fits, tried)
	}
}

// sourcesFitByLetters is dualSourcesFit reading the layout's letters one
// by one (the rules dualSrcReqs packs).
func sourcesFitByLetters(t *dualText, o1, o2 *dualOp, cfg uint32) bool {
	lay := &dualLayouts[o1.srcs-1][o2.srcs-1][cfg&3]
	if !lay.ok {
		return false
	}
	for k, o := range [2]*dualOp{o1, o2} {
		l := lay.lay[k]
		for i := 0; i < len(l); i++ {
			j := o.srcOperand(i)
			if j >= t.n[k] {
				return false
			}
			p := &t.opnd[k][j]
			internal := p.bank == dbI && p.num <= 3 && !p.abs
			switch l[i] {
			case 'u':
				if _, _, ok := unifiedReg(p, &dualSrcBanks, o.vload); !ok || p.abs && o1.srcs > 2 {
					return false
				}
			case '0':
				if !internal || p.neg {
					return false
				}
			case '1':
				if !internal {
					return false
				}
			case '2':
				if !internal || p.neg || o1.srcs < 2 && p.num != 2 {
					return false
				}
			}
		}
	}
	return true
}

// BenchmarkDualLevel is the marker-level search of random valid dual-issue
// words (dualViewLevel, the costliest part of printing them).
func BenchmarkDualLevel(b *testing.B) {
	ins := randomDualInsts(1 << 14)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := &ins[i%len(ins)]
		var d dualView
		d.init(&forms[in.Form], in)
		dualViewLevel(&d, in)
	}
}

// BenchmarkPrintDual prints random valid dual-issue words (appendTextWith).
func BenchmarkPrintDual(b *testing.B) {
	ins := randomDualInsts(1 << 14)
	pt := syntaxTables()
	var buf []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = appendTextWith(buf[:0], &ins[i%len(ins)], pt)
	}
}

// randomDualInsts is n random valid dual-issue words, decoded.
func randomDualInsts(n int) []Inst {
	r := rand.New(rand.NewPCG(15, 16))
	ins := make([]Inst, 0, n)
	for len(ins) < n {
		in, err := DecodeWord(uint64(4+len(ins)%2)<<59|r.Uint64()>>5, 0)
		if err == nil {
			ins = append(ins, in)
		}
	}
	dualTables()
	return ins
}

// TestDualMaskChansDistinct: no two write masks print alike (the level
// search reads a rival's masks back from the text: dualSwzRoundTrips).
func TestDualMaskChansDistinct(t *testing.T) {
	seen := map[dualChans]int{}
	for m, ch := range maskChans {
		if o, ok := seen[ch]; ok {
			t.Fatalf("masks %d and %d both print %q", o, m, ch.c[:ch.n])
		}
		seen[ch] = m
	}
}

// TestDualSwzFind: the table look-up finds what scanning the swizzle
// table finds, for every channel text of one to four letters (the table's
// letters and one other), both groups and every range the parser searches.
func TestDualSwzFind(t *testing.T) {
	letters := dualSwzLetters + "q"
	var texts []dualChans
	var grow func(ch dualChans)
	grow = func(ch dualChans) {
		if ch.n > 0 {
			texts = append(texts, ch)
		}
		if ch.n == 4 {
			return
		}
		for i := 0; i < len(letters); i++ {
			next := ch
			next.c[next.n] = letters[i]
			next.n++
			grow(next)
		}
	}
	grow(dualChans{})
	found := 0
	for _, vec4 := range []bool{false, true} {
		tab := enumTables[enumDswz3]
		if vec4 {
			tab = enumTables[enumDswz4]
		}
		for _, b := range dualSwzRangeBounds {
			for _, ch := range texts {
				want, wantOK := 0, false
				for i := b[0]; i < b[1]; i++ {
					if ch.prefixOf(tab[i]) && tab[i] != "?" {
						want, wantOK = i, true
						break
					}
				}
				got, ok := dualSwzFind(vec4, b[0], b[1], &ch)
				if ok != wantOK || ok && got != want {
					t.Fatalf("vec4 %v [%d, %d) %q: found %d %v, scan %d %v", vec4, b[0], b[1], ch.c[:ch.n], got, ok, want, wantOK)
				}
				found += int(b2u(ok))
			}
		}
	}
	if found == 0 || found == len(texts)*6 {
		t.Fatalf("%d of %d found: the test needs both answers", found, len(texts)*6)
	}
}

// TestDualSwzRoundTrips: the channel test before a rival's build never
// turns down a rival that prints the word's text, on random dual-issue
// words (low register numbers in a third: more rivals).
func TestDualSwzRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	matches, refused := 0, 0
	cons := freeCons()
	for i := 0; i < 60000; i++ {
		w := lowRegDualWord(r, i)
		in, err := DecodeWord(w, 0)
		if err != nil {
			continue
		}
		var d dualView
		if !d.init(&forms[in.Form], &in) || !d.plainNamesWord() {
			continue
		}
		g := int(b2u(d.vec4))
		cl := dualTryLists().list(g, d.get(dfOp1), d.get(dfOp2), d.get(dfSrccfg), d.get(dfPrimus))
		var txt dualText
		d.fillText(&txt, false)
		var keys [2][5]dualKey
		for _, try := range cl.tries {
			fi := dualForms[try.group]
			base := Inst{Form: int16(fi)}
			decodeFields(int16(fi), w, &base.Args)
			rival, ok := dualBuildArgs(fi, &base, &txt, &cons, uint32(try.i1), uint32(try.i2), uint32(try.p), uint32(try.c))
			var rv dualView
			if !ok || !rv.init(&forms[fi], &rival) || rv.text() != txt {
				continue
			}
			matches++
			if !dualSwzRoundTrips(dualSwzFirst(), &txt, &keys, &d, try) {
				refused++
				t.Errorf("%016x (%s): the rival %+v prints its text, the channel test refuses it", w, Print(in, 0), try)
			}
		}
	}
	if matches < 1000 {
		t.Fatalf("only %d rivals print their word's text", matches)
	}
}

// lowRegDualWord is a random dual-issue word of group i%2 whose register
// numbers are low in every third (i%3 == 0): more texts alike.
func lowRegDualWord(r *rand.Rand, i int) uint64 {
	w := uint64(4+i%2)<<59 | r.Uint64()>>5
	if i%3 == 0 {
		w &^= 0x7f << 32
	}
	return w
}
