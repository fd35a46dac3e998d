package maxwell

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
)

// testdataFile reads a committed file of ours (testdata/gen.sh builds the cubins).
func testdataFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// callsRef is the calls kernel of testdata/calls.ptx for one input.
func callsRef(a uint32) uint32 {
	r := a
	if a&1 != 0 {
		r = collatz(a & 0xff)
	}
	if r%5 == 0 {
		return r + 1000 // the lane exited inside maybe_exit
	}
	r += 3
	switch (a >> 1) % 3 {
	case 0:
		return r * 5
	case 1:
		return r ^ 0x1234
	}
	return r - 7
}

// TestCalls runs calls.ptx built whole (CAL, PRET + BRX) and relocatable
// (JCAL, PRET + JMX, linked by us): calls in divergent code, exits inside
// a called function, indirect calls whose targets differ per lane.
func TestCalls(t *testing.T) {
	for _, arch := range archs {
		for _, build := range []string{"", ".rel"} {
			rng := rand.New(rand.NewPCG(41, 42))
			const n = 3 * 96
			in := make([]uint32, n)
			for i := range in {
				in[i] = rng.Uint32N(1 << 12)
			}
			prog := testdataFile(t, "calls"+build+"."+arch+".cubin")
			r := run{program: prog, arch: arch, kernel: "calls", grid: emu.Dim3{3, 1, 1}, block: emu.Dim3{96, 1, 1},
				args: []arg{fromU32(in), make([]byte, 4*n)}}
			res, err := r.exec(t)
			if err != nil {
				t.Fatal(arch, build, err)
			}
			want := make([]uint32, n)
			for i, a := range in {
				want[i] = callsRef(a)
			}
			if err := sameWords(u32s(res.bufs[1]), want); err != nil {
				t.Fatal(arch, build, err)
			}
			if res.stats.Divergent == 0 {
				t.Error(arch, build, "no divergent branch counted")
			}
		}
	}
}

func fptrRef(t int, a uint32) uint32 {
	fa := func(x uint32) uint32 { return x + 100 }
	fb := func(x uint32) uint32 { return x ^ 0x55 }
	ext := func(x uint32) uint32 { return x*3 + 7 }
	gtab := []func(uint32) uint32{fa, fb, ext}
	ctab := []func(uint32) uint32{fb, ext, fa}
	return ctab[t%3](gtab[t%3](a))
}

// TestLinkFunctionPointers links link.ptx (function pointers in a global
// table and in constant bank 3, R_CUDA_32 data relocations, ABS32_LO/HI_20
// and ABS16_20 in code) with ext_fn.ptx, and runs nvlink's link of the two
// as well: both must compute the reference.
func TestLinkFunctionPointers(t *testing.T) {
	type build struct {
		arch, prog string
		link       []string
	}
	var builds []build
	for _, arch := range archs {
		builds = append(builds, build{arch, "link.rel." + arch + ".cubin", []string{"ext_fn.rel." + arch + ".cubin"}})
	}
	builds = append(builds, build{"sm_52", "link.nvlink.sm_52.cubin", nil})
	for _, b := range builds {
		rng := rand.New(rand.NewPCG(43, 44))
		const n = 160
		in := make([]uint32, n)
		for i := range in {
			in[i] = rng.Uint32()
		}
		r := run{program: testdataFile(t, b.prog), arch: b.arch, kernel: "fptr", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{fromU32(in), make([]byte, 4*n)}, link: []Object{}}
		for _, l := range b.link {
			r.link = append(r.link, Object{Name: l, Data: testdataFile(t, l)})
		}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(b.prog, err)
		}
		want := make([]uint32, n)
		for i, a := range in {
			want[i] = fptrRef(i, a)
		}
		if err := sameWords(u32s(res.bufs[1]), want); err != nil {
			t.Fatal(b.prog, err)
		}
	}
}

// TestLinkMatchesNvlink compares our link of link.ptx and ext_fn.ptx with
// nvlink's (committed).
func TestLinkMatchesNvlink(t *testing.T) {
	img, err := LinkImage("link", testdataFile(t, "link.rel.sm_52.cubin"), "fptr", "sm_52",
		[]Object{{Name: "ext_fn", Data: testdataFile(t, "ext_fn.rel.sm_52.cubin")}})
	if err != nil {
		t.Fatal(err)
	}
	sameAsNvlink(t, img, testdataFile(t, "link.nvlink.sm_52.cubin"))
}

// sameAsNvlink checks our link against nvlink's output: every function's
// code must be nvlink's once the relocations nvlink leaves to the driver
// (function addresses) are applied with our addresses; the constant-bank
// fields nvlink resolves must agree, and the global variables' relocations
// are left for the launch by both.
func sameAsNvlink(t *testing.T, img *Image, linked []byte) {
	t.Helper()
	nv, err := cubin.Parse(linked)
	if err != nil {
		t.Fatal(err)
	}
	if len(nv.Functions) != len(img.Symbols) {
		t.Fatalf("nvlink has %d functions, we placed %d (%v)", len(nv.Functions), len(img.Symbols), img.Symbols)
	}
	for _, fn := range nv.Functions {
		addr, ok := img.Symbols[fn.Name]
		if !ok {
			t.Errorf("%s: not placed", fn.Name)
			continue
		}
		code := append([]byte(nil), fn.Code...)
		for _, r := range fn.Relocs {
			sym := nv.Symbols[r.Symbol]
			v, ok := img.Symbols[sym.Name]
			if !ok {
				// a global variable: both leave the field to the launch
				if !slices.Contains(img.Relocs, Reloc{Offset: addr + r.Offset, Type: cubin.RelocTypeName(r.Type), Value: sym.Value}) {
					t.Errorf("%s: nvlink leaves %s against %q at %#x, we do not", fn.Name, cubin.RelocTypeName(r.Type), sym.Name, r.Offset)
				}
				continue
			}
			w, err := patchWord(binary.LittleEndian.Uint64(code[r.Offset:]), cubin.RelocTypeName(r.Type), v)
			if err != nil {
				t.Fatal(err)
			}
			binary.LittleEndian.PutUint64(code[r.Offset:], w)
		}
		ours := img.Code[addr : addr+uint64(len(code))]
		for i := 0; i < len(code); i += 8 {
			if !bytes.Equal(ours[i:i+8], code[i:i+8]) {
				t.Errorf("%s+%#x: ours %#016x, nvlink %#016x", fn.Name, i,
					binary.LittleEndian.Uint64(ours[i:]), binary.LittleEndian.Uint64(code[i:]))
			}
		}
	}
}

// TestLinkErrors: a symbol nobody defines, and one defined twice.
func TestLinkErrors(t *testing.T) {
	prog := testdataFile(t, "link.rel.sm_52.cubin")
	_, err := LinkImage("link.rel.sm_52.cubin", prog, "fptr", "sm_52", nil)
	if err == nil || !strings.Contains(err.Error(), `undefined symbol "ext_fn"`) {
		t.Errorf("without ext_fn: %v", err)
	}
	ext := Object{Name: "ext_fn.rel.sm_52.cubin", Data: testdataFile(t, "ext_fn.rel.sm_52.cubin")}
	_, err = LinkImage("link", prog, "fptr", "sm_52", []Object{ext, ext})
	if err == nil || !strings.Contains(err.Error(), `symbol "ext_fn" is defined in`) {
		t.Errorf("ext_fn twice: %v", err)
	}
	_, err = LinkImage("link", prog, "fptr", "sm_52", []Object{{Name: "ext50", Data: testdataFile(t, "ext_fn.rel.sm_50.cubin")}})
	if err == nil || !strings.Contains(err.Error(), "sm_50") {
		t.Errorf("an sm_50 object: %v", err)
	}
}

// TestLinkLaunchFile runs testdata/fptr.json, whose "link" (our extension
// of LAUNCH.md) names ext_fn's cubin, and checks its expectations.
func TestLinkLaunchFile(t *testing.T) {
	s, err := emu.LoadFile(filepath.Join("testdata", "fptr.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunSetup(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Check(out.Result); err != nil || n != 64 {
		t.Fatalf("expectations: %d checked, %v", n, err)
	}
	at := s.Buffers["in"].Addr
	in := u32s(out.Result.Global[at : at+256])
	for i, v := range u32s(testdataFile(t, "fptr_expected.bin")) {
		if v != fptrRef(i, in[i]) {
			t.Fatalf("fptr_expected.bin word %d: %#x, the reference says %#x", i, v, fptrRef(i, in[i]))
		}
	}
	// without the link entry: the missing symbol is named
	s.Job.Program.Link = nil
	if _, err := RunSetup(s, nil); err == nil || !strings.Contains(err.Error(), `undefined symbol "ext_fn"`) {
		t.Errorf("without link: %v", err)
	}
}

// TestBreakpointFault: BPT.TRAP faults as a trap, other BPT modes as a
// breakpoint, naming the thread and the instruction; lanes whose guard
// fails go on.
func TestBreakpointFault(t *testing.T) {
	for _, c := range []struct {
		bpt  string
		want error
	}{{"BPT.TRAP 0x1", ErrTrap}, {"BPT.INT 0x1", ErrBreakpoint}} {
		src := `
	S2R R0, SR_TID.X ;
	ISETP.NE.AND P0, PT, R0, 0x25, PT ;
	SSY join ;
	@P0 SYNC ;
	` + c.bpt + ` ;
	SYNC ;
join:
	EXIT ;
`
		r := run{program: []byte(src), arch: "sm_52", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{64, 1, 1}}
		_, err := r.exec(t)
		var f *emu.Fault
		if !errors.As(err, &f) || !errors.Is(err, c.want) {
			t.Fatalf("%s: %v, want a fault %v", c.bpt, err, c.want)
		}
		if f.Thread != (emu.Dim3{0x25, 0, 0}) || !strings.HasPrefix(f.Inst, c.bpt) {
			t.Errorf("%s: fault at thread %v, %q", c.bpt, f.Thread, f.Inst)
		}
		// with no lane at 0x25 the kernel ends cleanly
		r.block = emu.Dim3{32, 1, 1}
		if _, err := r.exec(t); err != nil {
			t.Errorf("%s: %v", c.bpt, err)
		}
	}
}

// TestCallsCubinsUpToDate rebuilds calls, link and ext_fn cubins (and
// nvlink's link) with NVIDIA's tools when they are installed.
func TestCallsCubinsUpToDate(t *testing.T) {
	nb := newNVBuilder(t, "nvlink", "gen.sh")
	for _, arch := range archs {
		nb.build("calls."+arch+".cubin", "ptxas", "-arch", arch, "-O3", testdataPTX("calls"))
		for _, f := range []string{"calls", "link", "ext_fn"} {
			nb.build(f+".rel."+arch+".cubin", "ptxas", "-c", "-arch", arch, "-O3", testdataPTX(f))
		}
	}
	nb.build("link.nvlink.sm_52.cubin", "nvlink", "-arch", "sm_52",
		filepath.Join("testdata", "link.rel.sm_52.cubin"), filepath.Join("testdata", "ext_fn.rel.sm_52.cubin"))
}

// TestControlListing: EXIT with a condition-code test, JMP and JCAL to
// absolute addresses, a guarded KIL, RET with a condition-code test (some
// lanes return early, the others later).
func TestControlListing(t *testing.T) {
	src := `
	S2R R0, SR_TID.X ;
	MOV32I R3, 0x1 ;
	ISCADD R4.CC, R0, c[0x0][0x140], 0x2 ;
	IADD.X R5, RZ, c[0x0][0x144] ;
	STG.E [R4], R3 ;
	IADD32I R2.CC, R0, -0x10 ;
	EXIT CC.LT ;
	JMP 0x78 ;
	MOV32I R3, 0x7 ;
	STG.E [R4], R3 ;
	EXIT ;
	MOV32I R3, 0x2 ;
	STG.E [R4], R3 ;
	ISETP.EQ.AND P0, PT, R0, 0x14, PT ;
	@P0 KIL ;
	JCAL 0xc8 ;
	STG.E [R4], R3 ;
	EXIT ;
	IADD32I R2.CC, R0, -0x18 ;
	MOV32I R3, 0x3 ;
	RET CC.GE ;
	MOV32I R3, 0x4 ;
	RET ;
`
	r := run{program: []byte(src), arch: "sm_52", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1},
		args: []arg{make([]byte, 4*32)}}
	res, err := r.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint32, 32)
	for i := range want {
		switch {
		case i < 16:
			want[i] = 1 // EXIT CC.LT
		case i == 20:
			want[i] = 2 // KIL
		case i < 24:
			want[i] = 4 // the second RET
		default:
			want[i] = 3 // RET CC.GE
		}
	}
	if err := sameWords(u32s(res.bufs[0]), want); err != nil {
		t.Fatal(err)
	}
}

// TestFrames: a called function with a 4 KiB stack frame (inlined into the
// kernel's frame in the whole build): local memory is sized from the
// frames .nv.info records, not the 1 KiB default.
func TestFrames(t *testing.T) {
	for _, arch := range archs {
		for _, build := range []string{"", ".rel"} {
			rng := rand.New(rand.NewPCG(45, 46))
			const n = 64
			in := make([]uint32, n)
			for i := range in {
				in[i] = rng.Uint32()
			}
			r := run{program: testdataFile(t, "calls"+build+"."+arch+".cubin"), arch: arch, kernel: "frames",
				grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1}, args: []arg{fromU32(in), make([]byte, 4*n)}}
			res, err := r.exec(t)
			if err != nil {
				t.Fatal(arch, build, err)
			}
			want := make([]uint32, n)
			for i, x := range in {
				m := x & 1023
				want[i] = x * (m * (m + 1) / 2)
			}
			if err := sameWords(u32s(res.bufs[1]), want); err != nil {
				t.Fatal(arch, build, err)
			}
		}
	}
}

// TestExitLoop: lanes exit inside a loop whose iterations end at a
// barrier; the barrier goes on with the lanes and warps left.
func TestExitLoop(t *testing.T) {
	for _, arch := range archs {
		for _, build := range []string{"", ".rel"} {
			out := make([]uint32, 96)
			for i := range out {
				out[i] = 0xdeadbeef
			}
			const n = 30
			r := run{program: testdataFile(t, "calls"+build+"."+arch+".cubin"), arch: arch, kernel: "exitloop",
				grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{96, 1, 1}, args: []arg{fromU32(out), uint32(n)}}
			res, err := r.exec(t)
			if err != nil {
				t.Fatal(arch, build, err)
			}
			want := make([]uint32, 96)
			for tid := range want {
				switch {
				case tid == 40:
					want[tid] = 0xdeadbeef // exits before its first store
				case tid < 40 && 40-tid <= n-1:
					want[tid] = uint32(40 - tid - 1)
				default:
					want[tid] = n - 1
				}
			}
			if err := sameWords(u32s(res.bufs[0]), want); err != nil {
				t.Fatal(arch, build, err)
			}
		}
	}
}

// TestJmxListing: JMX to per-lane absolute addresses (register plus
// offset) under a condition-code test: lanes that fail it go on after the
// JMX, the others split by target.
func TestJmxListing(t *testing.T) {
	src := `
	S2R R0, SR_TID.X ;
	ISCADD R4.CC, R0, c[0x0][0x140], 0x2 ;
	IADD.X R5, RZ, c[0x0][0x144] ;
	LOP.AND.NZ P0, RZ, R0, 0x1 ;
	MOV32I R6, 0x68 ;
	@P0 MOV32I R6, 0x98 ;
	IADD32I R3.CC, R0, -0x8 ;
	JMX CC.GE, R6 0x10 ;
	MOV32I R3, 0x1 ;
	STG.E [R4], R3 ;
	EXIT ;
	MOV32I R3, 0x2 ;
	STG.E [R4], R3 ;
	EXIT ;
	NOP ;
	MOV32I R3, 0x3 ;
	STG.E [R4], R3 ;
	EXIT ;
`
	r := run{program: []byte(src), arch: "sm_52", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1},
		args: []arg{make([]byte, 4*32)}}
	res, err := r.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint32, 32)
	for i := range want {
		switch {
		case i < 8:
			want[i] = 1 // CC.GE fails
		case i%2 == 0:
			want[i] = 2
		default:
			want[i] = 3
		}
	}
	if err := sameWords(u32s(res.bufs[0]), want); err != nil {
		t.Fatal(err)
	}
	if res.stats.Divergent == 0 {
		t.Error("no divergence counted")
	}
}

// TestPatchWord: relocation fields; the CONST_FIELD19_20 case is what
// nvlink writes into 19_misc's ISETP for misc.const_opt.4.8 (c[0x2][0x4]).
func TestPatchWord(t *testing.T) {
	for _, c := range []struct {
		typ     string
		w, v    uint64
		want    uint64
		wantErr bool
	}{
		{"R_CUDA_CONST_FIELD19_20", 0x4b6b038000071107, 2<<16 | 4, 0x4b6b038800171107, false},
		{"R_CUDA_ABS32_20", 0xe220000000000040, 0x1a0, 0xe22000001a000040, false},
		{"R_CUDA_ABS32_LO_20", 0x010000000007f003, 0x1_2345_6780, 0x010234567807f003, false},
		{"R_CUDA_ABS32_HI_20", 0x010000000007f003, 0x1_2345_6780, 0x010000000017f003, false},
		{"R_CUDA_ABS32_HI_32", 0x0000000000000000, 0x7_0000_0000, 0x0000000700000000, false},
		{"R_CUDA_ABS16_20", 0x010000000007f000, 0x10000, 0, true},
		{"R_CUDA_ABS32_20", 0, 0x1_0000_0000, 0, true},
		{"R_CUDA_CONST_FIELD19_20", 0, 2<<16 | 6, 0, true}, // not a word offset
		{"R_CUDA_TEX_SLOT", 0, 0, 0, true},
	} {
		got, err := patchWord(c.w, c.typ, c.v)
		if (err != nil) != c.wantErr || err == nil && got != c.want {
			t.Errorf("%s %#x into %#016x: %#016x, %v; want %#016x", c.typ, c.v, c.w, got, err, c.want)
		}
	}
}

// TestCalNoinc: CAL.NOINC calls and returns like CAL.
func TestCalNoinc(t *testing.T) {
	src := `
	S2R R0, SR_TID.X ;
	ISCADD R4.CC, R0, c[0x0][0x140], 0x2 ;
	IADD.X R5, RZ, c[0x0][0x144] ;
	CAL.NOINC 0x48 ;
	STG.E [R4], R3 ;
	EXIT ;
	MOV32I R3, 0x9 ;
	RET ;
`
	r := run{program: []byte(src), arch: "sm_52", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1},
		args: []arg{make([]byte, 4*32)}}
	res, err := r.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint32, 32)
	for i := range want {
		want[i] = 9
	}
	if err := sameWords(u32s(res.bufs[0]), want); err != nil {
		t.Fatal(err)
	}
}

// TestPexitListing: EXIT under a PEXIT target holds the lanes there (as BRK
// does under PBK) until every lane has left; then the warp goes on at the
// target, where the next EXIT (its entry popped) ends them. KIL ends a lane
// for good. The semantics are ours, by analogy with PBK/BRK: ptxas never
// emits PEXIT (emu.Warp.ExitLanes).
func TestPexitListing(t *testing.T) {
	src := `
	S2R R0, SR_TID.X ;
	ISCADD R4.CC, R0, c[0x0][0x140], 0x2 ;
	IADD.X R5, RZ, c[0x0][0x144] ;
	PEXIT 0x78 ;
	ISETP.EQ.AND P1, PT, R0, 0x5, PT ;
	@P1 KIL ;
	ISETP.LT.AND P0, PT, R0, 0x10, PT ;
	MOV32I R3, 0x1 ;
	@P0 EXIT ;
	MOV32I R3, 0x2 ;
	EXIT ;
	IADD32I R3, R3, 0x10 ;
	STG.E [R4], R3 ;
	EXIT ;
`
	r := run{program: []byte(src), arch: "sm_52", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1},
		args: []arg{make([]byte, 4*32)}}
	res, err := r.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint32, 32)
	for i := range want {
		switch {
		case i == 5:
			want[i] = 0 // killed
		case i < 16:
			want[i] = 0x11
		default:
			want[i] = 0x12
		}
	}
	if err := sameWords(u32s(res.bufs[0]), want); err != nil {
		t.Fatal(err)
	}
}
