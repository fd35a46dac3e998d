package maxwell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gpuisa/binfmt/cubin"
	"gpuisa/internal/oracle"
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
			return "line " + itoa(i+1) + ":\n got  " + g + "\n want " + w
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
// use (made by us from our PTX with ptxas 11.8), compared exactly.
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
// without it): the header lines and every .text section byte for byte.
func TestListCubinOracle(t *testing.T) {
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	tool := nvdisasmTool()
	if tool == "" {
		t.Skip("nvdisasm not installed (../shared/tools/cuda118-setup.sh)")
	}
	cubins, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	exact, collapsed := 0, 0
	for _, c := range cubins {
		want, err := exec.Command(tool, "-hex", "-novliw", c).Output()
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		got := listFile(t, c)
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
	}
	t.Logf("text sections: %d/%d exact, %d/%d whitespace-collapsed", exact, len(cubins), collapsed, len(cubins))
	if len(cubins) != 110 || exact < 110 {
		t.Errorf("%d cubins, %d exact matches; want 110 and all of them", len(cubins), exact)
	}
}
