package fermi

import (
	"strings"
	"testing"
)

// An unknown mnemonic names the closest known ones.
func TestUnknownMnemonicSuggests(t *testing.T) {
	_, err := Assemble("t.s", []byte("FADDD R1, R2, R3;\n"))
	if err == nil || !strings.Contains(err.Error(), `t.s:1:1: unknown instruction "FADDD" (closest: FADD`) {
		t.Fatalf("got %v", err)
	}
}
