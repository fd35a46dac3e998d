package tesla

import (
	"strings"
	"testing"
)

// An unknown mnemonic names the closest known ones.
func TestUnknownMnemonicSuggests(t *testing.T) {
	_, err := Assemble("t.s", []byte("MOVV R1, R2;\n"))
	if err == nil || !strings.Contains(err.Error(), "t.s:1:1: unknown instruction MOVV (closest: MOV") {
		t.Fatalf("got %v", err)
	}
}
