package cubin

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// checkRoundTrip parses Write(m) and checks that every Kernel comes back.
func checkRoundTrip(t *testing.T, m *Module) *File {
	t.Helper()
	data, err := Write(m)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	f, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(Write(m)): %v", err)
	}
	wantClass := m.Class
	if wantClass == 0 {
		wantClass = map[bool]int{true: 32, false: 64}[m.SM < 20]
	}
	if f.Class != wantClass || f.SM() != m.SM || f.VirtualSM() != m.VirtualSM || f.Flags&^(EFSMMask|EFVirtualSMMask) != m.Flags {
		t.Errorf("header: class %d sm %d virtual %d flags %#x; want %d %d %d %#x", f.Class, f.SM(), f.VirtualSM(), f.Flags, wantClass, m.SM, m.VirtualSM, m.Flags)
	}
	if len(f.Functions) != len(m.Kernels) {
		t.Fatalf("%d functions, want %d", len(f.Functions), len(m.Kernels))
	}
	for i, k := range m.Kernels {
		fn := &f.Functions[i]
		if fn.Name != k.Name || !bytes.Equal(fn.Code, k.Code) || fn.Registers != k.Registers || fn.Barriers != k.Barriers ||
			fn.SharedSize != k.SharedSize || fn.LocalSize != k.LocalSize || !fn.Entry || fn.Size != uint64(len(k.Code)) {
			t.Errorf("kernel %d: got %s code %d bytes regs %d bar %d shared %d local %d entry %v size %d; want %s %d %d %d %d %d",
				i, fn.Name, len(fn.Code), fn.Registers, fn.Barriers, fn.SharedSize, fn.LocalSize, fn.Entry, fn.Size,
				k.Name, len(k.Code), k.Registers, k.Barriers, k.SharedSize, k.LocalSize)
		}
		if len(k.Params) > 0 || k.ParamSize > 0 {
			if fn.ParamBase != k.ParamBase || fn.ParamSize != paramSize(k) {
				t.Errorf("kernel %s: param base/size %#x/%#x, want %#x/%#x", k.Name, fn.ParamBase, fn.ParamSize, k.ParamBase, paramSize(k))
			}
			if wantBank := map[bool]int{true: -1, false: 0}[m.SM < 20]; fn.ParamBank != wantBank {
				t.Errorf("kernel %s: param bank %d, want %d", k.Name, fn.ParamBank, wantBank)
			}
		}
		if !reflect.DeepEqual(fn.Params, k.Params) && (len(fn.Params) != 0 || len(k.Params) != 0) {
			t.Errorf("kernel %s: params\n got  %+v\n want %+v", k.Name, fn.Params, k.Params)
		}
		for _, c := range k.Constants {
			if got := fn.Const(c.Bank); !bytes.Equal(got, c.Data) {
				t.Errorf("kernel %s: bank %d = % x, want % x", k.Name, c.Bank, got, c.Data)
			}
		}
	}
	return f
}

func TestWriteRoundTrip(t *testing.T) {
	// sm_10: ELF32, parameters in shared memory (Tesla code: a long MOV then a short one)
	tesla := DefaultModule(10, "tesla_kernel", []byte{0x05, 0x42, 0x00, 0x10, 0x80, 0xc7, 0x23, 0x00, 0x01, 0x82, 0x00, 0x10, 0x01, 0x00, 0x00, 0xf0}, 4, 4, 4, 8)
	tesla.Kernels[0].SharedSize = 64
	f := checkRoundTrip(t, tesla)
	if f.Class != 32 || f.Functions[0].ParamBase != 0x10 || !f.Functions[0].Params[2].SMem {
		t.Errorf("sm_10: class %d base %#x params %+v", f.Class, f.Functions[0].ParamBase, f.Functions[0].Params)
	}
	if got := CuobjdumpHeaderFlags(f.Flags); got != "EF_CUDA_SM10 EF_CUDA_PTX_SM(EF_CUDA_SM10)" {
		t.Errorf("sm_10 header flags %q", got)
	}

	fermi := DefaultModule(20, "k20", make([]byte, 64), 10, 8, 4)
	fermi.Kernels = append(fermi.Kernels, Kernel{Name: "noparams", Code: make([]byte, 16), Registers: 2, Barriers: 1, LocalSize: 32,
		Constants: []ConstBank{{Bank: 2, Data: []byte{1, 2, 3, 4}}}})
	checkRoundTrip(t, fermi)

	maxwell := DefaultModule(52, "vec", make([]byte, 96), 8, 8, 8, 8, 4)
	maxwell.Kernels[0].Constants = []ConstBank{{Bank: 0, Data: bytes.Repeat([]byte{0xee}, 0x15c)}, {Bank: 3, Data: []byte{9, 8, 7, 6}}}
	maxwell.Kernels = append(maxwell.Kernels, Kernel{Name: "k2", Code: make([]byte, 32), Registers: 255, Barriers: 16, SharedSize: 4096,
		Params: []Param{{Ordinal: 0, Offset: 0, Size: 16, LogAlign: 3, CBank: 0x1f}}, ParamBase: 0x140})
	checkRoundTrip(t, maxwell)

	class32 := DefaultModule(53, "c32", make([]byte, 32), 3, 4)
	class32.Class = 32
	checkRoundTrip(t, class32)
}

func TestWriteErrors(t *testing.T) {
	bad := []*Module{
		{SM: 0},
		{SM: 52, Class: 16},
		{SM: 52, Kernels: []Kernel{{Name: ""}}},
		{SM: 52, Kernels: []Kernel{{Name: "a"}, {Name: "a"}}},
		{SM: 52, Kernels: []Kernel{{Name: "a", Registers: 256}}},
		{SM: 52, Kernels: []Kernel{{Name: "a", Barriers: -1}}},
		{SM: 10, Kernels: []Kernel{{Name: "a", Params: []Param{{Size: 4}}, ParamBase: 0x20}}},
		{SM: 52, Kernels: []Kernel{{Name: "a", Params: []Param{{Size: 1 << 14}}, ParamBase: 0x140}}},
		{SM: 52, Kernels: []Kernel{{Name: "a", Params: []Param{{Size: 4}}, ParamBase: 0x140, Constants: []ConstBank{{Bank: 300}}}}},
	}
	for i, m := range bad {
		if _, err := Write(m); err == nil {
			t.Errorf("module %d: Write accepted %+v", i, m)
		}
	}
}

// moduleOf rebuilds a Module from a parsed cubin's functions.
func moduleOf(f *File) *Module {
	m := &Module{Class: f.Class, SM: f.SM(), VirtualSM: f.VirtualSM(), Flags: f.Flags &^ (EFSMMask | EFVirtualSMMask)}
	for _, fn := range f.Functions {
		k := Kernel{Name: fn.Name, Code: fn.Code, Registers: fn.Registers, Barriers: fn.Barriers, Params: fn.Params,
			ParamBase: fn.ParamBase, ParamSize: fn.ParamSize, SharedSize: fn.SharedSize, LocalSize: fn.LocalSize}
		for _, c := range fn.Constants {
			k.Constants = append(k.Constants, ConstBank{Bank: c.Bank, Data: c.Data})
		}
		m.Kernels = append(m.Kernels, k)
	}
	return m
}

// TestWriteOracle rewrites every function of the 110 oracle cubins and
// checks the round trip.
func TestWriteOracle(t *testing.T) {
	for key, data := range oracleCubins(t) {
		f, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(key, func(t *testing.T) { checkRoundTrip(t, moduleOf(f)) })
	}
}

var sassLine = regexp.MustCompile(`^\s*/\*[0-9a-f]{4}\*/.*$|^\s*/\* 0x[0-9a-f]{16} \*/$|Function : .*|code for sm_.*|\.headerflags.*`)

// sassLines keeps the lines of cuobjdump -sass that depend on the code.
func sassLines(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if sassLine.MatchString(l) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return strings.Join(out, "\n")
}

// TestWriteNVIDIATools: CUDA 11.8 cuobjdump -sass and nvdisasm accept the
// cubins Write makes for sm_5x, and cuobjdump prints the same listing for a
// rewritten oracle cubin as for the original (checked for every linked
// oracle cubin of sm_52, of all three archs with GPUISA_LONG=1, when the
// tools are installed).
func TestWriteNVIDIATools(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cuobjdump and nvdisasm")
	}
	cuobjdump, nvdisasm := cudaTool(t, "cuobjdump"), cudaTool(t, "nvdisasm")
	dir := t.TempDir()
	n := 0
	for key, data := range oracleCubins(t) {
		f, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		if f.Type != ETExec {
			continue // relocatable: the listing would show relocation targets we do not write
		}
		// cuobjdump -sass takes 0.3 s a file: all 104 with GPUISA_LONG=1, else one arch
		if os.Getenv("GPUISA_LONG") == "" && !strings.HasPrefix(key, "sm_52/") {
			continue
		}
		out, err := Write(moduleOf(f))
		if err != nil {
			t.Fatal(err)
		}
		orig, ours := filepath.Join(dir, "orig.cubin"), filepath.Join(dir, "ours.cubin")
		os.WriteFile(orig, data, 0o644)
		os.WriteFile(ours, out, 0o644)
		a, errA := exec.Command(cuobjdump, "-sass", orig).Output()
		b, errB := exec.Command(cuobjdump, "-sass", ours).CombinedOutput()
		if errA != nil || errB != nil {
			t.Fatalf("%s: cuobjdump: %v / %v %s", key, errA, errB, b)
		}
		if sassLines(a) != sassLines(b) {
			t.Errorf("%s: cuobjdump -sass of the rewritten cubin differs", key)
		}
		if msg, err := exec.Command(nvdisasm, ours).CombinedOutput(); err != nil {
			t.Errorf("%s: nvdisasm rejects our cubin: %v %s", key, err, msg)
		}
		// cuobjdump -elf reads back what Parse reads
		e, err := exec.Command(cuobjdump, "-elf", ours).Output()
		if err != nil {
			t.Fatal(err)
		}
		g, _ := Parse(out)
		compareSummaries(t, key+" (rewritten)", elfSummary(g), cuobjdumpSummary(string(e)))
		n++
	}
	if n == 0 {
		t.Fatal("no linked oracle cubin")
	}
	t.Logf("%d rewritten cubins: identical cuobjdump -sass listings, accepted by nvdisasm", n)
}
