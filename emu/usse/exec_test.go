package usse

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// asmProgram assembles a primary and a secondary program (our assembler's
// syntax) into a lowered vertex Program.
func asmProgram(t *testing.T, primary, secondary string) *Program {
	t.Helper()
	words := func(src string) []uint64 {
		if src == "" {
			return nil
		}
		code, err := usse.Assemble("t.s", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		w := make([]uint64, len(code)/8)
		for i := range w {
			w[i] = binary.LittleEndian.Uint64(code[8*i:])
		}
		return w
	}
	return New(&gxp.Program{Kind: gxp.Vertex, Primary: words(primary), Secondary: words(secondary)}, nil)
}

// runOne runs p on n instances with PA set by pa (per instance) and SA by
// sa; it returns the instances' final states.
func runOne(t *testing.T, p *Program, n int, sa map[int]uint32, pa func(i int) map[int]uint32) ([]Instance, error) {
	t.Helper()
	var s SA
	for k, v := range sa {
		s[k] = v
	}
	out := make([]Instance, n)
	_, err := p.Draw(Config{MaxSteps: 10000}, &s, n, func(i int, inst *Instance) error {
		if pa != nil {
			for k, v := range pa(i) {
				inst.File[basePA+k] = v
			}
		}
		return nil
	}, func(i int, inst *Instance) error {
		out[i] = *inst
		return nil
	})
	return out, err
}

func fbits(x float32) uint32 { return math.Float32bits(x) }

// TestLoop: a counted loop (tst sets p0, a predicated backward br) runs
// the body until the test fails.
func TestLoop(t *testing.T) {
	p := asmProgram(t, `
        mov.u32 r0, 0x0
        mov.u32 r2, 0x3f800000
        mov.u32 r4, 0x40a00000
loop:   add.f32 r0.x, r0.x, r2.x
        tst.sub.f32.testnat.chan0 p0, r0, r4
        p0 br loop
        mov.u32 o0, 0x1
`, "")
	out, err := runOne(t, p, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := math.Float32frombits(out[0].File[baseR]); got != 5 {
		t.Errorf("r0 = %g after the loop, want 5", got)
	}
	if out[0].File[baseO] != 1 {
		t.Error("the code after the loop did not run")
	}
}

// TestDivergentBranch: lanes of a quad that disagree on a branch each
// follow their own path.
func TestDivergentBranch(t *testing.T) {
	p := asmProgram(t, `
        tst.sub.f32.testpat.chan0 p0, pa0, pa2
        p0 br big
        mov.u32 o0, 0x1
        br done
big:    mov.u32 o0, 0x2
done:   mov.u32 o2, 0x7
`, "")
	out, err := runOne(t, p, 4, map[int]uint32{}, func(i int) map[int]uint32 {
		return map[int]uint32{0: fbits(float32(i)), 2: fbits(1.5)}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []uint32{1, 1, 2, 2} {
		if out[i].File[baseO] != want || out[i].File[baseO+2] != 7 {
			t.Errorf("vertex %d: o0 = %d, o2 = %d; want %d, 7", i, out[i].File[baseO], out[i].File[baseO+2], want)
		}
	}
}

// TestLinkRegister: br.savelink calls, lapc returns to the instruction
// after the call; mov r, pclink reads the link.
func TestLinkRegister(t *testing.T) {
	p := asmProgram(t, `
        br.savelink sub
        mov.u32 o0, 0x1
        br end
sub:    mov.u32 o2, 0x2
        mov r9, pclink
        lapc
end:    nop
`, "")
	out, err := runOne(t, p, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := out[0].File; f[baseO] != 1 || f[baseO+2] != 2 || f[baseR+9] != 1 {
		t.Errorf("o0 %d o2 %d r9 %d; want 1 2 1", f[baseO], f[baseO+2], f[baseR+9])
	}
}

// TestIndexedAndBitwise: r[index1 * 2 + 4] with idx1 = 3 is r10; or,
// and with an inverted immediate, shl.
func TestIndexedAndBitwise(t *testing.T) {
	p := asmProgram(t, `
        mov.u32 idx1, 0x3
        mov.f32 r0.xy, r[index1 * 2 + 4].xy
        or.u32 r20.x, pa0.x, 0xff
        and.u32 r21.x, pa0.x, ~0xf0
        shl.u32 r22.x, pa0.x, 0x4
`, "")
	var s SA
	var got Instance
	_, err := p.Draw(Config{}, &s, 1, func(i int, inst *Instance) error {
		inst.File[basePA] = 0x1234
		inst.File[baseR+10], inst.File[baseR+11] = fbits(2.5), fbits(-1)
		return nil
	}, func(i int, inst *Instance) error { got = *inst; return nil })
	if err != nil {
		t.Fatal(err)
	}
	f := &got.File
	if got.Idx[0] != 3 || f[baseR] != fbits(2.5) || f[baseR+1] != fbits(-1) {
		t.Errorf("idx1 = %d, r0.xy = %#x %#x; want 3 and r10, r11", got.Idx[0], f[baseR], f[baseR+1])
	}
	for _, c := range []struct {
		reg  int
		want uint32
	}{{baseR + 20, 0x12ff}, {baseR + 21, 0x1204}, {baseR + 22, 0x12340}} {
		if f[c.reg] != c.want {
			t.Errorf("%s = %#x, want %#x", regName(c.reg), f[c.reg], c.want)
		}
	}
}

// TestSecondaryWritesSA: the secondary program's unified banks are SA
// (Vita3K): its pa0 is sa0, which the primary program then reads.
func TestSecondaryWritesSA(t *testing.T) {
	p := asmProgram(t, "mov.f32 o0.xy, sa0.xy\n", "mul.f32 pa0.xy, pa2.xy, {2, 2}\nnop.end\n")
	out, err := runOne(t, p, 2, map[int]uint32{2: fbits(1.5), 3: fbits(-4)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if got := [2]float32{math.Float32frombits(out[i].File[baseO]), math.Float32frombits(out[i].File[baseO+1])}; got != [2]float32{3, -8} {
			t.Errorf("vertex %d: o0.xy = %v, want [3 -8]", i, got)
		}
	}
}

// TestKill: a killed instance stops and is counted as discarded.
func TestKill(t *testing.T) {
	p := asmProgram(t, `
        tst.sub.f32.testnat.chan0 p1, pa0, pa2
        !p1 kill
        mov.u32 o0, 0x5
`, "")
	var s SA
	st, err := p.Draw(Config{}, &s, 4, func(i int, inst *Instance) error {
		inst.File[basePA] = fbits(float32(i))
		inst.File[basePA+2] = fbits(2)
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Discarded != 2 || st.Instances != 4 {
		t.Errorf("stats %+v: want 2 of 4 discarded", st)
	}
}

// TestFaultNamesInstruction: an instruction that cannot run faults with
// the program, the instance, its address and its text.
func TestFaultNamesInstruction(t *testing.T) {
	// nop, then a SOP3 word (op1 0x11) with the saturated alpha factor
	// (csel1 1), which is not emulated
	p := New(&gxp.Program{Kind: gxp.Vertex, Primary: []uint64{0xf800014000000000, 0x8880004000000000}}, nil)
	_, err := runOne(t, p, 1, nil, nil)
	var f *Fault
	if !errors.As(err, &f) {
		t.Fatalf("error %v is not a *Fault", err)
	}
	if f.Program != "primary" || f.Kind != "vertex" || f.PC != 8 || f.Inst == "" || !errors.Is(err, errUnsupported) {
		t.Errorf("fault %+v", f)
	}
	if !strings.Contains(err.Error(), "pc 0x0008 add.fx8") {
		t.Errorf("message %q lacks the address", err)
	}
}

// TestStepLimit: an endless loop stops at the step limit with a fault.
func TestStepLimit(t *testing.T) {
	p := asmProgram(t, "l: br l\n", "")
	var s SA
	_, err := p.Draw(Config{MaxSteps: 100}, &s, 1, nil, nil)
	if !errors.Is(err, ErrStepLimit) {
		t.Fatalf("err = %v, want the step limit", err)
	}
}

// TestTrace: the trace names each instruction and the registers it wrote.
func TestTrace(t *testing.T) {
	p := asmProgram(t, "mov.u32 r3, 0x3f800000\nmul.f32 o0.xy, r2.xy, {2, 2}\n", "")
	var s SA
	var buf bytes.Buffer
	if _, err := p.Draw(Config{Trace: &buf, TraceInstance: -1}, &s, 1, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := "vertex 0 primary /*0008*/ mul.f32 o0.xy, r2.xy, {2, 2}   ; o0=0x00000000 (0), o1=0x40000000 (2)\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("trace:\n%s\nlacks\n%s", buf.String(), want)
	}
}

// TestDual: a dual-issue word runs both operations on the values before
// either writes (atlier.gxp's words).
func TestDual(t *testing.T) {
	// rsq.f32 i0.x, i0.x +dot.f32 pa3.x, pa12.xyz1, i2.xyzw
	words := []uint64{0x288f60128065a086}
	in, err := usse.DecodeWord(words[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	p := New(&gxp.Program{Kind: gxp.Vertex, Primary: words}, nil)
	var s SA
	var got Instance
	_, err = p.Draw(Config{}, &s, 1, func(i int, inst *Instance) error {
		inst.File[baseI+0] = fbits(4) // i0.x
		inst.File[baseI+8] = fbits(1) // i2 = (1, 2, 3, 4)
		inst.File[baseI+9] = fbits(2)
		inst.File[baseI+10] = fbits(3)
		inst.File[baseI+11] = fbits(4)
		for k := 0; k < 3; k++ {
			inst.File[basePA+12+k] = fbits(float32(k + 1)) // pa12..14 = 1 2 3; w is the constant 1
		}
		return nil
	}, func(i int, inst *Instance) error { got = *inst; return nil })
	if err != nil {
		t.Fatalf("%s: %v", usse.Print(in, 0), err)
	}
	if v := math.Float32frombits(got.File[baseI]); v != 0.5 {
		t.Errorf("rsq: i0.x = %g, want 0.5", v)
	}
	if v := math.Float32frombits(got.File[basePA+3]); v != 1+4+9+4 {
		t.Errorf("dot: pa3 = %g, want 18", v)
	}
}

// TestEveryForm: every form of usse.spec has a lowering or a stated reason
// it cannot run, and random words of every op1 group lower without panic
// (to ops, or to a fault op that names why).
func TestEveryForm(t *testing.T) {
	for fi := 0; fi < usse.NumForms(); fi++ {
		name := usse.FormName(int16(fi))
		if _, ok := lowerers[name]; !ok && notEmulated[name] == "" {
			t.Errorf("form %s: no lowering and no reason it cannot run", name)
		}
	}
	seen := map[string]int{}
	x := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < 200000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		in, err := usse.DecodeWord(x, 0)
		if err != nil {
			continue
		}
		ops := lower(&in, 0, i%2 == 0, nil)
		if len(ops) == 0 {
			t.Fatalf("%016x: no ops", x)
		}
		if ops[0].kind == kFault {
			if ops[0].err == nil {
				t.Fatalf("%016x: a fault op without a reason", x)
			}
			seen[in.Name()+" faults"]++
		} else {
			seen[in.Name()]++
		}
	}
	t.Logf("random words lowered: %v", seen)
}

// TestTraceBranch: a branch's trace line says whether the instance took it.
func TestTraceBranch(t *testing.T) {
	p := asmProgram(t, `
        mov.u32 r0, 0x0
        mov.u32 r2, 0x3f800000
        mov.u32 r4, 0x40000000
loop:   add.f32 r0.x, r0.x, r2.x
        tst.sub.f32.testnat.chan0 p0, r0, r4
        p0 br loop
`, "")
	var s SA
	var buf bytes.Buffer
	if _, err := p.Draw(Config{Trace: &buf, TraceInstance: -1}, &s, 1, nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p0 br -0x2   ; jumps", "p0 br -0x2   ; falls through", "p0=true", "p0=false"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("trace lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestOutOfRangeDiscards: an instruction naming an O register past the
// program's outputs (or a PA register past its PA count) discards the
// instance, as vita3k-shader-tests' notes report of the console.
func TestOutOfRangeDiscards(t *testing.T) {
	code, err := usse.Assemble("t.s", []byte("mov.u32 o0, 0x1\nmov.u32 o9, 0x2\nmov.u32 o1, 0x3\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := make([]uint64, len(code)/8)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(code[8*i:])
	}
	p := New(&gxp.Program{Kind: gxp.Vertex, PARegs: 4, Primary: w}, &gxp.Resources{OutputRegs: 8})
	var s SA
	var got Instance
	st, err := p.Draw(Config{}, &s, 1, nil, func(i int, inst *Instance) error { got = *inst; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.Discarded != 1 || got.File[baseO] != 1 || got.File[baseO+1] != 0 {
		t.Errorf("discarded %d, o0 %d o1 %d; want 1, 1, 0", st.Discarded, got.File[baseO], got.File[baseO+1])
	}
}

// TestLaunchChecksExpect: expectations are checked when a launch file is
// read (an unknown type once reached the comparison and divided by zero).
func TestLaunchChecksExpect(t *testing.T) {
	head := `{"program": "p.gxp", "arch": "sgx543", "outputs": [{"name": "POSITION", "file": "p.out"}], "expect": [`
	for _, c := range []struct{ expect, want string }{
		{`{"output": "p.out", "file": "e", "type": "bogus"}`, "unknown type"},
		{`{"output": "q.out", "file": "e", "type": "f32"}`, "no output file"},
		{`{"output": "p.out", "file": "e", "type": "f32", "max_abs": -1}`, "max_abs"},
		{`{"space": "shared", "words": "w.tsv"}`, "space"},
		{`{"type": "f32"}`, "needs output"},
	} {
		_, err := ParseLaunch([]byte(head + c.expect + `]}`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.expect, err, c.want)
		}
	}
	if _, err := ParseLaunch([]byte(head + `{"output": "p.out", "file": "e", "type": "f32", "max_ulp": 2}]}`)); err != nil {
		t.Errorf("a good expectation: %v", err)
	}
}

// TestTraceMemory: a load lists every register it wrote, a store the
// memory words it wrote (it writes no register).
func TestTraceMemory(t *testing.T) {
	p := asmProgram(t, "sta32.fetch3.dtype=1 [r0, 0x1], r8\nlda32.fetch2 r12, [r0, 0x0]\n", "")
	var s SA
	var buf bytes.Buffer
	_, err := p.Draw(Config{Trace: &buf, TraceInstance: -1}, &s, 1, func(i int, in *Instance) error {
		in.File[baseR] = 0x40
		in.File[baseR+8], in.File[baseR+9] = 0x44332211, 0x88776655
		in.mem = &emu.Memory{Space: emu.Global, Data: make([]byte, 256)}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"; mem[0x42]=0x2211, mem[0x44]=0x4433, mem[0x46]=0x6655\n",
		"; r12=0x22110000, r13=0x66554433\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("trace:\n%s\nlacks %q", buf.String(), want)
		}
	}
}
