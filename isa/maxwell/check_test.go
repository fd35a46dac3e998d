package maxwell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// checkFunctions calls fn for every function of the oracle cubins with its
// entry points (its own and its subroutines' symbols).
func checkFunctions(t *testing.T, fn func(name string, sm int, code []byte, opts CheckOptions)) {
	oracleFunctions(t, func(name string, f *cubin.File, g *cubin.Function) {
		fn(name, f.SM(), g.Code, FunctionCheckOptions(f, g))
	})
}

// oracleFunctions calls fn for every function of the oracle cubins.
func oracleFunctions(t *testing.T, fn func(name string, f *cubin.File, g *cubin.Function)) {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	paths, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	for _, p := range paths {
		f := parseCubinFile(t, p)
		for i := range f.Functions {
			g := &f.Functions[i]
			fn(strings.TrimPrefix(p, dir+"/")+":"+g.Name, f, g)
		}
	}
}

// parseCubinFile reads and parses a cubin.
func parseCubinFile(t *testing.T, path string) *cubin.File {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cubin.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCheckOracle: ptxas's code is hazard-free by construction: no errors
// on any instruction of the 110 oracle cubins (bank conflicts are notes,
// counted).
func TestCheckOracle(t *testing.T) {
	insts, notes := 0, 0
	byKind := map[HazardKind]int{}
	checkFunctions(t, func(name string, sm int, code []byte, opts CheckOptions) {
		insts += len(code) / BundleSize * 3
		for _, h := range Check(code, sm, opts) {
			if h.Severity == SevNote {
				notes++
				continue
			}
			byKind[h.Kind]++
			if byKind[h.Kind] <= 5 {
				t.Errorf("%s: %v", name, h)
			}
		}
	})
	t.Logf("%d instructions checked; errors by kind %v; %d bank-conflict notes", insts, byKind, notes)
}

// TestCheckCommitted: the ptxas and nvlink cubins committed in the
// repository check clean too (no ../shared needed).
func TestCheckCommitted(t *testing.T) {
	paths, _ := filepath.Glob("../../emu/maxwell/testdata/*.cubin")
	more, _ := filepath.Glob("../../binfmt/cubin/testdata/*.cubin")
	paths = append(paths, more...)
	if len(paths) == 0 {
		t.Fatal("no committed cubins")
	}
	n := 0
	for _, p := range paths {
		f := parseCubinFile(t, p)
		for i := range f.Functions {
			g := &f.Functions[i]
			n += len(g.Code) / BundleSize * 3
			for _, h := range Check(g.Code, f.SM(), FunctionCheckOptions(f, g)) {
				if h.Severity != SevNote {
					t.Errorf("%s:%s: %v", p, g.Name, h)
				}
			}
		}
	}
	t.Logf("%d instructions of %d cubins checked", n, len(paths))
}

// FuzzCheck: any code checks without panicking or hanging, and every
// finding names an instruction address of the code.
func FuzzCheck(f *testing.F) {
	b, err := os.ReadFile("../../emu/maxwell/testdata/kernels.sm_52.cubin")
	if err != nil {
		f.Fatal(err)
	}
	cf, err := cubin.Parse(b)
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range cf.Functions {
		f.Add(g.Code, true)
	}
	f.Add(make([]byte, 64), false)
	f.Fuzz(func(t *testing.T, code []byte, kernel bool) {
		if len(code) > 16<<10 {
			return // the seeds (functions of kernels.sm_52.cubin) are smaller
		}
		code = code[:len(code)/BundleSize*BundleSize]
		for _, h := range Check(code, 52, CheckOptions{Kernel: kernel, Entries: []uint64{0x20, 0x48}}) {
			if h.Addr >= uint64(len(code)) || h.Addr%BundleSize == 0 {
				t.Fatalf("finding at %#x in %d bytes of code: %v", h.Addr, len(code), h)
			}
		}
	})
}
