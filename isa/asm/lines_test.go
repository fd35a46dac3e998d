package asm

import (
	"strconv"
	"strings"
	"testing"
)

// TestLines: lines are numbered from 1 and cut at '\n' (a '\r' stays), a
// last line without a newline counts, an empty input has none.
func TestLines(t *testing.T) {
	for src, want := range map[string]string{
		"":            "",
		"a":           "1:a",
		"a\n":         "1:a",
		"a\nb":        "1:a|2:b",
		"\n\n":        "1:|2:",
		"a\r\nb\n\nc": "1:a\r|2:b|3:|4:c",
		"\n":          "1:",
	} {
		var got []string
		Lines([]byte(src), func(line string, n int) { got = append(got, strconv.Itoa(n)+":"+line) })
		if strings.Join(got, "|") != want {
			t.Errorf("%q: %q, want %q", src, strings.Join(got, "|"), want)
		}
	}
}
