package maxwell

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestLaunchFileFarImage runs testdata/saxpy_far.json the way gpuisa run
// does: x is a memory image in a segment 8 GiB up (passed as a u64
// pointer), y a buffer in the dense region; then the same with y far too,
// read back through a global output region, and with x's pointer past its
// segment (a fault naming the address).
func TestLaunchFileFarImage(t *testing.T) {
	s, err := emu.LoadFile(filepath.Join("testdata", "saxpy_far.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Arch != "sm_52" {
		t.Fatalf("arch %q, the cubin says sm_52", s.Arch) // the library reads it from the cubin
	}
	if len(s.GlobalSegments) != 1 || s.GlobalSegments[0].Addr != 0x2_0000_0000 || len(s.Global) > 1<<20 {
		t.Fatalf("%d segments, dense region %#x bytes", len(s.GlobalSegments), len(s.Global))
	}
	out, err := RunSetup(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Check(out.Result); err != nil || n != 1000 {
		t.Fatalf("expectations: %d checked, %v", n, err)
	}

	// y far as well: an image at 0x7_ffff_f000 and an output region there
	data, err := os.ReadFile(filepath.Join("testdata", "saxpy_far.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, r := range [][2]string{
		{`"buffers": {
    "y": {"file": "saxpy_y.bin"}
  },`, `"buffers": {},`},
		{`"file": "saxpy_x.bin"}`, `"file": "saxpy_x.bin"}, {"space": "global", "addr": "0x7fffff000", "file": "saxpy_y.bin"}`},
		{`{"ptr": "y"}`, `{"u64": "0x8fffff000"}`},
		{`{"buffer": "y", "file"`, `{"space": "global", "addr": "0x7fffff000", "bytes": 4000, "file"`},
	} {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("saxpy_far.json lacks %q", r[0])
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	l, err := emu.ParseLaunch([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	l.Arch = "sm_52"
	s, err = emu.Load(l, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.GlobalSegments) != 2 {
		t.Fatalf("%d segments", len(s.GlobalSegments))
	}
	if out, err = RunSetup(s, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Check(out.Result); err != nil || n != 1000 {
		t.Fatalf("y far: expectations: %d checked, %v", n, err)
	}

	// x's pointer 0x70 bytes short of its segment's end (4000 bytes rounded
	// up to 0x1000): element 28 faults
	l.Params[2].U64.Text = "0x300000f90"
	if s, err = emu.Load(l, "testdata"); err != nil {
		t.Fatal(err)
	}
	_, err = RunSetup(s, nil)
	var f *emu.Fault
	var mf *emu.MemFault
	if !errors.As(err, &f) || !errors.As(err, &mf) || mf.Addr != 0x2_0000_1000 || f.Lane != 28 ||
		!strings.Contains(err.Error(), "4-byte global read at 0x200001000 is outside memory") {
		t.Fatalf("x past its segment: %v", err)
	}
}

// TestOracleAtomicsFar runs the oracle's 11_atomics with both buffers in
// segments above 4 GiB (ATOM and RED of every width and the CAS loops go
// through the segment lookup), against the same reference as
// TestOracleAtomics.
func TestOracleAtomicsFar(t *testing.T) {
	forVariants(t, "11_atomics", func(t *testing.T, prog []byte, arch string) {
		g := make(atomMem, 128)
		for i := 0; i < 128; i += 4 {
			g.set32(i, uint32(i*11+5))
		}
		g.set32(4, 1000)
		g.set32(72, 5)
		g.set32(76, 0)
		g.set32(40, 0)
		g.set32(100, 0)
		g.set32(36, 0)
		g.set32(32, 98)
		g.set64(56, 3)
		g.set32(16, 5)
		const gAt, outAt = 0x5_0000_0000, 0x3_0000_0100
		var l layout
		l.put(gAt, g)
		l.put(outAt, make([]byte, 128*32))
		ptr := func(v uint64) emu.Param {
			return emu.Param{U64: &emu.Num{Text: "0x" + strconv.FormatUint(GlobalBase+v, 16)}}
		}
		st := &emu.Setup{Arch: arch, Job: jobOf(t, &emu.Launch{Params: []emu.Param{ptr(gAt), ptr(outAt)}}),
			Grid: emu.Dim3{1, 1, 1}, Block: emu.Dim3{32, 1, 1}, Global: l.dense, GlobalSegments: l.segs}
		img, err := ProgramImage("atomics", prog, "atomics", arch)
		if err != nil {
			t.Fatal(err)
		}
		k, err := NewKernel(st, img)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := emu.Run(k.Config(st, img), k); err != nil {
			t.Fatal(err)
		}
		want := atomicsRef(g)
		got := u32s(readBack(t, k, outAt, 128*32))
		for lane := range 32 {
			for j, w := range want[lane] {
				if gw := got[32*lane+j]; gw != w {
					t.Errorf("lane %d word %d: got %#x, want %#x", lane, j, gw, w)
				}
			}
		}
		if err := sameWords(u32s(readBack(t, k, gAt, 128)), u32s(g)); err != nil {
			t.Errorf("global memory after the atomics: %v", err)
		}
	})
}

// TestSegmentOverlapsDense: a segment inside the dense region (which the
// cubin's variables extend) is refused, not silently hidden.
func TestSegmentOverlapsDense(t *testing.T) {
	prog := ownCubin(t, "sm_52")
	img, err := ProgramImage("k", prog, "ticket", "sm_52")
	if err != nil {
		t.Fatal(err)
	}
	name := "out"
	st := &emu.Setup{Arch: "sm_52", Job: jobOf(t, &emu.Launch{Params: []emu.Param{{Ptr: &name}}}),
		Grid: emu.Dim3{1, 1, 1}, Block: emu.Dim3{32, 1, 1}, Global: make([]byte, 0x1000),
		Buffers:        map[string]emu.BufferPlace{"out": {Addr: 0x100, Bytes: 128}},
		GlobalSegments: []emu.Segment{{Addr: 0x1000, Data: make([]byte, 256)}}}
	if _, err := NewKernel(st, img); err == nil || !strings.Contains(err.Error(), "overlaps the dense region") {
		t.Fatalf("NewKernel: %v", err)
	}
	st.GlobalSegments[0].Addr = 1 << 40
	if _, err := NewKernel(st, img); err != nil {
		t.Fatal(err)
	}
}
