package usse

import (
	"github.com/gpuisa/gpuisa/isa/usse"
)

// VPCK (op1 0x08): converts up to four channels between formats. The
// source is a vector of four channels: for f32, x and y are source 1 and
// the register after it, z and w source 2 and the register after it (the
// pair the notes of vita3k-shader-tests describe: "src2 = next register"),
// unless source 2 is an immediate: then all four are source 1's (Vita3K;
// libvita2d's texture_tint_f packs i0.xyzw with source 2 the immediate 0);
// for the other formats, consecutive channels of source 1's registers
// (vmad16's pack.f32.f16 o6.xy, pa0.zwzw reads pa1's halves). For
// sources other than f32, bit 0 of source 2's number is bit 1 of the
// first select (Vita3K), and for integer sources source 1's number is 7
// bits whose bit 0 is the select field's bit 1 (Vita3K). Float-to-float
// conversions take select c for destination channel c; the others take the
// selects in order for the written channels, and with u8 on either side and
// more than two channels written, only the first two are (the console).
func lowerVpck(l *lowerer) {
	df, sf := l.fmtOf("dfmt"), l.fmtOf("sfmt")
	d, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2)
	sel := [4]uint32{l.field("sel0"), l.field("sel1"), l.field("sel2"), l.field("sel3")}
	if sf != fF32 {
		sel[0] = sel[0]&1 | (l.field("s2num")&1)<<1
		if !sf.isFloat() && (s1.Bank == usse.BankTemp || s1.Bank == usse.BankOutput || s1.Bank == usse.BankPrimary || s1.Bank == usse.BankSecondary) {
			s1.Num = l.field("s1num")<<1 | l.field("sel0")>>1
		}
	}
	mask := l.field("mask")
	var chans []int
	for c := 0; c < 4; c++ {
		if mask>>c&1 != 0 {
			chans = append(chans, c)
		}
	}
	scale := l.field("scale")
	floats := sf.isFloat() && df.isFloat()
	u8 := sf == fU8 || df == fU8
	if u8 && len(chans) > 2 {
		// the console writes two channels of a u8 conversion: after
		// vtstmsk_gt_mask0_reg's pack.f16.u8 pa8.xyzw, pa9 still holds its
		// input (Vita3K writes z and w from the x and y selects)
		chans = chans[:2]
	}
	n := l.repeats()
	dwords := wordsFor(df, chans)
	for it := 0; it < n; it++ {
		o := op{kind: kPack, fmt: df, sfmt: sf, aux: scale, n: uint8(len(chans)), nsrc: 1}
		for k, c := range chans {
			s := sel[k&3]
			if floats {
				s = sel[c]
			}
			o.dst[k] = l.dstChan(d, df, c, it*dwords)
			src, ch := s1, int(s)
			if sf == fF32 && s >= 2 && s2.Bank != usse.BankImm {
				src, ch = s2, int(s)-2
			}
			o.src[0][k] = l.rawSrc(src, sf, "xyzw"[ch&3], it*2)
		}
		l.emit(o)
	}
}

// wordsFor is how many register words the channels of a format span.
func wordsFor(f fmtID, chans []int) int {
	if len(chans) == 0 {
		return 1
	}
	hi := chans[len(chans)-1]
	off, _ := chanPlace(f, hi)
	return off + 1
}

// Test ALU operations (VTST/VTSTMSK alu_sel 0: the float table).
var testOps = map[string]int{"add": vAdd, "frc": vFrc, "rcp": vRcp, "rsq": vRsq, "log": vLog, "exp": vExp,
	"dp": vDp, "min": vMin, "max": vMax, "dsx": vDsx, "dsy": vDsy, "mul": vMul, "sub": vSub}

// testCode packs a test's sign test, zero test and combination (aux2).
func (l *lowerer) testCode() uint32 {
	return l.field("signtst") | l.field("zerotst")<<2 | l.field("crand")<<4
}

// testALU is the float operation of a test and its format; the integer
// tables (alu_sel 1..3) are not emulated.
func (l *lowerer) testALU() (int, fmtID, bool) {
	if l.field("alusel") != 0 {
		l.fail("integer tests (alu_sel %d): %w", l.field("alusel"), errUnsupported)
		return 0, 0, false
	}
	name := l.enum("aluop")
	v, ok := testOps[name]
	if !ok {
		l.fail("test operation %q: %w", name, errUnsupported)
		return 0, 0, false
	}
	f := fF32
	if l.enum("prec") == "f16" {
		f = fF16
	}
	return v, f, true
}

// VTSTMSK (op1 0x0F): computes s1 OP s2 on four channels, tests each result
// (sign test, zero test, and/or) and writes an all-ones or zero mask per
// channel in the mask format (u8: bytes of one register; f16: halves; f32:
// words).
func lowerVtstmsk(l *lowerer) {
	v, f, ok := l.testALU()
	if !ok {
		return
	}
	mf := map[string]fmtID{".u8": fU8, ".f16": fF16, ".f32": fF32}[l.enum("mtype")]
	d, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2)
	o := op{kind: kTestMask, aux: uint32(v), aux2: l.testCode(), fmt: f, sfmt: mf, n: 4, nsrc: 2}
	scalar := v == vRcp || v == vRsq || v == vLog || v == vExp
	for c := 0; c < 4; c++ {
		o.dst[c] = l.dstChan(d, mf, c, 0)
		sel1 := byte("xyzw"[c])
		if scalar {
			// the complex unit is scalar: every channel tests the x result
			// (vtstmsk_log_mask2: the y mask equals the x mask on the console)
			sel1 = 'x'
		}
		o.src[0][c] = l.floatSrc(s1, f, sel1, 0)
		sel := byte("xyzw"[c])
		if l.field("s2vs") != 0 {
			sel = 'x' // a scalar second source (our reading of src2_vscomp)
		}
		o.src[1][c] = l.floatSrc(s2, f, sel, 0)
	}
	if l.field("s1neg") != 0 {
		o.mods[0] = modNeg
	}
	l.emit(o)
}

// VTST (op1 0x09): the same test on channel "chan" sets predicate pdst.
func lowerVtst(l *lowerer) {
	v, f, ok := l.testALU()
	if !ok {
		return
	}
	s1, s2 := l.opnd(0), l.opnd(1)
	c := int(l.field("chan") & 3)
	o := op{kind: kTest, aux: uint32(v), aux2: l.testCode(), fmt: f, n: 1, nsrc: 2}
	o.words[0] = l.field("pdst")
	o.src[0][0] = l.floatSrc(s1, f, "xyzw"[c], 0)
	sel := byte("xyzw"[c])
	if l.field("s2vs") != 0 {
		sel = 'x'
	}
	o.src[1][0] = l.floatSrc(s2, f, sel, 0)
	if l.field("s1neg") != 0 {
		o.mods[0] = modNeg
	}
	l.emit(o)
}

// Bitwise operations (aux of kBitwise).
const (
	bwAnd = iota
	bwOr
	bwXor
	bwShl
	bwRol
	bwShr
	bwAsr
)

var bwByName = map[string]int{"and": bwAnd, "or": bwOr, "xor": bwXor, "shl": bwShl, "rol": bwRol, "shr": bwShr, "asr": bwAsr}

// VBW (op1 0x0A..0x0E): d = s1 OP s2 on 32-bit words; s2 may be the 16-bit
// immediate, inverted (~). Repeats step every register by one word.
func lowerVbw(l *lowerer) {
	name := l.enum("op")
	b, ok := bwByName[name]
	if !ok {
		l.fail("bitwise %q: %w", name, errUnsupported)
		return
	}
	if l.field("s2rot") != 0 {
		l.fail("bitwise source-2 rotation %d: %w", l.field("s2rot"), errUnsupported)
		return
	}
	d, s1 := l.opnd(0), l.opnd(1)
	var s2 usse.Operand
	if len(l.opnds) > 2 {
		s2 = l.opnds[2]
	} else {
		s2 = usse.Operand{Bank: usse.BankImm, Num: l.field("s2num") | l.field("s2sel")<<7 | l.field("s2exth")<<14}
	}
	n := l.repeats()
	for it := 0; it < n; it++ {
		o := op{kind: kBitwise, aux: uint32(b), aux2: l.field("s2inv"), fmt: fU32, n: 1, nsrc: 2}
		o.dst[0] = l.dstChan(d, fU32, 0, it)
		o.src[0][0] = l.rawSrc(s1, fU32, 'x', it)
		o.src[1][0] = l.rawSrc(s2, fU32, 'x', it)
		l.emit(o)
	}
}

// Control flow. Branch targets are instruction indices; the program's
// link step maps them to op indices.
func lowerBranch(l *lowerer) {
	off := l.field("off")
	target := int64(off)
	if l.field("br") != 0 {
		target = int64(l.idx) + int64(int32(off<<12)>>12) // signed 20-bit, in instructions
	}
	o := op{kind: kBranch, aux: uint32(target), aux2: l.field("savelink")}
	o.words[1] = l.field("anyinst") | l.field("allinst")<<1
	if target < 0 || target > 1<<20 {
		l.fail("branch target %d", target)
		return
	}
	l.emit(o)
	if l.field("end") != 0 {
		l.fail("branch with end: %w", errUnsupported)
	}
}

func lowerLapc(l *lowerer) { l.emit(op{kind: kLoadPC}) }

func lowerSetl(l *lowerer) {
	o := op{kind: kSetLink, nsrc: 1}
	o.src[0][0] = l.rawSrc(usse.Operand{Bank: usse.BankTemp, Num: l.field("snum")}, fU32, 'x', 0)
	l.emit(o)
}

func lowerSavl(l *lowerer) {
	o := op{kind: kSaveLink, n: 1}
	o.dst[0] = l.dstChan(usse.Operand{Bank: usse.BankTemp, Num: l.field("dnum")}, fU32, 0, 0)
	l.emit(o)
}

// LIMM: d = the 32-bit immediate.
func lowerLimm(l *lowerer) {
	o := op{kind: kLimm, n: 1, fmt: fU32}
	o.dst[0] = l.dstChan(l.opnd(0), fU32, 0, 0)
	o.words[0] = l.field("imm")
	l.emit(o)
}

// kill ends the instance and discards it (its outputs are not produced).
func lowerKill(l *lowerer) { l.emit(op{kind: kKill}) }

func lowerDepthf(l *lowerer) { l.fail("depthf (depth feedback): %w", errUnsupported) }
