package maxwell

import (
	"encoding/binary"
	"fmt"
	"strconv"
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
	p := &Program{sm: sm}
	maxReg := 0
	for b := 0; b+32 <= len(code); b += 32 {
		ctrl := binary.LittleEndian.Uint64(code[b:])
		for s := range 3 {
			w := binary.LittleEndian.Uint64(code[b+8+8*s:])
			addr := uint64(b + 8 + 8*s)
			inst, err := maxwell.Decode(w, maxwell.CtrlField(ctrl, s), sm, addr)
			var o op
			text := ""
			if err != nil {
				o.kind = kInvalid
				err = fmt.Errorf("invalid instruction %#016x: %v", w, err)
			} else {
				text = maxwell.Print(inst, addr)
				o, err = lowerText(text, w)
				if err != nil {
					o = op{kind: kInvalid}
				}
			}
			for _, x := range append([]opnd{o.d, o.d2}, o.s[:]...) {
				if x.kind == oReg || x.kind == oAddr || x.kind == oCIdx {
					if x.reg != 255 {
						maxReg = max(maxReg, int(x.reg))
					}
				}
			}
			p.ops = append(p.ops, o)
			p.texts = append(p.texts, strings.TrimSuffix(strings.TrimSpace(text), ";"))
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
	return p, nil
}

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

// lowerText lowers one instruction from its printed text (and raw word, for
// float immediates).
func lowerText(text string, word uint64) (op, error) {
	o := op{guard: 7}
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), ";"))
	if strings.HasPrefix(t, "@") {
		g, rest, _ := strings.Cut(t[1:], " ")
		if strings.HasPrefix(g, "!") {
			o.gnot, g = true, g[1:]
		}
		n, ok := predNum(g)
		if !ok {
			return o, fmt.Errorf("bad guard %q", g)
		}
		o.guard = uint16(n)
		t = strings.TrimSpace(rest)
	}
	mn, rest, _ := strings.Cut(t, " ")
	parts := strings.Split(mn, ".")
	name, mods := parts[0], parts[1:]
	if isTexName(name) {
		return lowerTex(o, name, mods, rest)
	}
	if name == "BRX" || name == "JMX" {
		// BRX Ra imm: to Ra + the next instruction's address + imm;
		// JMX Ra[ imm]: to the absolute address Ra + imm
		f := strings.Fields(rest)
		if len(f) > 0 && strings.HasPrefix(f[0], "CC.") {
			cc, err := parseCCTest(opnd{}, strings.TrimSuffix(f[0], ","))
			if err != nil {
				return o, fmt.Errorf("%s: %v", text, err)
			}
			o.s[2], o.flags, f = cc, o.flags|fCCTest, f[1:]
		}
		if len(f) == 1 && name == "JMX" {
			f = append(f, "0x0")
		}
		if len(f) != 2 {
			return o, fmt.Errorf("%s: %s operands not understood", text, name)
		}
		r, ok := regNum(strings.TrimSuffix(f[0], ".reuse"))
		v, err := parseInt(f[1])
		if !ok || err != nil {
			return o, fmt.Errorf("%s: %s operands not understood", text, name)
		}
		o.kind = kBrx
		if name == "JMX" {
			o.kind = kJmx
		}
		o.s[0] = opnd{kind: oReg, reg: uint8(r), bc: -1}
		o.s[1] = opnd{kind: oImm, imm: v, bc: -1}
		return o, nil
	}
	args := splitArgs(rest)
	ops := make([]opnd, 0, len(args))
	for _, a := range args {
		x, err := parseOperand(a, name, word)
		if err != nil {
			return o, fmt.Errorf("%s: %v", text, err)
		}
		ops = append(ops, x)
	}
	if err := build(&o, name, mods, ops, word); err != nil {
		return o, fmt.Errorf("%s: %v", text, err)
	}
	if len(args) > 0 && strings.HasSuffix(strings.ReplaceAll(args[0], ".reuse", ""), ".CC") {
		o.flags |= fCC
	}
	return o, nil
}

// splitArgs splits an operand list at top-level commas.
func splitArgs(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

func predNum(s string) (int, bool) {
	if s == "PT" {
		return 7, true
	}
	if len(s) == 2 && s[0] == 'P' && s[1] >= '0' && s[1] <= '6' {
		return int(s[1] - '0'), true
	}
	return 0, false
}

func regNum(s string) (int, bool) {
	if s == "RZ" {
		return 255, true
	}
	if len(s) < 2 || s[0] != 'R' {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	return n, err == nil && n >= 0 && n < 255
}

func parseInt(s string) (uint64, error) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if neg {
		v = -v
	}
	return v, err
}

// floatImm is the 32-bit float (or the high word of a double) an ALU word
// holds: 32-bit forms keep it in bits 20..51, the others keep its top 20 bits
// (bit 56 the sign).
func floatImm(name string, word uint64) uint64 {
	if strings.HasSuffix(name, "32I") {
		return word >> 20 & 0xffffffff
	}
	return (word>>20&0x7ffff | word>>56&1<<19) << 12
}

var selNames = map[string]uint8{"H0": 1, "H1": 2, "B0": 3, "B1": 4, "B2": 5, "B3": 6, "H0_H0": 7, "H1_H1": 8, "H1_H0": 0}

func parseOperand(a, name string, word uint64) (opnd, error) {
	x := opnd{bc: -1}
	a = strings.ReplaceAll(a, " ", "")
	a = strings.ReplaceAll(a, ".reuse", "")
	for {
		switch {
		case strings.HasPrefix(a, "-") && len(a) > 1 && (a[1] == 'R' || a[1] == 'c' || a[1] == '|'):
			x.neg, a = true, a[1:]
			continue
		case strings.HasPrefix(a, "~"):
			x.not, a = true, a[1:]
			continue
		case strings.HasPrefix(a, "!"):
			x.not, a = true, a[1:]
			continue
		case strings.HasPrefix(a, "|") && strings.HasSuffix(a, "|"):
			x.abs, a = true, a[1:len(a)-1]
			continue
		}
		break
	}
	if strings.HasPrefix(a, "CC.") {
		return parseCCTest(x, a)
	}
	// half/byte selectors and .CC on destinations
	for {
		i := strings.LastIndex(a, ".")
		if i < 0 || strings.HasPrefix(a, "SR_") {
			break
		}
		if s, ok := selNames[a[i+1:]]; ok {
			x.sel, a = s, a[:i]
			continue
		}
		if a[i+1:] == "CC" || a[i+1:] == "64" || a[i+1:] == "U32" {
			a = a[:i]
			continue
		}
		break
	}
	if n, ok := regNum(a); ok {
		x.kind, x.reg = oReg, uint8(n)
		return x, nil
	}
	if a == "CC" {
		x.kind = oCC
		return x, nil
	}

	if a == "PR" {
		x.kind = oPR
		return x, nil
	}
	if n, ok := predNum(a); ok {
		x.kind, x.reg = oPred, uint8(n)
		return x, nil
	}
	if strings.HasPrefix(a, "SR_") || strings.HasPrefix(a, "SRZ") {
		s, ok := sregs[a]
		if !ok {
			return x, fmt.Errorf("special register %s is not supported", a)
		}
		x.kind, x.imm = oSReg, uint64(s)
		return x, nil
	}
	if strings.HasPrefix(a, "c[") {
		i := strings.Index(a, "]")
		bank, err := parseInt(a[2:i])
		if err != nil || !strings.HasPrefix(a[i+1:], "[") || !strings.HasSuffix(a, "]") {
			return x, fmt.Errorf("bad constant operand %q", a)
		}
		if bank >= 16 {
			return x, fmt.Errorf("constant bank %d does not exist (0..15)", bank)
		}
		x.bank = uint8(bank)
		inner := a[i+2 : len(a)-1]
		if r, off, ok := strings.Cut(inner, "+"); ok || inner[0] == 'R' {
			n, rok := regNum(r)
			if !rok {
				return x, fmt.Errorf("bad constant operand %q", a)
			}
			x.kind, x.reg = oCIdx, uint8(n)
			if ok {
				v, err := parseInt(off)
				if err != nil {
					return x, fmt.Errorf("bad constant offset %q", a)
				}
				x.imm = v
			}
			return x, nil
		}
		v, err := parseInt(inner)
		if err != nil {
			return x, fmt.Errorf("bad constant offset %q", a)
		}
		x.kind, x.imm = oConst, v
		return x, nil
	}
	if strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]") {
		inner := a[1 : len(a)-1]
		x.kind, x.reg = oAddr, 255
		r, off, ok := strings.Cut(inner, "+")
		if n, rok := regNum(strings.TrimSuffix(r, ".64")); rok {
			x.reg = uint8(n)
			if !ok {
				return x, nil
			}
			inner = off
		}
		v, err := parseInt(inner)
		if err != nil {
			return x, fmt.Errorf("bad address %q", a)
		}
		x.imm = v
		return x, nil
	}
	if strings.HasPrefix(a, "SB") && len(a) == 3 {
		return x, nil // DEPBAR's scoreboard: nothing to wait for here
	}
	if strings.HasPrefix(a, "{") {
		return x, nil // DEPBAR's scoreboard set: nothing to do
	}
	// integer immediates print in hex; decimal literals are floats, whose
	// exact bits are in the word
	if strings.HasPrefix(a, "0x") || strings.HasPrefix(a, "-0x") {
		if v, err := parseInt(a); err == nil {
			x.kind, x.imm = oImm, v
			return x, nil
		}
	}
	// a float literal: the exact bits are in the word
	if a == "+INF" || a == "-INF" || a == "+QNAN" || a == "-QNAN" || a == "+SNAN" || a == "-SNAN" || isFloat(a) {
		x.kind, x.imm = oImm, floatImm(name, word)
		return x, nil
	}
	return x, fmt.Errorf("operand %q not understood", a)
}

func isFloat(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func parseCCTest(x opnd, a string) (opnd, error) {
	t := strings.TrimPrefix(a, "CC.")
	c, ok := cmpCodes[t]
	if !ok {
		c, ok = ccTests[t]
	}
	if !ok {
		return x, fmt.Errorf("condition code test %q not understood", a)
	}
	x.kind, x.imm = oCC, uint64(c)
	return x, nil
}
