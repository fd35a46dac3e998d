package usse

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// stripColumnsSlow is the byte-by-byte reference for stripColumns.
func stripColumnsSlow(line string) string {
	b := []byte(line)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(line[i+2:], "*/")
			stop := len(b)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				b[i] = ' '
			}
			i--
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/', b[i] == '#':
			return strings.TrimRight(string(b[:i]), " \t")
		}
	}
	return strings.TrimRight(string(b), " \t")
}

func TestStripColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"/*", "*/", "/", "#", "//", " ", "\t", "nop", "mov r0", ";", "*", "/*0008*/", "/* 0x1 */", "x"}
	lines := []string{"", "/*0008*/        nop ; /* 0xf800014000000000 */", "a /* # */ b", "a // c /* d */", "x/", "/*"}
	for i := 0; i < 20000; i++ {
		var sb strings.Builder
		for n := r.IntN(8); n > 0; n-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		lines = append(lines, sb.String())
	}
	for _, l := range lines {
		got := string(stripColumns([]byte("pre"), l)[3:])
		if want := stripColumnsSlow(l); got != want {
			t.Fatalf("%q: got %q, want %q", l, got, want)
		}
	}
}
