package cubinasm

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// dwordLine is a listing's .dword line: a 64-bit relocation of a debug
// section (or a function descriptor) with the address it holds.
var dwordLine = regexp.MustCompile(`(?m)^\s*/\*[0-9a-f]+\*/\s+\.dword\s.*$`)

// TestRebuildDebugCubins: the listings of the cubins built with -lineinfo
// and -g committed in the repository (their debug sections hold 64-bit
// relocations listed as .dword sym, (sym + .L_x_N@srel) and ((sym +
// .L_x_N@srel) + 0x8), and in relocatable builds (.debug_frame + 0x588))
// assemble, and the rebuilt cubin's .dword lines are
// the original's: the debug addresses come back. (The bytes may differ:
// docs/roundtrip.md says where.)
func TestRebuildDebugCubins(t *testing.T) {
	paths, _ := filepath.Glob("../maxwell/testdata/lineinfo/cubin/*.cubin")
	more, _ := filepath.Glob("../maxwell/testdata/nvtools/cubin/*.cubin")
	paths = append(paths, more...)
	dwords, listed := 0, 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		listing := list(t, data, listingKinds[0].opts)
		want := dwordLine.FindAll(listing, -1)
		got, err := Assemble(p, listing)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		again := list(t, got, listingKinds[0].opts)
		if g := dwordLine.FindAll(again, -1); !equalLines(g, want) {
			t.Errorf("%s: the rebuilt cubin's .dword lines differ (%d against %d)", p, len(g), len(want))
		}
		dwords += len(want)
		if bytes.Equal(again, listing) {
			listed++
		}
	}
	t.Logf("%d cubins, %d .dword lines; %d list the same after the rebuild", len(paths), dwords, listed)
	if dwords < 100 {
		t.Errorf("only %d .dword lines: the debug cubins are missing", dwords)
	}
}

func equalLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
