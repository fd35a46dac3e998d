package fermi

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpuisa/gpuisa/isa"
)

// The printer runs a program made once per form and dialect from the
// form's modifiers and operands (the same tables the decoder and assembler
// read): the mnemonic and fixed texts become packed words stored whole, the
// common modifiers and operands become steps that read their bits and
// store their text in place, and the rest call the general appendMod /
// appendOperand. A listing line is written into room reserved once
// (textRoom bytes), so no step checks for space: the listing runs at
// >10M lines/s.

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

// stepKind says what one step of a print program does.
type stepKind uint8

const (
	// modifiers
	stFlag stepKind = iota // text when bit pos is 1 (stLit: always; stFlagInv: when 0)
	stEnum                 // entry of table by the field f (and f2)
	stMod                  // any other: appendMod
	// operands
	stReg       // register at pos, .CC when bit cc
	stPred      // predicate
	stComposite // opReg/opB/opB3/opC with -, ~, |..| and .CC decorations
	stMem       // [Rx+offset]
	stShortSrc  // register or c[bank][offset] of a 4-byte form
	stShortImm  // signed 8-bit immediate of a 4-byte form
	stConstMem  // c[bank][Rx+offset] of a 4-byte form
	stOperand   // any other: appendOperand
)

// modStep prints one modifier.
type modStep struct {
	text  words16
	kind  stepKind
	pos   uint8 // stFlag: the bit
	inv   uint8 // stFlag: 1 when printed on a 0 bit
	on    uint8 // stFlag: 1 when always printed (a modLit)
	table uint8 // stEnum
	f, f2 isa.Field
	m     *mod // stMod
}

// opStep prints one operand.
type opStep struct {
	o      *operand
	kind   stepKind
	pos    uint8 // stReg: the field's position
	cc     int8  // stReg: the .CC bit, -1 if none
	skip15 bool  // left out when its field is 15 (branch condition codes)
}

// program prints one form in one dialect.
type program struct {
	name   words16
	noPred bool
	mods   []modStep
	ops    []opStep
}

// programs is indexed by dialect and form.
var programs = func() (p [2][len(forms)]program) {
	for d := range p {
		for fi := range forms {
			p[d][fi] = compileForm(&forms[fi], Dialect(d))
		}
	}
	return p
}()

// tableWords are the tables' entries packed (n = 255: longer than 16
// bytes, printed from the string).
var tableWords = func() (t [len(tables)][]words16) {
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
}()

func compileForm(f *form, d Dialect) program {
	pg := program{name: pack16(f.name), noPred: f.noPred}
	if len(f.name) > 16 {
		panic("fermi: mnemonic longer than 16 bytes: " + f.name) // the tables are fixed: caught by every test
	}
	for k := range f.mods {
		m := &f.mods[k]
		s := modStep{kind: stMod, m: m}
		switch {
		case (m.kind == modFlag || m.kind == modFlagInv) && m.f.Width == 1 && len(m.text) <= 16:
			s.kind, s.pos, s.text = stFlag, m.f.Pos, pack16(m.text)
			if m.kind == modFlagInv {
				s.inv = 1
			}
		case m.kind == modLit && len(m.text) <= 16:
			s.kind, s.on, s.text = stFlag, 1, pack16(m.text)
		case m.kind == modEnum && shortEntries(m.table):
			s.kind, s.table, s.f, s.f2 = stEnum, m.table, m.f, m.f2
		}
		pg.mods = append(pg.mods, s)
	}
	for k := range f.ops {
		o := &f.ops[k]
		s := opStep{kind: stOperand, o: o, cc: o.cc}
		s.skip15 = o.kind == opCC || o.kind == opNopCC && d == New
		plain := o.neg < 0 && o.not < 0 && o.abs < 0
		switch {
		case o.bsel != 0 || o.hsel != 0:
		case o.kind == opReg && plain && o.f.Width == 6:
			s.kind, s.pos = stReg, o.f.Pos
		case o.kind == opReg || o.kind == opB || o.kind == opB3 || o.kind == opC:
			s.kind = stComposite
		case o.kind == opPred && o.f.Width+o.f2.Width == 3:
			s.kind = stPred
		case o.kind == opMem:
			s.kind = stMem
		case o.kind == opShortSrc:
			s.kind = stShortSrc
		case o.kind == opShortImm:
			s.kind = stShortImm
		case o.kind == opConstMem:
			s.kind = stConstMem
		}
		pg.ops = append(pg.ops, s)
	}
	return pg
}

func shortEntries(t uint8) bool {
	for _, w := range tableWords[t] {
		if w.n > 16 {
			return false
		}
	}
	return true
}

// regWords spells R0..R62 and RZ, the length in the top byte.
var regWords = func() (w [64]uint64) {
	for r := range w {
		w[r] = isa.TextWord(string(appendReg(nil, uint64(r))))
	}
	return w
}()

// predWords spells P0..P6 and PT (pt in the Old dialect) per dialect.
var predWords = func() (w [2][8]uint64) {
	for d := range w {
		for p := range w[d] {
			w[d][p] = isa.TextWord(string(appendPred(nil, uint64(p), Dialect(d))))
		}
	}
	return w
}()

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
	pg := &programs[d&1][fi]
	if !pg.noPred && raw>>10&15 != 7 {
		b[p] = '@'
		p++
		if raw>>13&1 != 0 {
			b[p] = '!'
			p++
		}
		p = putWord(b, p, predWords[d&1][raw>>10&7])
		b[p] = ' '
		p++
	}
	p = pg.name.put(b, p)
	for k := range pg.mods {
		m := &pg.mods[k]
		if m.kind == stFlag { // most modifiers
			st64(b, p, m.text.lo)
			st64(b, p+8, m.text.hi)
			p += int(m.text.n) & -int((raw>>(m.pos&63)^uint64(m.inv))&1|uint64(m.on))
			continue
		}
		switch m.kind {
		case stEnum:
			v := field(raw, m.f) | field(raw, m.f2)<<(m.f.Width&63)
			p = tableWords[m.table][v].put(b, p)
		default:
			p += len(appendMod(b[p:p], m.m, raw))
		}
	}
	sep, sepLen := uint64(' '), 1
	for _, s := range pg.ops {
		if s.skip15 && field(raw, s.o.f) == 15 {
			continue
		}
		st64(b, p, sep)
		p += sepLen
		sep, sepLen = ','|' '<<8, 2
		if s.kind == stReg { // most operands, before the switch's compares
			p = putWord(b, p, regWords[raw>>(s.pos&63)&63])
			if s.cc >= 0 {
				st64(b, p, '.'|'C'<<8|'C'<<16)
				p += 3 & -int(raw>>(uint8(s.cc)&63)&1)
			}
			continue
		}
		switch s.kind {
		case stComposite:
			p = putComposite(b, p, s.o, raw, d)
		case stPred:
			o := s.o
			if bit(raw, o.not) {
				b[p] = '!'
				p++
			}
			p = putWord(b, p, predWords[d&1][o.value(raw)&7])
		case stMem:
			o := s.o
			b[p] = '['
			p = putAddr(b, p+1, o.memBase(raw), o.memOffset(raw), d)
			b[p] = ']'
			p++
		case stShortSrc:
			o := s.o
			if sel := o.f2.Get(raw); sel != 0 {
				p = putBank(b, p, shortBanks[sel], d)
				b[p] = '['
				p = putHexNum(b, p+1, o.f.Get(raw)<<2)
				b[p] = ']'
				p++
			} else {
				p = putWord(b, p, regWords[o.f.Get(raw)&63])
			}
		case stShortImm:
			p = putSignedHex(b, p, isa.SignExtend(s.o.value(raw), 8))
		case stConstMem:
			o := s.o
			p = putBank(b, p, o.bank.Get(raw), d)
			b[p] = '['
			p = putAddr(b, p+1, raw>>20&63, o.memOffset(raw), d)
			b[p] = ']'
			p++
		default:
			p += len(appendOperand(b[p:p], s.o, raw, pc, d))
		}
	}
	b[p] = ';'
	return p + 1
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
	sel := raw >> 46 & 3
	switch {
	case o.kind == opReg:
		p = putWord(b, p, regWords[field(raw, o.f)&63])
	case o.kind == opC && sel == 2, o.kind != opC && sel == 1:
		p = putConst(b, p, raw>>42&15, raw>>26&0xffff, d)
	case o.kind == opC, sel == 2:
		p = putWord(b, p, regWords[raw>>49&63])
	case sel == 0:
		p = putWord(b, p, regWords[raw>>26&63])
	default: // a 20-bit immediate
		start := p
		p += len(appendImm20(b[p:p], o.flavor, raw>>26&0xfffff, d))
		if neg && d == New && b[start] != '+' && b[start] != '-' {
			// the negate bit on a non-negative immediate: "-+0x10",
			// so that it cannot be read as the immediate -0x10
			copy(b[start+1:p+1], b[start:p])
			b[start] = '+'
			p++
		}
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

// field is f.Get(raw) for fields inside the word (shift counts masked:
// no check for shifts of 64 or more).
func field(raw uint64, f isa.Field) uint64 {
	return raw >> (f.Pos & 63) & (1<<(f.Width&63) - 1)
}

// bit63 is bit for positions inside the word.
func bit63(raw uint64, b int8) bool { return b >= 0 && raw>>(uint8(b)&63)&1 != 0 }
