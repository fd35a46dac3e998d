package maxwell

import (
	"fmt"
	"strings"
	"testing"
)

// TestLabelLineColumns: the column of an error in the text after a label
// on the same line ("L: text") is in the line, and exact unless a comment
// comes before the text. FuzzAs in cmd/gpuisa found "L:sss /*0034*/"
// reported at column -310080: the column was taken as the distance between
// the line and a copy of it without its comments.
func TestLabelLineColumns(t *testing.T) {
	for _, tc := range []struct {
		line string
		col  int // 0: any column in the line
	}{
		{".L_13:sssssss  /*0034*/ \t.word\tindex@(features)", 7},
		{"L:sss /*0034*/", 3},
		{"L: sss /*0034*/", 4},
		{"  L:\tsss /*x*/", 6},
		{"L: sss", 4},
		{"L: /*c*/ sss", 0},
		{"L: /*c*/ sss /*d*/ /*e*/", 0},
	} {
		_, err := Assemble("f.s", []byte(tc.line+"\n"), 52)
		if err == nil {
			t.Errorf("%q: assembled", tc.line)
			continue
		}
		msg := err.Error()
		var col int
		if _, e := fmt.Sscanf(strings.TrimPrefix(msg, "f.s:1:"), "%d:", &col); e != nil || !strings.Contains(msg, "unknown mnemonic sss") {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if col < 1 || col > len(tc.line) || tc.col != 0 && col != tc.col {
			t.Errorf("%q: column %d, want %d (the line has %d bytes)", tc.line, col, tc.col, len(tc.line))
		}
	}
}
