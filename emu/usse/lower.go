package usse

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpuisa/gpuisa/isa/usse"
)

// errUnsupported marks instructions whose effect is not known well enough
// to emulate; running one faults naming it.
var errUnsupported = errors.New("not emulated")

// lowerer turns one decoded instruction into ops. Operand values come from
// the decoded fields (usse.Inst.Operands, Field, Enum), never from text.
type lowerer struct {
	in        *usse.Inst
	idx       int32
	secondary bool // the secondary program: unified banks are SA (Vita3K)
	opnds     []usse.Operand
	out       []op
	err       error
	moe       *moeState // the MOE state smlsi set (program order; repeat.go)
}

func (l *lowerer) field(name string) uint32 {
	v, _ := l.in.Field(name)
	return v
}

func (l *lowerer) has(name string) bool {
	_, ok := l.in.Field(name)
	return ok
}

func (l *lowerer) enum(name string) string {
	s, _ := l.in.Enum(name)
	return s
}

func (l *lowerer) fail(format string, a ...any) {
	if l.err == nil {
		l.err = fmt.Errorf(format, a...)
	}
}

// opnd returns register operand i of the syntax (see usse.Inst.Operands).
func (l *lowerer) opnd(i int) usse.Operand {
	if i >= len(l.opnds) {
		l.fail("operand %d missing", i)
		return usse.Operand{}
	}
	return l.opnds[i]
}

// pred is the predicate code of the instruction (op.pred).
func (l *lowerer) pred() uint8 {
	return predCode(l.enum("pred"))
}

const predRpt = 0x10 // "pn": the predicate of the repeat iteration

func predCode(s string) uint8 {
	switch {
	case s == "":
		return 0
	case s == "pn":
		return predRpt
	case len(s) == 2 && s[0] == 'p' && s[1] >= '0' && s[1] <= '3':
		return 1 + s[1] - '0'
	case len(s) == 3 && s[0] == '!' && s[1] == 'p' && s[2] >= '0' && s[2] <= '3':
		return 9 + s[2] - '0'
	}
	return 0
}

// word resolves channel word off of a register operand: the word in the
// file, the index register it is relative to (0: none) and the bank's first
// word. Registers past their bank are errors.
func (l *lowerer) word(o usse.Operand, off int) (reg int, index uint8, bank int, err error) {
	b := o.Bank
	if b == usse.BankIndexed {
		b, index = o.Base, o.IndexReg
	}
	if l.secondary && b != usse.BankInternal {
		b = usse.BankSecondary // Vita3K: the secondary program's unified banks are SA
	}
	base, ok := bankBase(b)
	if !ok {
		return 0, 0, 0, fmt.Errorf("%v register %d is not a register file bank", o.Bank, o.Num)
	}
	n := int(o.Num)
	limit := bankWords
	if b == usse.BankInternal {
		n, limit = 4*n, 16
	}
	if n+off < 0 || n+off >= limit {
		return 0, 0, 0, fmt.Errorf("%s%d+%d is outside the %d-word %s bank", b, o.Num, off, limit, b)
	}
	return base + n + off, index, base, nil
}

// chanIndex maps a swizzle character to a channel (x..w = 0..3), or -1 for
// the constant selectors.
func chanIndex(c byte) int {
	switch c {
	case 'x':
		return 0
	case 'y':
		return 1
	case 'z':
		return 2
	case 'w':
		return 3
	}
	return -1
}

var constSel = map[byte]uint32{'0': 0, '1': 0x3f800000, '2': 0x40000000, 'h': 0x3f000000}

// floatSrc is channel sel of source o read as format f, rpt words further
// (repeats). Internal registers always hold f32 (Vita3K: GPI registers are
// f32 whatever the operation's format).
func (l *lowerer) floatSrc(o usse.Operand, f fmtID, sel byte, rpt int) chanSrc {
	if v, ok := constSel[sel]; ok {
		return chanSrc{part: pConst, fmt: fF32, val: v}
	}
	c := chanIndex(sel)
	if c < 0 {
		l.fail("swizzle selector %q", sel)
		return chanSrc{part: pConst}
	}
	switch o.Bank {
	case usse.BankConst:
		return chanSrc{part: pConst, fmt: fF32, val: usse.ConstValue(o.Num, sel, f == fF16)}
	case usse.BankImm:
		if f.isFloat() {
			return chanSrc{part: pConst, fmt: fF32, val: bits(float32(o.Num))}
		}
		return chanSrc{part: pConst, fmt: f, val: o.Num}
	case usse.BankGlobal:
		l.globalReg(o)
		return chanSrc{part: pConst}
	case usse.BankInternal:
		return l.chanAt(o, fF32, c, rpt)
	}
	return l.chanAt(o, f, c, rpt)
}

// globalReg fails on a global register g0..g63: what they hold is not
// described anywhere we looked (Vita3K reads none; IMG's SGX540
// microkernel reads g1 and g22, set by hardware we know nothing of).
func (l *lowerer) globalReg(o usse.Operand) {
	l.fail("g%d: %w (what the global registers hold is not known)", o.Num, errUnsupported)
}

// chanAt is channel c of a register operand holding format f.
func (l *lowerer) chanAt(o usse.Operand, f fmtID, c, rpt int) chanSrc {
	if o.Bank == usse.BankInternal {
		f = fF32
	}
	off, p := chanPlace(f, c)
	reg, index, bank, err := l.word(o, off+rpt)
	if err != nil {
		l.fail("%v", err)
	}
	return chanSrc{reg: uint16(reg), part: p, fmt: f, index: index, bank: uint16(bank)}
}

// chanPlace is where channel c of format f sits relative to its first
// register: the word offset and the part of the word.
func chanPlace(f fmtID, c int) (int, part) {
	switch f.width() {
	case 16:
		return c / 2, pLo + part(c&1)
	case 10:
		return c / 3, pTen0 + part(c%3)
	case 8:
		return c / 4, pByte0 + part(c&3)
	}
	return c, pWord
}

// dstChan is channel c of destination o written as format f.
func (l *lowerer) dstChan(o usse.Operand, f fmtID, c, rpt int) chanDst {
	if o.Bank == usse.BankIndex {
		// idx1, idx2: the index registers (a pConst part marks them)
		if o.Num < 1 || o.Num > 2 || c+rpt != 0 {
			l.fail("index register idx%d (idx1, idx2; one word)", o.Num)
		}
		return chanDst{part: pConst, index: uint8(o.Num), fmt: fU32}
	}
	switch o.Bank {
	case usse.BankTemp, usse.BankOutput, usse.BankPrimary, usse.BankSecondary, usse.BankInternal, usse.BankIndexed:
	default:
		l.fail("destination %v cannot be written", o.Bank)
		return chanDst{}
	}
	s := l.chanAt(o, f, c, rpt)
	return chanDst{reg: s.reg, part: s.part, fmt: s.fmt, index: s.index, bank: s.bank}
}

func (f fmtID) isFloat() bool { return f == fF32 || f == fF16 || f == fFX10 }

// destChannels lists the channels a write mask enables for a destination of
// format f. For f16 data in a unified-store register a mask bit covers a
// whole register: bit 0 writes x and y, bit 2 writes z and w, bits 1 and 3
// do nothing (Vita3K's write-mask decode; the hardware agrees: vmad16's
// mad.f16 with mask x-z writes y and w, see doc.go).
func destChannels(o usse.Operand, f fmtID, mask uint32, pairs bool) []int {
	var ch []int
	if pairs && f == fF16 && o.Bank != usse.BankInternal {
		if mask&1 != 0 {
			ch = append(ch, 0, 1)
		}
		if mask&4 != 0 {
			ch = append(ch, 2, 3)
		}
		return ch
	}
	for c := 0; c < 4; c++ {
		if mask>>c&1 != 0 {
			ch = append(ch, c)
		}
	}
	return ch
}

// swz is character c of a swizzle entry, padded with the identity.
func swz(s string, c int) byte {
	if c < len(s) {
		return s[c]
	}
	return "xyzw"[c]
}

// emit appends one op with the instruction's common fields.
func (l *lowerer) emit(o op) {
	o.inst = l.idx
	if o.pred == 0 {
		o.pred = l.pred()
	}
	l.out = append(l.out, o)
}

// repeats is the iteration count of the instruction (rpt field + 1).
func (l *lowerer) repeats() int {
	for _, name := range []string{"rpt", "count"} {
		if v, ok := l.in.Field(name); ok {
			return int(v) + 1
		}
	}
	return 1
}

// progState is what lowering carries from one instruction of a program to
// the next: the MOE state (repeat.go).
type progState struct{ moe *moeState }

// lower turns in into ops (at least one; a fault op when it cannot run).
// ps carries the program's lowering state (nil: a fresh one).
func lower(in *usse.Inst, idx int32, secondary bool, ps *progState) []op {
	if ps == nil {
		ps = &progState{}
	}
	if ps.moe == nil {
		ps.moe = defaultMOE()
	}
	l := &lowerer{in: in, idx: idx, secondary: secondary, moe: ps.moe}
	defer func() { ps.moe = l.moe }()
	if in.Form < 0 {
		return []op{{kind: kFault, inst: idx, err: errors.New("not an instruction")}}
	}
	l.opnds = in.Operands(nil)
	name := in.Name()
	if fn, ok := lowerers[name]; ok {
		fn(l)
	} else {
		l.fail("%s: %w (%s)", name, errUnsupported, notEmulated[name])
	}
	if l.err != nil {
		return []op{{kind: kFault, inst: idx, err: l.err}}
	}
	if len(l.out) == 0 {
		l.emit(op{kind: kNop})
	}
	if end, ok := in.Field("end"); ok && end != 0 {
		l.out[len(l.out)-1].end = true
	}
	l.out[len(l.out)-1].last = true
	for i := range l.out {
		l.out[i].it = uint8(i)
	}
	return l.out
}

// lowerers maps the spec's form names to their lowering.
var lowerers map[string]func(*lowerer)

func init() {
	lowerers = map[string]func(*lowerer){
		"vmad2":   lowerVmad2,
		"vnmad32": lowerVnmad,
		"vnmad16": lowerVnmad,
		"vmad":    lowerVmad,
		"vdp":     lowerVdp,
		"vdual3":  lowerDual,
		"vdual4":  lowerDual,
		"vcomp":   lowerVcomp,
		"vmov":    lowerVmov,
		"vpck":    lowerVpck,
		"vtst":    lowerVtst,
		"vtstmsk": lowerVtstmsk,
		"vbw":     lowerVbw,
		"sop2":    lowerSop2,
		"sop3":    lowerSop3,
		"sop2m":   lowerSop2m,
		"i8mad":   lowerI8mad,
		"i16mad":  lowerI16mad,
		"i32mad":  lowerI32mad,
		"i32mad2": lowerI32mad2,
		"smp":     lowerSmp,
		"ld":      lowerLoad,
		"st":      lowerStore,
		"phas":    lowerNop,
		"nop":     lowerNop,
		"smlsi":   lowerSmlsi,
		"smbo":    lowerSmbo,
		"idf":     lowerNop,
		"wdf":     lowerNop,
		"mutex":   lowerNop,
		"emit":    lowerEmit,
		"branch":  lowerBranch,
		"lapc":    lowerLapc,
		"setl":    lowerSetl,
		"savl":    lowerSavl,
		"limm":    lowerLimm,
		"kill":    lowerKill,
		"depthf":  lowerDepthf,
	}
}

// notEmulated says why the forms without a lowering cannot run.
var notEmulated = map[string]string{
	"i8mad2": "its operand fields are not known: Vita3K has no fields for it, the seed only a predicate and .sat",
	"pcoeff": "no description of its operands (the seed names pcoeff/ptoff only, Vita3K has no pattern, no word occurs in any listing), and they act on the ISP (depth plane coefficients, punch-through), which this model does not have",
	"ldrstr": "it reads and writes the microkernel's register space (IMG's SGX540 listing: ldr r17, #155, drc0), which a vertex or fragment program cannot reach",
}

func lowerNop(l *lowerer) { l.emit(op{kind: kNop}) }

// lowerEmit: emitvtx ends a vertex program with .end (every Vita vertex
// program here ends so) and does nothing else here (no later stage runs).
// emitpds starts a PDS task (IMG's SGX540 microkernel listing), which a
// shader model has nothing to run on; the other two kinds have no
// description.
func lowerEmit(l *lowerer) {
	if k := l.enum("kind"); k != "emitvtx" {
		l.fail("%s: %w (emitpds starts a PDS task, a microkernel operation; emit.k1 and emit.k2 have no description)", k, errUnsupported)
		return
	}
	if l.field("end") != 0 {
		l.emit(op{kind: kEnd})
		return
	}
	l.emit(op{kind: kEmit})
}

// fmtOf reads a format field through its enum spelling.
func (l *lowerer) fmtOf(field string) fmtID {
	s := l.enum(field)
	f, ok := fmtByName[strings.TrimPrefix(s, ".")]
	if !ok {
		l.fail("%s format %q", field, s)
	}
	return f
}

func mods(o usse.Operand) uint8 {
	var m uint8
	if o.Neg {
		m |= modNeg
	}
	if o.Abs {
		m |= modAbs
	}
	return m
}

// vector lowers a per-channel float operation: destination operand d,
// sources srcs (in MOE slots slots; gpi marks VMAD's internal source
// slots), format f, the channels to write, n iterations in repeat mode
// mode (repeat.go; multiplier 2).
func (l *lowerer) vector(k kind, aux uint32, d usse.Operand, srcs []usse.Operand, slots []int, gpi []bool, f fmtID, chans []int, n int, mode rptMode) {
	for it := 0; it < n; it++ {
		o := op{kind: k, aux: aux, fmt: f, n: uint8(len(chans)), nsrc: uint8(len(srcs))}
		doff := l.rptOff(mode, slotDst, d, false, it, 2)
		for i, c := range chans {
			o.dst[i] = l.dstChan(d, f, c, doff)
			for s, so := range srcs {
				off := l.rptOff(mode, slots[s], so, gpi != nil && gpi[s], it, 2)
				o.src[s][i] = l.floatSrc(so, f, swz(so.Swizzle, c), off)
			}
		}
		for s, so := range srcs {
			o.mods[s] = mods(so)
		}
		l.emit(o)
	}
}

// VMAD2 (op1 0x00): d = s0*s1 + s2, f32 or f16.
func lowerVmad2(l *lowerer) {
	f := l.fmtOf("fmt")
	d, s0, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2), l.opnd(3)
	chans := destChannels(d, f, l.field("mask"), true)
	l.vector(kMad, 0, d, []usse.Operand{s0, s1, s2}, []int{slotSrc0, slotSrc1, slotSrc2}, nil, f, chans, 1, rmMOE)
}

var vopByName = map[string]int{"mul": vMul, "add": vAdd, "frc": vFrc, "dsx": vDsx, "dsy": vDsy, "min": vMin, "max": vMax, "dp": vDp}

// VNMAD (op1 0x01 f32, 0x02 f16): d = s1 OP s2.
func lowerVnmad(l *lowerer) {
	f := fF32
	if l.in.Name() == "vnmad16" {
		f = fF16
	}
	v, ok := vopByName[l.enum("op")]
	if !ok {
		l.fail("operation %q", l.enum("op"))
	}
	d, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2)
	chans := destChannels(d, f, l.field("mask"), false)
	if v == vDp {
		// a dot product of the written channels, in every written channel
		l.vector(kDot, uint32(len(chans)), d, []usse.Operand{s1, s2}, []int{slotSrc1, slotSrc2}, nil, f, chans, 1, rmMOE)
		return
	}
	l.vector(kVop, uint32(v), d, []usse.Operand{s1, s2}, []int{slotSrc1, slotSrc2}, nil, f, chans, 1, rmMOE)
}

// VMAD (op1 0x03, bit 53 set): d = s1*i + i, f32, vec3 or vec4 swizzles.
// Repeats follow the instruction's repeat mode (repeat.go); the two
// internal sources are GPI slots.
func lowerVmad(l *lowerer) {
	d, s1, g0, g1 := l.opnd(0), l.opnd(1), l.opnd(2), l.opnd(3)
	chans := destChannels(d, fF32, l.field("mask"), false)
	l.vector(kMad, 0, d, []usse.Operand{s1, g0, g1}, []int{slotSrc1, slotSrc0, slotSrc2}, []bool{false, true, true},
		fF32, chans, l.repeats(), l.rptModeOf())
}

// VDP (op1 0x03, bit 53 clear): d = dot(s1, i) over 3 (vec3) or 4
// channels, written to every channel of the mask. Repeats follow the
// repeat mode, and each iteration rotates the write mask one channel on
// (Vita3K): atlier.gxp's dot.f32.rpt=2 i1.x, sa0.xyzw, i0.xyzw (external
// mode: sa0, sa4, sa8) computes three rows of a matrix product into i1.x,
// i1.y, i1.z.
func lowerVdp(l *lowerer) {
	d, s1, g0 := l.opnd(0), l.opnd(1), l.opnd(2)
	nch := uint32(3)
	if l.field("op2") != 0 {
		nch = 4
	}
	mask := l.field("mask") & 0xf
	mode := l.rptModeOf()
	n := l.repeats()
	for it := 0; it < n; it++ {
		chans := destChannels(d, fF32, mask, false)
		o := op{kind: kDot, aux: nch, fmt: fF32, n: uint8(len(chans)), nsrc: 2}
		doff := l.rptOff(mode, slotDst, d, false, it, 2)
		for i, c := range chans {
			o.dst[i] = l.dstChan(d, fF32, c, doff)
		}
		s1off := l.rptOff(mode, slotSrc1, s1, false, it, 2)
		g0off := l.rptOff(mode, slotSrc0, g0, true, it, 2)
		for c := 0; c < int(nch); c++ {
			o.src[0][c] = l.floatSrc(s1, fF32, swz(s1.Swizzle, c), s1off)
			o.src[1][c] = l.floatSrc(g0, fF32, swz(g0.Swizzle, c), g0off)
		}
		o.mods[0], o.mods[1] = mods(s1), mods(g0)
		l.emit(o)
		mask = (mask<<1 | mask>>3) & 0xf
	}
}

var complexByName = map[string]int{"rcp": vRcp, "rsq": vRsq, "log": vLog, "exp": vExp}

// VCOMP (op1 0x06): rcp, rsq, log2, exp2 of one source channel, written to
// every channel of the mask; formats f32, f16, fx10 for source and result.
func lowerVcomp(l *lowerer) {
	v, ok := complexByName[l.enum("op")]
	if !ok {
		l.fail("operation %q", l.enum("op"))
	}
	df, sf := l.fmtOf("dfmt"), l.fmtOf("sfmt")
	d, s := l.opnd(0), l.opnd(1)
	chans := destChannels(d, df, l.field("mask"), false)
	c := "xyzw"[l.field("comp")&3]
	n := l.repeats()
	for it := 0; it < n; it++ {
		o := op{kind: kComplex, aux: uint32(v), fmt: df, sfmt: sf, n: uint8(len(chans)), nsrc: 1, mods: [3]uint8{mods(s)}}
		doff := l.rptOff(rmMOE, slotDst, d, false, it, 2)
		for i, ch := range chans {
			o.dst[i] = l.dstChan(d, df, ch, doff)
		}
		o.src[0][0] = l.floatSrc(s, sf, c, l.rptOff(rmMOE, slotSrc1, s, false, it, 2))
		l.emit(o)
	}
}

// VMOV (op1 0x07): mov copies channels; cmov/cmov8 pick source 1 or 2 by
// a test of source 0. The register pair rule for f16 masks applies
// (Vita3K's write-mask decode for this instruction).
func lowerVmov(l *lowerer) {
	f := l.fmtOf("fmt")
	d := l.opnd(0)
	chans := destChannels(d, f, l.field("mask"), true)
	n := l.repeats()
	mult := 1 // Vita3K: MOE repeats, multiplier 2 for f16/f32, 1 for the others
	if f == fF16 || f == fF32 {
		mult = 2
	}
	if l.field("op") == 0 {
		s := l.opnd(1)
		for it := 0; it < n; it++ {
			o := op{kind: kMov, fmt: f, n: uint8(len(chans)), nsrc: 1}
			doff, soff := l.rptOff(rmMOE, slotDst, d, false, it, mult), l.rptOff(rmMOE, slotSrc1, s, false, it, mult)
			for i, c := range chans {
				o.dst[i] = l.dstChan(d, f, c, doff)
				o.src[0][i] = l.rawSrc(s, f, swz(s.Swizzle, c), soff)
			}
			l.emit(o)
		}
		return
	}
	s0, s1, s2 := l.opnd(1), l.opnd(2), l.opnd(3)
	if l.field("endors0x") != 0 { // Vita3K: for cmov this bit extends source 0's bank to o/sa
		switch s0.Bank {
		case usse.BankTemp:
			s0.Bank = usse.BankOutput
		case usse.BankPrimary:
			s0.Bank = usse.BankSecondary
		}
	}
	tf := fF32
	if l.enum("op") == "cmov8" {
		tf = fU8
	}
	test := l.field("cond")<<1 | l.field("tstb")
	for it := 0; it < n; it++ {
		o := op{kind: kCmov, aux: test, fmt: f, sfmt: tf, n: uint8(len(chans)), nsrc: 3}
		doff := l.rptOff(rmMOE, slotDst, d, false, it, mult)
		off0, off1, off2 := l.rptOff(rmMOE, slotSrc0, s0, false, it, mult), l.rptOff(rmMOE, slotSrc1, s1, false, it, mult), l.rptOff(rmMOE, slotSrc2, s2, false, it, mult)
		for i, c := range chans {
			o.dst[i] = l.dstChan(d, f, c, doff)
			sel0 := "xyzw"[c]
			if l.field("s0sel") != 0 {
				sel0 = swz(s1.Swizzle, c)
			}
			o.src[0][i] = l.rawSrc(s0, tf, sel0, off0)
			o.src[1][i] = l.rawSrc(s1, f, swz(s1.Swizzle, c), off1)
			o.src[2][i] = l.rawSrc(s2, f, swz(s2.Swizzle, c), off2)
		}
		l.emit(o)
	}
}

// rawSrc is a source channel of format f: float formats read as values
// (constants included), the others as bits.
func (l *lowerer) rawSrc(o usse.Operand, f fmtID, sel byte, rpt int) chanSrc {
	if f.isFloat() || o.Bank == usse.BankInternal {
		return l.floatSrc(o, f, sel, rpt)
	}
	switch o.Bank {
	case usse.BankImm:
		return chanSrc{part: pConst, fmt: f, val: o.Num}
	case usse.BankConst:
		return chanSrc{part: pConst, fmt: f, val: usse.ConstValue(o.Num, sel, false)}
	case usse.BankGlobal:
		l.globalReg(o)
		return chanSrc{part: pConst}
	}
	c := chanIndex(sel)
	if c < 0 {
		return chanSrc{part: pConst, fmt: fF32, val: constSel[sel]}
	}
	return l.chanAt(o, f, c, rpt)
}
