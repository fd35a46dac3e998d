package maxwell

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa/asm"
)

// TestEncodeTextMutated: for nvdisasm's texts of the golden data (control-
// field variants included), texts of random valid words under random control
// fields, and mutations of them that mostly fail, EncodeText either fails or
// gives a word and control field that print the text again (blanks aside);
// label operands must resolve or fail.
func TestEncodeTextMutated(t *testing.T) {
	var texts []string
	for _, path := range []string{"testdata/nvdisasm_sm52.tsv.gz", "testdata/nvdisasm_sm52_ctrl.tsv.gz"} {
		for i, r := range readGolden(t, path) {
			if r.text != "INVALID" && (i%3 == 0 || testing.Short() == false && i%3 == 1) {
				texts = append(texts, r.text)
			}
		}
	}
	x := uint64(7)
	next := func() uint64 { // splitmix64
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	for _, w := range randomValidWords(20000) {
		ctrl := Ctrl(next()) & 0x1fffff
		inst, err := Decode(w, ctrl, 52, 0x100)
		if err != nil {
			inst, _ = Decode(w, NeutralCtrl, 52, 0x100)
		}
		texts = append(texts, Print(inst, 0x100))
	}
	const alphabet = " \t.,;-|!@[]{}()+R0159PTxZc?aeLN"
	n := len(texts)
	for i := 0; i < n; i++ {
		s := texts[i]
		if len(s) < 2 {
			continue
		}
		p := int(next() % uint64(len(s)))
		c := alphabet[next()%uint64(len(alphabet))]
		switch next() % 6 {
		case 0:
			texts = append(texts, s[:p]+s[p+1:])
		case 1:
			texts = append(texts, s[:p]+string(c)+s[p:])
		case 2:
			texts = append(texts, s[:p]+string(c)+s[p+1:])
		case 3:
			texts = append(texts, s[:p]+".reuse"+s[p:])
		case 4:
			texts = append(texts, strings.ReplaceAll(s, " ", "\t"))
		default:
			texts = append(texts, strings.TrimSuffix(strings.TrimSuffix(s, " ;"), ";")+";")
		}
	}
	labels := map[string]uint64{"L": 0x40, "start": 0x8, "a.reuse": 0x10}
	resolve := func(name string) (uint64, bool) { a, ok := labels[name]; return a, ok }
	for l := range labelTexts {
		texts = append(texts, l)
	}
	texts = append(texts, "@P9 MOV R1, R2 ;", "@!PT NOP ;", "", ";", "MOV", "R1", "MOVR1,R2;", "MOV R1, R2.reuse ;", "TEX.T R1, R2, R3, 0x1, 2D, 0x1 ;")
	encoded, failed := 0, 0
	for _, s := range texts {
		for _, sm := range []int{50, 52} {
			w, c, err := EncodeText(s, 0x100, sm, resolve)
			if err != nil {
				if err.Error() == "" {
					t.Fatalf("sm_%d %q: an empty error", sm, s)
				}
				failed++
				continue
			}
			encoded++
			if labelTexts[s] {
				continue // labels print as addresses
			}
			inst, derr := Decode(w, c, sm, 0x100)
			if derr != nil {
				t.Fatalf("sm_%d %q: %#x %#x does not decode: %v", sm, s, w, c, derr)
			}
			if got := Print(inst, 0x100); !sameText(got, s) {
				t.Errorf("sm_%d %q: %#x %#x prints %q", sm, s, w, c, got)
			}
		}
	}
	if _, _, err := EncodeText("BRA nowhere ;", 0x100, 52, resolve); err == nil {
		t.Error("an unknown label assembled")
	}
	if _, _, err := EncodeText("BRA L ;", 0x100, 52, resolve); err != nil {
		t.Errorf("a known label: %v", err)
	}
	t.Logf("%d texts: %d encodings that print back, %d rejected", len(texts), encoded, failed)
}

// labelTexts use the labels TestEncodeTextMutated resolves (or one it
// does not: nowhere).
var labelTexts = map[string]bool{"BRA L ;": true, "@P0 BRA start ;": true, "BRA `(start) ;": true, "SSY L;": true,
	"CAL a.reuse ;": true, "BRA a.reuse ;": true, "BRA nowhere ;": true}

// sameText: a printed text matches its source blanks aside, and the source
// may leave out the final ';' (the assembler then takes the neutral control
// field).
func sameText(printed, src string) bool {
	p, q := squeeze(printed), squeeze(src)
	return p == q || strings.TrimSuffix(p, ";") == q
}

// TestAssembleHelpersSameAsStrings: the string helpers Assemble uses instead
// of the strings and strconv ones give the same answers.
func TestAssembleHelpersSameAsStrings(t *testing.T) {
	for _, s := range []string{"", " ", "/* 0x", "a /* 0x1 */", "/* 0x1 */ /* 0x2 */", "/* 0/* 0x", "x/*/* 0x", "  \t x \u00a0", "\u0085 a", "                 MOV R1 ;                 ",
		"0", "ffffffffffffffff", "10000000000000000", "000000000000000000001", "0x1", "g", "FfEe"} {
		if got, want := lastHexColumn(s), strings.LastIndex(s, "/* 0x"); got != want {
			t.Errorf("lastHexColumn(%q) = %d, want %d", s, got, want)
		}
		if got, want := trimSpace(s), strings.TrimSpace(s); got != want {
			t.Errorf("trimSpace(%q) = %q, want %q", s, got, want)
		}
		v, ok := parseHex64(s)
		wv, err := strconv.ParseUint(s, 16, 64)
		if ok != (err == nil) || ok && v != wv {
			t.Errorf("parseHex64(%q) = %#x %v, want %#x %v", s, v, ok, wv, err)
		}
	}
}

// TestAssembleMutated: on a listing of random words and on mutations of its
// lines (labels, .word, control lines, comments, columns), Assemble either
// fails with positioned errors or gives code whose listing assembles to the
// same bytes; the unmutated listing gives code that lists as the original.
func TestAssembleMutated(t *testing.T) {
	code := benchCode(randomValidWords(3000), 3000)
	listing, _ := Disassemble(nil, code, 0, 52)
	lines := strings.Split(string(listing), "\n")
	extra := []string{"L1:", "L2: MOV R1, R2 ;", "  BRA L1 ;", "@P0 BRA `(L2) ;", ".word 0x12", ".word zz", ".headerflags @\"EF_CUDA_SM52\"",
		"/* 0x001fc400fe2007f1 */", "MOV R1, R2 ; // comment", "// only a comment", "/*0010*/ NOP ;", "/*00zz*/ NOP ;", "\tNOP;\r", "FOO R1 ;", "L1: .word 0x5", "a b:", "x: y: NOP ;", "\u00a0NOP ;\u00a0"}
	x := uint64(3)
	next := func() uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return x >> 33
	}
	ok, failed := 0, 0
	for round := 0; round < 40; round++ {
		src := append([]string(nil), lines[:200+round]...)
		for i := 0; i < 20; i++ {
			p := int(next() % uint64(len(src)))
			if round%2 == 0 {
				// mutations a listing may have: comments, blank lines, no
				// indentation, no hex column
				switch next() % 3 {
				case 0:
					src = append(src[:p], append([]string{"// a comment", ""}[next()%2:], src[p:]...)...)
				case 1:
					src[p] = strings.TrimSpace(src[p])
				default:
					if i := strings.Index(src[p], "/* 0x"); i > 0 {
						src[p] = src[p][:i]
					}
				}
				continue
			}
			switch next() % 4 {
			case 0:
				src = append(src[:p], append([]string{extra[next()%uint64(len(extra))]}, src[p:]...)...)
			case 1:
				src = append(src[:p], src[p+1:]...)
			case 2:
				if s := src[p]; len(s) > 0 {
					q := int(next() % uint64(len(s)))
					src[p] = s[:q] + s[q+1:]
				}
			default:
				src[p] = strings.TrimSpace(src[p])
			}
		}
		got, err := Assemble("m.s", []byte(strings.Join(src, "\n")), 52)
		if err != nil {
			var el asm.ErrorList
			if !errors.As(err, &el) || len(el) == 0 || !strings.HasPrefix(err.Error(), "m.s:") {
				t.Fatalf("round %d: an error without positions: %v", round, err)
			}
			failed++
			continue
		}
		again, _ := Disassemble(nil, got, 0, 52)
		if back, err := Assemble("again.s", again, 52); err != nil || string(back) != string(got) {
			t.Fatalf("round %d: the listing of the code does not assemble to it: %v", round, err)
		}
		ok++
	}
	// random words carry bits no field prints (the assembler writes zeros
	// there): the code it gives back lists exactly as the original
	got, err := Assemble("b.s", listing, 52)
	if err != nil {
		t.Fatal(err)
	}
	hexes := regexp.MustCompile(`/\* 0x[0-9a-f]{16} \*/`)
	back, _ := Disassemble(nil, got, 0, 52)
	if string(hexes.ReplaceAll(back, nil)) != string(hexes.ReplaceAll(listing, nil)) {
		t.Fatal("the whole listing's code does not list as the original")
	}
	t.Logf("40 mutated listings: %d assembled (and round-trip), %d rejected with positions", ok, failed)
}

// TestSingleReg: singleReg answers only when regChoices has one reading, and
// gives that reading.
func TestSingleReg(t *testing.T) {
	const chars = "0125789Z,.x"
	var walk func(s string)
	walk = func(s string) {
		rc := regChoices([]byte(s))
		if r, n, ok := singleReg([]byte(s)); ok && (rc.n != 1 || rc.c[0].r != r || rc.c[0].n != n) {
			t.Errorf("%q: singleReg %d %d, regChoices %v", s, r, n, rc)
		}
		if len(s) < 5 {
			for i := 0; i < len(chars); i++ {
				walk(s + chars[i:i+1])
			}
		}
	}
	walk("R")
	walk("")
}

// FuzzEncodeText: any text either fails or gives a word and control field
// that print it again (blanks aside).
func FuzzEncodeText(f *testing.F) {
	for i, r := range readGolden(f, "testdata/nvdisasm_sm52.tsv.gz") {
		if i%211 == 0 && r.text != "INVALID" {
			f.Add(r.text)
		}
	}
	f.Add("FFMA R3, R16.reuse, -R16, R5.reuse ;")
	f.Add("TEXS.LL.T RZ, R22, R36, R39, 0x52, 2D, RA ;")
	f.Fuzz(func(t *testing.T, text string) {
		w, c, err := EncodeText(text, 0x100, 52, nil)
		if err != nil {
			return
		}
		inst, derr := Decode(w, c, 52, 0x100)
		if derr != nil {
			t.Fatalf("%q: %#x %#x does not decode: %v", text, w, c, derr)
		}
		if got := Print(inst, 0x100); !sameText(got, text) {
			t.Fatalf("%q: %#x %#x prints %q", text, w, c, got)
		}
	})
}
