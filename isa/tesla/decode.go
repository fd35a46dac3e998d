package tesla

import (
	"encoding/binary"
	"fmt"

	"github.com/gpuisa/gpuisa/isa"
)

// classOf returns the class of an instruction given as its value (for the
// flow class, the 64-bit reading; DecodeValue falls back to 32 bits).
func classOf(v uint64) Class {
	switch v & 3 {
	case 0:
		return ClassShort
	case 1:
		if v>>32&3 == 3 {
			return ClassImm
		}
		return ClassLong
	case 2:
		return ClassFlow32
	}
	return ClassFlow
}

// Decoder decodes sm_1x code: the decoding shape every ISA package shares,
// Decoder.Decode(code, addr).
type Decoder struct {
	Base uint64 // address of code[0]
}

// Decode decodes the instruction at address addr of code, which is loaded at
// d.Base. On error the returned Inst has Len set to the number of bytes to
// skip, and the error is an *isa.DecodeError naming addr.
func (d Decoder) Decode(code []byte, addr uint64) (Inst, error) {
	if addr < d.Base || addr-d.Base >= uint64(len(code)) {
		return Inst{}, &isa.DecodeError{Addr: addr, Len: 0, Err: isa.ErrTruncated,
			Detail: fmt.Sprintf("address outside the code (%d bytes at %#x)", len(code), d.Base)}
	}
	return Decode(code[addr-d.Base:], addr)
}

// Decode decodes the instruction at the start of b, which sits at address
// addr (used in errors only): Decoder.Decode for code that starts at the
// instruction. On error the returned Inst has Len set to the number of
// bytes to skip.
func Decode(b []byte, addr uint64) (Inst, error) {
	if len(b) < 4 {
		return Inst{Len: uint8(len(b))}, &isa.DecodeError{Addr: addr, Len: len(b), Err: isa.ErrTruncated}
	}
	w0 := binary.LittleEndian.Uint32(b)
	if w0&1 == 0 {
		return DecodeValue(uint64(w0), addr)
	}
	if len(b) < 8 {
		if w0&3 == 3 {
			// a 32-bit flow word at the very end of the code
			if inst, err := decodeClass(ClassFlow32, uint64(w0), addr); err == nil {
				return inst, nil
			}
		}
		return Inst{Len: uint8(len(b))}, &isa.DecodeError{Addr: addr, Len: len(b), Err: isa.ErrTruncated,
			Detail: "64-bit instruction needs 8 bytes"}
	}
	return DecodeValue(binary.LittleEndian.Uint64(b), addr)
}

// DecodeValue decodes an instruction given as its value word1<<32|word0 (a
// short instruction is a value below 1<<32 whose low bits are 0). A flow
// word whose second word cannot belong to it (bits a 64-bit form may not
// have) is tried as a 32-bit flow instruction: the result then has Len 4.
func DecodeValue(v uint64, addr uint64) (Inst, error) {
	inst, ok := matchValue(v)
	if !ok {
		return invalid(classOf(inst.Raw), inst.Raw, addr)
	}
	return inst, nil
}

// matchValue is DecodeValue without the error (a listing explains only
// the few it shows): when v does not decode, inst has only the value of
// its class (Raw) and the bytes to skip (Len).
func matchValue(v uint64) (inst Inst, ok bool) {
	c := classOf(v)
	if c == ClassShort || c == ClassFlow32 {
		v &= 0xffffffff
	}
	if fi, ok := findForm(c, v); ok {
		return Inst{Raw: v, Form: fi, Len: classLen(c)}, true
	}
	if c == ClassFlow {
		if fi, ok := findForm(ClassFlow32, v&0xffffffff); ok {
			return Inst{Raw: v & 0xffffffff, Form: fi, Len: 4}, true
		}
	}
	return Inst{Raw: v, Len: classLen(c)}, false
}

// invalidWhy explains a value matchValue rejects (isa.Explainer).
type invalidWhy struct{}

func (invalidWhy) Explain(v uint64) string {
	c := classOf(v)
	return invalidDetail(c, v, formIndex[c][formKey(c, v)])
}

// decodeClass decodes v as an instruction of class c.
func decodeClass(c Class, v uint64, addr uint64) (Inst, error) {
	if fi, ok := findForm(c, v); ok {
		return Inst{Raw: v, Form: fi, Len: classLen(c)}, nil
	}
	return invalid(c, v, addr)
}

func classLen(c Class) uint8 {
	if c == ClassShort || c == ClassFlow32 {
		return 4
	}
	return 8
}

func formKey(c Class, v uint64) int {
	key := int(v >> 28 & 0xf << 3)
	if c == ClassLong {
		key |= int(v >> 61)
	}
	return key
}

// findForm returns the first candidate form of class c that v encodes.
func findForm(c Class, v uint64) (uint16, bool) {
	for _, fi := range formIndex[c][formKey(c, v)] {
		m := &formMatch[fi]
		if v&m.mask != m.value || v&^m.care != 0 {
			continue
		}
		if !formValidity[fi].valid(v) {
			continue
		}
		return fi, true
	}
	return 0, false
}

// invalid builds the error for a value no form of class c accepts.
func invalid(c Class, v uint64, addr uint64) (Inst, error) {
	n := classLen(c)
	return Inst{Len: n}, &isa.DecodeError{Addr: addr, Len: int(n), Err: isa.ErrInvalid,
		Detail: invalidDetail(c, v, formIndex[c][formKey(c, v)])}
}

// invalidDetail explains why no form matched, for the error message.
func invalidDetail(c Class, v uint64, cands []uint16) string {
	names := [...]string{"short", "immediate", "long", "flow", "32-bit flow"}
	op := v >> 28 & 0xf
	if len(cands) == 0 {
		if c == ClassLong {
			return fmt.Sprintf("unknown %s opcode %#x/%d", names[c], op, v>>61)
		}
		return fmt.Sprintf("unknown %s opcode %#x", names[c], op)
	}
	f := &forms[cands[0]]
	if v&f.mask == f.value {
		if extra := v &^ f.care; extra != 0 {
			return fmt.Sprintf("%s: unexpected bits %#x set", f.name, extra)
		}
		return fmt.Sprintf("%s: invalid operand or modifier", f.name)
	}
	return fmt.Sprintf("%s opcode %#x: no form matches", names[c], op)
}

// validity is what the decoder tests of a form's fields beyond its fixed
// bits (formValidity; specgen derives it from the spec): an enumeration
// value that names no option, and the tests of validTests.
type validity struct {
	enumBad uint64    // bit x: the enumeration's value x names no option (0: no enumeration)
	enum    isa.Field // the enumeration's field
	tests   validTests
}

// validTests are the tests of a form's operand bits that can contradict
// each other, one bit each.
type validTests uint8

const (
	validCC      validTests = 1 << iota // a condition register number needs a write
	validS1Long                         // a long form's sources: address registers need a memory operand
	validBank                           // with validS1Long: a constant bank needs a c[] operand
	validS1Short                        // a short or immediate form's shared source, likewise
	validMemAreg                        // c[], l[] and shared-store operands: post-increment needs an address register
	validGmem                           // g[] operands take no address register
	validAdst                           // an address-register destination is below 16
)

// valid says whether v's fields pass c's tests.
func (c *validity) valid(v uint64) bool {
	if c.enumBad>>c.enum.Get(v)&1 != 0 {
		return false
	}
	t := c.tests
	if t == 0 {
		return true
	}
	if t&validCC != 0 && f_ccw.Get(v) == 0 && f_ccr.Get(v) != 0 {
		return false // a register number with no write
	}
	if t&validS1Long != 0 {
		m := &longBits
		sh, cs, areg, inc := v&m.sh != 0, v&m.cs != 0, v&m.areg != 0, v&m.inc != 0
		if !sh && !cs && (areg || inc) || inc && !areg {
			return false // an address register with no memory operand to use it
		}
		if sh && cs && areg {
			return false // one address register, two memory operands: ambiguous
		}
		if t&validBank != 0 && !cs && v&m.bank != 0 {
			return false // a constant bank with no c[] operand
		}
	}
	if t&validS1Short != 0 {
		m := &shortBits
		sh, areg, inc := v&m.sh != 0, v&m.areg != 0, v&m.inc != 0
		if !sh && (areg || inc) || inc && !areg {
			return false
		}
	}
	if t&validMemAreg != 0 && longAreg(v) == 0 && f_ainc.Get(v) != 0 {
		return false
	}
	if t&validGmem != 0 && (longAreg(v) != 0 || f_ainc.Get(v) != 0) {
		return false
	}
	if t&validAdst != 0 && f_dst.Get(v) >= 16 {
		return false
	}
	return true
}
