package maxwell

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpuisa/gpuisa/isa"
)

// AppendText appends nvdisasm's text for inst at address pc, without the
// listing columns: guard, mnemonic, operands and the closing " ;" (or ";"
// when the control field has stall 0 and no yield).
func AppendText(dst []byte, inst Inst, pc uint64) []byte {
	dst = appendGuard(dst, inst)
	return appendBody(dst, inst, pc)
}

// Print returns AppendText as a string.
func Print(inst Inst, pc uint64) string { return string(AppendText(nil, inst, pc)) }

func appendGuard(dst []byte, inst Inst) []byte {
	g := inst.Word >> 16 & 0xf
	if forms[inst.form].attrs&attrNoGuard != 0 {
		g = 7 // prints nothing
	}
	gw := guardWords[g]
	return putWord(dst, gw.v, gw.n)
}

// packedWord is a text of at most 8 bytes, packed little-endian.
type packedWord struct {
	v uint64
	n int
}

func packWord(s string) packedWord {
	var b [8]byte
	copy(b[:], s)
	return packedWord{binary.LittleEndian.Uint64(b[:]), len(s)}
}

// buildGuardWords makes guardWords, the guard texts by the 4-bit field
// (@P0 .. @!PT; 7, PT, is none), and buildPredWords predWords, the
// predicate names (both in inittables.go): a table lookup and one store,
// since random code makes any branch on them unpredictable.
func buildGuardWords() (g [16]packedWord) {
	for i := range 8 {
		if i != 7 {
			g[i] = packWord("@" + predName(i) + " ")
		}
		g[8+i] = packWord("@!" + predName(i) + " ")
	}
	return
}

func buildPredWords() (p [8]packedWord) {
	for i := range p {
		p[i] = packWord(predName(i))
	}
	return
}

// predName is predicate i's name: P0..P6, PT.
func predName(i int) string {
	if i < 7 {
		return "P" + string(rune('0'+i))
	}
	return "PT"
}

// putWord appends the n ≤ 8 bytes packed in v: one store when there is room.
func putWord(dst []byte, v uint64, n int) []byte {
	l := len(dst)
	if cap(dst)-l < 8 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		return append(dst, b[:n]...)
	}
	binary.LittleEndian.PutUint64(dst[l:l+8], v)
	return dst[:l+n]
}

func appendPred(dst []byte, p uint64) []byte {
	pw := predWords[p&7]
	return putWord(dst, pw.v, pw.n)
}

// appendNPred appends a predicate with its negation bit (bit 3): "!P3".
func appendNPred(dst []byte, v uint64) []byte {
	dst = putFlag(dst, '!', 1, v>>3&1)
	return appendPred(dst, v&7)
}

// appendDec writes x in decimal.
func appendDec(dst []byte, x uint64) []byte { return isa.AppendDec(dst, x) }

func appendSHex(dst []byte, x int64) []byte {
	if x < 0 {
		dst = append(dst, '-')
		return appendHexNum(dst, uint64(-x))
	}
	return appendHexNum(dst, uint64(x))
}

// appendHexNum is isa.AppendHexNum storing the digits in place: "0x" and
// the significant digits as one or two 8-byte stores when there is room.
func appendHexNum(dst []byte, x uint64) []byte {
	n := len(dst)
	if cap(dst)-n < 18 {
		return isa.AppendHexNum(dst, x)
	}
	digits := max((bits.Len64(x)+3)>>2, 1)
	d := dst[n : n+18]
	d[0], d[1] = '0', 'x'
	if digits <= 8 {
		binary.BigEndian.PutUint64(d[2:10], isa.HexDigits8(uint32(x))<<(8*(8-digits)&63))
	} else {
		binary.BigEndian.PutUint64(d[2:10], isa.HexDigits8(uint32(x>>32))<<(8*(16-digits)&63))
		binary.BigEndian.PutUint64(d[digits-6:digits+2], isa.HexDigits8(uint32(x)))
	}
	return dst[:n+2+digits]
}

// appendBody prints everything after the guard.
func appendBody(dst []byte, inst Inst, pc uint64) []byte {
	return appendBodyLabels(dst, inst, pc, nil)
}

// appendBodyLabels prints branch targets as lb names them when lb is not nil
// (the ELF-mode listing), else as addresses. Each form has its own printer,
// generated from its template (print_gen.go); the operand kinds whose text
// takes more than a few lines are printed by the tok* helpers below.
func appendBodyLabels(dst []byte, inst Inst, pc uint64, lb *funcLabels) []byte {
	return formPrinters[inst.form](dst, inst, pc, lb)
}

// putFlag appends a flag's text (n ≤ 8 bytes packed little-endian in v) when
// on is 1, without a branch on it: the 8 bytes are stored either way and the
// length moves by n or 0.
func putFlag(dst []byte, v uint64, n int, on uint64) []byte {
	l := len(dst)
	if cap(dst)-l < 8 {
		if on == 0 {
			return dst
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		return append(dst, b[:n]...)
	}
	binary.LittleEndian.PutUint64(dst[l:l+8], v)
	return dst[:l+n*int(on)]
}

// appendEnd closes an instruction: "X;" under a control field of stall 0,
// no yield, no barriers and no wait, else "X ;".
func appendEnd(dst []byte, c Ctrl) []byte {
	if c&0x1ffff == 0x7e0 {
		return append(dst, ';')
	}
	return append(dst, " ;"...)
}

// relocated is the symbol text nvdisasm prints for an operand field at bit
// pos that a relocation fills in, or "".
func relocated(lb *funcLabels, pc uint64, pos uint8) string {
	if r := lb.relocAt(pc); r != "" && r[0] != 'c' && pos == relocField {
		return r
	}
	return ""
}

func tokHex(dst []byte, t *tok, w, pc uint64, lb *funcLabels) []byte {
	if r := relocated(lb, pc, t.parts[0].pos); r != "" {
		return append(dst, r...)
	}
	return appendHexNum(dst, t.get(w)<<t.shift)
}

func tokSHex(dst []byte, t *tok, w, pc uint64, lb *funcLabels) []byte {
	if r := relocated(lb, pc, t.parts[0].pos); r != "" {
		return append(dst, r...)
	}
	return appendSHex(dst, isa.SignExtend(t.get(w), t.width())<<t.shift)
}

func tokRel(dst []byte, t *tok, w, pc uint64, lb *funcLabels) []byte {
	target := int64(pc) + 8 + isa.SignExtend(t.get(w), t.width())
	if lb != nil {
		return lb.name(dst, uint64(target))
	}
	return appendSHex(dst, target)
}

func tokAddr(dst []byte, t *tok, w, pc uint64, lb *funcLabels) []byte {
	r, off := t.addr(w)
	if t.n > 1 {
		if rt := relocated(lb, pc, t.parts[1].pos); rt != "" {
			if r != 255 {
				dst = appendReg(dst, r)
				dst = append(dst, '+')
			}
			return append(dst, rt...)
		}
	}
	switch {
	case r != 255:
		dst = appendReg(dst, r)
		if off != 0 {
			dst = append(dst, '+')
			dst = appendSHex(dst, off)
		}
		return dst
	case off != 0 && t.arg > 0:
		return appendSHex(dst, off) // constant-bank offsets stay signed
	case off != 0:
		// with RZ the offset is an absolute address: unsigned
		return appendHexNum(dst, uint64(off)&t.offMask())
	case t.arg == 2:
		return append(dst, "0x0"...)
	}
	return append(dst, "RZ"...)
}

func tokRegPair(dst []byte, t *tok, w uint64) []byte {
	r := t.get(w)
	if r == 255 || r+uint64(t.shift) > 254 {
		return append(dst, "???255"...)
	}
	dst = append(dst, 'R')
	return appendDec(dst, r+uint64(t.shift))
}

// tokShiftedReg is R@p+k: a register a fixed distance after the field's.
func tokShiftedReg(dst []byte, r uint64, shift uint8) ([]byte, bool) {
	r += uint64(shift)
	if r > 254 {
		return append(dst, "???255"...), false // nvdisasm's text for a pair running past R254
	}
	return appendReg(dst, r), true
}

func tokBitSet(dst []byte, t *tok, w uint64) []byte {
	v := t.get(w)
	dst = append(dst, '{')
	first := true
	for b := int(t.width()) - 1; b >= 0; b-- {
		if v>>uint(b)&1 != 0 {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendDec(dst, uint64(b))
		}
	}
	return append(dst, '}')
}

// tokPhase is a texture's .T/.P, kept in the first two reuse bits.
func tokPhase(dst []byte, c Ctrl) []byte {
	switch c.Reuse() & 3 {
	case 1:
		return append(dst, ".T"...)
	case 2:
		return append(dst, ".P"...)
	case 3:
		return append(dst, ".INVALIDPHASE3"...)
	}
	return dst
}

func appendTable(dst []byte, ti int, v uint64) []byte {
	// an entry's text as two 8-byte stores (tableLits: n is -1 for a
	// value that is not a plain entry or a text over 16 bytes)
	p := &tableLits[ti][v]
	if n := len(dst); p.n >= 0 && cap(dst)-n >= 16 {
		d := dst[n : n+16]
		binary.LittleEndian.PutUint64(d[:8], p.lo)
		binary.LittleEndian.PutUint64(d[8:], p.hi)
		return dst[:n+p.n]
	}
	return appendTableSlow(dst, ti, v)
}

func appendTableSlow(dst []byte, ti int, v uint64) []byte {
	t := &tables[ti]
	if t.kinds[v] == 0 {
		return append(dst, t.entries[v]...)
	}
	if t.dot {
		dst = append(dst, '.')
	}
	if t.quest || t.kinds[v] == 3 {
		dst = append(dst, "???"...)
		return appendDec(dst, v)
	}
	dst = append(dst, "INVALID"...)
	dst = append(dst, t.name...)
	if t.nonum {
		return dst
	}
	if t.hex {
		return appendUpperHex(dst, v)
	}
	return appendDec(dst, v)
}

func appendUpperHex(dst []byte, v uint64) []byte {
	const digits = "0123456789ABCDEF"
	n := 1
	for t := v >> 4; t != 0; t >>= 4 {
		n++
	}
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, digits[v>>(4*uint(i))&0xf])
	}
	return dst
}

// buildRegWords makes regWords (in inittables.go): each register name
// packed into one little-endian word, so printing a register is one 8-byte
// store when the buffer has room.
func buildRegWords() (p [256]uint64) {
	for r, name := range regNames {
		var b [8]byte
		copy(b[:], name)
		p[r] = binary.LittleEndian.Uint64(b[:])
	}
	return
}

func appendReg(dst []byte, r uint64) []byte {
	n := len(dst)
	if cap(dst)-n < 8 {
		return append(dst, regNames[r&255]...)
	}
	binary.LittleEndian.PutUint64(dst[n:n+8], regWords[r&255])
	return dst[:n+len(regNames[r&255])]
}
