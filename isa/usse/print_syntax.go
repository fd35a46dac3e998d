package usse

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"

	"github.com/gpuisa/gpuisa/isa"
)

// The syntax printers (print_gen.go, generated from usse.spec with
// tables.go) print one syntax each in straight-line code: the elements the
// interpreter (appendElems) walks and switches on one by one are unrolled
// with their fields and tables as constants, literals as word stores, and
// the common elements (enums, registers, small numbers, one-character
// modifiers) written without a branch on the value, which random words
// mispredict. The other elements call the interpreter's own code
// (appendElem), so each element still has one meaning;
// TestSyntaxPrintersAgree checks the two print the same bytes.

// printTables are the tables the syntax printers read: the register
// tables and the flag-run tables, both literals of inittables.go. (The
// flag runs were made when a form first printed, 1.3 ms of CPU time
// under one lock at the start of a listing of every form, and 184 KB of
// fresh memory faulted in page by page: 2-3 ms of a 1M-word listing's
// wall time.)
type printTables struct {
	reg   [len(regTableKeys)][]regEntry
	flags [len(flagRunKeys)][]flagEntry
}

// flagRunKey names a flag-run table: the texts of some consecutive flags
// of a syntax (fields of form's syntax variant) for every combination of
// their values (the first field's in the low bits).
type flagRunKey struct {
	form, variant int
	fields        []int8
}

// flagEntry is a flag run's text padded to 31 bytes, then its length, as
// the little-endian words that store them.
type flagEntry [4]uint64

// regTableKey names a register table: bank table, bits of the bank index
// (bank field and extension), bits of the number field, numbering factor.
type regTableKey struct {
	banks, bankBits, numBits, mult uint8
}

// regEntry is a register's text padded to 23 bytes, then its length, with
// regImm set when it is an immediate (regx prints no ".x" then), as the
// little-endian words that store them (a copy of a byte array from a
// pointer is a memmove call).
type regEntry [3]uint64

const regImm = 0x80

// syntaxTables are the printers' tables, made when the first word prints.
var syntaxTables = sync.OnceValue(buildSyntaxTables)

// buildSyntaxTables gathers the register and flag-run tables.
func buildSyntaxTables() *printTables {
	return &printTables{reg: regTablesValue, flags: flagRunTablesValue}
}

// buildRegTables makes the register tables from the interpreter's code
// (appendRegAt): regTablesValue, which inittables.go holds.
func buildRegTables() (reg [len(regTableKeys)][]regEntry) {
	buf := make([]byte, 0, 512)
	for ti, k := range regTableKeys {
		t := make([]regEntry, 1<<(k.bankBits+k.numBits))
		for i := range t {
			bi, num := i>>k.numBits, uint32(i)&(1<<k.numBits-1)
			s := appendRegAt(buf[:0], k.banks, k.numBits, bi, num, uint64(k.mult))
			if len(s) > 23 {
				panic("usse: register text " + string(s) + " longer than a regEntry") // fixed tables: any test meets it
			}
			var b [24]byte
			b[23] = uint8(copy(b[:23], s))
			if bi < 8 && bankKinds[k.banks][bi] == bkImm {
				b[23] |= regImm
			}
			t[i] = regEntry{binary.LittleEndian.Uint64(b[0:]), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])}
		}
		reg[ti] = t
	}
	return reg
}

// buildFlagRunTables makes every flag-run table from appendFlags:
// flagRunTablesValue, which inittables.go holds.
func buildFlagRunTables() (t [len(flagRunKeys)][]flagEntry) {
	buf := make([]byte, 0, 512)
	for ti, k := range flagRunKeys {
		t[ti] = flagRunTable(k, buf)
	}
	return t
}

// flagRunTable is the flag-run table k names, made with buf's room.
func flagRunTable(k flagRunKey, buf []byte) []flagEntry {
	// the run's text is what appendFlags prints when every other flag
	// of the syntax is at its default
	f := &forms[k.form]
	in := Inst{Form: int16(k.form)}
	bits := 0
	for _, fi := range f.variants[k.variant].flags {
		in.Args[fi] = f.fields[fi].def
	}
	for _, fi := range k.fields {
		bits += int(f.fields[fi].width)
	}
	t := make([]flagEntry, 1<<bits)
	for i := range t {
		sh := 0
		for _, fi := range k.fields {
			w := int(f.fields[fi].width)
			in.Args[fi] = uint32(i>>sh) & (1<<w - 1)
			sh += w
		}
		s := appendFlags(buf[:0], f, k.variant, &in)
		if len(s) > 31 {
			panic("usse: flag run " + string(s) + " longer than a flagEntry") // fixed tables: any test meets it
		}
		var b [32]byte
		b[31] = uint8(copy(b[:31], s))
		for w := range t[i] {
			t[i][w] = binary.LittleEndian.Uint64(b[8*w:])
		}
	}
	return t
}

// reserve makes room for n bytes after dst. The syntax printers reserve
// the room of a run of put helpers at once (the generator adds up their
// stores); the helpers then write without a room check of their own
// (a slice past the room would panic, which the sums rule out).
func reserve(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		return growRoom(dst, n)
	}
	return dst
}

// growRoom is reserve's rare path, out of line: the printers' code is
// what a random word's line brings into the instruction cache.
//
//go:noinline
func growRoom(dst []byte, n int) []byte { return slices.Grow(dst, n) }

// A run of the syntax printers' stores goes into one room: roomAt
// reserves it and returns it as an array, and the at helpers store at
// offset o of the run (masked to roomMask, which the generator's sums
// keep o below: the mask is what lets the compiler drop every bounds
// check) and return the offset after what they wrote. The run ends with
// dst = dst[:len(dst)+o]. Against a helper that re-slices dst at every
// store, this saves about a third of a store's host instructions.
const (
	roomMask  = 255
	roomBytes = roomMask + 1 + 32 // a store takes at most 32 bytes
)

type roomBuf = [roomBytes]byte

// roomAt returns the room of a run: roomBytes after dst, which the
// printer made sure are there (reserve(dst, roomBytes)), and offset 0.
func roomAt(dst []byte) (*roomBuf, int) {
	return (*roomBuf)(dst[len(dst) : len(dst)+roomBytes]), 0
}

// atLit8 is putLit8 at offset o of a room.
func atLit8(r *roomBuf, o int, w uint64, n int) int {
	binary.LittleEndian.PutUint64(r[o&roomMask:], w)
	return o + n
}

// atShort is putShort at offset o of a room.
func atShort(r *roomBuf, o int, t *shortText) int {
	*(*[16]byte)(r[o&roomMask:]) = t.b
	return o + int(t.n)
}

// atReg is putReg at offset o of a room.
func atReg(r *roomBuf, o int, e *regEntry) int {
	b := r[o&roomMask:]
	binary.LittleEndian.PutUint64(b[0:], e[0])
	binary.LittleEndian.PutUint64(b[8:], e[1])
	binary.LittleEndian.PutUint64(b[16:], e[2])
	return o + int(e[2]>>56&^regImm)
}

// atFlagRun is putFlagRun at offset o of a room.
func atFlagRun(r *roomBuf, o int, e *flagEntry) int {
	b := r[o&roomMask:]
	binary.LittleEndian.PutUint64(b[0:], e[0])
	binary.LittleEndian.PutUint64(b[8:], e[1])
	binary.LittleEndian.PutUint64(b[16:], e[2])
	binary.LittleEndian.PutUint64(b[24:], e[3])
	return o + int(e[3]>>56)
}

// atDec999 is putDec999 at offset o of a room.
func atDec999(r *roomBuf, o int, v uint32) int {
	d := decWords[v]
	binary.LittleEndian.PutUint32(r[o&roomMask:], d)
	return o + int(d>>24)
}

// atHex32 is putHex32 at offset o of a room.
func atHex32(r *roomBuf, o int, x uint32) int {
	n := max((bits.Len32(x)+3)>>2, 1)
	b := r[o&roomMask:]
	binary.LittleEndian.PutUint16(b, '0'|'x'<<8)
	binary.BigEndian.PutUint64(b[2:], isa.HexDigits8(x)<<(8*(8-n)))
	return o + 2 + n
}

// putLit8 appends a literal of n <= 8 bytes held in w (first byte
// lowest) as one store into reserved room (8 bytes).
func putLit8(dst []byte, w uint64, n int) []byte {
	l := len(dst)
	binary.LittleEndian.PutUint64(dst[l:l+8], w)
	return dst[:l+n]
}

// putShort is appendShort into reserved room (16 bytes). It and putReg
// and putFlagRun are inlined: they were calls while a random word's line
// ran one of about a hundred printers after another (inlined, the
// printers' code cost more in instruction-cache misses than the calls);
// listed in batches by op1 group, the words of a printer come one after
// the other, and inlining saves 55 host instructions per random line
// for 0.7 more simulated instruction-cache misses (cachegrind).
func putShort(dst []byte, t *shortText) []byte {
	n := len(dst)
	*(*[16]byte)(dst[n : n+16]) = t.b
	return dst[:n+int(t.n)]
}

// putReg appends a register's text (three word stores) into reserved
// room (24 bytes).
func putReg(dst []byte, e *regEntry) []byte {
	n := len(dst)
	b := dst[n : n+24]
	binary.LittleEndian.PutUint64(b[0:], e[0])
	binary.LittleEndian.PutUint64(b[8:], e[1])
	binary.LittleEndian.PutUint64(b[16:], e[2])
	return dst[:n+int(e[2]>>56&^regImm)]
}

// putFlagRun appends a flag run's text (four word stores) into reserved
// room (32 bytes).
func putFlagRun(dst []byte, e *flagEntry) []byte {
	n := len(dst)
	b := dst[n : n+32]
	binary.LittleEndian.PutUint64(b[0:], e[0])
	binary.LittleEndian.PutUint64(b[8:], e[1])
	binary.LittleEndian.PutUint64(b[16:], e[2])
	binary.LittleEndian.PutUint64(b[24:], e[3])
	return dst[:n+int(e[3]>>56)]
}

// putDec999 appends v < 1000 in decimal (decWords: one store) into
// reserved room (4 bytes).
func putDec999(dst []byte, v uint32) []byte {
	l := len(dst)
	d := decWords[v]
	binary.LittleEndian.PutUint32(dst[l:l+4], d)
	return dst[:l+int(d>>24)]
}

// putHex32 appends x as isa.AppendHexNum does ("0x" and the significant
// digits, at least one) with two stores into reserved room (10 bytes).
func putHex32(dst []byte, x uint32) []byte {
	n := max((bits.Len32(x)+3)>>2, 1)
	l := len(dst)
	b := dst[l : l+10]
	binary.LittleEndian.PutUint16(b, '0'|'x'<<8)
	binary.BigEndian.PutUint64(b[2:], isa.HexDigits8(x)<<(8*(8-n)))
	return dst[:l+2+n]
}

// appendDecW appends v in decimal; below 1000 from decWords, one store.
func appendDecW(dst []byte, v uint32) []byte {
	if v >= 1000 {
		return appendDec32(dst, v)
	}
	return putDec999(reserve(dst, 4), v)
}

// appendDec32 appends v in decimal: all ten digits two at a time (a fixed
// number of steps), then the significant ones as two word stores (the
// don't-care fields of random words are ten-digit flags; a loop per digit
// mispredicts its exit).
func appendDec32(dst []byte, v uint32) []byte {
	var b [32]byte // the digits in b[6:16], read up to 16 bytes from their start
	x := v
	for i := 14; i >= 6; i -= 2 {
		q := x / 100
		r := x - q*100
		b[i], b[i+1] = decPairs[2*r], decPairs[2*r+1]
		x = q
	}
	n := 1
	for _, p := range [...]uint32{1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9} {
		n += int(b2u(v >= p))
	}
	l := len(dst)
	if cap(dst)-l < 16 {
		dst = slices.Grow(dst, 16)
	}
	start := 16 - n
	binary.LittleEndian.PutUint64(dst[l:l+8], binary.LittleEndian.Uint64(b[start:start+8]))
	binary.LittleEndian.PutUint64(dst[l+8:l+16], binary.LittleEndian.Uint64(b[start+8:start+16]))
	return dst[:l+n]
}

// decPairs spells 00 to 99.
const decPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// pfxTexts[t][v] is a pfx element's text: enum entry v of table t and a
// blank, or nothing for an empty entry.
//
// buildPfxTexts computes pfxTexts (inittables.go holds its value).
func buildPfxTexts() (t [len(enumTables)][]shortText) {
	for ti, names := range enumTables {
		t[ti] = make([]shortText, len(names))
		for i := range names {
			e := elem{kind: kPfx, table: uint8(ti), f: [16]int8{0}}
			t[ti][i] = newShortText(string(appendElem(nil, nil, &e, &Inst{Args: [MaxFields]uint32{uint32(i)}})))
		}
	}
	return t
}

// maskTexts[m] is write mask m as appendMaskChans prints it.
//
// buildMaskTexts computes maskTexts (inittables.go holds its value).
func buildMaskTexts() (t [16]shortText) {
	for m := range t {
		t[m] = newShortText(string(appendMaskChans(nil, uint32(m))))
	}
	return t
}

// appendFlag appends a valued flag (prefix lo, hi of plen bytes, then the
// value v) unless v is its default def.
func appendFlag(dst []byte, v, def uint32, lo, hi uint64, plen int) []byte {
	n := len(dst)
	if cap(dst)-n < flagRoom {
		dst = slices.Grow(dst, flagRoom)
	}
	return dst[:putFlag(dst[:n+flagRoom], n, v, def, lo, hi, plen)]
}

// putFlag writes a valued flag (prefix lo, hi of plen bytes, then value
// v) at b[n:] and returns the new end: past it when v is not the default
// def, else n (appendFlags' rule).
func putFlag(b []byte, n int, v, def uint32, lo, hi uint64, plen int) int {
	binary.LittleEndian.PutUint64(b[n:n+8], lo)
	binary.LittleEndian.PutUint64(b[n+8:n+16], hi)
	m := n + plen
	if v >= 1000 { // one branch, rarely taken
		m = len(appendDec32(b[:m], v))
	} else {
		d := decWords[v]
		binary.LittleEndian.PutUint32(b[m:m+4], d)
		m += int(d >> 24)
	}
	if v != def {
		n = m
	}
	return n
}
