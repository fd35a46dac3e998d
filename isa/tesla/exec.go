package tesla

import "strings"

// This file is the emulator's view of an instruction: the operands and
// modifiers the spec's template gives, resolved into plain values, so that
// package emu/tesla never re-describes a bit field. It is called once per
// instruction when a program is lowered, so it may allocate.

// OpndKind is the kind of a resolved operand.
type OpndKind uint8

const (
	OpNone     OpndKind = iota
	OpReg               // general register Reg (a 16-bit half when Half: Reg>>1 is the register, Reg&1 the high half)
	OpOut               // o[Reg]: an output, a bit bucket in compute kernels
	OpShared            // g[A+Offset] shared memory
	OpConst             // c[Bank][A+Offset] constant memory
	OpGlobal            // global memory at the address in register Reg (segment Bank)
	OpLocal             // l[A+Offset] local memory
	OpImm               // Imm
	OpAddrReg           // address register A<Reg>
	OpCondReg           // condition register C<Reg>
	OpSpecial           // special register SR<Reg>
	OpTarget            // code address Imm
	OpBarrier           // barrier Reg, thread count Imm (next operand)
	OpEnum              // a named choice printed among the operands (Text), e.g. a SET condition
	OpGraphics          // graphics-only operands: Text "a", "v", "o" (a[A+Offset] memory, Offset the index as printed) or "mask" (a texture mask, Imm)
)

// Operand is one resolved operand.
type Operand struct {
	Kind   OpndKind
	Reg    uint8
	Half   bool  // 16-bit register half
	Areg   uint8 // address register added to memory offsets (0 = none)
	Inc    bool  // post-increment: the address register advances by Offset after the access
	Size   uint8 // memory access size in bytes (1, 2, 4)
	Signed bool  // sign-extending 8/16-bit memory access
	Bank   uint8 // constant bank, or the global segment
	Offset uint32
	Imm    uint32
	Neg    bool // printed "-" before it
	Not    bool // printed "~"
	Abs    bool // printed "|x|"
	Text   string
}

// Exec is an instruction resolved for execution.
type Exec struct {
	Sem      string   // the spec's semantic class
	Mnemonic string   // the printed mnemonic without .S and .Cn, e.g. "IMAD.SAT.HI.S24"
	Mods     []string // its dot-separated parts after the name: "SAT", "HI", "S24"
	// Operands in template order (guards excluded); Operands[0] is the
	// destination for instructions that have one.
	Operands []Operand
	Pred     uint8 // condition register tested by the guard (or the carry input)
	Cond     uint8 // guard condition, 0xf = always
	CCWrite  bool  // writes condition register CCReg
	CCReg    uint8
	Join     bool // .S: a join point
	Exit     bool // end-of-program marker: the thread ends after this instruction
	Long     bool // 64-bit instruction
	// Carry: an add with carry in, whose C flag comes from condition register
	// CarryReg (the "(C0)" of short forms, the pr field of long ones).
	Carry    bool
	CarryReg uint8
}

// Resolve resolves an instruction's operands and modifiers.
func (i Inst) Resolve() Exec {
	f := &forms[i.Form]
	v := i.Raw
	e := Exec{Sem: f.sem, Cond: condAlways, Join: i.Join(), Exit: i.Exit(), Long: i.Len == 8}
	if f.class == ClassLong || f.class == ClassFlow {
		e.Pred, e.Cond = uint8(f_pr.Get(v)), uint8(f_cond.Get(v))
		e.CarryReg = e.Pred
		if f.ignore&f_cond.Mask() != 0 {
			e.Pred, e.Cond = 0, condAlways // the form ignores its guard bits (SSY, BRX, ...)
		}
	}
	if f.class == ClassLong && f_ccw.Get(v) != 0 {
		e.CCWrite, e.CCReg = true, uint8(f_ccr.Get(v))
	}
	var mn []byte
	for k := range f.mnem {
		p := &f.mnem[k]
		if p.kind == pieceJoin || p.kind == pieceCC {
			continue
		}
		mn = appendPiece(mn, f, p, v)
	}
	e.Mnemonic = string(mn)
	if parts := strings.Split(e.Mnemonic, "."); len(parts) > 1 {
		e.Mods = parts[1:]
	}
	for _, m := range e.Mods {
		if m == "CARRY" {
			e.Carry = true
		}
	}
	var pending Operand // prefix modifiers seen before the next operand
	for k := range f.opnds {
		p := &f.opnds[k]
		var text string
		switch p.kind {
		case pieceLit:
			text = p.text
		case pieceFlag:
			if p.field.Get(v) == 1 {
				text = p.text
			}
		case pieceNotFlag:
			if p.field.Get(v) == 0 {
				text = p.text
			}
		case pieceEnum:
			e.Operands = append(e.Operands, Operand{Kind: OpEnum, Text: p.opts[p.field.Get(v)]})
			continue
		case pieceOperand:
			switch p.opnd {
			case opnd_guard, opnd_fcond, opnd_fcond0, opnd_r2ash:
				if p.opnd == opnd_r2ash {
					e.Operands = append(e.Operands, Operand{Kind: OpImm, Imm: uint32(f_s2.Get(v))})
				}
				continue
			case opnd_cguard:
				e.Carry, e.CarryReg = true, uint8(f_pr.Get(v))
				continue
			}
			half := p.half || p.wide && p.field.Get(v)&1 == 0
			o := resolveOperand(f, p, half, v)
			o.Neg, o.Not, o.Abs = pending.Neg, pending.Not, pending.Abs
			pending = Operand{}
			e.Operands = append(e.Operands, o)
			continue
		}
		// literal text between operands: prefixes of the next operand, or
		// the " (C0)" carry input of short add-with-carry forms
		if strings.Contains(text, "(C0)") {
			e.Carry, e.CarryReg = true, 0
		}
		for _, c := range text {
			switch c {
			case '-':
				pending.Neg = true
			case '~':
				pending.Not = true
			case '|':
				if k+1 < len(f.opnds) && f.opnds[k+1].kind == pieceOperand {
					pending.Abs = true
				}
			}
		}
	}
	return e
}

var memSizes = [4]uint8{1, 2, 2, 4}

func memOperand(kind OpndKind, m memRef, bank uint64) Operand {
	size := memSizes[m.typ&3]
	return Operand{Kind: kind, Areg: uint8(m.areg), Inc: m.inc, Size: size, Signed: m.typ == 2,
		Bank: uint8(bank), Offset: uint32(m.idx) * uint32(size)}
}

// halfConst makes a c[] source of a 16-bit operation a 16-bit access: its
// index counts 16-bit units (FlexGrip's transpose reads c[0x1][0x2] as the
// u16 at byte 4 in IMAD.U16 and as the word at byte 8 in LOP.AND).
func halfConst(m memRef, half bool) memRef {
	if half {
		m.typ = 1
	}
	return m
}

// mtypeSizes are the GLD/GST/LLD/LST access sizes by mtype (0 = invalid).
var mtypeSizes = [8]uint8{1, 1, 2, 2, 8, 16, 4, 0}

func resolveOperand(f *form, p *piece, half bool, v uint64) Operand {
	c := f.class
	reg := func(r uint64) Operand { return Operand{Kind: OpReg, Reg: uint8(r), Half: half} }
	switch p.opnd {
	case opnd_dst:
		if c == ClassLong {
			if f_odst.Get(v) != 0 {
				return Operand{Kind: OpOut, Reg: uint8(f_dst.Get(v))}
			}
			return reg(f_dst.Get(v))
		}
		return reg(f_sdst.Get(v))
	case opnd_s1:
		if s1IsShared(c, v) {
			return memOperand(OpShared, shared1(c, v), 0)
		}
		if c == ClassLong {
			return reg(f_s1.Get(v))
		}
		return reg(f_ss1.Get(v))
	case opnd_s2:
		switch c {
		case ClassLong:
			if f_c2.Get(v) != 0 {
				m := constAreg(v)
				m.idx = f_s2.Get(v)
				return memOperand(OpConst, halfConst(m, half), f_bank.Get(v))
			}
			return reg(f_s2.Get(v))
		case ClassImm:
			return Operand{Kind: OpImm, Imm: uint32(immValue(v))}
		}
		if f_sc2.Get(v) != 0 {
			return memOperand(OpConst, halfConst(memRef{idx: f_ss2.Get(v), typ: 3}, half), 0)
		}
		return reg(f_ss2.Get(v))
	case opnd_s3:
		if f_c3.Get(v) != 0 {
			m := constAreg(v)
			m.idx = f_s3.Get(v)
			return memOperand(OpConst, halfConst(m, half), f_bank.Get(v))
		}
		return reg(f_s3.Get(v))
	case opnd_s3r:
		return reg(f_s3.Get(v))
	case opnd_imm, opnd_imms:
		return Operand{Kind: OpImm, Imm: uint32(immValue(v))}
	case opnd_shc:
		return Operand{Kind: OpImm, Imm: uint32(f_s2.Get(v))}
	case opnd_tgt:
		return Operand{Kind: OpTarget, Imm: uint32(f_tgt.Get(v) | f_tgthi.Get(v)<<19)}
	case opnd_gmem:
		return Operand{Kind: OpGlobal, Reg: uint8(f_s1.Get(v)), Bank: uint8(f_s2.Get(v)), Size: mtypeSizes[f_mtype.Get(v)],
			Signed: f_mtype.Get(v) == 1 || f_mtype.Get(v) == 3}
	case opnd_lmem:
		size := mtypeSizes[f_mtype.Get(v)]
		return Operand{Kind: OpLocal, Areg: uint8(longAreg(v)), Inc: f_ainc.Get(v) != 0, Size: size,
			Signed: f_mtype.Get(v) == 1 || f_mtype.Get(v) == 3, Offset: uint32(f_saddr.Get(v)) * uint32(max(size, 1))}
	case opnd_smemw:
		// R2G: the store size is given by the r2gsz field (U16, U32, U8);
		// G2R: by ldsz (U8, U16, S16, U32)
		size, signed := [4]uint8{2, 4, 1, 0}[f_r2gsz.Get(v)], false
		if strings.HasPrefix(f.sem, "ld.shared") {
			size, signed = [4]uint8{1, 2, 2, 4}[f_ldsz.Get(v)], f_ldsz.Get(v) == 2
		}
		return Operand{Kind: OpShared, Areg: uint8(longAreg(v)), Inc: f_ainc.Get(v) != 0, Size: size, Signed: signed,
			Offset: uint32(f_saddr.Get(v)) * uint32(max(size, 1))}
	case opnd_cmem:
		return memOperand(OpConst, memRef{areg: longAreg(v), inc: f_ainc.Get(v) != 0, idx: f_saddr.Get(v), typ: f_ctype.Get(v)}, f_bank.Get(v))
	case opnd_bxmem:
		// BRX: a code address read from c[] (bxoff is a byte offset)
		return Operand{Kind: OpConst, Areg: uint8(longAreg(v)), Size: 4, Bank: uint8(f_bank.Get(v)), Offset: uint32(f_bxoff.Get(v))}
	case opnd_s1r:
		return reg(f_s1.Get(v))
	case opnd_s2r:
		return reg(f_s2.Get(v))
	case opnd_rdst:
		return reg(f_dst.Get(v))
	case opnd_gred, opnd_gatom:
		seg := f_gseg.Get(v)
		if p.opnd == opnd_gatom {
			seg = f_gseg2.Get(v)
		}
		size := uint8(4) // .U32, .S32
		if f_mtype.Get(v) == 4 {
			size = 8 // .U64
		}
		return Operand{Kind: OpGlobal, Reg: uint8(f_s1.Get(v)), Bank: uint8(seg), Size: size, Signed: f_mtype.Get(v) == 7}
	case opnd_omem:
		return Operand{Kind: OpGraphics, Text: "o", Areg: uint8(longAreg(v)), Offset: uint32(f_saddr.Get(v))}
	case opnd_amem:
		return Operand{Kind: OpGraphics, Text: "a", Areg: uint8(longAreg(v)), Offset: uint32(f_s1.Get(v))}
	case opnd_vmem:
		return Operand{Kind: OpGraphics, Text: "v", Areg: uint8(longAreg(v)), Offset: uint32(f_vidx.Get(v))}
	case opnd_texmask:
		return Operand{Kind: OpGraphics, Text: "mask", Imm: uint32(f_tmlo.Get(v) | f_tmhi.Get(v)<<2)}
	case opnd_adst:
		return Operand{Kind: OpAddrReg, Reg: uint8(f_dst.Get(v))}
	case opnd_asrc:
		return Operand{Kind: OpAddrReg, Reg: uint8(longAreg(v))}
	case opnd_adaimm:
		return Operand{Kind: OpImm, Imm: uint32(f_adaimm.Get(v))}
	case opnd_sreg:
		return Operand{Kind: OpSpecial, Reg: uint8(f_sreg.Get(v))}
	case opnd_creg:
		return Operand{Kind: OpCondReg, Reg: uint8(f_pr.Get(v))}
	case opnd_cdst:
		return Operand{Kind: OpCondReg, Reg: uint8(f_ccr.Get(v))}
	case opnd_bar:
		return Operand{Kind: OpBarrier, Reg: uint8(f_barid.Get(v))}
	case opnd_barcnt:
		return Operand{Kind: OpImm, Imm: uint32(f_barcnt.Get(v))}
	case opnd_hex:
		return Operand{Kind: OpImm, Imm: uint32(p.field.Get(v))}
	}
	return Operand{}
}
