package fermi

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/gpuisa/gpuisa/isa"
)

// AppendListing appends one cuobjdump listing line for inst at addr:
// New: "        /*0000*/        TEXT <pad to 46> /* 0xHEX */" (isa.CuobjdumpStyle);
// Old: "\t/*0000*/     /*0xWORD0WORD1*/ \tTEXT".
func AppendListing(dst []byte, inst Inst, addr uint64, d Dialect) []byte {
	if d == Old {
		dst = append(dst, '\t')
		dst = appendAddrColumn(dst, addr)
		dst = append(dst, "     /*0x"...)
		dst = appendHex8(dst, uint32(inst.Raw))
		if inst.Len() == 8 {
			dst = appendHex8(dst, uint32(inst.Raw>>32))
		}
		dst = append(dst, "*/ \t"...)
		dst = AppendTextDialect(dst, inst, addr, d)
		return append(dst, '\n')
	}
	st := isa.CuobjdumpStyle
	dst = st.AppendPrefix(dst, addr)
	start := len(dst)
	dst = AppendTextDialect(dst, inst, addr, d)
	if inst.Len() == 8 {
		return st.AppendSuffix(dst, len(dst)-start, inst.Raw, 16) // padding and hex column written in place
	}
	dst = appendBlanks(dst, st.TextCol-(len(dst)-start))
	dst = append(dst, " /* 0x"...)
	if inst.Len() == 4 {
		dst = appendHex8(dst, uint32(inst.Raw))
		return append(dst, " */\n"...)
	}
	dst = appendHex16(dst, inst.Raw)
	return append(dst, " */\n"...)
}

// Disassemble lists code loaded at base in the New dialect.
func Disassemble(dst []byte, code []byte, base uint64) ([]byte, []*isa.DecodeError) {
	return DisassembleDialect(dst, code, base, New)
}

// DisassembleDialect lists code loaded at base, one line per instruction.
// Words that do not decode are reported (and listed as .word lines, which
// the assembler reads back) and the listing continues after them.
func DisassembleDialect(dst []byte, code []byte, base uint64, d Dialect) ([]byte, []*isa.DecodeError) {
	return isa.ListSteps(dst, code, base, d.step)
}

// WriteListing writes the listing Disassemble returns (the New dialect)
// to w a buffer at a time: memory does not grow with the code.
func WriteListing(w io.Writer, code []byte, base uint64) ([]*isa.DecodeError, error) {
	return isa.WriteSteps(w, code, base, func() isa.StepFunc { return New.step })
}

// WriteListingFrom is WriteListing of the code read from r as it goes
// (isa.WriteListingFromFunc).
func WriteListingFrom(w io.Writer, r io.Reader, base uint64, onErr func(*isa.DecodeError)) error {
	return isa.WriteStepsFrom(w, r, base, func() isa.StepFunc { return New.step }, 8, onErr)
}

// step lists the instruction at code[off:] in dialect d (isa.StepFunc).
func (d Dialect) step(dst []byte, code []byte, off int, base uint64) ([]byte, int, *isa.DecodeError) {
	addr := base + uint64(off)
	if len(code)-off >= 8 && code[off]&8 == 0 { // the common case, without error values
		if inst, ok := decodeWord(binary.LittleEndian.Uint64(code[off:])); ok {
			return AppendListing(dst, inst, addr, d), 8, nil
		}
	}
	inst, err := DecodeAt(code[off:], addr)
	if err == nil {
		return AppendListing(dst, inst, addr, d), inst.Len(), nil
	}
	var de *isa.DecodeError
	if !errors.As(err, &de) {
		de = &isa.DecodeError{Addr: addr, Len: 8, Err: isa.ErrInvalid}
	}
	if de.Len <= 0 {
		de.Len = 8
	}
	// .word lines, which the assembler reads back: the bytes keep their
	// place and every later address stays (a comment made as drop them)
	n := min(de.Len, len(code)-off)
	for k := 0; k+4 <= n; k += 4 {
		dst = appendWordLine(dst, addr+uint64(k), binary.LittleEndian.Uint32(code[off+k:]), d)
	}
	return dst, de.Len, de
}

// appendWordLine lists a 32-bit word that does not decode as ".word 0x...;".
func appendWordLine(dst []byte, addr uint64, w uint32, d Dialect) []byte {
	if d == Old {
		dst = append(dst, '\t')
		dst = appendAddrColumn(dst, addr)
		dst = append(dst, "     /*0x"...)
		dst = appendHex8(dst, w)
		dst = append(dst, "*/ \t.word 0x"...)
		dst = appendHex8(dst, w)
		return append(dst, ";\n"...)
	}
	st := isa.CuobjdumpStyle
	dst = appendBlanks(dst, st.Indent)
	dst = appendAddrColumn(dst, addr)
	dst = appendBlanks(dst, st.Gap)
	start := len(dst)
	dst = append(dst, ".word 0x"...)
	dst = appendHex8(dst, w)
	dst = append(dst, ';')
	dst = appendBlanks(dst, st.TextCol-(len(dst)-start))
	dst = append(dst, " /* 0x"...)
	dst = appendHex8(dst, w)
	return append(dst, " */\n"...)
}

// ListRaw lists raw little-endian code in the given dialect; it is
// DisassembleDialect for callers that want a string.
func ListRaw(code []byte, base uint64, d Dialect) (string, []*isa.DecodeError) {
	out, errs := DisassembleDialect(nil, code, base, d)
	return string(out), errs
}

// Archs returns the registry entries for Fermi: sm_20 and sm_21 share one
// encoding (cuobjdump prints them identically).
func Archs() []isa.Arch {
	return []isa.Arch{
		{Name: "sm_20", ISA: "fermi", SMVersion: 20, Disassemble: Disassemble, WriteListing: WriteListing, WriteListingFrom: WriteListingFrom, Assemble: Assemble, Graphs: Graphs, WriteJSON: WriteJSON},
		{Name: "sm_21", ISA: "fermi", SMVersion: 21, Disassemble: Disassemble, WriteListing: WriteListing, WriteListingFrom: WriteListingFrom, Assemble: Assemble, Graphs: Graphs, WriteJSON: WriteJSON},
	}
}
