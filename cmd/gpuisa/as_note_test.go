package main

import (
	"strings"
	"testing"
)

// TestAsDefaultedNote: rebuilding a cubin from a cuobjdump-style listing
// whose functions have no facts notes each function at its "Function :"
// line, in the assembler's file:line:col form.
func TestAsDefaultedNote(t *testing.T) {
	src := "\tcode for sm_10\n\t\tFunction : first\n\t\tFunction : second\n"
	r := invoke([]byte(src), "as", "-arch", "sm_10", "-cubin", "-kernel", "k", "-")
	checkContract(t, r, false)
	if r.status != 0 {
		t.Fatalf("status %d: %s", r.status, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(r.stderr)), "\n")
	want := []string{"<stdin>:2:1: note: first: registers (16)", "<stdin>:3:1: note: second: registers (16)"}
	if len(lines) != len(want) {
		t.Fatalf("notes:\n%s\nwant one for each function", r.stderr)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("note %d: %q, want it to begin %q", i, lines[i], w)
		}
	}
}
