package fermi

import "github.com/gpuisa/gpuisa/isa"

// ArgKind says what an Arg holds.
type ArgKind uint8

const (
	ArgNone   ArgKind = iota
	ArgReg            // Reg: general register (63 = RZ)
	ArgPred           // Reg: predicate register (7 = PT)
	ArgImm            // Imm: integer (sign-extended when signed) or, with Float, the IEEE bits of the value
	ArgConst          // c[Bank][Reg+Imm]
	ArgMem            // [Reg+Imm]
	ArgTarget         // Imm: absolute branch target
	ArgSReg           // Reg: special register number
	ArgCC             // Reg: condition code test (15 = T)
	ArgText           // Imm: the value of a named field (texture shape, ...); Text its spelling
)

// MaxArgs is the most operands a form has.
const MaxArgs = 7

// Arg is one decoded operand, for tools (emulators, analyses) that want
// values rather than text.
type Arg struct {
	Kind              ArgKind
	Reg               uint8
	Bank              uint8
	Imm               int64
	Float             bool // Imm holds float32 bits (Double: float64 bits)
	Double            bool
	Neg, Abs, Not, CC bool
	Sel               uint8 // byte (0-3) or half (0-1) of an 8- or 16-bit conversion source
	Text              string
}

// Args decodes the operands of inst at address pc in the order the New
// dialect prints them. Condition codes that print nothing (CC.T) are
// included as ArgCC.
func (i Inst) Args(pc uint64) (args [MaxArgs]Arg, n int) {
	return argsOf(newForm(i), i.Raw, pc)
}

// newForm is the form the New dialect prints inst with: the first "new"
// alias of the decoded form whose fixed bits and operands fit the word.
func newForm(i Inst) *form { return &forms[printForm(i, New)] }

// printForm is the index of the form inst is printed with in dialect d
// (newForm's for New).
func printForm(i Inst, d Dialect) uint16 {
	if d == New && int(i.form) < len(hasAlias) && hasAlias[i.form] {
		return newAlias(i)
	}
	return i.form
}

func newAlias(i Inst) uint16 {
	for a := forms[i.form].alias; a != 0; a = forms[a].alias {
		if af := &forms[a]; i.Raw&af.mask == af.value && validOperands(a, i.Raw) {
			return a
		}
	}
	return i.form
}

// buildHasAlias makes hasAlias (inittables.go): per form, whether it has
// a New spelling (printForm's check without loading the form).
func buildHasAlias() (t [len(forms)]bool) {
	for i := range forms {
		t[i] = forms[i].alias != 0
	}
	return t
}

// FormArgs decodes the operands of inst at address pc in the order of the
// form the decoder matched (the Old dialect's: FFMA's product negation on
// the second factor, PSET's sources last to first), with every decoration
// bit of that form. The New spellings drop some (ISUB is IADD with the
// second source's negate bit), so consumers of values read these.
func (i Inst) FormArgs(pc uint64) (args [MaxArgs]Arg, n int) {
	return argsOf(&forms[i.form], i.Raw, pc)
}

func argsOf(f *form, raw, pc uint64) (args [MaxArgs]Arg, n int) {
	for k := range f.ops {
		if n == MaxArgs {
			break
		}
		args[n] = decodeArg(&f.ops[k], raw, pc)
		n++
	}
	return args, n
}

func decodeArg(o *operand, raw, pc uint64) Arg {
	a := Arg{Neg: bit(raw, o.neg), Abs: bit(raw, o.abs), Not: bit(raw, o.not), CC: bit(raw, o.cc)}
	if f, ok, _ := o.selector(raw); ok {
		a.Sel = uint8(f.Get(raw))
	}
	float := o.flavor == immF32 || o.flavor == immF64
	imm20 := func() {
		v := raw >> 26 & 0xfffff
		a.Kind = ArgImm
		switch o.flavor {
		case immInt:
			a.Imm = isa.SignExtend(v, 20)
		case immF32:
			a.Imm, a.Float = int64(v<<12), true
		case immF64:
			a.Imm, a.Float, a.Double = int64(v<<44), true, true
		default:
			a.Imm = int64(v)
		}
	}
	constOp := func() {
		a.Kind, a.Reg, a.Bank, a.Imm = ArgConst, 63, uint8(raw>>42&15), int64(raw>>26&0xffff)
	}
	switch o.kind {
	case opReg:
		a.Kind, a.Reg = ArgReg, uint8(o.f.Get(raw))
	case opPred:
		a.Kind, a.Reg = ArgPred, uint8(o.value(raw))
	case opB, opB3:
		switch raw >> 46 & 3 {
		case 0:
			a.Kind, a.Reg = ArgReg, uint8(raw>>26&63)
		case 1:
			constOp()
		case 2:
			a.Kind, a.Reg = ArgReg, uint8(raw>>49&63)
		case 3:
			imm20()
		}
	case opC:
		if raw>>46&3 == 2 {
			constOp()
		} else {
			a.Kind, a.Reg = ArgReg, uint8(raw>>49&63)
		}
	case opV:
		if raw>>47&1 != 0 {
			a.Kind, a.Reg = ArgReg, uint8(raw>>26&63)
		} else {
			a.Kind, a.Imm = ArgImm, int64(raw>>26&0xffff)
		}
	case opImm32:
		v := raw >> 26 & 0xffffffff
		a.Kind, a.Imm, a.Float = ArgImm, int64(v), float
		if o.flavor == immInt {
			a.Imm = isa.SignExtend(v, 32)
		}
	case opHex:
		a.Kind, a.Imm = ArgImm, int64(o.f.Get(raw))
	case opMem:
		a.Kind, a.Reg, a.Imm = ArgMem, uint8(o.memBase(raw)), o.memOffset(raw)
	case opShortImm:
		a.Kind, a.Imm = ArgImm, isa.SignExtend(o.value(raw), 8)
	case opConstMem:
		a.Kind, a.Reg, a.Bank, a.Imm = ArgConst, uint8(raw>>20&63), uint8(o.bank.Get(raw)), o.memOffset(raw)
	case opConst, opConstX:
		a.Kind, a.Reg, a.Bank, a.Imm = ArgConst, uint8(raw>>20&63), uint8(o.f.Get(raw)), isa.SignExtend(raw>>26&0xffff, 16)
	case opConstNR:
		a.Kind, a.Reg, a.Bank, a.Imm = ArgConst, 63, uint8(o.f.Get(raw)), isa.SignExtend(raw>>26&0xffff, 16)
	case opShortTarget:
		a.Kind, a.Imm = ArgTarget, int64((pc+4+uint64(isa.SignExtend(o.f.Get(raw), 14)<<2))&0xffffffff)
	case opShortSrc:
		if sel := o.f2.Get(raw); sel != 0 {
			a.Kind, a.Reg, a.Bank, a.Imm = ArgConst, 63, uint8(shortBanks[sel]), int64(o.f.Get(raw)<<2)
		} else {
			a.Kind, a.Reg = ArgReg, uint8(o.f.Get(raw))
		}
	case opRegOff:
		a.Kind, a.Reg, a.Imm = ArgMem, uint8(raw>>20&63), isa.SignExtend(o.f.Get(raw), o.f.Width)
	case opTarget:
		a.Kind, a.Imm = ArgTarget, int64((pc+8+uint64(isa.SignExtend(o.f.Get(raw), 24)))&0xffffffff)
	case opSReg:
		a.Kind, a.Reg = ArgSReg, uint8(o.f.Get(raw))
	case opCC, opNopCC:
		a.Kind, a.Reg = ArgCC, uint8(o.f.Get(raw))
	case opEnum:
		a.Kind, a.Imm, a.Text = ArgText, int64(o.f.Get(raw)), tables[o.table][o.f.Get(raw)]
	case opLit:
		a.Kind, a.Text = ArgText, o.text
	}
	return a
}
