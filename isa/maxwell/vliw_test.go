package maxwell

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// The oracle's `nvdisasm -hex` listings (sass-all.tar.gz: the VLIW layout
// that is nvdisasm's default) against ListCubin with VLIW, byte for byte.
func TestListCubinVLIW(t *testing.T) {
	tgz := oracle.Path(t, "oracle/maxwell/sass-all.tar.gz")
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	listings := readTarGz(t, tgz)
	ok, pairs := 0, 0
	for name, want := range listings {
		rel := strings.TrimSuffix(strings.TrimPrefix(name, "sass/"), ".nvdisasm.txt") + ".cubin"
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := ListCubin(nil, f, ListOptions{VLIW: true})
		pairs += strings.Count(want, "}\n")
		if d := firstDiff(strings.Split(string(got), "\n"), strings.Split(want, "\n")); d != "" {
			t.Errorf("%s: %s", rel, d)
			continue
		}
		ok++
	}
	t.Logf("VLIW listings: %d/%d byte-identical (%d braced pairs)", ok, len(listings), pairs)
	if ok != 110 {
		t.Errorf("%d/%d VLIW listings identical", ok, len(listings))
	}
}

// Golden plain `nvdisasm file.cubin` listings (VLIW, no hex) of our own
// cubins, so the layout is checked without ../shared.
func TestListCubinVLIWGolden(t *testing.T) {
	goldens, _ := filepath.Glob("testdata/elf/*.vliw.txt")
	if len(goldens) == 0 {
		t.Fatal("no golden listings")
	}
	pairs := 0
	for _, g := range goldens {
		name := strings.TrimSuffix(filepath.Base(g), ".vliw.txt")
		want, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join("../../binfmt/cubin/testdata", name+".cubin"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := ListCubin(nil, f, ListOptions{VLIW: true, NoHex: true})
		if d := firstDiff(strings.Split(string(got), "\n"), strings.Split(string(want), "\n")); d != "" {
			t.Errorf("%s: %s", name, d)
		}
		pairs += strings.Count(string(want), "}\n")
	}
	if pairs == 0 {
		t.Error("the golden listings hold no braced pair")
	}
}

// TestOpensPair: the control-field rule for braces, and that a pair never
// chains into a second one.
func TestOpensPair(t *testing.T) {
	if !opensPair(0x7f0) || opensPair(0x7f1) || opensPair(0x7e0) || !opensPair(0x207f0) {
		t.Error("opensPair: stall 0 with yield set, whatever else")
	}
	// three instructions that all open: the first pair takes two, the third opens again
	ctrl := uint64(0x7f0) | uint64(0x7f0)<<21 | uint64(0x7f0)<<42
	code := make([]byte, 64)
	binary.LittleEndian.PutUint64(code, ctrl)
	binary.LittleEndian.PutUint64(code[32:], 0x001ffc00fd4007ef)
	for i := range 6 {
		binary.LittleEndian.PutUint64(code[i/3*BundleSize+8+8*(i%3):], 0x5c9807800ff70003) // MOV R3, RZ
	}
	got := closers(code)
	want := []bool{false, true, false, true, false, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("closers = %v, want %v", got, want)
		}
	}
	// an all-zero word takes part in no pair: with the second one zero the
	// first stands alone, the zero is hidden, and the third still opens
	// (nvdisasm 11.8 on testdata/zeroword)
	binary.LittleEndian.PutUint64(code[16:], 0)
	got = closers(code)
	want = []bool{false, false, false, true, false, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("closers with a zero second word = %v, want %v", got, want)
		}
		if h := vliwHidden(code, got, i); h != (i == 1) {
			t.Fatalf("vliwHidden(%d) = %v", i, h)
		}
	}
}
