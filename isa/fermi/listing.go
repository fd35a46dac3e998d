package fermi

import (
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/gpuisa/gpuisa/isa"
)

// AppendListing appends one cuobjdump listing line for inst at addr:
// New: "        /*0000*/        TEXT <pad to 46> /* 0xHEX */" (isa.CuobjdumpStyle);
// Old: "\t/*0000*/     /*0xWORD0WORD1*/ \tTEXT".
func AppendListing(dst []byte, inst Inst, addr uint64, d Dialect) []byte {
	if d != Old {
		d = New
	}
	if addr>>32 != 0 {
		return appendListingWide(dst, inst, addr, d)
	}
	dst, b := withRoom(dst, lineRoom)
	return dst[:len(dst)+putLine(b, inst, printForm(inst, d), uint32(addr), d)]
}

// lineRoom is the room a listing line is written into: the address and
// hex columns around textRoom.
const lineRoom = 32 + textRoom + 48 + 32

// putLine stores the listing line of inst (printed as form fi) at addr in
// b, which has lineRoom bytes, and returns its length. Every part is
// stored as whole words; what a store writes past its part is overwritten
// by the next.
func putLine(b []byte, inst Inst, fi uint16, addr uint32, d Dialect) int {
	return putLineFrom(b, putAddrColumn(b, addr, d), inst, fi, addr, d)
}

// putAddrColumn stores the start of the line of an instruction at addr,
// up to its text (New: "        /*ADDR*/        ") or its hex words (Old:
// "\t/*ADDR*/     /*0x"), and returns its length: addrColumnRoom bytes at
// most, written as whole words that may store up to 8 bytes past it.
func putAddrColumn(b []byte, addr uint32, d Dialect) int {
	const blanks8 = 0x2020202020202020
	digits := max((bits.Len32(addr)+3)>>2, 4) // the address column: at least 4 digits
	addrDigits := hexWord8(addr) >> ((64 - 8*digits) & 63)
	if d == Old {
		st64(b, 0, '\t'|'/'<<8|'*'<<16)
		st64(b, 3, addrDigits)
		p := 3 + digits
		st64(b, p, '*'|'/'<<8|0x2020202020<<16|'/'<<56)
		st64(b, p+8, '*'|'0'<<8|'x'<<16)
		return p + 11
	}
	st64(b, 0, blanks8)
	st64(b, 8, '/'|'*'<<8)
	st64(b, 10, addrDigits)
	st64(b, 10+digits, '*'|'/'<<8|0x202020202020<<16)
	st64(b, 18+digits, blanks8)
	return 20 + digits
}

// addrColumnRoom is the room the address column of 8 digits takes, rounded
// up to whole 16-byte moves.
const addrColumnRoom = 32

// addrColumn holds the address column (putAddrColumn) of the last 256-byte
// block of addresses listed: within a block only its last two digits
// change, stored from isa.HexPair (the column's digits and stores took about
// 40 host instructions a line).
type addrColumn struct {
	key  uint64 // columnKey of col's block and dialect; 0 (none) in the zero value
	col  [addrColumnRoom]byte
	n    int // col's length
	last int // where its last two digits are
}

// columnKey is addrColumn's key of addr's 256-byte block in dialect d:
// never 0.
func columnKey(addr uint32, d Dialect) uint64 {
	return uint64(addr>>8) | uint64(d)<<32 | 1<<63
}

// put stores the address column of addr in dialect d at b[0:] and returns
// its length. The part loops spell it out: the call to fill keeps it from
// being inlined.
func (c *addrColumn) put(b []byte, addr uint32, d Dialect) int {
	if columnKey(addr, d) != c.key {
		c.fill(addr, d)
	}
	return c.putCached(b, addr)
}

// putCached is put for an address in the cached block and dialect.
func (c *addrColumn) putCached(b []byte, addr uint32) int {
	*(*[addrColumnRoom]byte)(b[:addrColumnRoom]) = c.col
	binary.LittleEndian.PutUint16(b[c.last&(addrColumnRoom-1):], isa.HexPair(uint8(addr)))
	return c.n
}

// fill caches the column of addr's block in dialect d.
func (c *addrColumn) fill(addr uint32, d Dialect) {
	var t [addrColumnRoom + 16]byte
	c.n = putAddrColumn(t[:], addr, d)
	c.col = [addrColumnRoom]byte(t[:addrColumnRoom])
	c.last = c.n - 12 // New: "LL*/" and 8 blanks after the digits
	if d == Old {
		c.last = c.n - 13 // "LL*/     /*0x"
	}
	c.key = columnKey(addr, d)
}

// putLineFrom stores the rest of the line putLine stores, after its
// address column of p bytes, and returns the line's length.
func putLineFrom(b []byte, p int, inst Inst, fi uint16, addr uint32, d Dialect) int {
	const blanks8 = 0x2020202020202020
	raw := inst.Raw
	if d == Old {
		// "\t/*ADDR*/     /*0xWORD0[WORD1]*/ \tTEXT\n"
		st64(b, p, hexWord8(uint32(raw)))
		p += 8
		if raw&8 == 0 {
			st64(b, p, hexWord8(uint32(raw>>32)))
			p += 8
		}
		st64(b, p, '*'|'/'<<8|' '<<16|'\t'<<24)
		p = putText(b, p+4, fi, raw, uint64(addr), d)
		b[p] = '\n'
		return p + 1
	}
	// "        /*ADDR*/        TEXT<blanks to 46> /* 0xHEX */\n"
	t := p
	p = putText(b, t, fi, raw, uint64(addr), d)
	// the padding: six words cover the widest gap (46 bytes)
	st64(b, p, blanks8)
	st64(b, p+8, blanks8)
	st64(b, p+16, blanks8)
	st64(b, p+24, blanks8)
	st64(b, p+32, blanks8)
	st64(b, p+40, blanks8)
	p = max(p, t+isa.CuobjdumpStyle.TextCol)
	st64(b, p, ' '|'/'<<8|'*'<<16|' '<<24|'0'<<32|'x'<<40)
	if raw&8 != 0 { // a 4-byte form: 8 digits
		st64(b, p+6, hexWord8(uint32(raw)))
		st64(b, p+14, ' '|'*'<<8|'/'<<16|'\n'<<24)
		return p + 18
	}
	st64(b, p+6, hexWord8(uint32(raw>>32)))
	st64(b, p+14, hexWord8(uint32(raw)))
	st64(b, p+22, ' '|'*'<<8|'/'<<16|'\n'<<24)
	return p + 26
}

// appendListingWide is AppendListing for addresses of more than 8 hex
// digits.
func appendListingWide(dst []byte, inst Inst, addr uint64, d Dialect) []byte {
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
	dst = appendBlanks(dst, st.Indent)
	dst = appendAddrColumn(dst, addr)
	dst = appendBlanks(dst, st.Gap)
	start := len(dst)
	dst = AppendTextDialect(dst, inst, addr, d)
	dst = appendBlanks(dst, st.TextCol-(len(dst)-start))
	dst = append(dst, " /* 0x"...)
	if inst.Len() == 4 {
		dst = appendHex8(dst, uint32(inst.Raw))
	} else {
		dst = appendHex16(dst, inst.Raw)
	}
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
	if d != Old {
		d = New
	}
	return isa.ListSteps(dst, code, base, d.stepFunc())
}

// WriteListing writes the listing Disassemble returns (the New dialect)
// to w a buffer at a time: memory does not grow with the code.
func WriteListing(w io.Writer, code []byte, base uint64) ([]*isa.DecodeError, error) {
	return isa.WriteMarkedParts(w, code, base, New.stepFunc, New.partFunc)
}

// WriteListingFrom is WriteListing of the code read from r as it goes
// (isa.WriteListingFromFunc).
func WriteListingFrom(w io.Writer, r io.Reader, base uint64, onErr func(*isa.DecodeError)) error {
	return WriteListingFromDialect(w, r, base, New, onErr)
}

// WriteListingFromDialect is WriteListingFrom in dialect d.
func WriteListingFromDialect(w io.Writer, r io.Reader, base uint64, d Dialect, onErr func(*isa.DecodeError)) error {
	return isa.WriteMarkedPartsFrom(w, r, base, d.stepFunc, d.partFunc, 8, onErr)
}

// stepFunc is d's StepFunc: its PartFunc over one instruction.
func (d Dialect) stepFunc() isa.StepFunc { return isa.PartStep(d.partFunc()) }

// partFunc is d's PartFunc (isa.WriteMarkedParts): a loop over the words
// that start in code[from:to], with no call per word but the decoder's and
// the printer's when all of a word is there and its address has at most 8
// hex digits (the common case; d.step lists the rest: a short tail, wide
// addresses). A word that does not decode is listed as .word lines, its
// error's detail left to invalidWhy until it is shown (random bytes are
// mostly such words, and building each one's text took three quarters of
// their listing's time).
func (d Dialect) partFunc() isa.PartFunc {
	if d != Old {
		d = New
	}
	var col addrColumn // this worker's
	return func(dst []byte, errs *isa.PartErrors, code []byte, from, to int, base uint64) ([]byte, int) {
		off := from
		for {
			if dst, off = listRun(dst, &col, code, off, to, base, d); off >= to {
				return dst, off
			}
			addr := base + uint64(off)
			if off < 0 || off+8 > len(code) || addr>>32 != 0 {
				var n int
				var de *isa.DecodeError
				if dst, n, de = d.step(dst, code, off, base); de != nil {
					errs.Add(de)
				}
				off += max(n, 1)
				continue
			}
			// listRun stops inside the code only at a word that does not
			// decode: it and the words after it that do not either are
			// listed here (random bytes are mostly such words)
			dst, off = listInvalid(dst, &col, errs, code, off, to, base, d)
		}
	}
}

// listInvalid lists the words from code[off:] on, up to to, while they do
// not decode, all of each is there and their addresses have at most 8 hex
// digits, as .word lines, and adds their errors to errs, their details
// left to invalidWhy until they are shown. It returns where it stopped.
func listInvalid(dst []byte, col *addrColumn, errs *isa.PartErrors, code []byte, off, to int, base uint64, d Dialect) ([]byte, int) {
	end := min(to, len(code)-7)
	for off < end {
		addr := base + uint64(off)
		raw, n := ld64(code, off), 8
		if raw&8 != 0 { // a 4-byte form
			raw, n = raw&0xffffffff, 4
		}
		if _, ok := decodeWord(raw); ok || addr>>32 != 0 {
			break
		}
		errs.AddInvalid(addr, n, raw, invalidWhy{})
		for k := 0; k < n; k += 4 {
			w := binary.LittleEndian.Uint32(code[off+k:])
			if d == Old || (addr+uint64(k))>>32 != 0 {
				dst = appendWordLine(dst, addr+uint64(k), w, d)
				continue
			}
			var b []byte
			dst, b = withRoom(dst, lineRoom)
			dst = dst[:len(dst)+putWordLineFrom(b, col.put(b, uint32(addr)+uint32(k), New), w)]
		}
		off += n
	}
	return dst, off
}

// listRun lists the words from code[off:] on, up to to, while they decode,
// all of each is there and their addresses have at most 8 hex digits, and
// returns where it stopped: the loop of nearly every word, kept apart from
// the rare cases so that it holds little in its registers.
func listRun(dst []byte, col *addrColumn, code []byte, off, to int, base uint64, d Dialect) ([]byte, int) {
	end := min(to, len(code)-7) // the words whose 8 bytes are all there start before it
	for off >= 0 && off < end {
		addr := base + uint64(off)
		if addr>>32 != 0 {
			break
		}
		raw, n := ld64(code, off), 8
		if raw&8 != 0 { // a 4-byte form
			raw, n = raw&0xffffffff, 4
		}
		inst, ok := decodeWord(raw)
		if !ok {
			break
		}
		var b []byte
		dst, b = withRoom(dst, lineRoom)
		if columnKey(uint32(addr), d) != col.key { // put, inlined
			col.fill(uint32(addr), d)
		}
		p := col.putCached(b, uint32(addr))
		dst = dst[:len(dst)+putLineFrom(b, p, inst, printForm(inst, d), uint32(addr), d)]
		off += n
	}
	return dst, off
}

// invalidWhy explains why a word does not decode (isa.Explainer).
type invalidWhy struct{}

func (invalidWhy) Explain(raw uint64) string { return invalidDetail(raw) }

// step lists the instruction at code[off:] in dialect d, whatever its
// place in the code (the StepFunc of the cases stepFunc's fast paths
// leave).
func (d Dialect) step(dst []byte, code []byte, off int, base uint64) ([]byte, int, *isa.DecodeError) {
	addr := base + uint64(off)
	inst, err := DecodeAt(code[off:], addr)
	if err == nil {
		return AppendListing(dst, inst, addr, d), inst.Len(), nil
	}
	de, _ := err.(*isa.DecodeError) // DecodeAt's errors are
	if de == nil {
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
	if addr>>32 == 0 {
		dst, b := withRoom(dst, lineRoom)
		return dst[:len(dst)+putWordLine(b, uint32(addr), w)]
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

// putWordLine stores appendWordLine's New line of w at addr in b (which
// has lineRoom bytes) as whole words, as putLine does, and returns its
// length: "        /*ADDR*/        .word 0xW;<blanks to 46> /* 0xW */\n".
func putWordLine(b []byte, addr uint32, w uint32) int {
	return putWordLineFrom(b, putAddrColumn(b, addr, New), w)
}

// putWordLineFrom stores the rest of the line putWordLine stores, after
// its address column of t bytes, and returns the line's length.
func putWordLineFrom(b []byte, t int, w uint32) int {
	const blanks8 = 0x2020202020202020
	st64(b, t, '.'|'w'<<8|'o'<<16|'r'<<24|'d'<<32|' '<<40|'0'<<48|'x'<<56)
	st64(b, t+8, hexWord8(w))
	// ";" and the padding to the hex column (TextCol 46 after the text's 17 bytes)
	st64(b, t+16, ';'|blanks8&^0xff)
	for p := t + 24; p < t+isa.CuobjdumpStyle.TextCol; p += 8 {
		st64(b, p, blanks8)
	}
	p := t + isa.CuobjdumpStyle.TextCol
	st64(b, p, ' '|'/'<<8|'*'<<16|' '<<24|'0'<<32|'x'<<40)
	st64(b, p+6, hexWord8(w))
	st64(b, p+14, ' '|'*'<<8|'/'<<16|'\n'<<24)
	return p + 18
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
