package tesla

import (
	"encoding/binary"
	mbits "math/bits"
	"sync"
	"sync/atomic"

	"github.com/gpuisa/gpuisa/isa"
)

// The printer runs one function per form, generated from the form's
// pieces (spec.txt's template, the same pieces the decoder and assembler
// read) into printgen.go by printgen_test.go: literal texts are stored as
// packed words, operands call the helpers below with the form's class and
// fields already known, and the mnemonic comes from a table of its texts
// by the few bits it reads. The text is written into a textBuf reserved
// once per line: every store is one masked index and a move, with no
// check for space.

// textWin bounds the position of a store in a textBuf: a text is far
// shorter (TestTextRoom), so the mask never changes a position.
const (
	textWin  = 512
	textMask = textWin - 1
)

// textBuf is the room a text is written into: a store of 16 bytes at any
// masked position fits.
type textBuf [textWin + 16]byte

// st stores w's 8 bytes at b[p:], least significant first.
func st(b *textBuf, p int, w uint64) { binary.LittleEndian.PutUint64(b[p&textMask:], w) }

// lit stores a text of up to 7 bytes packed by isa.TextWord.
func lit(b *textBuf, p int, w uint64) int {
	st(b, p, w)
	return p + int(w>>56)
}

// lit16 stores a text of up to 16 bytes: lo, then hi, n bytes in all.
func lit16(b *textBuf, p int, lo, hi uint64, n int) int {
	st(b, p, lo)
	st(b, p+8, hi)
	return p + n
}

// reg stores register i of regWords (R0..R127, or 128+r: a half).
func reg(b *textBuf, p int, i uint64) int { return lit(b, p, regWords[i&255]) }

// hexAt stores x as 0x and its minimal hex digits (hexNum).
func hexAt(b *textBuf, p int, x uint64) int {
	if x>>32 != 0 {
		i := p & textMask
		return p + len(hexNum(b[i:i], x))
	}
	n := (mbits.Len32(uint32(x)|1) + 3) >> 2
	st(b, p, '0'|'x'<<8)
	binary.BigEndian.PutUint64(b[(p+2)&textMask:], isa.HexDigits8(uint32(x))<<(8*(8-n)&63))
	return p + 2 + n
}

// memTexts are the texts of the memory operands short instructions
// spell, and pieces of the long ones', by their bits: made once, the first
// time one is printed, by the general printer (appendShared, appendConst,
// appendAddr).
var memTexts = sync.OnceValue(func() *memTextTables {
	t := new(memTextTables)
	buf := make([]byte, 0, 64)
	for r := range 256 {
		w := regWords[r]
		t.short[r] = pack16(string(binary.LittleEndian.AppendUint64(nil, w)[:w>>56]))
	}
	for x := range 512 {
		var v uint64
		at := 0
		for _, f := range shortMemFields {
			v = f.Set(v, uint64(x)>>at)
			at += int(f.Width)
		}
		t.short[shortShared+x] = pack16(string(appendShared(buf[:0], shared1(ClassShort, v))))
	}
	for x := range 64 {
		t.short[shortConst+x] = pack16(string(appendConst(buf[:0], 0, memRef{idx: uint64(x), typ: 3})))
	}
	for x := range t.addrHeads {
		// what appendAddr writes before the index: areg (x&7), inc (x>>3)
		s := string(appendAddr(buf[:0], memRef{areg: uint64(x) & 7, inc: x>>3 != 0}))
		t.addrHeads[x] = isa.TextWord(s[:len(s)-len("0x0]")])
	}
	for x := range t.hex {
		t.hex[x] = isa.TextWord(string(hexNum(buf[:0], uint64(x))))
	}
	for i, s := range sharedTypes {
		t.tails[i] = isa.TextWord("]" + s)
	}
	return t
})

type memTextTables struct {
	// the sources of short instructions: R0..R127, R0L..R63H (256
	// registers, as regWords), "c[0x0][0x3f]" by ss2 from shortConst and
	// "g [A3+++0xf].S16" by the bits of shortMemFields from shortShared
	short     [1024]words16
	addrHeads [16]uint64  // "[", "[A1+", "[A1+++" by areg | inc<<3
	hex       [256]uint64 // "0x0".."0xff"
	tails     [4]uint64   // "]" and the access size's suffix
}

// words16 is a text of up to 16 bytes as two little-endian words.
type words16 struct {
	lo, hi uint64
	n      int
}

func pack16(s string) words16 {
	var b [16]byte
	copy(b[:], s)
	return words16{binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:]), len(s)}
}

const (
	shortConst  = 256
	shortShared = 512
)

// shortMemFields are the fields of a short instruction's shared source
// 1, in the order of their bits in the index of memTexts' shortShared.
var shortMemFields = [...]isa.Field{f_ss1, f_sainc, f_salo}

// addr stores [A<areg>+idx] (+++ when inc is 1) and the access size's
// suffix of typ (appendAddr and sharedTypes); areg < 8.
func addr(b *textBuf, p int, areg, inc, idx, typ uint64) int {
	t := memTexts() // long instructions only: the short ones' texts are whole in the tables
	p = lit(b, p, t.addrHeads[areg&7|inc&1<<3])
	if idx < uint64(len(t.hex)) {
		p = lit(b, p, t.hex[idx])
	} else {
		p = hexAt(b, p, idx)
	}
	return lit(b, p, t.tails[typ&3])
}

// cmem stores c[bank][address] (appendConst) for a bank < 16.
func cmem(b *textBuf, p int, bank, areg, inc, idx, typ uint64) int {
	st(b, p, 'c'|'['<<8|'0'<<16|'x'<<24|uint64(hexDigits[bank&15])<<32|']'<<40)
	return addr(b, p+6, areg, inc, idx, typ)
}

// The operands by class (appendOperand); h is 128 for register halves.

func dstLong(b *textBuf, p int, v, h uint64) int {
	if f_odst.Get(v) != 0 {
		return lit(b, hexAt(b, lit(b, p, 'o'|'['<<8|2<<56), f_dst.Get(v)), ']'|1<<56)
	}
	return reg(b, p, f_dst.Get(v)|h)
}

func s1Long(b *textBuf, p int, v, h uint64) int {
	if f_sh.Get(v) == 0 {
		return reg(b, p, f_s1.Get(v)|h)
	}
	x := f_s1.Get(v)
	return addr(b, lit(b, p, 'g'|' '<<8|2<<56), longAreg(v), f_ainc.Get(v), x&0x1f, x>>5)
}

// shortSrc stores a short instruction's source (memTexts' short): the
// register r when mem is 0, else the memory operand m (the generated code
// reads the fields and adds shortConst or shortShared).
func shortSrc(b *textBuf, p int, t *memTextTables, mem, r, m uint64) int {
	i := r
	if mem != 0 {
		i = m
	}
	w := &t.short[i&1023]
	return lit16(b, p, w.lo, w.hi, w.n)
}

func s2Long(b *textBuf, p int, v, h uint64) int {
	if f_c2.Get(v) == 0 {
		return reg(b, p, f_s2.Get(v)|h)
	}
	return cmem(b, p, f_bank.Get(v), longAreg(v), f_ainc.Get(v), f_s2.Get(v), 3)
}

func s3Long(b *textBuf, p int, v, h uint64) int {
	if f_c3.Get(v) == 0 {
		return reg(b, p, f_s3.Get(v)|h)
	}
	return cmem(b, p, f_bank.Get(v), longAreg(v), f_ainc.Get(v), f_s3.Get(v), 3)
}

// condTexts are condNames packed in two words.
//
// buildCondTexts computes condTexts (inittables.go holds its value).
func buildCondTexts() (t [32][2]uint64) {
	for i, n := range condNames {
		var w [16]byte
		copy(w[:], n)
		t[i] = [2]uint64{binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:])}
	}
	return
}

// guard stores the guard (appendGuard) between lead and trail (packed
// words), or nothing when the instruction always runs.
func guard(b *textBuf, p int, v, lead, trail uint64) int {
	cond, pr := f_cond.Get(v), f_pr.Get(v)
	if cond == condAlways && pr == 0 {
		return p
	}
	p = lit(b, lit(b, p, lead), 'C'|('0'+pr)<<8|'.'<<16|3<<56)
	t := &condTexts[cond&31]
	p = lit16(b, p, t[0], t[1], len(condNames[cond&31]))
	return lit(b, p, trail)
}

// cc stores .C0...C3 when the instruction writes a condition register.
func cc(b *textBuf, p int, v uint64) int {
	if f_ccw.Get(v) == 0 {
		return p
	}
	return lit(b, p, '.'|'C'<<8|('0'+f_ccr.Get(v))<<16|3<<56)
}

// pieceAt stores piece i of form fi (its mnemonic's when mnem) with the
// general printer: the kinds the generator leaves to it.
func pieceAt(b *textBuf, p int, fi uint16, mnem bool, i int, v uint64) int {
	f := &forms[fi]
	ps := f.opnds
	if mnem {
		ps = f.mnem
	}
	k := p & textMask
	return p + len(putPiece(b[k:k], f, &ps[i], v))
}

// mnem stores form fi's mnemonic, entry x of its table.
func mnem(b *textBuf, p int, fi uint16, x uint64) int {
	texts := mnemTables[fi].texts.Load()
	if texts == nil {
		texts = mnemTables[fi].fill(fi)
	}
	w := (*texts)[x]
	st(b, p, w[0])
	st(b, p+8, w[1])
	st(b, p+16, w[2])
	return p + int(w[2]>>56)
}

// A mnemonic depends on a few bits of the instruction (its flags,
// enumerations, {join} and {cc}); a form whose mnemonic reads at most
// mnemBits of them, in at most 4 runs, prints it from a table of its
// texts by those bits, made the first time the form is printed by the
// pieces' own printer (appendMnemonic).
type mnemTable struct {
	once  sync.Once
	texts atomic.Pointer[[]mnemText] // by index; nil until filled
}

// fill makes form fi's table once and returns it.
func (t *mnemTable) fill(fi uint16) *[]mnemText {
	t.once.Do(func() {
		texts := t.build(fi)
		t.texts.Store(&texts)
	})
	return t.texts.Load()
}

// mnemTables are filled as their forms are first printed.
var mnemTables [len(forms)]mnemTable

// bitRun moves the bits of v at pos (mask) to shift of the index.
type bitRun struct {
	pos, shift uint8
	mask       uint64
}

// mnemText is a mnemonic of at most 23 bytes, little-endian, with its
// length in the top byte of the last word.
type mnemText [3]uint64

const mnemBits = 8

// mnemRuns returns the bit runs form fi's mnemonic table is indexed by,
// false when the mnemonic is to be printed piece by piece.
func mnemRuns(fi uint16) ([]bitRun, bool) {
	f := &forms[fi]
	var bits uint64 // the bits the mnemonic reads
	n := 0          // its longest text
	for i := range f.mnem {
		switch p := &f.mnem[i]; p.kind {
		case pieceLit:
			n += len(p.text)
		case pieceJoin:
			if f.class == ClassLong {
				bits |= f_mark.Mask()
				n += 2
			}
		case pieceCC:
			bits |= f_ccw.Mask() | f_ccr.Mask()
			n += 3
		case pieceFlag, pieceNotFlag:
			bits |= p.field.Mask()
			n += len(p.text)
		case pieceEnum:
			bits |= p.field.Mask()
			m := 0
			for _, o := range p.opts {
				m = max(m, len(o))
			}
			n += m
		default:
			return nil, false
		}
	}
	bits &^= f.mask // bits the form fixes
	if n > 23 || mbits.OnesCount64(bits) > mnemBits {
		return nil, false
	}
	var runs []bitRun
	shift := uint8(0)
	for bits != 0 {
		if len(runs) == 4 {
			return nil, false
		}
		pos := uint8(mbits.TrailingZeros64(bits))
		width := uint8(mbits.TrailingZeros64(^(bits >> pos)))
		runs = append(runs, bitRun{pos: pos, shift: shift, mask: 1<<width - 1})
		shift += width
		bits &^= (1<<width - 1) << pos
	}
	return runs, true
}

// build makes form fi's table: each index's bits put back in place over
// the bits the form fixes, printed by the mnemonic's pieces.
func (t *mnemTable) build(fi uint16) []mnemText {
	runs, _ := mnemRuns(fi)
	size := 1
	for _, r := range runs {
		size <<= mbits.OnesCount64(r.mask)
	}
	texts := make([]mnemText, size)
	buf := make([]byte, 0, textRoom)
	for x := range texts {
		v := forms[fi].value
		for _, r := range runs {
			v |= uint64(x) >> r.shift & r.mask << r.pos
		}
		s := appendMnemonic(buf[:0], Inst{Raw: v, Form: fi})
		var w [24]byte
		copy(w[:], s)
		w[23] = byte(len(s))
		texts[x] = mnemText{binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:]), binary.LittleEndian.Uint64(w[16:])}
	}
	return texts
}

// printText appends inst's text (with the final ';'); dst has textRoom
// bytes of room.
func printText(dst []byte, inst Inst) []byte {
	n := len(dst)
	b := (*textBuf)(dst[n : n+len(textBuf{})])
	return dst[:n+formPrinters[inst.Form](b, 0, inst.Raw, memTexts())]
}
