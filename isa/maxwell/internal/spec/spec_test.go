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
