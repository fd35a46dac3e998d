package usse

import "github.com/gpuisa/gpuisa/isa/usse"

// Tests (VTST op1 0x09, VTSTMSK op1 0x0F): an ALU operation on sources 1
// and 2, whose result is tested (a sign test and a zero test combined by
// and/or) into a predicate (VTST, one channel) or a mask (VTSTMSK, four
// channels). The operation is alu_sel (bits 19..18) and alu_op (17..14):
// table 0 the float operations (f32 or f16 by prec), 1 the 16- and 32-bit
// integer ones, 2 the 8-bit ones, 3 the bitwise ones (Vita3K's
// decode_test_inst; IMG's SGX540 disassembler names the same fields
// alike on words of the same layout: isub16, isubu16, iaddu32, and, or,
// xor, shl with .testtaz/.testnat/.testpat and .chan0).
//
// VTST's test_wben writes the operation's result to the destination
// register (dbank/dext/dnum; IMG prints it, "isub16.testtaz.chan0 r0, p0,
// r0, #1", and prints "!c0" where the bit is clear); here the tested
// channel is written.
//
// Integer operations work on the channel's bits at its width (8, 16 or 32),
// wrapping; the sign test reads the result's top bit and the zero test the
// result: IMG's own microkernel tests single bits with shl.testnat (a bit
// shifted to the top, then "negative"), so the sign test is the top bit
// even for unsigned and bitwise operations (Vita3K compares unsigned
// results with < 0, which never holds; the hardware's use wins). The u and
// i forms give the same bits here; what else tells them apart is not
// known. Integer sources are not doubled (Vita3K: 7-bit numbers for tables
// 1..3); 16-bit channels are halves (x low, y high, then the next
// register), 8-bit ones bytes.

// Integer test operations (aux of kTestInt and kTestMaskInt).
const (
	iAdd = iota
	iSub
	iMul
	iAnd
	iOr
	iXor
	iShl
	iShr
	iRol
	iAsr
)

// intTestOp is one entry of the integer test tables.
type intTestOp struct {
	op int
	f  fmtID
}

// intTestOps by the spec's spellings (tst16, tst8, tstbw): Vita3K's
// decode_test_inst. fpsub.u8 is a subtraction (Vita3K treats FPSUB8 as
// one); fpmul.u8 and fpadd.u8 have no description and fault.
var intTestOps = map[string]intTestOp{
	"add.i16": {iAdd, fS16}, "sub.i16": {iSub, fS16}, "mul.i16": {iMul, fS16},
	"add.u16": {iAdd, fU16}, "sub.u16": {iSub, fU16}, "mul.u16": {iMul, fU16},
	"add.i32": {iAdd, fS32}, "add.u32": {iAdd, fU32}, "sub.i32": {iSub, fS32}, "sub.u32": {iSub, fU32},
	"add.i8": {iAdd, fS8}, "sub.i8": {iSub, fS8}, "add.u8": {iAdd, fU8}, "sub.u8": {iSub, fU8},
	"mul.i8": {iMul, fS8}, "mul.u8": {iMul, fU8}, "fpsub.u8": {iSub, fU8},
	"and": {iAnd, fU32}, "or": {iOr, fU32}, "xor": {iXor, fU32}, "shl": {iShl, fU32}, "shr": {iShr, fU32},
	"rol": {iRol, fU32}, "asr": {iAsr, fU32},
}

// Float test operations (table 0).
var testOps = map[string]int{"add": vAdd, "frc": vFrc, "rcp": vRcp, "rsq": vRsq, "log": vLog, "exp": vExp,
	"dp": vDp, "min": vMin, "max": vMax, "dsx": vDsx, "dsy": vDsy, "mul": vMul, "sub": vSub}

// testCode packs a test's sign test, zero test and combination (aux2).
func (l *lowerer) testCode() uint32 {
	return l.field("signtst") | l.field("zerotst")<<2 | l.field("crand")<<4
}

// testALU is a test's operation: a float one (v, f) or an integer one
// (iop with integer format f).
func (l *lowerer) testALU() (v int, f fmtID, integer bool, ok bool) {
	if l.field("rpt") != 0 {
		l.fail("test repeat %d: %w (no description of repeated tests)", l.field("rpt"), errUnsupported)
		return 0, 0, false, false
	}
	if l.field("once") != 0 {
		l.fail("test onceonly flag: %w (no description of it)", errUnsupported)
		return 0, 0, false, false
	}
	name := l.enum("aluop")
	if l.field("alusel") != 0 {
		x, ok := intTestOps[name]
		if !ok {
			l.fail("test operation %q: %w", name, errUnsupported)
			return 0, 0, false, false
		}
		return x.op, x.f, true, true
	}
	v, ok = testOps[name]
	if !ok {
		l.fail("test operation %q: %w", name, errUnsupported)
		return 0, 0, false, false
	}
	f = fF32
	if l.enum("prec") == "f16" {
		f = fF16
	}
	return v, f, false, true
}

// VTSTMSK (op1 0x0F): s1 OP s2 on four channels, each result tested into a
// mask channel in the mask format (u8: 0xff, f16 and f32: 1.0 for a
// passing channel, see doc.go), written when test_wben is set (Vita3K
// handles only that case; a clear bit faults).
func lowerVtstmsk(l *lowerer) {
	v, f, integer, ok := l.testALU()
	if !ok {
		return
	}
	if l.field("wben") == 0 {
		l.fail("test mask without write-back: %w", errUnsupported)
		return
	}
	mf := map[string]fmtID{".u8": fU8, ".f16": fF16, ".f32": fF32}[l.enum("mtype")]
	d, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2)
	k := kTestMask
	if integer {
		k = kTestMaskInt
	}
	o := op{kind: k, aux: uint32(v), aux2: l.testCode(), fmt: f, sfmt: mf, n: 4, nsrc: 2}
	scalar := !integer && (v == vRcp || v == vRsq || v == vLog || v == vExp)
	for c := 0; c < 4; c++ {
		o.dst[c] = l.dstChan(d, mf, c, 0)
		sel1 := "xyzw"[c]
		if scalar {
			// the complex unit is scalar: every channel tests the x result
			// (vtstmsk_log_mask2: the y mask equals the x mask on the console)
			sel1 = 'x'
		}
		sel2 := "xyzw"[c]
		if l.field("s2vs") != 0 {
			sel2 = 'x' // a scalar second source (Vita3K: src2_vscomp)
		}
		o.src[0][c] = l.testSrc(s1, f, integer, sel1)
		o.src[1][c] = l.testSrc(s2, f, integer, sel2)
	}
	if l.field("tflag") != 0 {
		o.mods[0] = modNeg
	}
	l.emit(o)
}

// testSrc is a test source channel: a float or the bits of an integer.
func (l *lowerer) testSrc(o usse.Operand, f fmtID, integer bool, sel byte) chanSrc {
	if integer {
		return l.rawSrc(o, f, sel, 0)
	}
	return l.floatSrc(o, f, sel, 0)
}

// VTST (op1 0x09): the same test on channel "chan" sets predicate pdst,
// and with test_wben the result is written to the destination.
func lowerVtst(l *lowerer) {
	v, f, integer, ok := l.testALU()
	if !ok {
		return
	}
	c := int(l.field("chan"))
	if c > 3 {
		l.fail("test channel %d: %w (chan 0..3 name one channel; Vita3K knows no other)", c, errUnsupported)
		return
	}
	s1, s2 := l.opnd(0), l.opnd(1)
	k := kTest
	if integer {
		k = kTestInt
	}
	if !integer && v == vDp {
		v = vMul // a dot product of the one tested channel (Vita3K loads that channel alone)
	}
	o := op{kind: k, aux: uint32(v), aux2: l.testCode(), fmt: f, nsrc: 2}
	o.words[0] = l.field("pdst")
	o.src[0][0] = l.testSrc(s1, f, integer, "xyzw"[c])
	sel := byte("xyzw"[c])
	if l.field("s2vs") != 0 && !integer {
		sel = 'x'
	}
	o.src[1][0] = l.testSrc(s2, f, integer, sel)
	if l.field("s1neg") != 0 {
		o.mods[0] = modNeg
	}
	if l.field("wben") != 0 {
		mult := uint32(1)
		if !integer {
			mult = 2 // the float table doubles register numbers (as its sources)
		}
		d, ok := l.in.RegField("dst", "dbank", "dext", "dnum", mult)
		if !ok || d.Bank == usse.BankConst || d.Bank == usse.BankGlobal {
			l.fail("test write-back to %v: %w", d.Bank, errUnsupported)
			return
		}
		o.n = 1
		o.dst[0] = l.dstChan(d, f, c, 0)
	}
	l.emit(o)
}

// intALU is an integer test operation on channel bits of format f (a and
// b already masked to its width), wrapping to the width; shift counts are
// b mod 32 (as VBW's), rol rotates within the width.
func intALU(op int, f fmtID, a, b uint32) uint32 {
	w := uint(f.width())
	mask := uint32(1)<<w - 1
	if w == 32 {
		mask = ^uint32(0)
	}
	s := uint(b & 31)
	var r uint32
	switch op {
	case iAdd:
		r = a + b
	case iSub:
		r = a - b
	case iMul:
		r = a * b
	case iAnd:
		r = a & b
	case iOr:
		r = a | b
	case iXor:
		r = a ^ b
	case iShl:
		if s < w {
			r = a << s
		}
	case iShr:
		if s < w {
			r = a >> s
		}
	case iRol:
		s %= w
		r = a<<s | a>>((w-s)%w)
	case iAsr:
		x := int32(a<<(32-w)) >> (32 - w) // sign-extended
		r = uint32(x >> min(s, 31))
	}
	return r & mask
}

// intTest applies a test code to an integer result of width w bits.
func intTest(code uint32, r uint32, w int) bool {
	neg := r>>(w-1)&1 != 0
	return testFlags(code, neg, !neg && r != 0, r == 0)
}

// intOperands reads a test's integer operands: masked to the width, source
// 1 negated by s1neg.
func (t *Instance) intOperands(o *op, i int) (uint32, uint32) {
	w := uint(o.fmt.width())
	mask := uint32(1)<<w - 1
	if w == 32 {
		mask = ^uint32(0)
	}
	a, b := t.raw(&o.src[0][i])&mask, t.raw(&o.src[1][i])&mask
	if o.mods[0]&modNeg != 0 {
		a = -a & mask
	}
	return a, b
}

// testInt runs kTestInt and kTestMaskInt.
func (t *Instance) testInt(o *op) {
	w := o.fmt.width()
	if o.kind == kTestInt {
		a, b := t.intOperands(o, 0)
		r := intALU(int(o.aux), o.fmt, a, b)
		t.P[o.words[0]&3] = intTest(o.aux2, r, w)
		if o.n > 0 {
			t.write(&o.dst[0], r)
		}
		return
	}
	var rawv [4]uint32
	for i := 0; i < 4; i++ {
		a, b := t.intOperands(o, i)
		if intTest(o.aux2, intALU(int(o.aux), o.fmt, a, b), w) {
			rawv[i] = maskTrue(o.sfmt)
		}
	}
	t.storeRaw(o, &rawv)
}
