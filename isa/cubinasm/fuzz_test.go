package cubinasm

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// seedListings adds the listings of the committed cubins to a fuzz corpus.
func seedListings(f *testing.F) [][]byte {
	paths, _ := filepath.Glob("../../binfmt/cubin/testdata/*.cubin")
	more, _ := filepath.Glob("../../emu/maxwell/testdata/kernels.sm_52.cubin")
	out := seedCubinListings(f, append(paths, more...), func(cf *cubin.File) []byte {
		l, _ := maxwell.ListCubin(nil, cf, maxwell.ListOptions{})
		return l
	})
	f.Add([]byte("\t.headerflags\t@\"EF_CUDA_SM52\"\n\t.section\t.text.x,\"ax\",@progbits\n\t.align\t32\nx:\n"))
	f.Add([]byte("\t.headerflags\t@\"EF_CUDA_SM52\"\n\t.elftype\t@\"ET_EXEC\"\n\t.section\t.nv.info,\"\",@\"SHT_CUDA_INFO\"\n\t.word\tindex@(nothing)\n.short (.L_2 - .L_1)\n"))
	return out
}

// seedCubinListings adds list's listing of each cubin in paths to a fuzz
// corpus and returns the cubins.
func seedCubinListings(f *testing.F, paths []string, list func(*cubin.File) []byte) [][]byte {
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		cf, err := cubin.Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
		f.Add(list(cf))
	}
	return out
}

// FuzzAssemble: any text either assembles into a cubin that parses, or
// fails with an error; never a panic or a hang.
func FuzzAssemble(f *testing.F) {
	seedListings(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := Assemble("fuzz.s", src)
		var readBack *ReadBackError
		if errors.As(err, &readBack) {
			t.Fatalf("a check is missing: %v", err)
		}
		if err != nil {
			return
		}
		if _, err := cubin.Parse(out); err != nil {
			t.Fatalf("assembled a cubin that does not parse: %v", err)
		}
	})
}

// FuzzPatch: patching a committed cubin's function with any text either
// fails or gives a cubin that parses.
func FuzzPatch(f *testing.F) {
	cubins := seedListings(f)
	f.Add([]byte("MOV R1, R2 ;\nEXIT ;\n"))
	f.Add([]byte("[B------:R-:W-:Y:S16] MOV R1, R2 ;"))
	orig := cubins[0]
	cf, err := cubin.Parse(orig)
	if err != nil {
		f.Fatal(err)
	}
	fun := cf.Functions[0].Name
	f.Fuzz(func(t *testing.T, src []byte) {
		out, _, err := Patch(orig, fun, "fuzz.s", src)
		if err != nil {
			return
		}
		if _, err := cubin.Parse(out); err != nil {
			t.Fatalf("patched cubin does not parse: %v", err)
		}
	})
}

// FuzzCuobjdump: any text either rebuilds a cubin that parses from a
// cuobjdump-style listing with .cubin facts, or fails with an error.
func FuzzCuobjdump(f *testing.F) {
	seedCubinListings(f, []string{"../../examples/tesla/vecadd.cubin", "../../isa/all/testdata/copy.sm_20.cubin"}, func(cf *cubin.File) []byte {
		l, _ := all.ListCubinFacts(nil, cf, maxwell.ListOptions{})
		return l
	})
	f.Add([]byte("\tcode for sm_20\n\t\tFunction : k\n\t.cubin const bank=1 size=0x10000\n\t.cubin const bank=1 at=0xfff0 data=00ff\n\tEXIT;\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		out, _, err := RebuildCuobjdump("fuzz.s", src)
		if err != nil {
			return
		}
		if _, err := cubin.Parse(out); err != nil {
			t.Fatalf("rebuilt a cubin that does not parse: %v", err)
		}
	})
}
