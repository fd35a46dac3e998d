package usse

// Typed operands for programs that execute or analyse instructions (the
// emulator): what each register operand of a form's syntax names, resolved
// from the decoded fields exactly as the printer resolves them (bank lists,
// doubled numbers, the internal registers at the top of the temp bank,
// swizzle tables), so that nothing about an operand is described twice.

// Bank is the register bank an operand names.
type Bank uint8

const (
	BankNone      Bank = iota
	BankTemp           // r
	BankOutput         // o
	BankPrimary        // pa
	BankSecondary      // sa
	BankInternal       // i0..i3 (128 bits each)
	BankConst          // c0..c63: the hard-wired constant table
	BankGlobal         // g0..g63: global (special) registers
	BankImm            // an immediate value
	BankIndex          // the index registers (a destination)
	BankIndexed        // r/o/pa/sa addressed through index register 1 or 2
)

var bankNames = [...]string{"none", "r", "o", "pa", "sa", "i", "c", "g", "imm", "idx", "indexed"}

func (b Bank) String() string {
	if int(b) < len(bankNames) {
		return bankNames[b]
	}
	return "bank?"
}

// Operand is one register operand of an instruction, in the order the syntax
// template names them (destination first where the instruction has one).
type Operand struct {
	Bank Bank
	// Num is the register number in 32-bit registers (doubling applied);
	// BankInternal: 0..3; BankConst, BankGlobal: the table index;
	// BankImm: the value; BankIndex: the index register; BankIndexed: the
	// offset added to twice the index register.
	Num uint32
	// Base and IndexReg: for BankIndexed, the bank addressed and the index
	// register (1 or 2).
	Base     Bank
	IndexReg uint8
	// Swizzle is the operand's swizzle entry as the spec spells it
	// ("xyzw", "xy1", "zw", channels from "xyzw012h"); "" when it has none.
	Swizzle string
	// Half: constants are read from the f16 tables (rswh elements).
	Half bool
	// Neg, Abs: the source modifiers the template attaches to the operand.
	Neg, Abs bool
}

// Operands appends in's register operands to dst, in syntax order. Optional
// operands the text leaves out (oreg, nreg) are included: the hardware
// reads them. Dual-issue words have their own view (Dual).
func (in *Inst) Operands(dst []Operand) []Operand {
	f, v := in.syntax()
	if v == nil {
		return dst
	}
	var neg, abs bool // modifiers waiting for their operand
	add := func(o Operand) {
		o.Neg, o.Abs = o.Neg || neg, o.Abs || abs
		neg, abs = false, false
		dst = append(dst, o)
	}
	for i := range v.elems {
		e := &v.elems[i]
		switch e.kind {
		case kNeg:
			neg = neg || in.Args[e.f[0]] != 0
		case kAbsl:
			abs = abs || in.Args[e.f[0]] != 0
		case kModl:
			m := in.Args[e.f[0]]
			neg, abs = neg || m&1 != 0, abs || m&2 != 0
		case kReg, kRegx, kRegm, kOreg, kNreg:
			add(regOperand(f, e, in, uint32(regMult(f, e, in))))
		case kRsw, kRswh:
			mult := uint32(1)
			if f.fields[e.f[2]].width == 6 {
				mult = 2
			}
			o := regOperand(f, e, in, mult)
			o.Half = rswHalf(e, in)
			if e.f[3] >= 0 {
				if ti, idx, ok := swizzleAt(f, uint8(e.tab2), e.f[3], e.f[4], rswSel(e), in); ok {
					o.Swizzle = swizzleTables[ti][idx]
				}
			}
			add(o)
		case kGsw:
			o := Operand{Bank: BankInternal, Num: in.Args[e.f[0]]}
			if ti, idx, ok := swizzleAt(f, e.table, e.f[1], e.f[2], e.f[4], in); ok {
				o.Swizzle = swizzleTables[ti][idx]
			}
			add(o)
		case kGpi:
			add(Operand{Bank: BankInternal, Num: in.Args[e.f[0]]})
		case kPsrc:
			r1, r2, _ := psrcParts(e)
			add(regOperand(f, &r1, in, uint32(regMult(f, &r1, in))))
			add(regOperand(f, &r2, in, uint32(regMult(f, &r2, in))))
		case kSwz: // the swizzle of the register before it
			if n := len(dst); n > 0 {
				if ti, idx, ok := swizzleAt(f, e.table, e.f[0], e.f[1], e.f[3], in); ok {
					dst[n-1].Swizzle = swizzleTables[ti][idx]
				}
			}
		case kSwzf:
			if n := len(dst); n > 0 {
				sw := in.Args[e.f[0]]
				var b [4]byte
				for c := range b {
					b[c] = swizzleChans[sw>>(3*c)&7]
				}
				dst[n-1].Swizzle = string(b[:])
			}
		}
	}
	return dst
}

// syntax is in's form and the syntax variant that prints it (nil, nil
// when there is none).
func (in *Inst) syntax() (*form, *variant) {
	if in.Form < 0 || int(in.Form) >= len(forms) {
		return nil, nil
	}
	f := &forms[in.Form]
	return f, f.variant(in)
}

// regOperand resolves a register element's fields (bank, bank extension,
// number) with numbering factor mult, as the printer shows them.
func regOperand(f *form, e *elem, in *Inst, mult uint32) Operand {
	return regOperandAt(e.table, f.fields[e.f[2]].width, bankIndex(f, e, in), in.Args[e.f[2]], mult)
}

// regOperandAt is regOperand of number num (a w-bit field) in entry bi of
// bank table t.
func regOperandAt(t uint8, w uint8, bi int, num uint32, mult uint32) Operand {
	if bi >= 8 {
		return Operand{}
	}
	switch k := bankKinds[t][bi]; k {
	case bkR:
		if lim := uint32(1)<<w - 4; num >= lim {
			return Operand{Bank: BankInternal, Num: num - lim}
		}
		return Operand{Bank: BankTemp, Num: num * mult}
	case bkO, bkPa, bkSa:
		return Operand{Bank: bank4Kinds[k], Num: num * mult}
	case bkSpecial:
		if num&0x40 != 0 {
			return Operand{Bank: BankGlobal, Num: num & 0x3f}
		}
		return Operand{Bank: BankConst, Num: num}
	case bkImm:
		return Operand{Bank: BankImm, Num: num}
	case bkIndex:
		return Operand{Bank: BankIndex, Num: num}
	case bkIdx1, bkIdx2:
		return Operand{Bank: BankIndexed, Base: bank4Kinds[num>>(w-2)], IndexReg: uint8(1 + k - bkIdx1),
			Num: (num & (1<<(w-2) - 1)) * mult}
	}
	return Operand{}
}

// bank4Kinds maps bkR..bkSa (the bank4 order r o pa sa) to Bank.
var bank4Kinds = [4]Bank{BankTemp, BankOutput, BankPrimary, BankSecondary}

// Enum returns the text of the named field as the syntax spells it through
// an enum table ("mul", "f16", "rsq"), and whether the active syntax prints
// the field through one.
func (in *Inst) Enum(field string) (string, bool) {
	f, v := in.syntax()
	if v == nil {
		return "", false
	}
	for i := range v.elems {
		e := &v.elems[i]
		switch e.kind {
		case kE, kEo, kPfx:
			if f.fields[e.f[0]].name == field {
				return enumTables[e.table][in.Args[e.f[0]]], true
			}
		case kPck, kFmt2:
			for _, fi := range e.f[:2] {
				if f.fields[fi].name == field {
					return enumTables[e.table][in.Args[fi]], true
				}
			}
		}
	}
	return "", false
}

// ConstValue is what hard-wired constant register n reads in channel c
// ('x' 'y' 'z' 'w', or a constant selector '0' '1' '2' 'h'), as f32 bits;
// half selects the f16 tables (the value is still returned widened to f32).
func ConstValue(n uint32, c byte, half bool) uint32 { return constValue(n, c, half) }

// FieldIndex returns the index in Args of the named field of form fi (as
// Inst.Form), or -1; callers that read a field of many instructions of one
// form look it up once.
func FieldIndex(fi int16, name string) int {
	if fi < 0 || int(fi) >= len(forms) {
		return -1
	}
	for i := range forms[fi].fields {
		if forms[fi].fields[i].name == name {
			return i
		}
	}
	return -1
}

// FormName is the spec name of form fi (as Inst.Form), or "".
func FormName(fi int16) string {
	if fi < 0 || int(fi) >= len(forms) {
		return ""
	}
	return forms[fi].name
}

// NumForms is the number of instruction forms in the spec.
func NumForms() int { return len(forms) }

// HalfToFloat32 widens IEEE half-precision bits to single-precision bits.
func HalfToFloat32(h uint16) uint32 { return f16to32(h) }

// bankListIndex maps the names of usse.spec's "banks" lines to their index
// in bankTables (the order of those lines; TestRegField checks it).
var bankListIndex = map[string]uint8{"dst": 0, "src": 1, "src0": 2, "rpa": 3}

// RegField resolves a register that the form's syntax does not print from
// its fields, as the printer would: bank list ("dst", "src", "src0",
// "rpa"), the bank field, the bank-extension field ("" for none) and the
// number field, numbers multiplied by mult (2 for doubled numbering). It
// reports false when the form lacks a field or the bank value names no
// bank of the list. VTST's write-back destination is such a register: IMG's
// SGX540 disassembler prints it ("isub16.testtaz.chan0 r0, p0, r0, #1")
// where Sony's syntax, which this spec follows, does not.
func (in *Inst) RegField(list, bank, ext, num string, mult uint32) (Operand, bool) {
	t, ok := bankListIndex[list]
	if !ok || in.Form < 0 || int(in.Form) >= len(forms) {
		return Operand{}, false
	}
	e := elem{table: t, f: [16]int8{-1, -1, -1}}
	names := [3]string{bank, ext, num}
	for i, name := range names {
		if name == "" {
			continue
		}
		fi := FieldIndex(in.Form, name)
		if fi < 0 {
			return Operand{}, false
		}
		e.f[i] = int8(fi)
	}
	if e.f[0] < 0 || e.f[2] < 0 {
		return Operand{}, false
	}
	f := &forms[in.Form]
	if bankIndex(f, &e, in) >= len(bankTables[t]) {
		return Operand{}, false
	}
	o := regOperand(f, &e, in, mult)
	return o, o.Bank != BankNone
}
