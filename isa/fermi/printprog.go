package fermi

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpuisa/gpuisa/isa"
)

// The printer is straight-line code per form (printgen.go), generated from
// a program made from the form's modifiers and operands (the same tables
// the decoder and assembler read; printgen_test.go compiles, interprets
// and writes it out): the mnemonic and fixed texts are packed words stored
// whole, the common modifiers and operands read their bits at constant
// positions and store their text in place, and the rest call the helpers
// below or the general appendMod / appendOperand. A listing line is
// written into room reserved once (textRoom bytes), so nothing checks for
// space on the way.

// textRoom is the room a text is written into: the longest text is about
// 120 bytes (TestTextRoom) and a store may write 16 bytes past the end.
const textRoom = 256

// words16 is a text of up to 16 bytes as two little-endian words.
type words16 struct {
	lo, hi uint64
	n      uint8
}

func pack16(s string) words16 {
	var b [16]byte
	copy(b[:], s)
	return words16{binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:]), uint8(len(s))}
}

// put stores t at b[p:] and returns the position after it.
func (t *words16) put(b []byte, p int) int {
	st64(b, p, t.lo)
	st64(b, p+8, t.hi)
	return p + int(t.n)
}

// buildTableWords makes tableWords (inittables.go): the tables' entries
// packed (n = 255: longer than 16 bytes, printed from the string).
func buildTableWords() (t [len(tables)][]words16) {
	for i, entries := range tables {
		for _, e := range entries {
			w := words16{n: 255}
			if len(e) <= 16 {
				w = pack16(e)
			}
			t[i] = append(t[i], w)
		}
	}
	return t
}

// buildRegWords makes regWords (inittables.go): R0..R62 and RZ, the
// length in the top byte.
func buildRegWords() (w [64]uint64) {
	for r := range w {
		w[r] = isa.TextWord(string(appendReg(nil, uint64(r))))
	}
	return w
}

// buildPredWords makes predWords (inittables.go): P0..P6 and PT (pt in
// the Old dialect) per dialect.
func buildPredWords() (w [2][8]uint64) {
	for d := range w {
		for p := range w[d] {
			w[d][p] = isa.TextWord(string(appendPred(nil, uint64(p), Dialect(d))))
		}
	}
	return w
}

// putWord stores the text packed in w (isa.TextWord) at b[p:].
func putWord(b []byte, p int, w uint64) int {
	st64(b, p, w)
	return p + int(w>>56)
}

// putHexNum stores 0x and the significant hex digits of x.
func putHexNum(b []byte, p int, x uint64) int {
	if x < 16 { // most offsets, banks and short immediates
		st64(b, p, '0'|'x'<<8|uint64(hexDigits[x&15])<<16)
		return p + 3
	}
	if x>>32 != 0 {
		return p + len(appendHexNum(b[p:p], x))
	}
	n := (bits.Len32(uint32(x)) + 3) >> 2
	st64(b, p, '0'|'x'<<8)
	st64(b, p+2, hexWord8(uint32(x))>>((64-8*n)&63))
	return p + 2 + n
}

func putSignedHex(b []byte, p int, v int64) int {
	if v < 0 {
		b[p] = '-'
		return putHexNum(b, p+1, uint64(-v))
	}
	return putHexNum(b, p, uint64(v))
}

// putBank stores c[bank] (New) or "c [bank] " (Old).
func putBank(b []byte, p int, bank uint64, d Dialect) int {
	if d == Old {
		st64(b, p, 'c'|' '<<8|'['<<16)
		p = putHexNum(b, p+3, bank)
		st64(b, p, ']'|' '<<8)
		return p + 2
	}
	st64(b, p, 'c'|'['<<8)
	p = putHexNum(b, p+2, bank)
	b[p] = ']'
	return p + 1
}

// putConst stores c[bank][offset] (appendConst) for a bank of one hex
// digit and a 16-bit offset: "c[0xB][0x" (Old: "c [0xB] [0x") as two
// words, then the offset's digits.
func putConst(b []byte, p int, bank, off uint64, d Dialect) int {
	digit := uint64(hexDigits[bank&15])
	if d == Old {
		st64(b, p, 'c'|' '<<8|'['<<16|'0'<<24|'x'<<32|digit<<40|']'<<48|' '<<56)
		st64(b, p+8, '['|'0'<<8|'x'<<16)
		p += 11
	} else {
		st64(b, p, 'c'|'['<<8|'0'<<16|'x'<<24|digit<<32|']'<<40|'['<<48|'0'<<56)
		st64(b, p+8, 'x')
		p += 9
	}
	n := max((bits.Len16(uint16(off))+3)>>2, 1)
	st64(b, p, hexWord8(uint32(off))>>((64-8*n)&63)|']'<<((8*n)&63))
	return p + n + 1
}

// putAddr is appendAddr for an address of at most 16-bit offsets.
func putAddr(b []byte, p int, reg uint64, off int64, d Dialect) int {
	if reg == 63 {
		if off == 0 && d == New {
			st64(b, p, 'R'|'Z'<<8)
			return p + 2
		}
		return putSignedHex(b, p, off)
	}
	p = putWord(b, p, regWords[reg&63])
	if off == 0 {
		return p
	}
	b[p] = '+'
	return putSignedHex(b, p+1, off)
}

// putText stores the text of form fi for raw at pc in dialect d (with its
// final ';') at b[p:], which has textRoom bytes of room, and returns the
// position after it.
func putText(b []byte, p int, fi uint16, raw, pc uint64, d Dialect) int {
	return formPrinters[fi](b, p, raw, pc, d&1, &forms[fi])
}

// putGuard stores the guard predicate "@P0 " ("@!P1 ", ...), unless it
// is PT.
func putGuard(b []byte, p int, raw uint64, d Dialect) int {
	if raw>>10&15 == 7 {
		return p
	}
	b[p] = '@'
	p++
	if raw>>13&1 != 0 {
		b[p] = '!'
		p++
	}
	p = putWord(b, p, predWords[d&1][raw>>10&7])
	b[p] = ' '
	return p + 1
}

// putPredOp stores a predicate operand of 3 bits (appendOperand's opPred).
func putPredOp(b []byte, p int, o *operand, raw uint64, d Dialect) int {
	if bit(raw, o.not) {
		b[p] = '!'
		p++
	}
	return putWord(b, p, predWords[d&1][o.value(raw)&7])
}

// putMemOp stores [Rx+offset] (appendOperand's opMem).
func putMemOp(b []byte, p int, o *operand, raw uint64, d Dialect) int {
	b[p] = '['
	p = putAddr(b, p+1, o.memBase(raw), o.memOffset(raw), d)
	b[p] = ']'
	return p + 1
}

// putShortSrc stores a 4-byte form's register or c[bank][offset] source.
func putShortSrc(b []byte, p int, o *operand, raw uint64, d Dialect) int {
	if sel := o.f2.Get(raw); sel != 0 {
		p = putBank(b, p, shortBanks[sel], d)
		b[p] = '['
		p = putHexNum(b, p+1, o.f.Get(raw)<<2)
		b[p] = ']'
		return p + 1
	}
	return putWord(b, p, regWords[o.f.Get(raw)&63])
}

// putShortImm stores a 4-byte form's signed 8-bit immediate.
func putShortImm(b []byte, p int, o *operand, raw uint64) int {
	return putSignedHex(b, p, isa.SignExtend(o.value(raw), 8))
}

// putConstMemOp stores a 4-byte form's c[bank][Rx+offset].
func putConstMemOp(b []byte, p int, o *operand, raw uint64, d Dialect) int {
	p = putBank(b, p, o.bank.Get(raw), d)
	b[p] = '['
	p = putAddr(b, p+1, raw>>20&63, o.memOffset(raw), d)
	b[p] = ']'
	return p + 1
}

// putAnyOperand stores any operand by appendOperand.
func putAnyOperand(b []byte, p int, o *operand, raw, pc uint64, d Dialect) int {
	return p + len(appendOperand(b[p:p], o, raw, pc, d))
}

// putAnyMod stores any modifier by appendMod.
func putAnyMod(b []byte, p int, m *mod, raw uint64) int {
	return p + len(appendMod(b[p:p], m, raw))
}

// putComposite prints a register or composite source with its
// decorations (appendOperand's opReg, opB, opB3 and opC without byte or
// half selectors).
func putComposite(b []byte, p int, o *operand, raw uint64, d Dialect) int {
	neg := bit63(raw, o.neg)
	if neg {
		b[p] = '-'
		p++
	}
	if bit63(raw, o.not) {
		b[p] = '~'
		p++
	}
	abs := bit63(raw, o.abs)
	if abs {
		b[p] = '|'
		p++
	}
	if o.kind == opReg {
		p = putWord(b, p, regWords[field(raw, o.f)&63])
	} else {
		p = putSelected(b, p, o, raw, d, neg)
	}
	if abs {
		b[p] = '|'
		p++
	}
	if bit63(raw, o.cc) {
		st64(b, p, '.'|'C'<<8|'C'<<16)
		p += 3
	}
	return p
}

// putSelected prints the source an opB, opB3 or opC operand selects (bits
// 46-47): a register, a constant or a 20-bit immediate; neg is its negate
// bit, already printed.
func putSelected(b []byte, p int, o *operand, raw uint64, d Dialect, neg bool) int {
	sel := raw >> 46 & 3
	switch {
	case o.kind == opC && sel == 2, o.kind != opC && sel == 1:
		return putConst(b, p, raw>>42&15, raw>>26&0xffff, d)
	case o.kind == opC, sel == 2:
		return putWord(b, p, regWords[raw>>49&63])
	case sel == 0:
		return putWord(b, p, regWords[raw>>26&63])
	}
	// a 20-bit immediate
	start := p
	p += len(appendImm20(b[p:p], o.flavor, raw>>26&0xfffff, d))
	if neg && d == New && b[start] != '+' && b[start] != '-' {
		// the negate bit on a non-negative immediate: "-+0x10",
		// so that it cannot be read as the immediate -0x10
		copy(b[start+1:p+1], b[start:p])
		b[start] = '+'
		p++
	}
	return p
}

// field is f.Get(raw) for fields inside the word (shift counts masked:
// no check for shifts of 64 or more).
func field(raw uint64, f isa.Field) uint64 {
	return raw >> (f.Pos & 63) & (1<<(f.Width&63) - 1)
}

// bit63 is bit for positions inside the word.
func bit63(raw uint64, b int8) bool { return b >= 0 && raw>>(uint8(b)&63)&1 != 0 }
