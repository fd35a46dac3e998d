package cubin

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// hexOrZero prints values the way cuobjdump -elf does in its symbol table.
func hexOrZero(v uint64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("0x%x", v)
}

// elfSummary renders what we parsed in the shape of the parts of
// `cuobjdump -elf` that describe the container: header, section table,
// symbols, attribute names and formats per .nv.info section, relocations.
func elfSummary(f *File) []string {
	out := []string{fmt.Sprintf("%dbit elf: type=%d, abi=%d, sm=%d, toolkit=%d, flags = 0x%x", f.Class, f.Type, f.ABIVersion, f.SM(), f.Version, f.Flags)}
	for i, s := range f.Sections[1:] {
		out = append(out, fmt.Sprintf("sec %x %x %x %x %x %s %x %x %x %s", i+1, s.Offset, s.Size, s.EntSize, s.Align,
			strings.TrimPrefix(SectionTypeName(s.Type), "SHT_"), s.Flags, s.Link, s.Info, s.Name))
	}
	for i, s := range f.Symbols {
		name := s.Name
		if name == "" {
			name = "(null)"
		}
		out = append(out, fmt.Sprintf("sym %s %s %s %s %s %s %s", hexOrZero(uint64(i)), hexOrZero(s.Value), hexOrZero(s.Size),
			hexOrZero(uint64(s.Info)), hexOrZero(uint64(s.Other)), hexOrZero(uint64(s.Section)), name))
	}
	fmtNames := map[uint8]string{FmtNVal: "EIFMT_NVAL", FmtBVal: "EIFMT_BVAL", FmtHVal: "EIFMT_HVAL", FmtSVal: "EIFMT_SVAL"}
	for _, s := range f.Sections {
		if s.Type != SecCUDAInfo {
			continue
		}
		attrs, err := parseAttrs(s.Data, s.Offset)
		if err != nil {
			out = append(out, "error "+err.Error())
		}
		for k, a := range attrs {
			out = append(out, fmt.Sprintf("attr %s #%d %s %s", s.Name, k+1, a.Name(), fmtNames[a.Format]))
		}
	}
	for i, s := range f.Sections {
		if s.Type != SecRel && s.Type != SecRela {
			continue
		}
		rels, err := f.relocs(i)
		if err != nil {
			out = append(out, "error "+err.Error())
		}
		for _, r := range rels {
			out = append(out, fmt.Sprintf("rel %s 0x%x %s %s", s.Name, r.Offset, f.Symbols[r.Symbol].Name, RelocTypeName(r.Type)))
		}
	}
	return out
}

// cuobjdumpSummary extracts the same facts from `cuobjdump -elf` output.
func cuobjdumpSummary(text string) []string {
	var out []string
	state, cur, nattr := "", "", 0
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		switch {
		case strings.Contains(line, "bit elf: type="):
			out = append(out, strings.TrimSpace(line))
			continue
		case strings.HasPrefix(line, "Index Offset"):
			state = "sec"
			continue
		case strings.HasPrefix(strings.TrimSpace(line), "index") && strings.Contains(line, "shndx"):
			state = "sym"
			continue
		case len(fields) == 0:
			if state == "sec" || state == "sym" {
				state = ""
			}
			continue
		case strings.HasPrefix(line, ".section .rel"):
			state, cur = "rel", fields[1]
			continue
		case strings.HasPrefix(line, "."):
			state, cur, nattr = "other", fields[0], 0
			continue
		}
		switch {
		case state == "sec" && len(fields) == 10:
			out = append(out, "sec "+strings.Join(fields, " "))
		case state == "sym" && len(fields) == 7:
			out = append(out, "sym "+strings.Join(fields, " "))
		case state == "rel" && len(fields) == 3:
			out = append(out, fmt.Sprintf("rel %s %s %s %s", cur, fields[0], fields[1], fields[2]))
		case state == "other" && fields[0] == "Attribute:":
			nattr++
			out = append(out, fmt.Sprintf("attr %s #%d %s", cur, nattr, fields[1]))
		case state == "other" && fields[0] == "Format:":
			out[len(out)-1] += " " + fields[1]
		}
	}
	return out
}

// compareSummaries compares two summaries as sets of lines: the tools print
// sections in their own order, and every line carries what identifies it.
func compareSummaries(t *testing.T, name string, got, want []string) {
	t.Helper()
	got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	g := strings.Join(got, "\n")
	w := strings.Join(want, "\n")
	if g == w {
		return
	}
	for i := 0; i < len(got) || i < len(want); i++ {
		var a, b string
		if i < len(got) {
			a = got[i]
		}
		if i < len(want) {
			b = want[i]
		}
		if a != b {
			t.Errorf("%s: line %d differs:\n ours:      %s\n cuobjdump: %s", name, i, a, b)
			return
		}
	}
}

// TestCuobjdumpElfGolden compares our parse of the committed cubins with the
// committed cuobjdump -elf listings of them (made by testdata/gen.sh).
func TestCuobjdumpElfGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.cubin")
	if len(paths) < 4 {
		t.Fatalf("want at least 4 testdata cubins, have %d", len(paths))
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(p, ".cubin") + ".cuobjdump-elf.txt")
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		compareSummaries(t, p, elfSummary(f), cuobjdumpSummary(string(want)))
	}
}

// cudaTool returns the path of an NVIDIA tool, or skips the test.
func cudaTool(t testing.TB, name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	p := filepath.Join("/opt/cuda118/usr/bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not installed (run /work/shared/tools/cuda118-setup.sh)", name)
	}
	return p
}

// TestCuobjdumpElfOracle runs cuobjdump -elf (when installed) on all 110
// oracle cubins and compares its section, symbol, attribute and relocation
// tables with our parse.
func TestCuobjdumpElfOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cuobjdump 110 times")
	}
	tool := cudaTool(t, "cuobjdump")
	dir := oracle.Path(t, "oracle/maxwell/cubin")
	paths, _ := filepath.Glob(filepath.Join(dir, "sm_5*", "*.cubin"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out, err := exec.Command(tool, "-elf", p).Output()
		if err != nil {
			t.Fatalf("cuobjdump -elf %s: %v", p, err)
		}
		compareSummaries(t, p, elfSummary(f), cuobjdumpSummary(string(out)))
	}
	t.Logf("%d cubins agree with cuobjdump -elf", len(paths))
}
