package maxwell

import (
	"archive/tar"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// textSections keeps the header lines and the .text.* sections of an
// ELF-mode listing (what ListCubin prints), optionally with whitespace runs
// collapsed.
func textSections(s string, collapse bool) []string {
	var out []string
	keep := true
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "//---") {
			keep = strings.HasPrefix(l, "//--------------------- .text.")
		}
		if !keep {
			continue
		}
		if collapse {
			l = strings.Join(strings.Fields(l), " ")
			if l == "" {
				continue
			}
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// firstDiff returns "" when the listings agree, else the first differing line.
func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + g + "\n want " + w
		}
	}
	return ""
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(appendDec(nil, uint64(i))))
}

func listFile(t testing.TB, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cubin.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out, errs := ListCubin(nil, f, ListOptions{})
	for _, e := range errs {
		t.Errorf("%s: %v", path, e)
	}
	return string(out)
}

// Golden listings: `nvdisasm -hex -novliw` of the cubins binfmt/cubin tests
// use (made by us from our PTX with ptxas 11.8), compared byte for byte.
func TestListCubinGolden(t *testing.T) {
	goldens, _ := filepath.Glob("testdata/elf/*.nvdisasm.txt")
	if len(goldens) == 0 {
		t.Fatal("no golden listings")
	}
	for _, g := range goldens {
		name := strings.TrimSuffix(filepath.Base(g), ".nvdisasm.txt")
		want, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		got := listFile(t, filepath.Join("../../binfmt/cubin/testdata", name+".cubin"))
		if d := firstDiff(textSections(got, false), textSections(string(want), false)); d != "" {
			t.Errorf("%s: %s", name, d)
		}
		if d := firstDiff(strings.Split(got, "\n"), strings.Split(string(want), "\n")); d != "" {
			t.Errorf("%s (whole listing): %s", name, d)
		}
	}
}

// nvdisasmTool finds CUDA 11.8 nvdisasm, or "".
func nvdisasmTool() string {
	for _, p := range []string{"/opt/cuda118/usr/bin/nvdisasm"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, _ := exec.LookPath("nvdisasm")
	return p
}

// All 110 oracle cubins against a live `nvdisasm -hex -novliw` (skipped
// without it): every listing byte for byte (and counted per .text section).
func TestListCubinOracle(t *testing.T) {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	tool := nvdisasmTool()
	if tool == "" {
		t.Skip("nvdisasm not installed (../shared/tools/cuda118-setup.sh)")
	}
	cubins, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	exact, collapsed, plain, full, vliw := 0, 0, 0, 0, 0
	for _, c := range cubins {
		want, err := exec.Command(tool, "-hex", "-novliw", c).Output()
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		got := listFile(t, c)
		if d := firstDiff(strings.Split(got, "\n"), strings.Split(string(want), "\n")); d == "" {
			full++
		} else {
			t.Logf("%s (whole listing): %s", c, d)
		}
		if d := firstDiff(textSections(got, false), textSections(string(want), false)); d == "" {
			exact++
		} else {
			t.Logf("%s (exact): %s", c, d)
		}
		if d := firstDiff(textSections(got, true), textSections(string(want), true)); d == "" {
			collapsed++
		} else {
			t.Logf("%s: %s", c, d)
		}
		// NoHex is `nvdisasm -novliw file.cubin`
		wantPlain, err := exec.Command(tool, "-novliw", c).Output()
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		data, _ := os.ReadFile(c)
		f, _ := cubin.Parse(data)
		gotPlain, _ := ListCubin(nil, f, ListOptions{NoHex: true})
		if d := firstDiff(textSections(string(gotPlain), false), textSections(string(wantPlain), false)); d == "" {
			plain++
		} else {
			t.Logf("%s (no hex): %s", c, d)
		}
		// and plain `nvdisasm file.cubin`: VLIW braces, no hex
		wantDefault, err := exec.Command(tool, c).Output()
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		gotDefault, _ := ListCubin(nil, f, ListOptions{NoHex: true, VLIW: true})
		if d := firstDiff(strings.Split(string(gotDefault), "\n"), strings.Split(string(wantDefault), "\n")); d == "" {
			vliw++
		} else {
			t.Logf("%s (nvdisasm's default layout): %s", c, d)
		}
	}
	t.Logf("plain nvdisasm (VLIW, no hex): %d/%d byte-identical", vliw, len(cubins))
	if vliw < len(cubins) {
		t.Errorf("plain nvdisasm (VLIW, no hex): %d/%d byte-identical", vliw, len(cubins))
	}
	t.Logf("without hex: %d/%d exact", plain, len(cubins))
	if plain < len(cubins) {
		t.Errorf("without hex: %d/%d exact", plain, len(cubins))
	}
	t.Logf("text sections: %d/%d exact, %d/%d whitespace-collapsed", exact, len(cubins), collapsed, len(cubins))
	t.Logf("whole listings: %d/%d byte-identical", full, len(cubins))
	if full < len(cubins) {
		t.Errorf("whole listings: %d/%d byte-identical", full, len(cubins))
	}
	if len(cubins) != 110 || exact < 110 {
		t.Errorf("%d cubins, %d exact matches; want 110 and all of them", len(cubins), exact)
	}
}

// ListCubin never panics, whatever a parsable cubin holds.
func FuzzListCubin(f *testing.F) {
	seeds, _ := filepath.Glob("../../binfmt/cubin/testdata/*.cubin")
	lineinfo, _ := filepath.Glob("testdata/lineinfo/cubin/*.li.cubin")
	seeds = append(seeds, lineinfo[:min(3, len(lineinfo))]...)
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := cubin.Parse(data)
		if err != nil {
			return
		}
		ListCubin(nil, cf, ListOptions{})
		ListCubin(nil, cf, ListOptions{NoHex: true, NVN: true})
		ListCubin(nil, cf, ListOptions{VLIW: true})
		ListCubin(nil, cf, ListOptions{VLIW: true, NoHex: true})
		ListCubin(nil, cf, ListOptions{VLIW: true, LifeRanges: LifeRangesWide})
		ListCubin(nil, cf, ListOptions{NoHex: true, LifeRanges: LifeRangesNarrow})
		ListCubin(nil, cf, ListOptions{LifeRanges: LifeRangesCount})
	})
}

// codeLines reduces the .text sections of an ELF-mode listing with hex
// columns to its control words and instructions ("ctrl HEX", "/*addr*/ TEXT
// HEX"), with whitespace collapsed and the dual-issue marks of nvdisasm's
// default (VLIW) layout removed: `{ A ; B }` pairs print B without its ';'
// and put B's hex on a line of its own.
func codeLines(listing string) []string {
	var out []string
	pending := -1
	for _, l := range textSections(listing, true) {
		if !strings.HasPrefix(l, "/*") {
			continue // directives and labels
		}
		hex := ""
		if i := strings.Index(l, "/* 0x"); i >= 0 {
			hex = strings.TrimSuffix(l[i+5:], " */")
			l = strings.TrimSpace(l[:i])
		}
		if l == "" { // a hex-only line: B's hex, or a control word
			if pending >= 0 {
				out[pending] += " " + hex
				pending = -1
			} else {
				out = append(out, "ctrl "+hex)
			}
			continue
		}
		l = strings.Join(strings.Fields(strings.NewReplacer("{", " ", "}", " ").Replace(l)), " ")
		l = strings.TrimSuffix(strings.TrimSuffix(l, ";"), " ")
		if hex == "" {
			pending = len(out)
			out = append(out, l)
			continue
		}
		out = append(out, l+" "+hex)
	}
	return out
}

// The oracle's `nvdisasm -hex` listings of all 110 cubins (sass-all.tar.gz,
// VLIW layout): every control word and instruction of every .text section
// (address, text and hex) as ListCubin prints it.
func TestListCubinSassAll(t *testing.T) {
	tgz := oracle.Path(t, "oracle/maxwell/sass-all.tar.gz")
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	listings := readTarGz(t, tgz)
	ok, total := 0, 0
	for name, want := range listings {
		// sass/sm_52/09_branches.O3.nvdisasm.txt ↔ cubin/sm_52/09_branches.O3.cubin
		rel := strings.TrimSuffix(strings.TrimPrefix(name, "sass/"), ".nvdisasm.txt") + ".cubin"
		total++
		got := listFile(t, filepath.Join(dir, rel))
		if d := firstDiff(codeLines(got), codeLines(want)); d != "" {
			t.Errorf("%s: %s", rel, d)
			continue
		}
		if len(codeLines(want)) == 0 {
			t.Errorf("%s: no code in the oracle listing", rel)
			continue
		}
		ok++
	}
	t.Logf("sass-all: %d/%d listings with identical code lines", ok, total)
	if total != 110 {
		t.Errorf("%d listings in sass-all, want 110", total)
	}
}

func readTarGz(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(h.Name, ".nvdisasm.txt") {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(h.Name, "./")] = string(data)
	}
}

// TestListCubinQuestions: in a cubin too, operands printed as ??? (here
// patched into our saxpy build: DEPBAR on scoreboard 6, a CAS pair past
// R255) go in the annotation column, and -raw leaves them in place; the
// listings are nvdisasm's (-hex, -raw), byte for byte.
func TestListCubinQuestions(t *testing.T) {
	data, err := os.ReadFile("testdata/lineinfo/cubin/saxpy.li.cubin")
	if err != nil {
		t.Fatal(err)
	}
	f, err := cubin.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".text.") {
			binary.LittleEndian.PutUint64(data[s.Offset+2*BundleSize+16:], 0xf0f0000020000000|6<<26|7<<16)
			binary.LittleEndian.PutUint64(data[s.Offset+3*BundleSize+24:], 0xee5f71770ff21093)
		}
	}
	if f, err = cubin.Parse(data); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		opts ListOptions
	}{
		{"questions.saxpy.hex.txt", ListOptions{VLIW: true}},
		{"questions.saxpy.raw.txt", ListOptions{VLIW: true, Raw: true}},
	} {
		want, err := os.ReadFile("testdata/elf/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		got, errs := ListCubin(nil, f, c.opts)
		if len(errs) != 0 {
			t.Errorf("%s: %v", c.file, errs[0])
		}
		if d := firstDiff(strings.Split(string(got), "\n"), strings.Split(string(want), "\n")); d != "" {
			t.Errorf("%s: %s", c.file, d)
		}
	}
}
