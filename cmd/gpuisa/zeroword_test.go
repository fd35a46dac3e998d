package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zeroDir holds the all-zero sm_5x words as nvdisasm and cuobjdump 11.8
// list them (golden.sh there): raw bundles and patched cubins.
var zeroDir = filepath.Join("..", "..", "isa", "maxwell", "testdata", "zeroword")

// TestZeroWordGolden: an all-zero word lists as "NOP;" whatever its control
// field, in no braced pair, hidden after an instruction that opens one,
// for sm_50/52/53 raw code and in cubins (listing, -cfg, -bbcfg, cuobjdump).
func TestZeroWordGolden(t *testing.T) {
	want := readGolden(t, filepath.Join(zeroDir, "golden.txt.gz"))
	if len(want) < 100 {
		t.Fatalf("%d runs in golden.txt.gz", len(want))
	}
	ok := 0
	for key, w := range want {
		fields := strings.Fields(key)
		args := append(fields[:len(fields)-1:len(fields)-1], filepath.Join(zeroDir, fields[len(fields)-1]))
		_, out, errs := runCLI(t, "", args...)
		// nvdisasm's errors come before its listing (golden.sh: 2>&1)
		if out+errs != w && errs+out != w {
			t.Errorf("%s:\n%s", key, firstDiff(w, errs+out))
			continue
		}
		ok++
	}
	t.Logf("%d/%d runs agree", ok, len(want))
}

// TestZeroWordRoundTrip: dis | as keeps zero words (the hex column gives
// them: the text "NOP;" alone assembles to the canonical NOP), with -base and
// -nvn too, and as reads nvdisasm's VLIW listings, where a zero word after an
// opening instruction shows only as a bare hex line.
func TestZeroWordRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(zeroDir, "raw", "*.bin"))
	if len(files) < 20 {
		t.Fatalf("%d raw files", len(files))
	}
	for _, f := range files {
		code, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{nil, {"-base", "0x100"}, {"-nvn"}} {
			l := invoke(code, append(append([]string{"dis", "-arch", "sm_52"}, args...), "-")...)
			checkContract(t, l, false)
			if l.status != 0 {
				t.Fatalf("%s %v: dis: exit %d %s", f, args, l.status, l.stderr)
			}
			back := invoke(l.stdout, "as", "-arch", "sm_52", "-")
			if back.status != 0 || !bytes.Equal(back.stdout, code) {
				t.Errorf("%s %v: dis | as: exit %d %s\n% x\nwant\n% x\n%s", f, args, back.status, back.stderr, back.stdout, code, l.stdout)
			}
		}
	}
	// nvdisasm -b SM52 -hex (VLIW) listings of the golden set that list
	// without error
	golden := readGolden(t, filepath.Join(zeroDir, "golden.txt.gz"))
	n := 0
	for key, listing := range golden {
		fields := strings.Fields(key)
		if strings.Join(fields[1:len(fields)-1], " ") != "-b SM52 -hex" || strings.Contains(listing, "error") {
			continue
		}
		code, err := os.ReadFile(filepath.Join(zeroDir, fields[len(fields)-1]))
		if err != nil {
			t.Fatal(err)
		}
		back := invoke([]byte(listing), "as", "-arch", "sm_52", "-")
		if back.status != 0 || !bytes.Equal(back.stdout, code) {
			t.Errorf("%s | as: exit %d %s\n% x\nwant\n% x", key, back.status, back.stderr, back.stdout, code)
		}
		n++
	}
	if n < 15 {
		t.Errorf("%d VLIW listings assembled", n)
	}
	// the text alone: the canonical NOP
	r := invoke([]byte("NOP;\n"), "as", "-arch", "sm_52", "-")
	if r.status != 0 || len(r.stdout) != 32 || bytes.Equal(r.stdout[8:16], make([]byte, 8)) {
		t.Errorf("NOP; without a hex column: exit %d %s % x", r.status, r.stderr, r.stdout)
	}
}
