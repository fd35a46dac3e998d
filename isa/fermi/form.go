package fermi

import (
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
)

// The types below are what the generated tables.go is made of. Each form is one
// row of fermi.spec: the fixed bits (mask/value), the modifiers printed after the
// mnemonic and the operands, each naming the bit fields it lives in.

type modKind uint8

const (
	modLit     modKind = iota // always printed
	modFlag                   // printed when the bit is 1
	modFlagInv                // printed when the bit is 0
	modEnum                   // table entry selected by the field value
	modVType                  // video-op operand types (see vtype in fermi.spec)
)

// mod is one dotted modifier of a mnemonic, e.g. ".U32" or ".LT".
type mod struct {
	kind  modKind
	f, f2 isa.Field // enum value = f | f2<<f.Width (f2.Width == 0 when unused)
	text  string    // modLit, modFlag, modFlagInv
	table uint8     // modEnum: index into tables
}

func (m *mod) value(raw uint64) uint64 {
	v := m.f.Get(raw)
	if m.f2.Width != 0 {
		v |= m.f2.Get(raw) << m.f.Width
	}
	return v
}

func (m *mod) set(raw, v uint64) uint64 {
	raw = m.f.Set(raw, v)
	if m.f2.Width != 0 {
		raw = m.f2.Set(raw, v>>m.f.Width)
	}
	return raw
}

type opKind uint8

const (
	opReg         opKind = iota // R0..R62, RZ
	opPred                      // P0..P6, pt
	opB                         // composite: register / c[bank][off] / 20-bit immediate (sel at 46:2)
	opB3                        // composite of a 3-source form: sel 2 swaps in the register at 49
	opC                         // third source: register at 49, or c[][] when sel is 2
	opImm32                     // 32-bit immediate at 26
	opHex                       // unsigned field printed in hex
	opMem                       // [Rx+offset]
	opConst                     // c [bank] [Rx+offset] (LDC)
	opConstX                    // c [bank] [Rx+offset], offset always printed (BRX)
	opTarget                    // PC-relative branch target at 26:24, printed absolute
	opSReg                      // special register at 26:8
	opEnum                      // table entry, no dot
	opLit                       // fixed text
	opNopCC                     // NOP's condition code: "CC.T" in the old dialect
	opCC                        // branch condition code, printed unless T
	opV                         // video-op second source: R26 (bit 47 set) or a 16-bit immediate
	opConstNR                   // c[bank][offset], no register (branches through a constant)
	opRegOff                    // register at 20 and a signed offset (BRX, JMX)
	opShortSrc                  // 4-byte forms: register f, or c[0x0/0x1/0x10][f*4] by selector f2
	opShortTarget               // 4-byte forms: target, signed words at 14:14 from the next instruction
	opConstMem                  // 4-byte forms: c[bank][R20+offset], offset fields as opMem's
	opShortImm                  // 4-byte forms: signed 8-bit immediate, low 6 bits f, high 2 bits f2
)

// shortBanks are the constant banks a 4-byte form's source selector names.
var shortBanks = [4]uint64{0, 0, 1, 16}

// Immediate flavours (operand.flavor).
const (
	immInt  = iota // signed
	immUint        // unsigned
	immF32         // the high 20 bits (or all 32) of an IEEE single
	immF64         // the high 20 bits of an IEEE double
)

// operand is one operand of a form.
type operand struct {
	kind              opKind
	f                 isa.Field // register / predicate / immediate / offset field
	f2                isa.Field // opMem, opPred: high part of a split field (width 0 if none)
	neg, abs, not, cc int8      // bit positions of the -, |..|, ~ / ! and .CC decorations; -1 if none
	flavor            uint8     // immediate flavour
	table             uint8     // opEnum
	text              string    // opLit
	same              bool      // opReg repeating a field another operand owns
	bsel, hsel        uint8     // byte (2 bits) / half (1 bit) selector of an 8-/16-bit source, 0 if none
	shift             uint8     // opMem: the offset counts units of 1<<shift bytes
	base              uint8     // opMem: address register position, 0 for the usual 20
	pair              uint8     // opMem: offset in units of part 1 or 2 of the LD_LDU size pair
	bank              isa.Field // opConstMem: the constant bank (offset as opMem's)
}

// memBase returns an opMem operand's address register.
func (o *operand) memBase(raw uint64) uint64 {
	if o.base != 0 {
		return raw >> o.base & 63
	}
	return raw >> 20 & 63
}

// memShift is log2 of the unit of an opMem operand's offset field.
func (o *operand) memShift(raw uint64) uint8 {
	if o.pair != 0 {
		return pairShift[o.pair-1][raw>>53&31]
	}
	return o.shift
}

// buildPairShift makes pairShift (inittables.go): for each entry of the
// lduld table (".U8.S16" = LD part U8, LDU part S16), the log2 size of
// each part's data: both halves of LD_LDU and LDS_LDU count their offsets
// in units of their own size.
func buildPairShift() (sh [2][32]uint8) {
	for v, e := range tables[tblLduld] {
		parts := strings.Split(e, ".")[1:] // "", "U8", "S16"
		for i := 0; i < 2 && i < len(parts); i++ {
			switch parts[i] {
			case "U16", "S16":
				sh[i][v] = 1
			case "32":
				sh[i][v] = 2
			case "64":
				sh[i][v] = 3
			case "128":
				sh[i][v] = 4
			}
		}
	}
	return sh
}

// value returns the operand's field, joined with its high part if split.
func (o *operand) value(raw uint64) uint64 {
	return o.f.Get(raw) | o.f2.Get(raw)<<o.f.Width
}

// setValue stores v in the operand's field (and its high part).
func (o *operand) setValue(raw, v uint64) uint64 {
	raw = o.f.Set(raw, v)
	if o.f2.Width != 0 {
		raw = o.f2.Set(raw, v>>o.f.Width)
	}
	return raw
}

// memOffset returns an opMem operand's signed offset in bytes.
func (o *operand) memOffset(raw uint64) int64 {
	w := o.f.Width + o.f2.Width
	if w == 0 {
		return 0
	}
	v := o.f.Get(raw) | o.f2.Get(raw)<<o.f.Width
	return isa.SignExtend(v, w) << o.memShift(raw)
}

// memOffsetFits reports whether an opMem operand can hold the byte offset off.
func (o *operand) memOffsetFits(raw uint64, off int64) bool {
	w := int(o.f.Width + o.f2.Width)
	shift := o.memShift(raw)
	if off&(1<<shift-1) != 0 {
		return false
	}
	off >>= shift
	return w == 0 && off == 0 || w > 0 && off >= -(1<<(w-1)) && off < 1<<(w-1)
}

// setMemOffset stores off (already checked by memOffsetFits) in an opMem operand.
func (o *operand) setMemOffset(raw uint64, off int64) uint64 {
	if o.f.Width == 0 {
		return raw
	}
	off >>= o.memShift(raw)
	raw = o.f.Set(raw, uint64(off))
	if o.f2.Width != 0 {
		raw = o.f2.Set(raw, uint64(off)>>o.f.Width)
	}
	return raw
}

// selector returns the source selector field of a conversion's composite
// operand for its source size (bits 23:2: 0 = 8 bits, 1 = 16 bits): the
// field, whether it applies, and the mask of all selector bits it may use.
func (o *operand) selector(raw uint64) (f isa.Field, ok bool, all uint64) {
	if o.bsel != 0 {
		all |= 3 << o.bsel
	}
	if o.hsel != 0 {
		all |= 1 << o.hsel
	}
	switch raw >> 23 & 3 {
	case 0:
		if o.bsel != 0 {
			return isa.Field{Pos: o.bsel, Width: 2}, true, all
		}
	case 1:
		if o.hsel != 0 {
			return isa.Field{Pos: o.hsel, Width: 1}, true, all
		}
	}
	return isa.Field{}, false, all
}

// form is one instruction form: a mnemonic with its fixed bits.
type form struct {
	name        string // base mnemonic, e.g. "ISETP"
	mask, value uint64
	noPred      bool   // the predicate field is unused (must be zero)
	short       bool   // a 4-byte form (bit 3 set): Raw holds 32 bits
	newOnly     bool   // a CUDA 5+ spelling of another form's words; never decoded to
	alias       uint16 // the form's (next) CUDA 5+ spelling, 0 if none
	class       Class
	mods        []mod
	ops         []operand
}

// Class is the semantic class of an instruction (fermi.spec "class" lines).
type Class uint8

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}
