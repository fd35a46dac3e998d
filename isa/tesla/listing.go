package tesla

import (
	"encoding/binary"
	"io"

	"slices"

	"github.com/gpuisa/gpuisa/isa"
)

// lineRoom is more than one listing line takes: prefix (at most 36 bytes),
// text with its room for in-place writes, padding and hex column.
const lineRoom = 40 + textRoom + 80

// Disassemble appends a cuobjdump-style listing of raw Tesla code loaded at
// base. Words that do not decode are listed as ".word" lines (which the
// assembler reads back) and reported in errs; the listing goes on after them.
func Disassemble(dst []byte, code []byte, base uint64) ([]byte, []*isa.DecodeError) {
	var mn mnemonicCache
	return isa.ListSteps(dst, code, base, mn.step)
}

// WriteListing writes the listing Disassemble returns to w a buffer at a
// time: memory does not grow with the code.
func WriteListing(w io.Writer, code []byte, base uint64) ([]*isa.DecodeError, error) {
	return isa.WriteSteps(w, code, base, func() isa.StepFunc { return new(mnemonicCache).step })
}

// WriteListingFrom is WriteListing of the code read from r as it goes
// (isa.WriteListingFromFunc).
func WriteListingFrom(w io.Writer, r io.Reader, base uint64, onErr func(*isa.DecodeError)) error {
	return isa.WriteStepsFrom(w, r, base, func() isa.StepFunc { return new(mnemonicCache).step }, 8, onErr)
}

// step lists the instruction at code[pc:] (isa.StepFunc).
func (mn *mnemonicCache) step(dst []byte, code []byte, pc int, base uint64) ([]byte, int, *isa.DecodeError) {
	addr := base + uint64(pc)
	inst, err := Decode(code[pc:], addr)
	if err != nil {
		de := err.(*isa.DecodeError)
		n := de.Len
		if n <= 0 {
			n = len(code) - pc
		}
		var text [32]byte
		for k := 0; k+4 <= n; k += 4 { // a truncated tail of under 4 bytes is not listed
			w := binary.LittleEndian.Uint32(code[pc+k:])
			t := append(text[:0], ".word "...)
			t = isa.AppendHexNum(t, uint64(w))
			t = append(t, ';')
			dst = isa.CuobjdumpStyle.AppendLine(dst, addr+uint64(k), t, uint64(w), 8)
		}
		return dst, n, de
	}
	digits := 16
	if inst.Len == 4 {
		digits = 8
	}
	dst = slices.Grow(dst, lineRoom) // the appends below never reallocate
	dst = isa.CuobjdumpStyle.AppendPrefix(dst, addr)
	start := len(dst)
	dst = mn.append(dst, inst)
	dst = appendOperands(dst, inst)
	dst = isa.CuobjdumpStyle.AppendSuffix(dst, len(dst)-start, inst.Raw, digits)
	return dst, int(inst.Len), nil
}

// Archs returns the registry entries of the Tesla targets.
func Archs() []isa.Arch {
	var out []isa.Arch
	for _, sm := range []int{10, 11, 12, 13} {
		out = append(out, isa.Arch{
			Name:             "sm_" + string(rune('0'+sm/10)) + string(rune('0'+sm%10)),
			ISA:              "tesla",
			SMVersion:        sm,
			Disassemble:      Disassemble,
			Assemble:         Assemble,
			WriteListing:     WriteListing,
			WriteListingFrom: WriteListingFrom,
			Graphs:           Graphs,
			WriteJSON:        WriteJSON,
		})
	}
	return out
}

// mnemonicCache remembers recently printed mnemonics: real code repeats a few
// of them, and a mnemonic depends only on the form and a few of its bits.
type mnemonicCache struct {
	slot [256]struct {
		form uint16
		n    uint8
		key  uint64
		text [3]uint64 // little-endian words, stored whole
	}
}

// append needs textRoom bytes of room in dst.
func (c *mnemonicCache) append(dst []byte, inst Inst) []byte {
	f := &forms[inst.Form]
	key := inst.Raw & f.mnemMask
	h := (key ^ key>>29 ^ uint64(inst.Form)*0x9e3779b1) * 0x9e3779b97f4a7c15 >> 56
	e := &c.slot[h]
	start := len(dst)
	if e.n != 0 && e.form == inst.Form && e.key == key {
		b := dst[start : start+24]
		binary.LittleEndian.PutUint64(b, e.text[0])
		binary.LittleEndian.PutUint64(b[8:], e.text[1])
		binary.LittleEndian.PutUint64(b[16:], e.text[2])
		return dst[:start+int(e.n)]
	}
	dst = appendMnemonic(dst, inst)
	if n := len(dst) - start; n <= 24 {
		// the words are read past the text, from the room: bytes past n
		// are never shown
		b := dst[start : start+24]
		e.form, e.key, e.n = inst.Form, key, uint8(n)
		e.text[0] = binary.LittleEndian.Uint64(b)
		e.text[1] = binary.LittleEndian.Uint64(b[8:])
		e.text[2] = binary.LittleEndian.Uint64(b[16:])
	}
	return dst
}
