package fermi

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/gpuisa/gpuisa/isa"
)

// Inst is one decoded instruction: the 64-bit word and the form it matched.
type Inst struct {
	Raw  uint64
	form uint16
}

// Len is the instruction length in bytes: 4 for the short forms (bit 3
// set, mnemonics ending in _N), else 8. ptxas emits only 8-byte forms.
func (i Inst) Len() int {
	if i.Raw&8 != 0 { // bit 3 says the length (fermi.spec enforces it)
		return 4
	}
	return 8
}

// Op is the printed mnemonic without modifiers, e.g. "ISETP".
func (i Inst) Op() string {
	n := forms[i.form].name
	for j := 0; j < len(n); j++ {
		if n[j] == '.' {
			return n[:j]
		}
	}
	return n
}

// Form is the mnemonic of the instruction's form as fermi.spec names it,
// fixed suffixes included ("BAR.ARV", "ISETP"): what tells apart forms that
// share a mnemonic but no modifier does.
func (i Inst) Form() string { return forms[i.form].name }

// Class is the instruction's semantic class.
func (i Inst) Class() Class { return forms[i.form].class }

// Guard returns the guard predicate register (7 = pt, i.e. none) and its negation.
func (i Inst) Guard() (reg int, negated bool) {
	if forms[i.form].noPred {
		return 7, false
	}
	return int(i.Raw >> 10 & 7), i.Raw>>13&1 != 0
}

// String is the instruction's text in the New dialect at address 0.
func (i Inst) String() string { return Print(i, 0) }

// Bytes appends the instruction's memory image (little endian) to dst.
func (i Inst) Bytes(dst []byte) []byte {
	if i.Raw&8 != 0 {
		return binary.LittleEndian.AppendUint32(dst, uint32(i.Raw))
	}
	return binary.LittleEndian.AppendUint64(dst, i.Raw)
}

// Decoder decodes sm_2x code: the decoding shape every ISA package shares,
// Decoder.Decode(code, addr).
type Decoder struct {
	Base uint64 // address of code[0]
}

// Decode decodes the instruction (4 or 8 bytes) at address addr of code,
// which is loaded at d.Base. Errors are *isa.DecodeError naming addr and
// saying how many bytes to skip.
func (d Decoder) Decode(code []byte, addr uint64) (Inst, error) {
	if addr < d.Base || addr-d.Base >= uint64(len(code)) {
		return Inst{}, &isa.DecodeError{Addr: addr, Err: isa.ErrTruncated,
			Detail: fmt.Sprintf("address outside the code (%d bytes at %#x)", len(code), d.Base)}
	}
	return DecodeAt(code[addr-d.Base:], addr)
}

// Decode decodes the instruction at the start of b; see DecodeAt.
func Decode(b []byte) (Inst, error) { return DecodeAt(b, 0) }

// DecodeAt decodes the instruction at the start of b, which sits at address
// addr: Decoder.Decode for code that starts at the instruction. Errors are *isa.DecodeError (naming addr, wrapping isa.ErrTruncated
// or isa.ErrInvalid) and say how many bytes to skip to resynchronise.
func DecodeAt(b []byte, addr uint64) (Inst, error) {
	var err error
	var inst Inst
	switch {
	case len(b) >= 4 && b[0]&8 != 0:
		inst, err = DecodeWord(uint64(binary.LittleEndian.Uint32(b)))
	case len(b) < 8:
		err = &isa.DecodeError{Len: len(b), Err: isa.ErrTruncated}
	default:
		inst, err = DecodeWord(binary.LittleEndian.Uint64(b))
	}
	if err != nil {
		err.(*isa.DecodeError).Addr = addr
	}
	return inst, err
}

// DecodeWord decodes one instruction word (word1<<32 | word0). When bit 3
// is set the word starts with a 4-byte instruction, decoded from word0.
func DecodeWord(raw uint64) (Inst, error) {
	if raw&8 != 0 {
		raw &= 0xffffffff
	}
	if inst, ok := decodeWord(raw); ok {
		return inst, nil
	}
	n := 8
	if raw&8 != 0 {
		n = 4 // a 4-byte form
	}
	return Inst{}, &isa.DecodeError{Len: n, Err: isa.ErrInvalid, Detail: invalidDetail(raw)}
}

// decodeWord is DecodeWord without building an error.
func decodeWord(raw uint64) (Inst, bool) {
	keys := formKeys[raw&7|raw>>58<<3]
	for i := range keys {
		k := &keys[i]
		if raw&k.mask != k.value {
			continue
		}
		switch sel := raw >> 46 & 3; k.check {
		case checkNone:
		case checkB, checkB3:
			// validOperands of a composite source: no stray bits in the
			// register variant; the second register only in a 3-source form
			if sel == 0 && raw>>32&0x3fff != 0 || sel == 2 && k.check == checkB {
				continue
			}
		default:
			if !validOperands(k.form, raw) {
				continue
			}
		}
		return Inst{Raw: raw, form: k.form}, true
	}
	return Inst{}, false
}

// formKey is what decodeWord tries of a form: its fixed bits, and what
// of validOperands' checks the word needs.
type formKey struct {
	mask, value uint64
	form        uint16
	check       uint8
}

// formKey.check: none, only an opB or opB3 composite source (checked in
// place), or validOperands.
const (
	checkNone = iota
	checkB
	checkB3
	checkAll
)

// buildFormKeys makes formKeys (inittables.go): formIndex with each
// form's key in place (one cache line per few candidates instead of one
// per form).
func buildFormKeys() (t [len(formIndex)][]formKey) {
	checks := buildFormChecks() // not formChecks: the generated table may be stale
	for i, fis := range formIndex {
		for _, fi := range fis {
			k := formKey{forms[fi].mask, forms[fi].value, fi, checkAll}
			c := &checks[fi]
			switch o := &forms[fi].ops; {
			case c.mods == 0 && c.ops == 0:
				k.check = checkNone
			case c.mods == 0 && bits.OnesCount8(c.ops) == 1:
				op := &(*o)[bits.TrailingZeros8(c.ops)]
				if op.bsel == 0 && op.hsel == 0 && op.kind == opB {
					k.check = checkB
				} else if op.bsel == 0 && op.hsel == 0 && op.kind == opB3 {
					k.check = checkB3
				}
			}
			t[i] = append(t[i], k)
		}
	}
	return t
}

func invalidDetail(raw uint64) string {
	if raw&8 != 0 {
		return fmt.Sprintf("no 4-byte form matches %#08x", uint32(raw))
	}
	return fmt.Sprintf("no form matches %#016x (opcode %#x, type %d)", raw, raw>>58, raw&7)
}

// validOperands checks what the masks cannot: reserved enum values and the
// bits a composite operand leaves unused in its selected variant. Only the
// modifiers and operands formChecks names are looked at.
func validOperands(fi uint16, raw uint64) bool {
	f, c := &forms[fi], &formChecks[fi]
	for ms := c.mods; ms != 0; ms &= ms - 1 {
		m := &f.mods[bits.TrailingZeros16(ms)]
		switch m.kind {
		case modEnum:
			if reservedValues[m.table]>>m.value(raw)&1 != 0 {
				return false
			}
		case modVType:
			if raw>>44&7 == 7 || raw>>47&1 != 0 && raw>>32&7 == 7 {
				return false
			}
		}
	}
	for os := c.ops; os != 0; os &= os - 1 {
		o := &f.ops[bits.TrailingZeros8(os)]
		switch o.kind {
		case opB, opB3:
			switch raw >> 46 & 3 {
			case 0:
				if raw>>32&0x3fff != 0 {
					return false
				}
			case 2:
				if o.kind == opB {
					return false
				}
			}
		case opV:
			if raw>>47&1 != 0 && raw>>35&0x7f != 0 {
				return false
			}
		case opEnum:
			if reservedValues[o.table]>>o.f.Get(raw)&1 != 0 {
				return false
			}
		}
		if o.bsel != 0 || o.hsel != 0 {
			// selector bits the source size does not use must be zero
			f, ok, all := o.selector(raw)
			if ok {
				all &^= f.Mask()
			}
			if raw&all != 0 {
				return false
			}
		}
	}
	return true
}

// buildReservedValues makes reservedValues (inittables.go): per table, a
// bit for every "?" (invalid) entry.
func buildReservedValues() (r [len(tables)]uint64) {
	for t, entries := range tables {
		for v, e := range entries {
			if e == "?" {
				r[t] |= 1 << v
			}
		}
	}
	return r
}

// formCheck names (as bit sets of indices) the modifiers and operands of a
// form that validOperands must look at; most have none.
type formCheck struct {
	mods uint16
	ops  uint8
}

// buildFormChecks makes formChecks (inittables.go), indexed by form,
// from the forms and tables.
func buildFormChecks() (c [len(forms)]formCheck) {
	reservedValues := buildReservedValues() // not the generated table, which may be stale
	for i := range forms {
		f := &forms[i]
		for k := range f.mods {
			m := &f.mods[k]
			if m.kind == modVType || m.kind == modEnum && reservedValues[m.table] != 0 {
				c[i].mods |= 1 << k
			}
		}
		for k := range f.ops {
			o := &f.ops[k]
			switch {
			case o.kind == opB, o.kind == opB3, o.kind == opV, o.bsel != 0, o.hsel != 0,
				o.kind == opEnum && reservedValues[o.table] != 0:
				c[i].ops |= 1 << k
			}
		}
	}
	return c
}
