package maxwell

import (
	"fmt"
	"strings"

	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// okind is the kind of a lowered operand.
type okind uint8

const (
	oNone  okind = iota
	oReg         // a register row (RZ reads a zero row)
	oImm         // an immediate (bcast holds it for every lane)
	oConst       // c[bank][offset] (resolved into bcast at launch)
	oCIdx        // c[bank][Rn+offset]
	oPred        // a predicate (row holds a lane bitmask)
	oAddr        // [Rn+offset] (a memory address)
	oSReg        // a special register
	oCC          // the condition code (P2R, R2P)
	oPR          // the predicate register (P2R, R2P)
)

// opnd is one operand of a lowered instruction.
type opnd struct {
	kind          okind
	row           uint16 // register or predicate row
	reg           uint8  // register number as printed (255: RZ)
	bank          uint8
	sel           uint8 // 0 whole, 1 .H0, 2 .H1, 3..6 .B0...B3
	neg, abs, not bool
	imm           uint64 // immediate, constant offset, address offset, or special register
	bc            int32  // index into Kernel.bcast (oImm, oConst), -1 else
}

// op is one lowered instruction.
type op struct {
	kind    kind
	guard   uint16 // predicate row of the guard
	gnot    bool
	sub     uint8 // comparison, logic function, atomic op, MUFU function...
	bop     uint8 // predicate combining (AND, OR, XOR)
	rnd     uint8 // 0 RN, 1 RM, 2 RP, 3 RZ; integer rounding for F2F/F2I: 4 ROUND 5 FLOOR 6 CEIL 7 TRUNC
	flags   uint32
	size    uint8 // memory access bytes
	dt, st  uint8 // conversion types
	nsrc    uint8
	d, d2   opnd
	s       [4]opnd
	target  uint32 // op index of a branch target
	hasTarg bool
	tx      *texInst // texture and surface instructions (tex_lower.go)
	ccLive  uint8    // the condition-code flags read after it (ccflow.go)
}

// op flags, from the mnemonic's modifiers
const (
	fFTZ = 1 << iota
	fSAT
	fCC  // writes the carry flag
	fX   // reads the carry flag
	fU32 // unsigned
	fHI
	fSigned // signed load
	fE      // 64-bit address
	fPSL
	fMRG
	fCHI
	fCLO
	fCBCC
	fCSFU
	fS16A
	fS16B
	fW
	fBREV
	fSH
	fXHI
	fXLO
	fL
	fR
	f64
	fBF
	fNZ // LOP .NZ / .Z predicate output
	fZ
	fArrive
	fRS
	fLS
	fCCTest // BRA tests the condition code too
	fUD     // video: unsigned destination
)

// Program is a kernel lowered once for running.
type Program struct {
	ops   []op
	texts []string
	addrs []uint64
	errs  []error // per op: why it cannot run (invalid encoding), nil if fine
	sm    int
	nGPR  int // rows for R0..Rmax (+3 for vectors)
}

// Rows after the general registers.
func (p *Program) rowRZ() int   { return p.nGPR }
func (p *Program) rowSink() int { return p.nGPR + 4 }
func (p *Program) rowP(i int) int {
	return p.nGPR + 8 + i // P0..P6, PT at 7
}
func (p *Program) rowCC() int        { return p.nGPR + 16 }
func (p *Program) rowPSink() int     { return p.nGPR + 17 }
func (p *Program) numRows() int      { return p.nGPR + 22 } // 4 spare rows: a 128-bit access at any row stays inside
func (p *Program) Len() int          { return len(p.ops) }
func (p *Program) Text(i int) string { return p.texts[i] }

// Where implements the engine's fault location.
func (p *Program) Where(pc uint32) (uint64, string) {
	if int(pc) < len(p.ops) {
		return p.addrs[pc], p.texts[pc]
	}
	return indexAddr(pc), ""
}

// indexAddr is the byte address of instruction i: bundles of a control word
// and three instructions.
func indexAddr(i uint32) uint64 { return uint64(i/3)*32 + 8 + 8*uint64(i%3) }

// addrIndex is the inverse of indexAddr; ok is false for control words.
func addrIndex(a uint64) (uint32, bool) {
	slot := a % 32
	if slot%8 != 0 {
		return 0, false
	}
	if slot == 0 { // a bundle's address: its first instruction
		slot = 8
	}
	return uint32(a/32*3 + slot/8 - 1), true
}

// Lower decodes code (whole bundles) for sm and lowers every instruction.
// Instructions the emulator does not know lower to faulting ops, so that a
// kernel runs until it reaches one.
func Lower(code []byte, sm int) (*Program, error) {
	if len(code)%32 != 0 {
		return nil, fmt.Errorf("code size %d is not a whole number of 32-byte bundles", len(code))
	}
	n := len(code) / 32 * 3
	p := &Program{sm: sm, ops: make([]op, 0, n), texts: make([]string, 0, n), addrs: make([]uint64, 0, n), errs: make([]error, 0, n)}
	dec := maxwell.Decoder{SM: sm}
	maxReg := 0
	var text []byte
	for b := 0; b+32 <= len(code); b += 32 {
		for s := range 3 {
			addr := uint64(b + 8 + 8*s)
			inst, err := dec.Decode(code, addr)
			var o op
			var shown string
			if err != nil {
				o.kind = kInvalid
				err = &invalidWordError{word: inst.Word, cause: err}
			} else {
				o, err = lowerInst(inst, addr)
				if err != nil {
					o = op{kind: kInvalid}
				}
				// the text is for traces and fault messages only
				text = maxwell.AppendText(text[:0], inst, addr)
				shown = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(text)), ";"))
				if err != nil && len(text) > 0 {
					err = &unrunnableError{text: shown, cause: err}
				}
			}
			maxReg = max(maxReg, o.d.maxReg(), o.d2.maxReg())
			for i := range o.s {
				maxReg = max(maxReg, o.s[i].maxReg())
			}
			p.ops = append(p.ops, o)
			p.texts = append(p.texts, shown)
			p.addrs = append(p.addrs, addr)
			p.errs = append(p.errs, err)
		}
	}
	p.nGPR = maxReg + 4
	for i := range p.ops {
		p.rows(&p.ops[i])
		o := &p.ops[i]
		if o.hasTarg && int(o.target) >= len(p.ops) {
			o.kind, p.errs[i] = kInvalid, fmt.Errorf("branch target outside the program")
		}
	}
	p.ccLiveness()
	return p, nil
}

// maxReg is the highest general register x names, or 0.
func (x opnd) maxReg() int {
	if (x.kind == oReg || x.kind == oAddr || x.kind == oCIdx) && x.reg != 255 {
		return int(x.reg)
	}
	return 0
}

// invalidWordError is a word that does not decode; its message is made
// only when it is shown (fuzzed and damaged code has many).
type invalidWordError struct {
	word  uint64
	cause error
}

func (e *invalidWordError) Error() string {
	return fmt.Sprintf("invalid instruction %#016x: %v", e.word, e.cause)
}

// unrunnableError is an instruction that decodes but has no semantics (or
// operands the emulator cannot run), with its text.
type unrunnableError struct {
	text  string
	cause error
}

func (e *unrunnableError) Error() string { return e.text + ": " + e.cause.Error() }

// rows maps register numbers to rows now that the register count is known.
func (p *Program) rows(o *op) {
	mapSrc := func(x *opnd) {
		switch x.kind {
		case oReg, oAddr, oCIdx:
			if x.reg == 255 {
				x.row = uint16(p.rowRZ())
			} else {
				x.row = uint16(x.reg)
			}
		case oPred:
			x.row = uint16(p.rowP(int(x.reg)))
		}
	}
	for i := range o.s {
		mapSrc(&o.s[i])
	}
	o.guard = uint16(p.rowP(int(o.guard)))
	for _, x := range []*opnd{&o.d, &o.d2} {
		switch x.kind {
		case oReg:
			if x.reg == 255 {
				x.row = uint16(p.rowSink())
			} else {
				x.row = uint16(x.reg)
			}
		case oPred:
			if x.reg == 7 {
				x.row = uint16(p.rowPSink())
			} else {
				x.row = uint16(p.rowP(int(x.reg)))
			}
		case oAddr:
			mapSrc(x)
		}
	}
}

// lowerInst lowers one decoded instruction at addr from its typed operands
// (maxwell.Inst.Operands): every register, predicate, immediate (with the
// sign and width the spec gives its field), constant reference and
// modifier comes from the encoded fields, never from the printed text.
func lowerInst(inst maxwell.Inst, addr uint64) (op, error) {
	if inst.Word == 0 {
		// nvdisasm lists the all-zero word as NOP, but no compiler emits it
		// (padding is the NOP encoding) and what the hardware does with it
		// is unknown: reaching one means the code ran into zeroed memory
		return op{}, fmt.Errorf("an all-zero instruction word (listed as NOP; what the hardware does with it is unknown)")
	}
	ops := inst.Operands(addr)
	o := op{guard: uint16(ops.Guard.Reg), gnot: ops.Guard.Not}
	name := ops.Op
	// room for the usual counts, on the stack when build keeps neither
	mods := make([]string, 0, 8)
	x := make([]opnd, 0, 8)
	for _, m := range ops.Mods {
		if m.IsZero() {
			break
		}
		if m.Name() == "CCE" { // a condition-code test after the mnemonic: EXIT CC.LT
			if m.Text() != "" {
				cc, err := ccOperand(m)
				if err != nil {
					return o, err
				}
				x = append(x, cc)
			}
			continue
		}
		mods = appendModNames(mods, m.Text())
	}
	args := ops.Args[:ops.NArgs()]
	if isTexName(name) {
		return lowerTex(o, name, mods, args)
	}
	if name == "BRX" || name == "JMX" {
		return lowerIndirect(o, name, args)
	}
	// LOP, LOP3 and LEA may write a predicate first; PT writes nothing
	if (name == "LOP" || name == "LOP3" || name == "LEA") && len(args) > 0 && isPT(args[0]) {
		args = args[1:]
	}
	if name == "B2R" && len(args) > 1 && isPT(args[len(args)-1]) {
		args = args[:len(args)-1] // B2R.RESULT Rd, PT: no predicate written
	}
	for i := range args {
		a := &args[i]
		if a.Kind == maxwell.ArgEnum && a.Mod.Name() == "CC" && a.Mod.Text() == "" {
			continue // no condition-code test (CC.T)
		}
		v, err := operand(a)
		if err != nil {
			return o, err
		}
		if a.Mod.Name() == "CC" && a.Kind == maxwell.ArgReg {
			o.flags |= fCC // Rd.CC: writes the carry flag
		}
		x = append(x, v)
	}
	if err := build(&o, name, mods, x, inst.Word); err != nil {
		return o, err
	}
	return o, nil
}

func isPT(a maxwell.Arg) bool { return a.Kind == maxwell.ArgPred && a.Reg == 7 && !a.Not }

// appendModNames appends a modifier's dot-separated names: ".U.128" is U
// and 128, as build and lowerTex look them up.
func appendModNames(mods []string, text string) []string {
	for text != "" {
		var part string
		part, text, _ = strings.Cut(text, ".")
		if part != "" {
			mods = append(mods, part)
		}
	}
	return mods
}

// lowerIndirect lowers BRX Ra imm (to Ra + the next instruction's address
// + imm) and JMX Ra imm (to the absolute address Ra + imm).
func lowerIndirect(o op, name string, args []maxwell.Arg) (op, error) {
	if len(args) > 0 && args[0].Kind == maxwell.ArgEnum {
		if args[0].Mod.Text() != "" {
			cc, err := ccOperand(args[0].Mod)
			if err != nil {
				return o, err
			}
			o.s[2], o.flags = cc, o.flags|fCCTest
		}
		args = args[1:]
	}
	if len(args) != 2 || args[0].Kind != maxwell.ArgReg || args[1].Kind != maxwell.ArgImm {
		return o, fmt.Errorf("%s through a constant bank is not supported", name)
	}
	o.kind = kBrx
	if name == "JMX" {
		o.kind = kJmx
	}
	o.s[0] = opnd{kind: oReg, reg: args[0].Reg, bc: -1}
	o.s[1] = opnd{kind: oImm, imm: uint64(args[1].Imm), bc: -1}
	return o, nil
}

// selectors are the halves and bytes an operand's suffix selects (opnd.sel).
var selectors = map[string]uint8{"": 0, ".H0": 1, ".H1": 2, ".B0": 3, ".B1": 4, ".B2": 5, ".B3": 6, ".H0_H0": 7, ".H1_H1": 8, ".CC": 0}

// operand converts a typed operand.
func operand(a *maxwell.Arg) (opnd, error) {
	x := opnd{bc: -1, neg: a.Neg, abs: a.Abs, not: a.Not}
	switch a.Kind {
	case maxwell.ArgReg, maxwell.ArgConst, maxwell.ArgImm, maxwell.ArgFloat:
		// a half or byte of the operand's 32 bits (.H1, .B2, .H0_H0)
		s, ok := selectors[a.Mod.Text()]
		if !ok {
			return x, fmt.Errorf("operand selector %s is not supported", a.Mod.Text())
		}
		x.sel = s
	}
	switch a.Kind {
	case maxwell.ArgReg, maxwell.ArgConst:
		if a.Kind == maxwell.ArgReg {
			x.kind, x.reg = oReg, a.Reg
			return x, nil
		}
		if a.Bank >= 16 {
			return x, fmt.Errorf("constant bank %d does not exist (0..15)", a.Bank)
		}
		x.bank, x.imm = a.Bank, uint64(a.Imm)
		x.kind = oConst
		if a.Reg != 255 {
			x.kind, x.reg = oCIdx, a.Reg
		}
		return x, nil
	case maxwell.ArgPred:
		x.kind, x.reg = oPred, a.Reg
		return x, nil
	case maxwell.ArgImm:
		x.kind, x.imm = oImm, uint64(a.Imm)
		return x, nil
	case maxwell.ArgFloat:
		x.kind = oImm
		switch a.Float {
		case maxwell.FloatF64Hi:
			x.imm = uint64(a.Imm) >> 32 // the high word: val64 puts it back on top
		default:
			x.imm = uint64(a.Imm)
		}
		return x, nil
	case maxwell.ArgMem:
		if a.Space == maxwell.SpaceAttr || a.Space == maxwell.SpaceISBE || a.Space == maxwell.SpacePixel {
			return x, fmt.Errorf("%s memory is not supported", a.Space)
		}
		x.kind, x.reg, x.imm = oAddr, a.Reg, uint64(a.Imm)
		return x, nil
	case maxwell.ArgTarget:
		x.kind, x.imm = oImm, uint64(a.Imm)
		return x, nil
	case maxwell.ArgSpecial:
		s, ok := sregs[a.Mod.Text()]
		if !ok {
			return x, fmt.Errorf("special register %s is not supported", a.Mod.Text())
		}
		x.kind, x.imm = oSReg, uint64(s)
		return x, nil
	case maxwell.ArgCC:
		x.kind = oCC
		return x, nil
	case maxwell.ArgEnum:
		switch a.Mod.Name() {
		case "PRCC":
			if a.Mod.Text() == "PR" {
				x.kind = oPR
			} else {
				x.kind = oCC
			}
			return x, nil
		case "CC":
			return ccOperand(a.Mod)
		}
		return x, nil // DEPBAR's scoreboard: nothing to wait for here
	}
	return x, fmt.Errorf("operand kind %v not understood", a.Kind)
}

// ccOperand is a condition-code test (the CC and CCE tables): its value is the
// comparison code (0..15, T = no test) or one of the flag tests after it.
func ccOperand(m maxwell.Mod) (opnd, error) {
	if m.Value >= 24 {
		return opnd{}, fmt.Errorf("condition code test %s is not supported", m.Text())
	}
	return opnd{kind: oCC, imm: uint64(m.Value), bc: -1}, nil
}
