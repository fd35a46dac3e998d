package asm

import (
	"errors"
	"testing"
)

func TestLexListingLine(t *testing.T) {
	var l Lexer
	l.Reset(`        /*0010*/        IMAD.U16 R0, g [0x6].U16, -R0H, R1;   /* 0x0020478060014c01 */`)
	want := []string{"IMAD.U16", "R0", ",", "g", "[", "0x6", "]", ".U16", ",", "-", "R0H", ",", "R1", ";"}
	for i, w := range want {
		tok := l.Next()
		if tok.Text != w {
			t.Fatalf("token %d = %q (kind %d), want %q", i, tok.Text, tok.Kind, w)
		}
	}
	if tok := l.Next(); tok.Kind != EOL {
		t.Fatalf("want EOL, got %q", tok.Text)
	}
	if l.Unterminated {
		t.Fatal("comment reported unterminated")
	}
}

func TestLexUnterminated(t *testing.T) {
	var l Lexer
	l.Reset(`MOV R0, R1; /* oops`)
	for l.Next().Kind != EOL {
	}
	if !l.Unterminated {
		t.Fatal("unterminated comment not reported")
	}
}

func TestParseUint(t *testing.T) {
	for _, c := range []struct {
		in string
		v  uint64
		ok bool
	}{
		{"0x1f", 0x1f, true}, {"17", 17, true}, {"0xffffffffffffffff", 1<<64 - 1, true},
		{"0x1ffffffffffffffff", 0, false}, {"18446744073709551616", 0, false}, {"1.5", 0, false},
	} {
		v, ok := ParseUint(c.in)
		if v != c.v || ok != c.ok {
			t.Errorf("ParseUint(%q) = %#x, %v; want %#x, %v", c.in, v, ok, c.v, c.ok)
		}
	}
}

func TestErrorListSorted(t *testing.T) {
	var l ErrorList
	l.Add(Pos{"a.s", 3, 1}, "third")
	l.Add(Pos{"a.s", 1, 5}, "first")
	err := l.Err()
	var el ErrorList
	if !errors.As(err, &el) || el[0].Msg != "first" {
		t.Fatalf("not sorted: %v", err)
	}
	if got := el[0].Error(); got != "a.s:1:5: first" {
		t.Fatalf("Error() = %q", got)
	}
}

func FuzzLex(f *testing.F) {
	f.Add(`/*0000*/ MOV R0, c [0x1] [0x0]; /* 0x0 */`)
	f.Add(`"unterminated`)
	f.Add(`1.5e+3 0x 0xZZ @!P0 {`)
	f.Fuzz(func(t *testing.T, s string) {
		var l Lexer
		l.Reset(s)
		for i := 0; ; i++ {
			tok := l.Next()
			if tok.Kind == EOL {
				break
			}
			if i > len(s) {
				t.Fatal("lexer does not advance")
			}
		}
	})
}

func TestCommentEnd(t *testing.T) {
	for _, c := range []struct {
		s    string
		from int
		want int
	}{
		{"/**/", 2, 2}, {"/*/", 2, -1}, {"/* a / b */ x", 2, 9}, {"/* 0x1 */", 2, 7},
		{"/*", 2, -1}, {"/* a ** / */", 2, 10}, {"a*/", 0, 1}, {"*/", 1, -1},
	} {
		if got := commentEnd(c.s, c.from); got != c.want {
			t.Errorf("commentEnd(%q, %d) = %d, want %d", c.s, c.from, got, c.want)
		}
	}
}
