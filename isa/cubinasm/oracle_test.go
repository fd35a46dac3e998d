package cubinasm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// oracleCubins returns the oracle's cubins keyed "sm_52/01_vecadd.O3".
func oracleCubins(t testing.TB) map[string][]byte {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	paths, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(p))+"/"+strings.TrimSuffix(filepath.Base(p), ".cubin")] = b
	}
	if len(out) != 110 {
		t.Fatalf("%d oracle cubins, want 110", len(out))
	}
	return out
}

// ownCubins returns the ptxas and nvlink cubins committed in the
// repository (emulator and cubin tests), keyed by path.
func ownCubins(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, g := range []string{"../../emu/maxwell/testdata/*.cubin", "../../binfmt/cubin/testdata/*.cubin"} {
		paths, _ := filepath.Glob(g)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[strings.TrimPrefix(p, "../../")] = b
		}
	}
	if len(out) == 0 {
		t.Fatal("no committed cubins found")
	}
	return out
}

// nvdisasmListings returns NVIDIA's `nvdisasm -hex` listings of the oracle
// cubins, keyed like oracleCubins.
func nvdisasmListings(t testing.TB) map[string][]byte {
	f, err := os.Open(oracle.Path(t, "oracle/maxwell/sass-all.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, _ := io.ReadAll(tr)
		out[strings.TrimSuffix(strings.TrimPrefix(h.Name, "sass/"), ".nvdisasm.txt")] = b
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func list(t testing.TB, data []byte, opts maxwell.ListOptions) []byte {
	f, err := cubin.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := maxwell.ListCubin(nil, f, opts)
	return out
}

// listingKinds are the listings a cubin is rebuilt from: what `gpuisa dis`
// prints (nvdisasm -hex -novliw) and plain nvdisasm's VLIW layout without
// hex, and -novliw without hex.
var listingKinds = []struct {
	name string
	opts maxwell.ListOptions
	hex  bool
}{
	{"gpuisa dis (-hex -novliw)", maxwell.ListOptions{}, true},
	{"nvdisasm (VLIW, no hex)", maxwell.ListOptions{VLIW: true, NoHex: true}, false},
	{"nvdisasm -novliw (no hex)", maxwell.ListOptions{NoHex: true}, false},
}

// rebuild checks one listing of a cubin: it assembles, and the result is the
// cubin, or lists the same with every difference explained. It returns
// whether the bytes are the same.
func rebuild(t *testing.T, name string, listing, want []byte, opts maxwell.ListOptions) bool {
	t.Helper()
	got, err := Assemble(name, listing)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return false
	}
	if bytes.Equal(got, want) {
		return true
	}
	if a, b := list(t, got, opts), list(t, want, opts); !bytes.Equal(a, b) {
		t.Errorf("%s: the rebuilt cubin lists differently: %s", name, firstLineDiff(a, b))
		return false
	}
	reasons, unexplained := Explain(got, want)
	if len(unexplained) > 0 {
		t.Errorf("%s: unexplained differences in %s", name, strings.Join(unexplained, ", "))
	}
	if len(reasons) == 0 {
		t.Errorf("%s: differs for no reason found", name)
	}
	for _, r := range reasons {
		t.Logf("%s: %s", name, r)
	}
	return false
}

func firstLineDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "line " + itoa(i+1) + ": " + strings.TrimSpace(la[i]) + " | want " + strings.TrimSpace(lb[i])
		}
	}
	return "lengths differ"
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i)) }

func fmtInt(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return fmtInt(i/10) + string(rune('0'+i%10))
}

// TestRebuildNvdisasmListings: NVIDIA's own `nvdisasm -hex` listings (VLIW
// layout) of the 110 oracle cubins assemble back to the cubins: 92 byte for
// byte; the other 18 list the same, and the test logs why their bytes differ
// (ptxas keeps the names of dropped shared variables in its string table,
// and orders subroutines as the PTX source does).
func TestRebuildNvdisasmListings(t *testing.T) {
	cubins := oracleCubins(t)
	listings := nvdisasmListings(t)
	same := 0
	for _, k := range sortedKeys(listings) {
		if rebuild(t, k+".nvdisasm.txt", listings[k], cubins[k], maxwell.ListOptions{VLIW: true}) {
			same++
		}
	}
	t.Logf("%d/%d nvdisasm listings rebuild their cubin byte for byte", same, len(listings))
	if same < 92 {
		t.Errorf("%d/%d byte-identical, want at least 92", same, len(listings))
	}
}

// TestRebuildListings: every oracle cubin and every cubin committed in the
// repository, listed by ListCubin in each layout, assembles back. With the
// hex column the bytes come back (or differ only where the test says why);
// without it the control words are lost, and the rebuilt cubin lists the same.
func TestRebuildListings(t *testing.T) {
	cubins := oracleCubins(t)
	for k, v := range ownCubins(t) {
		cubins[k] = v
	}
	for _, kind := range listingKinds {
		same := 0
		for _, k := range sortedKeys(cubins) {
			listing := list(t, cubins[k], kind.opts)
			if rebuild(t, k+" "+kind.name, listing, cubins[k], kind.opts) {
				same++
			}
		}
		t.Logf("%s: %d/%d cubins rebuild byte for byte", kind.name, same, len(cubins))
		if kind.hex && same < 92 {
			t.Errorf("%s: %d/%d byte-identical", kind.name, same, len(cubins))
		}
	}
}
