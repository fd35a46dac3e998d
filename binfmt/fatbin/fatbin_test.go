package fatbin

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type wantEntry struct {
	kind         Kind
	sm           int
	major, minor uint16
	compressed   bool
	cubin        string // for ELF: the testdata cubin the payload must equal
	ptxHas       string // for PTX: a line the payload must contain
	name, opts   string
}

func checkEntries(t *testing.T, file string, got []Entry, want []wantEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries, want %d: %+v", file, len(got), len(want), got)
	}
	for i, w := range want {
		e := got[i]
		if e.Kind != w.kind || e.SM != w.sm || e.Major != w.major || e.Minor != w.minor || e.Compressed != w.compressed || e.Name != w.name || e.Options != w.opts {
			t.Errorf("%s entry %d: %v sm %d v%d.%d compressed %v name %q options %q; want %v sm %d v%d.%d %v %q %q", file, i,
				e.Kind, e.SM, e.Major, e.Minor, e.Compressed, e.Name, e.Options, w.kind, w.sm, w.major, w.minor, w.compressed, w.name, w.opts)
		}
		if e.Flags&(Flag64Bit|FlagLinux) != Flag64Bit|FlagLinux {
			t.Errorf("%s entry %d: flags %#x lack 64-bit/linux", file, i, e.Flags)
		}
		if w.cubin != "" {
			if src := readFile(t, filepath.Join("../cubin/testdata", w.cubin)); !bytes.Equal(e.Payload, src) {
				t.Errorf("%s entry %d: payload (%d bytes) differs from %s (%d bytes)", file, i, len(e.Payload), w.cubin, len(src))
			}
			if f, err := cubin.Parse(e.Payload); err != nil || f.SM() != w.sm {
				t.Errorf("%s entry %d: cubin.Parse: %v", file, i, err)
			}
		}
		if w.ptxHas != "" && (!bytes.Contains(e.Payload, []byte(w.ptxHas)) || bytes.IndexByte(e.Payload, 0) >= 0) {
			t.Errorf("%s entry %d: PTX payload lacks %q or has NULs:\n%s", file, i, w.ptxHas, e.Payload)
		}
	}
}

// The testdata fatbins are built from our own cubins and PTX by
// testdata/gen.sh; their ELF payloads must come back byte for byte.
func TestExtractTestdata(t *testing.T) {
	cases := []struct {
		file string
		want []wantEntry
	}{
		{"plain.fatbin", []wantEntry{
			{kind: KindELF, sm: 50, major: 1, minor: 7, cubin: "small.sm_50.cubin", name: "small"},
			{kind: KindELF, sm: 53, major: 1, minor: 7, cubin: "small.sm_53.O0.cubin", name: "small"},
			{kind: KindPTX, sm: 50, major: 7, minor: 8, ptxHas: ".entry scale(", name: "small", opts: "-O3"},
		}},
		{"compressed.fatbin", []wantEntry{
			{kind: KindELF, sm: 52, major: 1, minor: 7, compressed: true, cubin: "extern.sm_52.rel.cubin"},
			{kind: KindPTX, sm: 50, major: 7, minor: 8, compressed: true, ptxHas: ".entry callext("},
		}},
		// a host object (gcc) with the fatbin in .nv_fatbin, as nvcc embeds it
		{"host.o", []wantEntry{
			{kind: KindELF, sm: 50, major: 1, minor: 7, cubin: "small.sm_50.cubin"},
			{kind: KindPTX, sm: 50, major: 7, minor: 8, compressed: true, ptxHas: ".entry scale("},
		}},
	}
	for _, c := range cases {
		got, err := Extract(readFile(t, filepath.Join("testdata", c.file)))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		checkEntries(t, c.file, got, c.want)
	}
}

func TestExtractConcatenated(t *testing.T) {
	a := readFile(t, "testdata/plain.fatbin")
	b := readFile(t, "testdata/compressed.fatbin")
	data := append(append(append([]byte{}, a...), make([]byte, 8)...), b...)
	got, err := Extract(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[3].SM != 52 || got[3].Offset != int64(len(a)+8+16) {
		t.Errorf("concatenated: %d entries, 4th at %#x sm %d", len(got), got[3].Offset, got[3].SM)
	}
}

func TestExtractNotFatbin(t *testing.T) {
	for name, data := range map[string][]byte{
		"text":  []byte("hello, world"),
		"empty": nil,
		"cubin": readFile(t, "../cubin/testdata/small.sm_50.cubin"),
	} {
		if _, err := Extract(data); !errors.Is(err, ErrNoFatbin) {
			t.Errorf("%s: err %v, want ErrNoFatbin", name, err)
		}
	}
	// a host ELF without .nv_fatbin: rename the section
	host := readFile(t, "testdata/host.o")
	renamed := bytes.Replace(host, []byte(".nv_fatbin\x00"), []byte(".xx_fatbin\x00"), 1)
	if _, err := Extract(renamed); !errors.Is(err, ErrNoFatbin) {
		t.Errorf("host without .nv_fatbin: err %v, want ErrNoFatbin", err)
	}
}

// TestExtractCuobjdump extracts the testdata images with CUDA 11.8 cuobjdump
// (when installed) and compares them with ours.
func TestExtractCuobjdump(t *testing.T) {
	tool := "/opt/cuda118/usr/bin/cuobjdump"
	if p, err := exec.LookPath("cuobjdump"); err == nil {
		tool = p
	} else if _, err := os.Stat(tool); err != nil {
		t.Skip("cuobjdump not installed (run /work/shared/tools/cuda118-setup.sh)")
	}
	for _, file := range []string{"plain.fatbin", "compressed.fatbin", "host.o"} {
		abs, _ := filepath.Abs(filepath.Join("testdata", file))
		dir := t.TempDir()
		cmd := exec.Command(tool, "-xelf", "all", "-xptx", "all", abs)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cuobjdump %s: %v\n%s", file, err, out)
		}
		names, _ := filepath.Glob(filepath.Join(dir, "*"))
		sort.Strings(names)
		var theirs [][]byte
		for _, kind := range []string{".cubin", ".ptx"} {
			for _, n := range names {
				if strings.HasSuffix(n, kind) {
					theirs = append(theirs, bytes.TrimRight(readFile(t, n), "\x00"))
				}
			}
		}
		ours, err := Extract(readFile(t, abs))
		if err != nil {
			t.Fatal(err)
		}
		sort.SliceStable(ours, func(i, j int) bool { return ours[i].Kind > ours[j].Kind }) // ELF first, as above
		if len(ours) != len(theirs) {
			t.Fatalf("%s: %d entries, cuobjdump extracted %d", file, len(ours), len(theirs))
		}
		for i := range ours {
			if !bytes.Equal(bytes.TrimRight(ours[i].Payload, "\x00"), theirs[i]) {
				t.Errorf("%s: entry %d (%v sm_%d) differs from cuobjdump's extraction", file, i, ours[i].Kind, ours[i].SM)
			}
		}
	}
}
