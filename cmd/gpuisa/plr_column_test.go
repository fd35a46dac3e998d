package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plrColumnDir is the -plr column corpus: crafted sm_52 kernels and
// nvdisasm 11.8's -plr and -plr -hex listings of them (build.sh there).
const plrColumnDir = "../../isa/maxwell/testdata/plrcol"

// plrColumnSame are the corpus listings gpuisa prints byte for byte as
// nvdisasm; plrColumnAt those whose life-range column starts where
// nvdisasm's does (README.md there lists why the others differ).
var (
	plrColumnSame = []string{"callssy.plr", "sqrt_k7.plr", "sqrt_k30.plr", "sqrt_k7_other60.plr"}
	plrColumnAt   = []string{"callssy.plr", "sqrt_k7.plr", "sqrt_k30.plr", "sqrt_k7_other60.plr",
		"sqrt_k7.plr-hex", "sqrt_k30.plr-hex", "sqrt_k7_other60.plr-hex"}
)

// lifeColumnOf is where "// |" starts on the first line that has it, -1
// when none does.
func lifeColumnOf(b []byte) int {
	for _, line := range bytes.Split(b, []byte("\n")) {
		if k := bytes.Index(line, []byte("// |")); k >= 0 {
			return k
		}
	}
	return -1
}

// TestLifeRangesColumnCorpus lists the corpus with gpuisa nvdisasm -plr
// (-hex) and compares with the committed nvdisasm listings: the files of
// plrColumnSame must be identical, those of plrColumnAt must put the
// column where nvdisasm does; it reports the rest. No NVIDIA tool needed.
func TestLifeRangesColumnCorpus(t *testing.T) {
	cubins, _ := filepath.Glob(filepath.Join(plrColumnDir, "cubin", "*.cubin"))
	if len(cubins) < 10 {
		t.Fatalf("%d cubins in %s, want 10", len(cubins), plrColumnDir)
	}
	same, at := map[string]bool{}, map[string]bool{}
	for _, n := range plrColumnSame {
		same[n] = true
	}
	for _, n := range plrColumnAt {
		at[n] = true
	}
	identical, placed, runs := 0, 0, 0
	for _, c := range cubins {
		base := strings.TrimSuffix(filepath.Base(c), ".cubin")
		for _, set := range []struct{ suffix, flags string }{{"plr", "-plr"}, {"plr-hex", "-plr -hex"}} {
			name := base + "." + set.suffix
			f, err := os.Open(filepath.Join(plrColumnDir, "nvdisasm", name+".gz"))
			if err != nil {
				t.Fatal(err)
			}
			z, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := io.ReadAll(z)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			var got, errb bytes.Buffer
			args := append([]string{"nvdisasm"}, strings.Fields(set.flags)...)
			if code := run(append(args, c), strings.NewReader(""), &got, &errb); code != 0 {
				t.Fatalf("%s %s: exit %d: %s", set.flags, c, code, errb.String())
			}
			runs++
			g, w := lifeColumnOf(got.Bytes()), lifeColumnOf(want)
			if bytes.Equal(got.Bytes(), want) {
				identical++
			} else if same[name] {
				t.Errorf("%s: differs from nvdisasm's listing", name)
			}
			if g == w {
				placed++
			} else if at[name] {
				t.Errorf("%s: life-range column at %d, nvdisasm's at %d", name, g, w)
			} else {
				t.Logf("%s: column at %d, nvdisasm's at %d (known difference)", name, g, w)
			}
		}
	}
	t.Logf("-plr column corpus: %d/%d listings identical, %d/%d columns placed as nvdisasm's", identical, runs, placed, runs)
}
