package cubin

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// headerFlagCases are e_flags values and what CUDA 11.8 nvdisasm printed for
// them (a real sm_52 cubin with e_flags rewritten).
var headerFlagCases = []struct {
	flags uint32
	want  string
}{
	{0x320534, "EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM52 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM50)"},
	{0x340034, "EF_CUDA_SM52 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM52)"},
	{0x000034, "EF_CUDA_SM52"},
	{0x100034, "EF_CUDA_SM52 unrecognized:10"},
	{0x200034, "EF_CUDA_SM52 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM32)"},
	{0x1000034, "EF_CUDA_SM52 unrecognized:1000000"},
	{0x234, "EF_CUDA_TEXMODE_INDEPENDENT EF_CUDA_SM52"},
	{0x334, "EF_CUDA_TEXMODE_UNIFIED EF_CUDA_TEXMODE_INDEPENDENT EF_CUDA_SM52"},
	{0x834, "EF_CUDA_SW_1729687 EF_CUDA_SM52"},
	{0x1034, "EF_CUDA_SW_1729687_v2 EF_CUDA_SM52"},
	{0x2034, "EF_CUDA_SM52 unrecognized:2000"},
	{0x500535, "EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM53 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)"},
	{0x32, "EF_CUDA_SM50"},
	{0x3c, "EF_CUDA_SM60"},
}

func TestHeaderFlags(t *testing.T) {
	for _, c := range headerFlagCases {
		if got := HeaderFlags(c.flags); got != c.want {
			t.Errorf("HeaderFlags(%#x) = %q, want %q", c.flags, got, c.want)
		}
	}
	for flags, want := range map[uint32]string{
		0x0a:     "EF_CUDA_SM10 EF_CUDA_PTX_SM(EF_CUDA_SM10)",
		0x0c000c: "EF_CUDA_SM12 EF_CUDA_PTX_SM(EF_CUDA_SM12)",
		0x14:     "EF_CUDA_SM20 EF_CUDA_PTX_SM(EF_CUDA_SM20)",
		0x320534: "EF_CUDA_SM52 EF_CUDA_PTX_SM(EF_CUDA_SM52)", // cuobjdump ignores the virtual SM
	} {
		if got := CuobjdumpHeaderFlags(flags); got != want {
			t.Errorf("CuobjdumpHeaderFlags(%#x) = %q, want %q", flags, got, want)
		}
	}
}

// headerflags returns the quoted part of the first .headerflags line.
func headerflags(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), ".headerflags"); ok {
			rest = strings.TrimSpace(rest)
			return strings.Trim(strings.TrimPrefix(rest, "@"), `"`)
		}
	}
	return ""
}

// TestHeaderFlagsOracle compares HeaderFlags with the nvdisasm listings of
// all 110 oracle cubins, and CuobjdumpHeaderFlags with the cuobjdump samples.
func TestHeaderFlagsOracle(t *testing.T) {
	cubins := oracleCubins(t)
	gz, err := os.Open(oracle.Path(t, "oracle/maxwell/sass-all.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		key := filepath.Base(filepath.Dir(h.Name)) + "/" + strings.TrimSuffix(filepath.Base(h.Name), ".nvdisasm.txt")
		data, ok := cubins[key]
		if !ok {
			continue
		}
		f, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := HeaderFlags(f.Flags), headerflags(tr); got != want {
			t.Errorf("%s: HeaderFlags %q, nvdisasm %q", key, got, want)
		}
		n++
	}
	if n != len(cubins) {
		t.Errorf("compared %d of %d", n, len(cubins))
	}
	samples, _ := filepath.Glob(filepath.Join(oracle.Path(t, "oracle/maxwell/sass/sm_50"), "*.cuobjdump.txt"))
	for _, p := range samples {
		key := "sm_50/" + strings.TrimSuffix(filepath.Base(p), ".cuobjdump.txt")
		f, err := Parse(cubins[key])
		if err != nil {
			t.Fatal(err)
		}
		r, _ := os.Open(p)
		if got, want := CuobjdumpHeaderFlags(f.Flags), headerflags(r); got != want {
			t.Errorf("%s: CuobjdumpHeaderFlags %q, cuobjdump %q", key, got, want)
		}
		r.Close()
	}
	if len(samples) == 0 {
		t.Error("no cuobjdump samples")
	}
}

// TestHeaderFlagsNvdisasm writes cubins with the flags above and checks that
// nvdisasm (when installed) prints what HeaderFlags renders.
func TestHeaderFlagsNvdisasm(t *testing.T) {
	tool := cudaTool(t, "nvdisasm")
	dir := t.TempDir()
	for _, c := range headerFlagCases {
		m := DefaultModule(int(c.flags&0xff), "k", make([]byte, 32), 1)
		m.VirtualSM = int(c.flags>>16) & 0xff
		m.Flags = c.flags &^ (EFSMMask | EFVirtualSMMask)
		data, err := Write(m)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "k.cubin")
		os.WriteFile(p, data, 0o644)
		out, err := exec.Command(tool, p).CombinedOutput()
		if err != nil {
			t.Fatalf("nvdisasm %#x: %v %s", c.flags, err, out)
		}
		if got := headerflags(strings.NewReader(string(out))); got != HeaderFlags(c.flags) {
			t.Errorf("flags %#x: nvdisasm %q, HeaderFlags %q", c.flags, got, HeaderFlags(c.flags))
		}
	}
}
