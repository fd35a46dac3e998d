package main

import (
	"os"
	"strings"
	"testing"
)

// TestDisFactsRebuild: gpuisa dis -facts of the Tesla and Fermi example
// cubins assembles back (gpuisa as, no flags) to the same bytes, without
// the note about defaulted facts that a plain listing gets.
func TestDisFactsRebuild(t *testing.T) {
	for _, p := range []string{"../../examples/tesla/vecadd.cubin", "../../isa/all/testdata/copy.sm_20.cubin"} {
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		code, listing, stderr := runCLI(t, "", "dis", "-facts", p)
		if code != 0 || !strings.Contains(listing, "\t.cubin registers=") {
			t.Fatalf("dis -facts %s: %d %s\n%s", p, code, stderr, listing)
		}
		code, got, stderr := runCLI(t, listing, "as", "-")
		if code != 0 || got != string(want) || stderr != "" {
			t.Errorf("as of %s's -facts listing: %d, same bytes %v, stderr %q", p, code, got == string(want), stderr)
		}
		_, plain, _ := runCLI(t, "", "dis", p)
		code, _, stderr = runCLI(t, plain, "as", "-")
		if code != 0 || !strings.Contains(stderr, "note:") {
			t.Errorf("as of %s's plain listing: %d, stderr %q (want a note on the defaults)", p, code, stderr)
		}
	}
}
