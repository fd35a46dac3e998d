package usse

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/emu"
)

// The tests below check the forms this package emulates after the facts
// listed in doc.go against references written here from those facts (not
// from the emulator's code), on random and edge values.

// runProg runs src (our assembler's syntax) as a vertex program on one
// instance; set fills its registers (and textures, memory) first.
func runProg(t *testing.T, src string, sa *SA, set func(*Instance)) (Instance, error) {
	t.Helper()
	p := asmProgram(t, src, "")
	if sa == nil {
		sa = new(SA)
	}
	var out Instance
	_, err := p.Draw(Config{MaxSteps: 1 << 16, Workers: 1}, sa, 1, func(i int, in *Instance) error {
		if set != nil {
			set(in)
		}
		return nil
	}, func(i int, in *Instance) error {
		out = *in
		return nil
	})
	return out, err
}

func mustRun(t *testing.T, src string, sa *SA, set func(*Instance)) Instance {
	t.Helper()
	out, err := runProg(t, src, sa, set)
	if err != nil {
		t.Fatalf("%s: %v", strings.TrimSpace(src), err)
	}
	return out
}

// setR sets r registers from index 0 (or from first).
func setR(first int, vals ...uint32) func(*Instance) {
	return func(in *Instance) {
		for i, v := range vals {
			in.File[baseR+first+i] = v
		}
	}
}

func rotl(x uint32, r uint) uint32 {
	r &= 31
	if r == 0 {
		return x
	}
	return x<<r | x>>(32-r)
}

// TestBitwiseRotation: source 2 of VBW rotates left by s2rot, then
// inverts: IMG's SGX540 disassembler prints these immediates rotated.
func TestBitwiseRotation(t *testing.T) {
	for _, c := range []struct {
		imm, rot, img uint32 // the immediate field, s2rot, and the value IMG prints
	}{
		{0x8000, 3, 0x00040000}, {0xc000, 2, 0x00030000}, {0xff00, 16, 0xff000000}, {0xfc00, 18, 0xf0000003},
		{0xff00, 20, 0xf000000f}, {0xfffc, 14, 0x3fff0000}, {0xe010, 6, 0x00380400}, {0x8000, 16, 0x80000000},
	} {
		if rotl(c.imm, uint(c.rot)) != c.img {
			t.Fatalf("reference: %#x rotated by %d is not IMG's %#x", c.imm, c.rot, c.img)
		}
		src := fmt.Sprintf("or.u32.s2rot=%d r1.x, r0.x, %#x\nand.u32.s2rot=%d r2.x, r3.x, ~%#x\n", c.rot, c.imm, c.rot, c.imm)
		out := mustRun(t, src, nil, setR(0, 0, 0, 0, 0xffffffff))
		if got := out.File[baseR+1]; got != c.img {
			t.Errorf("or with %#x rotated %d: %#x, want %#x", c.imm, c.rot, got, c.img)
		}
		if got := out.File[baseR+2]; got != ^c.img {
			t.Errorf("and with ~(%#x rotated %d): %#x, want %#x", c.imm, c.rot, got, ^c.img)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for rot := uint(0); rot < 32; rot++ {
		a, b := r.Uint32(), r.Uint32()
		src := fmt.Sprintf("xor.u32.s2rot=%d r3.x, r1.x, ~r2.x\nxor.op2.u32.s2rot=%d r4.x, r1.x, r2.x\n", rot, rot)
		out := mustRun(t, src, nil, setR(1, a, b))
		if got, want := out.File[baseR+3], a^^rotl(b, rot); got != want {
			t.Errorf("xor ~(r2 rotated %d): %#x, want %#x", rot, got, want)
		}
		if got, want := out.File[baseR+4], a^rotl(b, rot); got != want {
			t.Errorf("xor.op2 (r2 rotated %d): %#x, want %#x", rot, got, want)
		}
	}
	// shifts and rotations by counts past the word: the count is taken mod 32
	// (our reading; the IMG listing's shifts are all below 32)
	for _, n := range []uint32{0, 1, 15, 31, 32, 33, 63, 0xffff} {
		a := uint32(0x80f0000f)
		out := mustRun(t, "shl.u32 r2.x, r1.x, r0.x\nshr.u32 r3.x, r1.x, r0.x\nasr.u32 r4.x, r1.x, r0.x\nrol.u32 r5.x, r1.x, r0.x\n", nil, setR(0, n, a))
		s := n % 32
		want := []uint32{a << s, a >> s, uint32(int32(a) >> s), rotl(a, uint(s))}
		for i, w := range want {
			if got := out.File[baseR+2+i]; got != w {
				t.Errorf("%s by %d: %#x, want %#x", []string{"shl", "shr", "asr", "rol"}[i], n, got, w)
			}
		}
	}
	wantFault(t, "rlp.u32 r2.x, r1.x, r3.x", "rlp")
}

// wantFault: src faults naming the instruction (its text contains name).
func wantFault(t *testing.T, src, name string) {
	t.Helper()
	_, err := runProg(t, src+"\n", nil, nil)
	var f *Fault
	if !errors.As(err, &f) || !errors.Is(err, errUnsupported) || !strings.Contains(f.Inst, name) {
		t.Errorf("%s: error %v, want a not-emulated fault naming %s", src, err, name)
	}
}

// Integer tests: the reference reads the facts directly. Channels of width
// w are consecutive w-bit fields of consecutive registers; operations wrap
// at the width; the sign test reads the top bit, the zero test the result.
type intTestCase struct {
	op string // the spec's spelling
	w  uint
}

var intTestCases = []intTestCase{
	{"add.i16", 16}, {"sub.i16", 16}, {"mul.i16", 16}, {"add.u16", 16}, {"sub.u16", 16}, {"mul.u16", 16},
	{"add.i32", 32}, {"add.u32", 32}, {"sub.i32", 32}, {"sub.u32", 32},
	{"add.i8", 8}, {"sub.i8", 8}, {"add.u8", 8}, {"sub.u8", 8}, {"mul.i8", 8}, {"mul.u8", 8}, {"fpsub.u8", 8},
	{"and", 32}, {"or", 32}, {"xor", 32}, {"shl", 32}, {"shr", 32}, {"rol", 32}, {"asr", 32},
}

func refIntOp(op string, w uint, a, b uint64) uint64 {
	mask := uint64(1)<<w - 1
	a, b = a&mask, b&mask
	s := b % 32
	var r uint64
	switch strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(op, ".i16"), ".u16"), ".i32"), ".u32") {
	case "add", "add.i8", "add.u8":
		r = a + b
	case "sub", "sub.i8", "sub.u8", "fpsub.u8":
		r = a - b
	case "mul", "mul.i8", "mul.u8":
		r = a * b
	case "and":
		r = a & b
	case "or":
		r = a | b
	case "xor":
		r = a ^ b
	case "shl":
		r = a << s
	case "shr":
		r = a >> s
	case "rol":
		r = a<<s | a>>(32-s)
	case "asr":
		v := int64(a)
		if a>>31 != 0 {
			v -= 1 << 32
		}
		r = uint64(v >> s)
	default:
		panic(op)
	}
	return r & mask
}

// refTest evaluates a spelled test (testSAZ: sign t/n/p, a(nd) or o(r),
// zero t/z/nz) on sign and zero.
func refTest(test string, neg, zero bool) bool {
	rest := strings.TrimPrefix(test, "test")
	sign := rest[:1]
	comb := rest[1:2]
	z := rest[2:]
	var sv, zv bool
	switch sign {
	case "t":
		sv = true
	case "n":
		sv = neg
	case "p":
		sv = !neg && !zero
	}
	switch z {
	case "t":
		zv = true
	case "z":
		zv = zero
	case "nz":
		zv = !zero
	}
	if comb == "a" {
		return sv && zv
	}
	return sv || zv
}

// chanOf reads channel c of width w from registers regs.
func chanOf(regs []uint32, w uint, c int) uint64 {
	per := 32 / int(w)
	return uint64(regs[c/per]>>(uint(c%per)*w)) & (uint64(1)<<w - 1)
}

func TestIntegerTests(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	edges := []uint32{0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 31, 32, 33, 15, 16}
	tests := []string{"testtaz", "testtanz", "testnat", "testpat", "testnaz", "testpot", "testnonz"}
	for _, c := range intTestCases {
		for k := 0; k < 60; k++ {
			var s1, s2 [4]uint32 // r0..r3 and r4..r7
			for i := range s1 {
				s1[i], s2[i] = r.Uint32(), r.Uint32()
				if k < 20 {
					s1[i], s2[i] = edges[r.IntN(len(edges))], edges[r.IntN(len(edges))]
					if c.w < 32 && r.IntN(2) == 0 { // edges in each narrow channel
						s1[i] = uint32(chanEdge(r, c.w)) | uint32(chanEdge(r, c.w))<<c.w
						s2[i] = uint32(chanEdge(r, c.w)) | uint32(chanEdge(r, c.w))<<c.w
					}
				}
			}
			test := tests[k%len(tests)]
			ch := k % 4
			neg := k%5 == 0
			n1 := "r0"
			if neg {
				n1 = "-r0"
			}
			sel := "" // the bitwise table is the syntax's default: its alu_sel shows as a flag
			if c.w == 32 && !strings.Contains(c.op, ".") {
				sel = ".alusel=3"
			}
			src := fmt.Sprintf("tst.%s.%s.chan%d.wben.dnum=8%s p1, %s, r4\ntstmsk.u8.%s.%s.wben%s%s r12, r0, r4\n",
				c.op, test, ch, sel, n1, c.op, test, map[bool]string{true: ".tflag"}[neg], sel)
			init := append(append(append([]uint32{}, s1[:]...), s2[:]...), 0x5a5a5a5a, 0xa5a5a5a5, 0x12345678, 0x9abcdef0, 0)
			out := mustRun(t, src, nil, setR(0, init...))
			mask := uint64(1)<<c.w - 1
			// VTST on channel ch, written back to r8's channel ch
			a := chanOf(s1[:], c.w, ch)
			if neg {
				a = -a & mask
			}
			res := refIntOp(c.op, c.w, a, chanOf(s2[:], c.w, ch))
			want := refTest(test, res>>(c.w-1)&1 != 0, res == 0)
			if out.P[1] != want {
				t.Errorf("tst.%s.%s.chan%d %#x, %#x: p1 %v, want %v (result %#x)", c.op, test, ch, a, chanOf(s2[:], c.w, ch), out.P[1], want, res)
			}
			dst := init[8:12:12]
			per := 32 / int(c.w)
			word, sh := ch/per, uint(ch%per)*c.w
			exp := append([]uint32{}, dst...)
			exp[word] = exp[word]&^uint32(mask<<sh) | uint32(res<<sh)
			for i := range exp {
				if got := out.File[baseR+8+i]; got != exp[i] {
					t.Errorf("tst.%s chan%d write-back: r%d = %#x, want %#x", c.op, ch, 8+i, got, exp[i])
				}
			}
			// VTSTMSK: all four channels, a u8 mask in r12
			var m uint32
			for i := 0; i < 4; i++ {
				a := chanOf(s1[:], c.w, i)
				if neg {
					a = -a & mask
				}
				res := refIntOp(c.op, c.w, a, chanOf(s2[:], c.w, i))
				if refTest(test, res>>(c.w-1)&1 != 0, res == 0) {
					m |= 0xff << (8 * i)
				}
			}
			if got := out.File[baseR+12]; got != m {
				t.Errorf("tstmsk.u8.%s.%s: mask %#x, want %#x", c.op, test, got, m)
			}
		}
	}
	for _, op := range []string{"fpmul.u8", "fpadd.u8"} {
		wantFault(t, "tstmsk.u8."+op+".testnat.wben r6, r0, r4", op)
	}
}

func chanEdge(r *rand.Rand, w uint) uint64 {
	m := uint64(1)<<w - 1
	return []uint64{0, 1, m >> 1, m>>1 + 1, m, m - 1}[r.IntN(6)]
}

// TestMicrokernelCountdown: IMG's SGX540 microkernel counts down with
// "mov r18, #0x3E8; isub16.testpat.chan0 r18, p2, r18, #1; p2 ba": the
// loop runs until the 16-bit counter reaches 0.
func TestMicrokernelCountdown(t *testing.T) {
	out := mustRun(t, `
        mov.u32 r18, 0x3e8
        mov.u32 r20, 0x0
loop:   tst.add.u32.testtaz.chan0.wben.dnum=20 p0, r20, 0x1
        tst.sub.i16.testpat.chan0.wben.dnum=18 p2, r18, 0x1
        p2 br loop
`, nil, nil)
	if out.File[baseR+18] != 0 || out.File[baseR+20] != 1000 {
		t.Errorf("r18 %d, loop ran %d times; want 0 and 1000", out.File[baseR+18], out.File[baseR+20])
	}
}

// TestFloatTestWriteBack: a float test with test_wben writes its result to
// the tested channel of the destination (numbers doubled, as its sources).
func TestFloatTestWriteBack(t *testing.T) {
	out := mustRun(t, "tst.add.f32.testpat.chan1.wben.dnum=5 p0, r0, r2\n", nil,
		setR(0, fbits(1), fbits(2.5), fbits(3), fbits(-0.75)))
	if got := math.Float32frombits(out.File[baseR+11]); got != 1.75 || !out.P[0] {
		t.Errorf("r11 = %g, p0 %v; want 1.75, true", got, out.P[0])
	}
	if out.File[baseR+10] != 0 {
		t.Errorf("r10 written: %#x", out.File[baseR+10])
	}
}

// TestFrc: frc is source 1 minus the floor of source 2 (Vita3K).
func TestFrc(t *testing.T) {
	for _, c := range [][2]float32{{2.75, 2.75}, {2.75, -1.5}, {-0.25, 7.9}, {5, 0.5}} {
		out := mustRun(t, "frc.f32 r0.x, r2.x, r4.x\n", nil, setR(2, fbits(c[0]), 0, fbits(c[1])))
		want := c[0] - float32(math.Floor(float64(c[1])))
		if got := math.Float32frombits(out.File[baseR]); got != want {
			t.Errorf("frc %g, %g = %g, want %g", c[0], c[1], got, want)
		}
	}
}

// refI8mad is I8MAD as Vita3K reads it: per byte (x y z colour, w alpha)
// src1*src2 + src0 (or minus), the selects replacing channels.
func refI8mad(a, b, c [4]int, csel0, asel0, csel1, csel2 int, sat, neg bool, mods int) uint32 {
	m1, m2 := b, c
	if csel1 == 1 {
		m1 = [4]int{b[3], b[3], b[3], b[3]}
	}
	if csel2 == 1 {
		m2 = [4]int{c[3], c[3], c[3], c[3]}
	}
	var add [4]int
	for k := 0; k < 3; k++ {
		add[k] = [4]int{a[k], m1[k], a[3], b[3]}[csel0]
	}
	add[3] = [2]int{a[3], b[3]}[asel0]
	// the modifiers complement each operand as selected: bits 0..2 the
	// colour of the added term and the two factors, bits 3..5 their alpha
	comp := func(x, bit int) int {
		if mods>>bit&1 != 0 {
			return 255 - x
		}
		return x
	}
	for k := 0; k < 4; k++ {
		base := 0
		if k == 3 {
			base = 3
		}
		add[k], m1[k], m2[k] = comp(add[k], base), comp(m1[k], base+1), comp(m2[k], base+2)
	}
	var r uint32
	for k := 0; k < 4; k++ {
		v := m1[k] * m2[k]
		if neg {
			v -= add[k]
		} else {
			v += add[k]
		}
		if sat {
			v = min(max(v, 0), 255)
		}
		r |= uint32(v&0xff) << (8 * k)
	}
	return r
}

func bytesOf(w uint32) [4]int {
	return [4]int{int(w & 0xff), int(w >> 8 & 0xff), int(w >> 16 & 0xff), int(w >> 24)}
}

func TestI8mad(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 256; k++ {
		csel0, asel0, csel1, csel2 := k&3, k>>2&1, k>>3&1, k>>4&1
		sat, neg := k>>5&1 != 0, k>>6&1 != 0
		a, b, c := r.Uint32(), r.Uint32(), r.Uint32()
		if k&128 != 0 {
			a, b, c = 0xff00ff01, 0xffff0001, 0xff01ff10 // products past 255 and below 0
		}
		flags := fmt.Sprintf(".csel0=%d", csel0)
		if asel0 != 0 {
			flags += ".asel0"
		}
		if csel1 != 0 {
			flags += ".csel1"
		}
		if csel2 != 0 {
			flags += ".csel2"
		}
		satS, negS := "", ""
		if sat {
			satS = ".sat"
		}
		if neg {
			negS = "-"
		}
		mods := 0
		if k%3 != 0 { // two thirds of the cases with modifiers
			mods = r.IntN(64)
		}
		for i, m := range []string{"cmod0", "cmod1", "cmod2", "amod0", "amod1", "amod2"} {
			if mods>>i&1 != 0 {
				flags += "." + m
			}
		}
		src := fmt.Sprintf("mad%s.u8%s r3, %sr0, r1, r2\n", satS, flags, negS)
		out := mustRun(t, src, nil, setR(0, a, b, c))
		want := refI8mad(bytesOf(a), bytesOf(b), bytesOf(c), csel0, asel0, csel1, csel2, sat, neg, mods)
		if got := out.File[baseR+3]; got != want {
			t.Errorf("%s with %#x %#x %#x: %#x, want %#x", strings.TrimSpace(src), a, b, c, got, want)
		}
	}
	// IMG's GLES1 driver scales a colour so: source 0 = 0x00FFFFFF with
	// colour modifier 0 complemented adds 0 to every byte; .sat clamps
	out := mustRun(t, "mad.sat.u8.cmod0 r3, r0, r1, r2\n", nil, setR(0, 0x00ffffff, 0x80402010, 0x01020402))
	if got, want := out.File[baseR+3], uint32(0x80808020); got != want { // 0x10*2, 0x20*4, 0x40*2, 0x80*1
		t.Errorf("IMG's colour scale: %#x, want %#x", got, want)
	}
}

// refI16mad is I16MAD as Vita3K reads it.
func refI16mad(a, b, c uint32, mode, f1, hi1, f2, hi2 int, neg bool) uint32 {
	signed, sat := mode >= 2, mode&1 != 0
	val := func(w uint32, bits, shift int) int64 {
		v := int64(w>>shift) & (1<<bits - 1)
		if signed && v>>(bits-1) != 0 {
			v -= 1 << bits
		}
		return v
	}
	src := func(w uint32, f, hi int) int64 {
		if f == 1 {
			return val(w, 8, 8*hi)
		}
		return val(w, 16, 0)
	}
	m, add := src(b, f1, hi1), src(c, f2, hi2)
	if neg {
		add = -add
	}
	var r uint32
	for h := 0; h < 2; h++ {
		v := val(a, 16, 16*h)*m + add
		if sat {
			lo, hi := int64(0), int64(65535)
			if signed {
				lo, hi = -32768, 32767
			}
			v = min(max(v, lo), hi)
		}
		r |= uint32(v&0xffff) << (16 * h)
	}
	return r
}

func TestI16mad(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	modes := []string{"u16", "u16.sat", "i16", "i16.sat"}
	edges := []uint32{0xffffffff, 0x80008000, 0x7fff7fff, 0x00010000, 0x8000ffff, 0x0180ff7f}
	for k := 0; k < 400; k++ {
		mode, f1, hi1, f2, hi2, neg := k&3, k>>2&1, k>>3&1, k>>4&1, k>>5&1, k>>6&1 != 0
		a, b, c := r.Uint32(), r.Uint32(), r.Uint32()
		if k%3 == 0 {
			a, b, c = edges[r.IntN(len(edges))], edges[r.IntN(len(edges))], edges[r.IntN(len(edges))]
		}
		flags := ""
		if f1 == 1 {
			flags += ".s1fmt=1"
			if hi1 == 1 {
				flags += ".sel1hi"
			}
		}
		if f2 == 1 {
			flags += ".s2fmt=1"
			if hi2 == 1 {
				flags += ".sel2hi"
			}
		}
		negS := ""
		if neg {
			negS = "-"
		}
		src := fmt.Sprintf("mad.%s%s r3, r0, r1, %sr2\n", modes[mode], flags, negS)
		out := mustRun(t, src, nil, setR(0, a, b, c))
		h1, h2 := hi1, hi2
		if f1 == 0 {
			h1 = 0
		}
		if f2 == 0 {
			h2 = 0
		}
		want := refI16mad(a, b, c, mode, f1, h1, f2, h2, neg)
		if got := out.File[baseR+3]; got != want {
			t.Errorf("%s with %#x %#x %#x: %#x, want %#x", strings.TrimSpace(src), a, b, c, got, want)
		}
	}
	wantFault(t, "mad.u16.abs r3, r0, r1, r2", "mad.u16")
	wantFault(t, "mad.u16.s1fmt=2 r3, r0, r1, r2", "mad.u16")
}

// TestLoadStoreSizes: elements of 4, 2 and 1 bytes packed into registers
// from the first one's low byte; an immediate offset counts elements.
func TestLoadStoreSizes(t *testing.T) {
	mem := make([]byte, 256)
	for i := range mem {
		mem[i] = byte(3*i + 1)
	}
	const base = 0x40
	le := func(b []byte) uint32 {
		var w uint32
		for i := len(b) - 1; i >= 0; i-- {
			w = w<<8 | uint32(b[i])
		}
		return w
	}
	for _, c := range []struct {
		src   string
		addr  int // first byte read
		bytes int
	}{
		{"lda32.fetch3 r8, [r0, 0x2]", base + 8, 12},
		{"lda32.fetch3.dtype=1 r8, [r0, 0x2]", base + 4, 6},
		{"lda32.fetch5.dtype=2 r8, [r0, 0x2]", base + 2, 5},
		{"lda32.fetch1.dtype=1 r8, [r0, r1]", base + 6, 2},
		{"lda32.fetch=2 r8, [r0, 0x1]", base + 4, 12}, // the MOE form: the count field still applies
	} {
		out := mustRun(t, c.src+"\n", nil, func(in *Instance) {
			setR(0, base, 6)(in)
			setR(8, 0xdeadbeef, 0xcafef00d, 0x01234567, 0x89abcdef)(in)
			in.mem = &emu.Memory{Space: emu.Global, Data: append([]byte{}, mem...)}
		})
		want := []byte{0xef, 0xbe, 0xad, 0xde, 0x0d, 0xf0, 0xfe, 0xca, 0x67, 0x45, 0x23, 0x01, 0xef, 0xcd, 0xab, 0x89}
		copy(want, mem[c.addr:c.addr+c.bytes])
		for i := 0; i < 4; i++ {
			if got := out.File[baseR+8+i]; got != le(want[4*i:4*i+4]) {
				t.Errorf("%s: r%d = %#x, want %#x", c.src, 8+i, got, le(want[4*i:4*i+4]))
			}
		}
	}
	wantFault(t, "ldl32.fetch1 r8, [r0, 0x2]", "ldl32")
	wantFault(t, "lda32.fetch1.dtype=3 r8, [r0, 0x2]", "lda32")
}

// TestStoreSizes checks the stored bytes through a following load.
func TestStoreSizes(t *testing.T) {
	out := mustRun(t, `
        sta32.fetch3.dtype=1 [r0, 0x1], r8
        sta32.fetch3.dtype=2 [r1, 0x0], r8
        lda32.fetch2 r12, [r0, 0x0]
        lda32.fetch1 r14, [r1, 0x0]
`, nil, func(in *Instance) {
		setR(0, 0x40, 0x60)(in)
		setR(8, 0x44332211, 0x88776655)(in)
		in.mem = &emu.Memory{Space: emu.Global, Data: make([]byte, 256)}
	})
	// halves 0x2211 0x4433 0x6655 at 0x42: bytes 00 00 11 22 33 44 55 66
	if got := out.File[baseR+12]; got != 0x22110000 || out.File[baseR+13] != 0x66554433 {
		t.Errorf("halves stored: %#x %#x, want 0x22110000 0x66554433", got, out.File[baseR+13])
	}
	if got := out.File[baseR+14]; got != 0x00332211 {
		t.Errorf("bytes stored: %#x, want 0x00332211", got)
	}
}

// TestDepthf: depthf's source 0 becomes the fragment's depth, the DEPTH
// output of launch files.
func TestDepthf(t *testing.T) {
	out := mustRun(t, "depthf r4, r0, r0\n", nil, setR(4, fbits(0.625)))
	if got := math.Float32frombits(out.File[wordDepth]); got != 0.625 {
		t.Errorf("depth %g, want 0.625", got)
	}
	p := asmProgram(t, "depthf r4, r0, r0\n", "")
	p.GXP.Kind = gxp.Fragment
	plan, err := p.outputPlan(&Launch{Outputs: []Output{{Name: "DEPTH", File: "d"}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	blob := make([]byte, plan.size)
	if err := plan.collect(0, &out, blob); err != nil {
		t.Fatal(err)
	}
	if got := math.Float32frombits(uint32(blob[0]) | uint32(blob[1])<<8 | uint32(blob[2])<<16 | uint32(blob[3])<<24); got != 0.625 {
		t.Errorf("DEPTH output %g, want 0.625", got)
	}
}

// refCube is the face and face coordinates of direction (x, y, z), written
// from OpenGL's cube map table (ties prefer z, then y).
func refCube(x, y, z float64) (face int, s, t float64) {
	ax, ay, az := math.Abs(x), math.Abs(y), math.Abs(z)
	var sc, tc, ma float64
	switch {
	case az >= ax && az >= ay && z >= 0:
		face, sc, tc, ma = 4, x, -y, az
	case az >= ax && az >= ay:
		face, sc, tc, ma = 5, -x, -y, az
	case ay >= ax && y >= 0:
		face, sc, tc, ma = 2, x, z, ay
	case ay >= ax:
		face, sc, tc, ma = 3, x, -z, ay
	case x >= 0:
		face, sc, tc, ma = 0, -z, -y, ax
	default:
		face, sc, tc, ma = 1, z, -y, ax
	}
	return face, (sc/ma + 1) / 2, (tc/ma + 1) / 2
}

func TestCubeTexture(t *testing.T) {
	const n = 4
	data := make([]byte, 6*n*n*4)
	for f := 0; f < 6; f++ {
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				i := ((f*n+y)*n + x) * 4
				data[i], data[i+1], data[i+2], data[i+3] = byte(40*f+1), byte(60*x), byte(60*y), 255
			}
		}
	}
	tx := &Texture{Width: n, Height: n, Data: data, Cube: true}
	if err := tx.Check(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 10))
	dirs := [][3]float64{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 1, 1}, {-1, 1, 0}, {1, 0.999, -0.3}}
	for len(dirs) < 300 {
		dirs = append(dirs, [3]float64{r.Float64()*4 - 2, r.Float64()*4 - 2, r.Float64()*4 - 2})
	}
	var sa SA
	for _, d := range dirs {
		face, s, tt := refCube(d[0], d[1], d[2])
		xi := min(max(int(math.Floor(s*n)), 0), n-1)
		yi := min(max(int(math.Floor(tt*n)), 0), n-1)
		want := [4]float32{float32(40*face+1) / 255, float32(60*xi) / 255, float32(60*yi) / 255, 1}
		out := mustRun(t, "texCube r0, r4, sa0, 0x0\n", &sa, func(in *Instance) {
			setR(4, fbits(float32(d[0])), fbits(float32(d[1])), fbits(float32(d[2])))(in)
			in.tex = &textureSet{tx}
		})
		for c := 0; c < 4; c++ {
			if got := math.Float32frombits(out.File[baseR+c]); got != want[c] {
				t.Errorf("direction %v: channel %d = %g, want %g (face %d texel %d,%d)", d, c, got, want[c], face, xi, yi)
				break
			}
		}
	}
	// a cube lookup of a 2D texture, and a 2D lookup of a cube one, fault
	_, err := runProg(t, "texCube r0, r4, sa0, 0x0\n", &sa, func(in *Instance) {
		in.tex = &textureSet{{Width: 1, Height: 1, Data: make([]byte, 4)}}
	})
	if err == nil {
		t.Error("a cube lookup of a 2D texture ran")
	}
}

// TestRepeats: the registers repeated instructions reach (Vita3K's repeat
// model: MOE increments it, times 2 for unified registers except in VBW
// (1) and integer VMOVs (1); VMAD's GPI sources stay; smlsi sets the
// increments).
func TestRepeats(t *testing.T) {
	in := make([]uint32, 64)
	for i := range in {
		in[i] = fbits(float32(i) + 0.5)
	}
	set := setR(0, in...)
	get := func(out Instance, r int) float32 { return math.Float32frombits(out.File[baseR+r]) }
	// VBW: r40..r42 from r20..r22
	out := mustRun(t, "or.u32.rpt=2 r40.x, r20.x, 0x0\n", nil, set)
	for i := 0; i < 3; i++ {
		if get(out, 40+i) != float32(20+i)+0.5 {
			t.Errorf("or.rpt: r%d = %g", 40+i, get(out, 40+i))
		}
	}
	// VMOV f32 .xy, multiplier 2: r40,r41 <- r20,r21; r42,r43 <- r22,r23
	out = mustRun(t, "mov.f32.rpt=1 r40.xy, r20.xy\n", nil, set)
	for i := 0; i < 4; i++ {
		if get(out, 40+i) != float32(20+i)+0.5 {
			t.Errorf("mov.f32.rpt: r%d = %g", 40+i, get(out, 40+i))
		}
	}
	// VMOV i32, multiplier 1: r40 <- r20, r41 <- r21, r42 <- r22
	out = mustRun(t, "mov.i32.rpt=2 r40.x, r20.x\n", nil, set)
	for i := 0; i < 3; i++ {
		if get(out, 40+i) != float32(20+i)+0.5 {
			t.Errorf("mov.i32.rpt: r%d = %g", 40+i, get(out, 40+i))
		}
	}
	// VMAD, repeat mode 3 (MOE): iteration 1 writes r42.xy from r22.xy; i0, i1 stay
	out = mustRun(t, "mov.f32 i0.xyzw, r0.xyzw\nmov.f32 i1.xyzw, r4.xyzw\nmad.f32.rpt=1 r40.xy, r20.xy, i0.xy, i1.xy\n", nil, set)
	for it := 0; it < 2; it++ {
		for c := 0; c < 2; c++ {
			want := (float32(20+2*it+c)+0.5)*(float32(c)+0.5) + float32(4+c) + 0.5
			if get(out, 40+2*it+c) != want {
				t.Errorf("mad.rpt iteration %d channel %d: %g, want %g", it, c, get(out, 40+2*it+c), want)
			}
		}
	}
	// smlsi: destination +1 per iteration, source 1 -2 (immediate mode)
	out = mustRun(t, "smlsi 0x1, 0x0, 0xfe, 0x0, incrementmode, incrementmode, incrementmode, incrementmode, 0x0, 0x0, 0x0\nor.u32.rpt=2 r40.x, r20.x, 0x0\n", nil, set)
	for i, src := range []int{20, 18, 16} {
		if get(out, 40+i) != float32(src)+0.5 {
			t.Errorf("after smlsi: r%d = %g, want r%d's", 40+i, get(out, 40+i), src)
		}
	}
	// swizzle mode: destination increments 2, 3, 1, 0 (0x1e)
	out = mustRun(t, "smlsi 0x1e, 0x0, 0x1, 0x0, swizzlemode, incrementmode, incrementmode, incrementmode, 0x0, 0x0, 0x0\nor.u32.rpt=3 r40.x, r20.x, 0x0\n", nil, set)
	for i, d := range []int{42, 43, 41, 40} {
		if get(out, d) != float32(20+i)+0.5 {
			t.Errorf("swizzle-mode smlsi: r%d = %g, want r%d's", d, get(out, d), 20+i)
		}
	}
	wantFault(t, "smlsi 0x1e, 0x0, 0x0, 0x0, swizzlemode, incrementmode, incrementmode, incrementmode, 0x0, 0x0, 0x0\nor.u32.rpt=4 r40.x, r20.x, 0x0", "or.u32")
	wantFault(t, "smlsi 0x1, 0x0, 0x0, 0x0, incrementmode, incrementmode, incrementmode, incrementmode, 0x1, 0x0, 0x0", "smlsi")
	// smbo: the increments become iteration + offset (destination 2, source
	// 1 3), iteration 0 included, replacing smlsi's; smbo 0, 0, 0, 0 restores
	// the default
	out = mustRun(t, "smlsi 0x1, 0x0, 0xfe, 0x0, incrementmode, incrementmode, incrementmode, incrementmode, 0x0, 0x0, 0x0\nsmbo 2, 0, 3, 0\nor.u32.rpt=1 r40.x, r20.x, 0x0\n", nil, set)
	for it := 0; it < 2; it++ {
		if get(out, 42+it) != float32(23+it)+0.5 {
			t.Errorf("after smbo 2, 0, 3, 0: r%d = %g, want r%d's", 42+it, get(out, 42+it), 23+it)
		}
	}
	if get(out, 40) != 40.5 || get(out, 41) != 41.5 {
		t.Errorf("after smbo: r40, r41 = %g, %g, want their own 40.5, 41.5 (not written)", get(out, 40), get(out, 41))
	}
	out = mustRun(t, "smlsi 0x1, 0x0, 0xfe, 0x0, incrementmode, incrementmode, incrementmode, incrementmode, 0x0, 0x0, 0x0\nsmbo 0, 0, 0, 0\nor.u32.rpt=2 r40.x, r20.x, 0x0\n", nil, set)
	for i := 0; i < 3; i++ {
		if get(out, 40+i) != float32(20+i)+0.5 {
			t.Errorf("after smbo 0, 0, 0, 0: r%d = %g, want r%d's", 40+i, get(out, 40+i), 20+i)
		}
	}
	// VDP, external mode: source 1 steps four registers, the mask rotates
	out = mustRun(t, "mov.f32 i0.xyzw, r0.xyzw\ndot.f32.rpt=3 i1.x, r20.xyzw, i0.xyzw\nmov.f32 r40.xy, i1.xyzw\nmov.f32 r42.xy, i1.zwzw\n", nil, set)
	for it := 0; it < 4; it++ {
		var want float32
		for c := 0; c < 4; c++ { // vec4: source 1 names four channels
			want += float32(float32(20+4*it+c)+0.5) * (float32(c) + 0.5)
		}
		if got := get(out, 40+it); math.Abs(float64(got-want)) > 1e-3 {
			t.Errorf("dot.rpt iteration %d: %g, want %g", it, got, want)
		}
	}
}

// TestNotEmulatedFaults: the forms with no facts fault naming the
// instruction.
func TestNotEmulatedFaults(t *testing.T) {
	for _, c := range [][2]string{
		{"add.fx8 r3, r0, r1, r2, sat, s2, add, s1a", "add.fx8"}, // SOP3 with the saturated alpha factor
		{"emitpds r1, r2, r3, 0x0", "emitpds"},
		{"and.u32 r0.x, r1.x, g3.x", "g3"},
	} {
		wantFault(t, c[0], c[1])
	}
}

// TestSop3: SOP3 as Vita3K's translator reads it (lowerSop3), against a
// reference written from that reading's tables: colour factors by csel
// (zero, -, s1, s1a, s0, s0a, s2, s2a), the first alpha factor by asel1
// (zero, s0a, s1a, s2a), the second by the source csel2 names; the
// complements; add or sub; bytes, results clamped to 0..255.
func TestSop3(t *testing.T) {
	csel := []string{"zero", "sat", "s1", "s1a", "s0", "s0a", "s2", "s2a"}
	asel := []string{"zero", "s0a", "s1a", "s2a"}
	ops := []string{"add", "sub"}
	r := rand.New(rand.NewPCG(16, 3))
	for n := 0; n < 300; n++ {
		c1, c2 := []int{0, 2, 3, 4, 5, 6, 7}[r.IntN(7)], []int{0, 2, 3, 4, 5, 6, 7}[r.IntN(7)]
		a1, cop, aop := r.IntN(4), r.IntN(2), r.IntN(2)
		m1, m2, am := r.IntN(2), r.IntN(2), r.IntN(2)
		var src [3][4]uint32 // sources 0, 1, 2 as bytes
		var words [3]uint32
		for s := range src {
			for c := range src[s] {
				src[s][c] = uint32(r.IntN(256))
				words[s] |= src[s][c] << (8 * c)
			}
		}
		cmp := func(m int) string { return []string{"", "1-"}[m] }
		text := fmt.Sprintf("%s.fx8 r3, r0, r1, r2, %s%s, %s%s, %s, %s%s\n", ops[cop], cmp(m1), csel[c1], cmp(m2), csel[c2], ops[aop], cmp(am), asel[a1])
		out := mustRun(t, text, nil, setR(0, words[0], words[1], words[2]))
		// the reference
		pick := func(sel, c int) uint32 { // a colour factor for channel c
			s := []int{-1, -1, 1, 1, 0, 0, 2, 2}[sel]
			switch {
			case s < 0:
				return 0
			case sel%2 == 1: // an alpha
				return src[s][3]
			}
			return src[s][c]
		}
		comp := func(x uint32, m int) uint32 {
			if m == 1 {
				return 255 - x
			}
			return x
		}
		combine := func(op int, x, y uint32) uint32 {
			v := int64(x) + int64(y)
			if op == 1 {
				v = int64(x) - int64(y)
			}
			return uint32(min(max(v, 0)/255, 255))
		}
		var want uint32
		for c := 0; c < 3; c++ {
			want |= combine(cop, comp(pick(c1, c), m1)*src[1][c], comp(pick(c2, c), m2)*src[2][c]) << (8 * c)
		}
		alpha1 := comp([]uint32{0, src[0][3], src[1][3], src[2][3]}[a1], am)
		alpha2 := comp(pick(c2|1, 3), m2) // the alpha of the source csel2 names
		if c2 == 0 {
			alpha2 = comp(0, m2)
		}
		want |= combine(aop, alpha1*src[1][3], alpha2*src[2][3]) << 24
		if got := out.File[baseR+3]; got != want {
			t.Errorf("%s  sources %#08x %#08x %#08x: %#08x, want %#08x", strings.TrimSpace(text), words[0], words[1], words[2], got, want)
		}
	}
	// what Vita3K leaves out faults
	wantFault(t, "add.fx8 r3, r0, r1, r2, sat, s2, add, s1a", "add.fx8")
	wantFault(t, "add.fx8.dmod r3, r0, r1, r2, s1, s2, add, s1a", "add.fx8")
}

// TestBitwisePartial: the partial flag makes VBW a 16-bit operation
// (Vita3K's translator): the low halves of source 1 and of source 2 (or
// the immediate), source 2 rotated and inverted within 16 bits, the result
// in the low half of the destination, its high half kept.
func TestBitwisePartial(t *testing.T) {
	rotl16 := func(x uint32, r uint) uint32 { r &= 15; x &= 0xffff; return (x<<r | x>>(16-r)) & 0xffff }
	ops := []struct {
		name string
		f    func(a, b uint32) uint32
	}{
		{"and", func(a, b uint32) uint32 { return a & b }},
		{"or", func(a, b uint32) uint32 { return a | b }},
		{"xor", func(a, b uint32) uint32 { return a ^ b }},
		{"shl", func(a, b uint32) uint32 { return a << (b & 31) }},
		{"shr", func(a, b uint32) uint32 { return a >> (b & 31) }},
		{"asr", func(a, b uint32) uint32 { return a >> (b & 31) }}, // a zero-extended half: no sign
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 200; n++ {
		o := ops[r.IntN(len(ops))]
		rot, inv := uint(r.IntN(32)), r.IntN(2) == 1
		a, b, old := r.Uint32(), r.Uint32(), r.Uint32()
		if o.name == "shl" || o.name == "shr" || o.name == "asr" {
			b, rot, inv = uint32(r.IntN(20)), 0, false // a count
		}
		tilde := map[bool]string{true: "~", false: ""}[inv]
		imm := uint32(r.IntN(1 << 16))
		src := fmt.Sprintf("%s.u32.partial.s2rot=%d r3.x, r1.x, %sr2.x\n%s.u32.partial.s2rot=%d r4.x, r1.x, %s%#x\n", o.name, rot, tilde, o.name, rot, tilde, imm)
		if o.name != "and" && o.name != "or" && o.name != "xor" {
			src = fmt.Sprintf("%s.u32.partial r3.x, r1.x, r2.x\n%s.u32.partial r4.x, r1.x, %#x\n", o.name, o.name, imm%20)
		}
		out := mustRun(t, src, nil, setR(1, a, b, old, old))
		for i, s2 := range []uint32{b, imm} {
			if i == 1 && o.name != "and" && o.name != "or" && o.name != "xor" {
				s2 = imm % 20
			}
			x := rotl16(s2, rot)
			if inv {
				x = ^x & 0xffff
			}
			want := old&0xffff0000 | o.f(a&0xffff, x)&0xffff
			if got := out.File[baseR+3+i]; got != want {
				t.Errorf("%s: r%d = %#x, want %#x (r1 %#x, source 2 %#x)", strings.ReplaceAll(strings.TrimSpace(src), "\n", "; "), 3+i, got, want, a, s2)
			}
		}
	}
	wantFault(t, "rol.u32.partial r2.x, r1.x, r3.x", "rol")
}

// TestI32madRepeat: a repeated I32MAD steps every operand by one register
// per iteration (MOE mode, multiplier 1: Vita3K's translator since 2024).
func TestI32madRepeat(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var in [8]uint32
	for i := range in {
		in[i] = r.Uint32()
	}
	out := mustRun(t, "mad.u32.rpt=2.s2type=2 r10, r0.lo16, r2.hi16, r4\n", nil, setR(0, in[:]...))
	for it := 0; it < 3; it++ {
		want := (in[it]&0xffff)*(in[2+it]>>16) + in[4+it]
		if got := out.File[baseR+10+it]; got != want {
			t.Errorf("iteration %d: r%d = %#x, want %#x", it, 10+it, got, want)
		}
	}
	if got := out.File[baseR+13]; got != 0 {
		t.Errorf("r13 = %#x: a fourth iteration ran", got)
	}
}
