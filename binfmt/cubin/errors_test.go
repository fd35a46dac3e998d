package cubin

import (
	"strings"
	"testing"
)

// TestFormatErrorOneLine is issue 11's contract for names read from a
// file: a section name holding a newline and bytes that are not UTF-8
// (FuzzLaunchInit's input) is escaped, so the message stays on one line.
func TestFormatErrorOneLine(t *testing.T) {
	err := errAt(0x310, "relocation section %d (%s): bad", 8, "trel.text.k\xff\x7f0;\nanhutnv.prototype")
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\x7f") || !strings.Contains(msg, `\xff\x7f0;\nanhutnv`) {
		t.Errorf("message %q: want the name's newline and bytes escaped", msg)
	}
}
