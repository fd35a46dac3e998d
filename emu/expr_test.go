package emu

import (
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	for _, c := range []struct {
		in   string
		i    int64
		want string
	}{
		{"plain", 3, "plain"},
		{"{$i}", 7, "7"},
		{"r{$i%2}", 3, "r1"},
		{"{20*$i+1}", 4, "81"},
		{"{ (15 - $i) / 2 }", 4, "5"},
		{"{-$i*-3}", 5, "15"},
		{"{min($i, 3)}x{max($i,3)}", 5, "3x5"},
		{"{0x10+$i}", 1, "17"},
		{"{-7/2}:{-7%2}", 0, "-3:-1"},
		{"a{1}b{2}c", 0, "a1b2c"},
	} {
		got, err := expand(c.in, c.i)
		if err != nil || got != c.want {
			t.Errorf("expand(%q, %d) = %q, %v; want %q", c.in, c.i, got, err, c.want)
		}
	}
	for _, bad := range []string{"{", "{$j}", "{1/0}", "{1%($i-$i)}", "{(1}", "{1+}", "{min(1)}", "{}", "{09x}", "{1 2}", "{" + strings.Repeat("(", 40) + "1" + strings.Repeat(")", 40) + "}"} {
		if got, err := expand(bad, 0); err == nil {
			t.Errorf("expand(%q) = %q, want an error", bad, got)
		}
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"{$i}", "r{$i%2}", "{min($i,3)*-(2+$i)/4}", "{", "{9223372036854775807+1}", "{-9223372036854775808/-1}"} {
		f.Add(s, int64(3))
	}
	f.Fuzz(func(t *testing.T, s string, i int64) {
		out, err := expand(s, i)
		if err == nil && strings.Contains(s, "{") && strings.Contains(out, "{") && !strings.Contains(s, "{{") {
			// every brace pair was replaced: a { left must come from the values (never)
			t.Fatalf("expand(%q) = %q", s, out)
		}
	})
}
