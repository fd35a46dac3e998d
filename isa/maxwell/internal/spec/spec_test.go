package spec

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseForm(t *testing.T) {
	s, err := Parse(`
table RND - .RM .RP .RZ
form R:5c58 C:4c58 I:3858 : FADD{RND@39} {R@0}, {R@8}, {?-@45/RCK}{B:F}{?.NEG@45/I}
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Forms) != 3 {
		t.Fatalf("%d forms, want 3", len(s.Forms))
	}
	f := s.Forms[2] // the immediate form
	if f.Value != 0x3858<<48 || f.Mask != 0xfef8<<48 {
		t.Errorf("I form %#x/%#x", f.Value, f.Mask)
	}
	var texts []string
	for _, tk := range f.Tokens {
		if tk.Kind == Flag {
			texts = append(texts, tk.Text)
		}
	}
	if strings.Join(texts, " ") != ".NEG" {
		t.Errorf("kind filters: flags %q, want only .NEG", texts)
	}
	if f.Name != "FADD" {
		t.Errorf("name %q", f.Name)
	}
	if _, err := Generate(s); err != nil {
		t.Fatal(err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{
		"table T a b c",                       // not a power of two
		"form X:5c58 : FOO{NOPE@3}",           // unknown table
		"form X:5c58 : FOO{R@3",               // unclosed field
		"form X:5c58/0000 : FOO",              // value outside the mask
		"bogus line",                          // unknown statement
		"table T a b\ntable T c d",            // defined twice
		"table T a b\nform X:5c58 : F{T@0:2}", // width does not match the table
	} {
		if _, err := Parse(src); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
	s, err := Parse("form X:5c58 wat : FOO")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(s); err == nil {
		t.Error("unknown attribute accepted")
	}
}

// TestOperandFacts: the facts only the typed operands need (XS, register
// widths, memory spaces) parse, reach the tokens, and are checked.
func TestOperandFacts(t *testing.T) {
	s, err := Parse(`
table SZ .U8 .64 .128 -
form X:5c58 : LDX{SZ@48} {R@0*SZ}, [{A@8,20:24}], {XS@20:19,56:1}, {R@39*64}
space global LDX
`)
	if err != nil {
		t.Fatal(err)
	}
	toks := s.Forms[0].Tokens
	var widths []string
	signed := false
	for _, tk := range toks {
		if tk.Kind == Reg {
			widths = append(widths, fmt.Sprint(tk.WidthBits, "/", tk.WidthTable))
		}
		if tk.Kind == Hex && tk.Signed {
			signed = true
		}
	}
	if strings.Join(widths, " ") != "0/0 64/-1" || !signed || s.Spaces["LDX"] != "global" {
		t.Errorf("widths %v, XS signed %v, spaces %v", widths, signed, s.Spaces)
	}
	if _, err := GenerateOperands(s); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		"form X:5c58 : F {R@0*NOPE}",    // unknown width table
		"form X:5c58 : F {R@0*48}",      // not a multiple of 32
		"space global A\nspace local A", // two spaces
	} {
		if _, err := Parse(src); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
	for _, src := range []string{
		"form X:5c58 : LDY {R@0}, [{A@8,20:24}]", // no space line
		"table T a b\nform X:5c58 : F {R@0*T}",   // width table not in the form
		"form X:5c58 : F {R@0}{?.A@1}{?.B@2}",    // two suffixes
	} {
		s, err := Parse(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if _, err := GenerateOperands(s); err == nil {
			t.Errorf("%q: GenerateOperands gave no error", src)
		}
	}
}

// TestRoleFacts: writes, cc, keeps and count lines and the register count
// widths parse, and what names nothing is an error.
func TestRoleFacts(t *testing.T) {
	s, err := Parse(`
table M R G B A RG RA GA BA
table D 1D 2D
count D 1 2
count TWO=@50:1 1 2
form X:5c58 : TEXZ{?.X@47}{?.E@46} {P@51}, {R@28*M[2:4]}, {R@0*M[0:2,16]}, {R@8*=D+.X+TWO+1}, [{A@8,20:24*.E}], {M@40}, {D@44}, {R@39*MASK@31:4}
writes TEXZ : P@51 R@0 +R@28
space global TEXZ
cc read .X D
keeps .E
`)
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Writes["TEXZ"]; fmt.Sprint(w) != "[P@51 R@0 +R@28]" {
		t.Errorf("writes %v", w)
	}
	var got []string
	for _, tk := range s.Forms[0].Tokens {
		switch {
		case tk.WidthTo != 0:
			got = append(got, fmt.Sprintf("slice %d:%d/%d", tk.WidthFrom, tk.WidthTo, tk.WidthElem))
		case tk.WidthSum != nil:
			got = append(got, fmt.Sprintf("sum %v", tk.WidthSum))
		case tk.WidthFlag != "":
			got = append(got, "flag "+tk.WidthFlag)
		case tk.WidthMask != nil:
			got = append(got, fmt.Sprintf("mask %v", tk.WidthMask))
		}
	}
	if want := "slice 2:4/32|slice 0:2/16|sum [{0  D} {0 .X } {0  TWO} {1  }]|flag .E|mask [{31 4}]"; strings.Join(got, "|") != want {
		t.Errorf("widths %q, want %q", strings.Join(got, "|"), want)
	}
	out, err := GenerateOperands(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{"role: RoleWrite", "role: RoleReadWrite", "ccRead: 0x1", "ccRead: 0x3", "keep: 0x1", `{name: "TWO", field: part{50, 1}`} {
		if !strings.Contains(string(out), frag) {
			t.Errorf("generated operands lack %q", frag)
		}
	}
	for _, src := range []string{
		"writes A : Q@3",                            // unknown field kind
		"writes A : R@x",                            // bad position
		"writes A B : -\nwrites A : R@0",            // given twice
		"cc both .X",                                // neither read nor write
		"table D a b\ncount D 1",                    // one value for two entries
		"count N=@70:2 1 1 1 1",                     // field past the word
		"form X:5c58 : F {R@0*=NOPE}",               // unknown count
		"form X:5c58 : F {R@0*MASK@31}",             // mask without a width
		"table M R G\nform X:5c58 : F {R@0*M[2:1]}", // empty slice
		"form X:5c58 : F [{A@8,20:24*64}]",          // an address width in bits
	} {
		if _, err := Parse(src); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
	for _, src := range []string{
		"form X:5c58 : F {R@0}\nwrites F : P@3",              // no form of F has P@3
		"form X:5c58 : F {R@0}\nwrites G : R@0",              // no form is G
		"form X:5c58 : F {R@0}\ncc read .NOPE",               // no modifier .NOPE
		"form X:5c58 : F {R@0*.E}",                           // no flag .E
		"table D a b\ncount D 1 2\nform X:5c58 : F {R@0*=D}", // the count's table is not in the form
	} {
		s, err := Parse(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if _, err := GenerateOperands(s); err == nil {
			t.Errorf("%q: GenerateOperands gave no error", src)
		}
	}
}
