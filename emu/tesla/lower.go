package tesla

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gpuisa/gpuisa/isa/tesla"
)

// Register rows of a warp: 128 general registers, then the condition
// registers C0..C3 (flags per lane), then the address registers A0..A15
// (sources reach A0..A7, but R2A and ADA can write up to A15),
// then a row whose word a says whether A<a> holds one value in all 32 lanes
// (1; 0 = unknown), so that a g[A+n] read by the whole warp is one load.
const (
	numGPR    = 128
	rowCond   = numGPR
	rowAddr   = rowCond + 4
	rowUni    = rowAddr + 16
	numRows   = rowUni + 1
	zeroReg   = 124 // R124 reads as zero and ignores writes
	flagZ     = 1
	flagS     = 2
	flagC     = 4
	flagO     = 8
	condAlway = 0xf
)

type opKind uint8

const (
	opInvalid opKind = iota // does not decode: faults when executed
	opUnsupported
	opNop
	opMov
	opC2R
	opR2C
	opA2R
	opR2A
	opADA
	opS2R
	opIAdd // add, sub, subr, addc by addop
	opIMul16
	opIMul24
	opIMad
	opISad
	opISet
	opIMax
	opIMin
	opShl
	opShr
	opLop
	opCvt
	opFAdd
	opFMul
	opFMad
	opFSet
	opFMax
	opFMin
	opRRO
	opRcp
	opRsq
	opLg2
	opSin
	opCos
	opEx2
	opDFma
	opDAdd
	opDMul
	opDMin
	opDMax
	opDSet
	opGLd
	opGSt
	opLLd
	opLSt
	opSSt // R2G: store to shared
	opBra
	opCal
	opRet
	opSSY
	opBar
	opTrap
	opPBK  // breakaddr: push a break target
	opBrk  // break: the guarded lanes go to the break target
	opKil  // kill: the guarded lanes end
	opSlct // select by the sign of a float
	opAtom // global atomic returning the old value (GATOM)
	opRed  // global atomic reduction (GRED)
	opVote // VOTE.ANY/ALL: the guard is the input
	opBrx  // indirect branch through c[]
	opPret // push a return address
	opLock // G2R.LCK: lock a shared word and load it
)

type srcKind uint8

const (
	sNone srcKind = iota
	sReg
	sLo // 16-bit low half (zero-extended)
	sHi // 16-bit high half
	sShared
	sConst
	sImm
	sZero
)

// src is a lowered source operand.
type src struct {
	kind   srcKind
	row    uint16 // register row, or immediate index
	areg   uint8
	inc    bool
	size   uint8
	signed bool
	bank   uint8
	off    uint32
	neg    bool
	not    bool
	abs    bool
}

type dstKind uint8

const (
	dNone dstKind = iota // o[] bit bucket, or R124
	dReg
	dLo
	dHi
)

// op is one lowered instruction.
type op struct {
	kind   opKind
	pred   uint8 // guard condition register
	cond   uint8 // guard condition (condAlway = none)
	ccw    bool
	ccr    uint8
	carry  uint8 // condition register feeding add-with-carry
	join   bool
	exit   bool
	aw     bool // writes an address register
	dst    dstKind
	drow   uint16
	b32    bool  // 32-bit operation (else 16-bit)
	signed bool  // signed operands
	sat    bool  // saturate
	hi     bool  // high half of a 24-bit product
	mode   uint8 // op-specific: addop, lop, set condition, rounding, multiply kind...
	mode2  uint8 // op-specific: second mode (conversion source type, ...)
	size   uint8 // memory access size
	fast   fastKind
	quick  bool // fast, unguarded, no join or exit marker: Run's shortcut
	s      [3]src
	target uint32 // branch/call/SSY target (program index)
	addr   uint32 // byte address of the instruction
}

// Program is a lowered Tesla program.
type Program struct {
	ops   []op
	insts []tesla.Inst
	errs  []error // per op: decode error or unsupported reason
	imms  [][32]uint32
	index map[uint32]uint32 // byte address -> op index
	local bool              // has local-memory instructions
	sm    int               // compute capability the program runs as
	// gprRows is one past the highest general register the program can
	// touch (with room for 64/128-bit register groups): InitWarp clears
	// only those.
	gprRows int
}

// Len is the number of instructions.
func (p *Program) Len() int { return len(p.ops) }

// Text returns the listing text of op i.
func (p *Program) Text(i int) string {
	if i < 0 || i >= len(p.ops) {
		return ""
	}
	if p.ops[i].kind == opInvalid {
		return "(invalid)"
	}
	return tesla.Print(p.insts[i], uint64(p.ops[i].addr))
}

// Where implements emu.Exec.
func (p *Program) Where(pc uint32) (uint64, string) {
	if int(pc) >= len(p.ops) {
		end := uint64(0)
		if n := len(p.ops); n > 0 {
			end = uint64(p.ops[n-1].addr) + uint64(p.insts[n-1].Len)
		}
		return end, "(past the end of the program)"
	}
	return uint64(p.ops[pc].addr), p.Text(int(pc))
}

// Lower decodes code (loaded at address 0) into a program. Instructions that
// do not decode or that the emulator does not support become ops that fault
// when executed, so a kernel runs as long as it avoids them.
func Lower(code []byte) (*Program, error) { return LowerFor(code, 13) }

// LowerFor is Lower for a compute capability (10 for sm_10, ...):
// instructions the architecture lacks (atomics before sm_11, VOTE and
// shared locks before sm_12, double precision before sm_13) fault when
// executed.
func LowerFor(code []byte, sm int) (*Program, error) {
	p := &Program{index: map[uint32]uint32{}, sm: sm}
	for off := 0; off < len(code); {
		inst, err := tesla.Decoder{}.Decode(code, uint64(off))
		n := int(inst.Len)
		if n <= 0 {
			n = 4
		}
		p.index[uint32(off)] = uint32(len(p.ops))
		o := op{addr: uint32(off), cond: condAlway}
		var oerr error
		if err != nil {
			oerr = err
		} else {
			o, oerr = p.lower(inst, uint32(off))
		}
		p.local = p.local || o.kind == opLLd || o.kind == opLSt
		p.ops = append(p.ops, o)
		p.insts = append(p.insts, inst)
		p.errs = append(p.errs, oerr)
		off += n
	}
	if len(p.ops) == 0 {
		return nil, errors.New("empty program")
	}
	p.gprRows = 1
	use := func(r uint16) { p.gprRows = max(p.gprRows, min(int(r)+4, numGPR)) } // +4: a 128-bit group
	for i := range p.ops {
		o := &p.ops[i]
		if o.dst != dNone && o.drow < numGPR {
			use(o.drow)
		}
		for _, s := range o.s {
			if (s.kind == sReg || s.kind == sLo || s.kind == sHi) && s.row < numGPR {
				use(s.row)
			}
		}
	}
	// resolve code targets to op indices
	for i := range p.ops {
		o := &p.ops[i]
		o.fast = classifyFast(o)
		o.quick = o.fast != fastNone && o.cond == condAlway && !o.join && !o.exit
		switch o.kind {
		case opBra, opCal, opSSY, opPBK, opPret:
			t, ok := p.index[o.target]
			if !ok {
				p.errs[i] = fmt.Errorf("target %#x is not the start of an instruction", o.target)
				o.kind = opInvalid
				continue
			}
			o.target = t
		}
	}
	return p, nil
}

var errUnsupported = errors.New("not supported by the emulator")

func hasMod(e *tesla.Exec, m string) bool { return slices.Contains(e.Mods, m) }

func (p *Program) imm(v uint32) uint16 {
	var a [32]uint32
	for i := range a {
		a[i] = v
	}
	p.imms = append(p.imms, a)
	return uint16(len(p.imms) - 1)
}

func (p *Program) lowerSrc(o tesla.Operand) (src, error) {
	s := src{neg: o.Neg, not: o.Not, abs: o.Abs, areg: o.Areg, inc: o.Inc, size: o.Size, signed: o.Signed, bank: o.Bank, off: o.Offset}
	switch o.Kind {
	case tesla.OpReg:
		switch {
		case o.Half && o.Reg&1 == 0:
			s.kind, s.row = sLo, uint16(o.Reg>>1)
		case o.Half:
			s.kind, s.row = sHi, uint16(o.Reg>>1)
		case o.Reg == zeroReg:
			s.kind = sZero
		default:
			s.kind, s.row = sReg, uint16(o.Reg)
		}
	case tesla.OpShared:
		s.kind = sShared
	case tesla.OpConst:
		s.kind = sConst
	case tesla.OpImm:
		s.kind, s.row = sImm, p.imm(o.Imm)
	case tesla.OpOut:
		s.kind = sZero // a store from o[]: outputs are write-only bit buckets here
	default:
		return s, fmt.Errorf("operand kind %d cannot be a source", o.Kind)
	}
	return s, nil
}

func lowerDst(o *op, d tesla.Operand) error {
	switch d.Kind {
	case tesla.OpOut:
		o.dst = dNone
	case tesla.OpReg:
		switch {
		case d.Half && d.Reg&1 == 0:
			o.dst, o.drow = dLo, uint16(d.Reg>>1)
		case d.Half:
			o.dst, o.drow = dHi, uint16(d.Reg>>1)
		case d.Reg == zeroReg:
			o.dst = dNone
		default:
			o.dst, o.drow = dReg, uint16(d.Reg)
		}
	default:
		return fmt.Errorf("operand kind %d cannot be a destination", d.Kind)
	}
	return nil
}

var simpleSem = map[string]opKind{
	"mov": opMov, "c2r": opC2R, "r2c": opR2C, "a2r": opA2R, "r2a": opR2A, "ada": opADA, "s2r": opS2R,
	"iadd": opIAdd, "isub": opIAdd, "isubr": opIAdd, "iaddc": opIAdd,
	"imul16": opIMul16, "imul24": opIMul24, "imad": opIMad, "isad": opISad, "iset": opISet,
	"imax": opIMax, "imin": opIMin, "shl": opShl, "shr": opShr, "lop": opLop, "cvt": opCvt,
	"fadd": opFAdd, "fmul": opFMul, "fmad": opFMad, "fset": opFSet, "fmax": opFMax, "fmin": opFMin,
	"rro": opRRO, "rcp": opRcp, "rsq": opRsq, "lg2": opLg2, "sin": opSin, "cos": opCos, "ex2": opEx2,
	"dfma": opDFma, "dadd": opDAdd, "dmul": opDMul, "dmin": opDMin, "dmax": opDMax, "dset": opDSet,
	"ld.global": opGLd, "st.global": opGSt, "ld.local": opLLd, "st.local": opLSt, "st.shared": opSSt,
	"bra": opBra, "cal": opCal, "ret": opRet, "ssy": opSSY, "bar": opBar, "trap": opTrap, "nop": opNop,
	"pbk": opPBK, "brk": opBrk, "kil": opKil, "slct": opSlct, "brkpt": opNop, "pmevent": opNop,
	"atom": opAtom, "red": opRed, "vote": opVote, "ld.shared": opMov, "brx": opBrx, "pret": opPret,
	"ld.shared.lock": opLock,
}

// graphicsSem are the semantic classes of vertex, geometry and fragment
// programs, which compute kernels do not run.
var graphicsSem = map[string]bool{"interp": true, "ld.attr": true, "st.out": true, "emit": true, "restart": true,
	"quadon": true, "quadpop": true, "quadop": true, "tex": true}

var errGraphics = errors.New("graphics-only instruction, not supported in compute kernels")

// setConds maps the printed SET conditions to l|e<<1|g<<2|u<<3.
var setConds = map[string]uint8{"F": 0, "LT": 1, "EQ": 2, "LE": 3, "GT": 4, "NE": 5, "GE": 6, "NUM": 7,
	"NAN": 8, "LTU": 9, "EQU": 10, "LEU": 11, "GTU": 12, "NEU": 13, "GEU": 14, "T": 15}

// imadKinds: the multiply of IMAD by its type modifier (16-bit kinds < 3).
const (
	mulU16 = iota
	mulS16
	mulU24
	mulS24
)

func (p *Program) lower(inst tesla.Inst, addr uint32) (op, error) {
	e := inst.Resolve()
	o := op{addr: addr, pred: e.Pred, cond: e.Cond, ccw: e.CCWrite, ccr: e.CCReg, carry: e.CarryReg,
		join: e.Join, exit: e.Exit, b32: true}
	if need := minSM(&e); p.sm < need {
		o.kind = opUnsupported
		return o, fmt.Errorf("%s needs sm_%d; the launch is sm_%d", e.Mnemonic, need, p.sm)
	}
	k, ok := simpleSem[e.Sem]
	if !ok {
		o.kind = opUnsupported
		if graphicsSem[e.Sem] {
			return o, fmt.Errorf("%s: %w (%w)", e.Mnemonic, errGraphics, errUnsupported)
		}
		return o, fmt.Errorf("%s (%s): %w", e.Mnemonic, e.Sem, errUnsupported)
	}
	o.kind = k
	ops := e.Operands
	// operands that are sources, in order, after the destination
	var srcs []tesla.Operand
	hasDst := true
	switch k {
	case opBrx:
		if len(ops) != 1 || ops[0].Kind != tesla.OpConst {
			return o, fmt.Errorf("%s: no c[] operand", e.Mnemonic)
		}
		c := ops[0]
		o.s[0] = src{kind: sConst, bank: c.Bank, areg: c.Areg, size: 4, off: c.Offset}
		return o, nil
	case opVote:
		// the guard is the input predicate, not a condition of execution
		if len(ops) != 1 || ops[0].Kind != tesla.OpCondReg {
			return o, fmt.Errorf("%s: no condition register", e.Mnemonic)
		}
		o.carry, o.size, o.cond = o.pred, o.cond, condAlway
		o.ccw, o.ccr = true, ops[0].Reg
		o.mode = boolMode(hasMod(&e, "ALL"))
		return o, nil
	case opAtom, opRed:
		return p.lowerAtom(o, &e)
	case opBra, opCal, opSSY, opPBK, opPret:
		if len(ops) == 0 || ops[0].Kind != tesla.OpTarget {
			return o, fmt.Errorf("%s: no target", e.Mnemonic)
		}
		o.target = ops[0].Imm
		return o, nil
	case opTrap:
		o.cond = condAlway // not predicable: the form's guard bits are zero
		return o, nil
	case opRet, opNop, opBrk, opKil:
		return o, nil
	case opBar:
		// operands: barrier, then the thread count (none: all threads)
		if len(ops) > 0 {
			o.mode = ops[0].Reg
		}
		if len(ops) > 1 && ops[1].Kind == tesla.OpImm {
			o.target = ops[1].Imm
		}
		if hasMod(&e, "ARV") {
			o.size |= 1
		}
		if hasMod(&e, "WAIT") {
			o.size |= 2
		}
		return o, nil
	case opGSt, opLSt, opSSt:
		hasDst = false
	}
	for _, x := range ops {
		if x.Kind == tesla.OpEnum {
			c, ok := setConds[x.Text]
			switch {
			case ok:
				o.mode = c
			case x.Text == "SIN":
				o.mode = 0
			case x.Text == "EX2":
				o.mode = 1
			}
		}
	}
	first := 0
	if hasDst && len(ops) > 0 {
		switch ops[0].Kind {
		case tesla.OpReg, tesla.OpOut:
			if err := lowerDst(&o, ops[0]); err != nil {
				return o, err
			}
		case tesla.OpAddrReg:
			o.dst, o.drow, o.aw = dReg, rowAddr+uint16(ops[0].Reg), true
			if ops[0].Reg == 0 {
				o.dst, o.aw = dNone, false
			}
		case tesla.OpCondReg:
			o.dst, o.drow = dReg, rowCond+uint16(ops[0].Reg)
		}
		first = 1
	}
	for _, x := range ops[first:] {
		if x.Kind != tesla.OpEnum {
			srcs = append(srcs, x)
		}
	}
	mods := func(m string) bool { return hasMod(&e, m) }
	o.sat = mods("SAT")
	o.hi = mods("HI")
	o.signed = mods("S16") || mods("S32") || mods("S24")
	o.b32 = !(mods("U16") || mods("S16"))
	setSrcs := func(n int) error {
		if len(srcs) < n {
			return fmt.Errorf("%s: %d source operands, want %d", e.Mnemonic, len(srcs), n)
		}
		for i := 0; i < n; i++ {
			s, err := p.lowerSrc(srcs[i])
			if err != nil {
				return err
			}
			o.s[i] = s
		}
		return nil
	}
	var err error
	switch k {
	case opR2C:
		o.ccw = false // the write-enable bit is set but ignored (seed 002, 2.2)
		err = setSrcs(1)
	case opMov:
		err = setSrcs(1)
		o.mode = laneMask(&e)
	case opRcp, opRsq, opLg2, opSin, opCos, opEx2, opRRO:
		err = setSrcs(1)
	case opC2R:
		if len(srcs) == 1 && srcs[0].Kind == tesla.OpCondReg {
			o.s[0] = src{kind: sReg, row: rowCond + uint16(srcs[0].Reg)}
		}
	case opA2R:
		if len(srcs) == 1 && srcs[0].Kind == tesla.OpAddrReg {
			o.s[0] = src{kind: sReg, row: rowAddr + uint16(srcs[0].Reg)}
		}
	case opS2R:
		if len(srcs) == 1 {
			o.mode = srcs[0].Reg
		}
	case opR2A:
		err = setSrcs(2) // value, shift
		if err == nil && len(srcs) == 1 {
			o.s[1] = src{kind: sImm, row: p.imm(0)}
		}
	case opADA:
		if len(srcs) == 2 && srcs[0].Kind == tesla.OpAddrReg {
			o.s[0] = src{kind: sReg, row: rowAddr + uint16(srcs[0].Reg)}
			if srcs[0].Reg == 0 {
				o.s[0] = src{kind: sZero}
			}
			o.s[1] = src{kind: sImm, row: p.imm(srcs[1].Imm)}
		} else {
			err = fmt.Errorf("ADA: bad operands")
		}
	case opIAdd:
		err = setSrcs(2)
		switch {
		case e.Carry:
			o.mode = 3
		case o.s[1].neg:
			o.mode = 1
		case o.s[0].neg:
			o.mode = 2
		}
		o.signed = false
		o.b32 = !mods("U16")
	case opIMul16:
		err = setSrcs(2)
		// IMUL.{U16,S16}{U16,S16}: source 1's type, then source 2's
		var t []string
		for _, m := range e.Mods {
			if m == "U16" || m == "S16" {
				t = append(t, m)
			}
		}
		if len(t) == 2 {
			if t[0] == "S16" {
				o.mode |= 1
			}
			if t[1] == "S16" {
				o.mode |= 2
			}
		}
		o.b32 = true
	case opIMul24:
		err = setSrcs(2)
		o.signed = mods("S24")
	case opIMad:
		err = setSrcs(3)
		switch {
		case mods("X") && mods("S16"): // short forms: (sf2, sf1) = 3: u24
			o.mode2 = mulU24
		case mods("X"):
			o.mode2 = mulS16
		case mods("S16") && !e.Long:
			o.mode2, o.sat = mulS16, true
		case mods("U16"):
			o.mode2 = mulU16
		case mods("S16"):
			o.mode2 = mulS16
		case mods("U24"):
			o.mode2 = mulU24
		case mods("S24"):
			o.mode2 = mulS24
		}
		switch {
		case e.Carry:
			o.mode = 3
		case o.s[2].neg:
			o.mode = 1
		case o.s[0].neg:
			o.mode = 2
		}
		o.b32 = true
	case opISad:
		err = setSrcs(3)
		if !e.Long {
			o.signed = mods("S")
			o.b32 = mods("U32")
		}
	case opISet, opIMax, opIMin, opLop:
		err = setSrcs(2)
		if k == opLop {
			for i, m := range []string{"AND", "OR", "XOR", "PASS_B"} {
				if mods(m) {
					o.mode = uint8(i)
				}
			}
		}
	case opShl, opShr:
		err = setSrcs(2)
	case opCvt:
		err = setSrcs(1)
		err2 := lowerCvt(&o, &e)
		if err == nil {
			err = err2
		}
	case opFAdd:
		if len(srcs) == 2 {
			err = setSrcs(2)
		}
		o.mode = boolMode(mods("TRUNC"))
	case opFMul:
		err = setSrcs(2)
		o.mode = boolMode(mods("TRUNC"))
	case opFMad:
		err = setSrcs(3)
		o.mode = boolMode(mods("TRUNC"))
	case opFSet, opFMax, opFMin, opDMin, opDMax, opDSet, opDMul:
		err = setSrcs(2)
		o.mode2 = roundMod(&e)
	case opDAdd:
		err = setSrcs(2)
		o.mode2 = roundMod(&e)
	case opDFma, opSlct:
		err = setSrcs(3)
		o.mode2 = roundMod(&e)
	case opGLd, opLLd:
		if len(srcs) != 1 {
			return o, fmt.Errorf("%s: no address", e.Mnemonic)
		}
		o.size = srcs[0].Size
		o.signed = srcs[0].Signed
		if srcs[0].Kind == tesla.OpGlobal {
			o.s[0] = src{kind: sReg, row: uint16(srcs[0].Reg)}
			if srcs[0].Reg == zeroReg {
				o.s[0] = src{kind: sZero}
			}
		} else {
			o.s[0] = src{kind: sNone, areg: srcs[0].Areg, inc: srcs[0].Inc, off: srcs[0].Offset}
		}
	case opLock:
		if len(srcs) != 1 || srcs[0].Kind != tesla.OpShared || srcs[0].Size != 4 || !o.ccw {
			return o, fmt.Errorf("%s: want a 32-bit g[] operand and a condition register", e.Mnemonic)
		}
		o.s[0] = src{kind: sShared, areg: srcs[0].Areg, inc: srcs[0].Inc, size: 4, off: srcs[0].Offset}
	case opGSt, opLSt, opSSt:
		// operands: address, value
		if len(ops) != 2 {
			return o, fmt.Errorf("%s: want address and value", e.Mnemonic)
		}
		o.hi = hasMod(&e, "UNL") // R2G.UNL: store and unlock
		a := ops[0]
		o.size = a.Size
		switch a.Kind {
		case tesla.OpGlobal:
			o.s[0] = src{kind: sReg, row: uint16(a.Reg)}
			if a.Reg == zeroReg {
				o.s[0] = src{kind: sZero}
			}
		default:
			o.s[0] = src{kind: sNone, areg: a.Areg, inc: a.Inc, off: a.Offset}
		}
		v, err := p.lowerSrc(ops[1])
		if err != nil {
			return o, err
		}
		o.s[1] = v
	}
	if err != nil {
		return o, err
	}
	if o.size == 0 && (k == opGLd || k == opGSt || k == opLLd || k == opLSt || k == opSSt) {
		return o, fmt.Errorf("%s: invalid access size", e.Mnemonic)
	}
	return o, nil
}

// minSM is the compute capability an instruction needs (envytools' Tesla
// variants: g[] atomics and s[] loads from G84 = sm_11, votes and s[]
// locks from G200/GT21x = sm_12, double precision on G200 = sm_13).
func minSM(e *tesla.Exec) int {
	switch e.Sem {
	case "atom", "red", "ld.shared":
		for _, m := range e.Mods {
			if m == "U64" {
				return 12 // 64-bit atomic add
			}
		}
		return 11
	case "vote", "ld.shared.lock":
		return 12
	case "dfma", "dadd", "dmul", "dmin", "dmax", "dset":
		return 13
	case "cvt":
		for _, m := range e.Mods {
			if m == "F64" {
				return 13
			}
		}
	}
	return 10
}

// roundMod is the rounding modifier: 0 none (nearest), 1 FLOOR, 2 CEIL, 3 TRUNC.
func roundMod(e *tesla.Exec) uint8 {
	for i, m := range []string{"FLOOR", "CEIL", "TRUNC"} {
		if hasMod(e, m) {
			return uint8(i + 1)
		}
	}
	return 0
}

func boolMode(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// Error returns why op i cannot run (nil when it can).
func (p *Program) Error(i int) error { return p.errs[i] }
