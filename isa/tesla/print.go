package tesla

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/gpuisa/gpuisa/isa"
)

// Text is written in place: AppendText first makes textRoom bytes of room
// past the end of dst (more than any instruction's text plus one 16-byte
// store; TestTextRoom checks the bound for every form), then the writers
// below store whole words past the end of dst and only then move the length.
const textRoom = len(textBuf{})

// Print returns the instruction's text as cuobjdump prints it, including the
// final ';'. pc is the instruction's address (branch targets are absolute).
func Print(inst Inst, pc uint64) string {
	var buf [textRoom]byte
	return string(AppendText(buf[:0], inst, pc))
}

// AppendText appends the instruction's text (with the final ';') to dst.
func AppendText(dst []byte, inst Inst, pc uint64) []byte {
	return printText(slices.Grow(dst, textRoom), inst)
}

// appendMnemonic needs textRoom bytes of room in dst.
func appendMnemonic(dst []byte, inst Inst) []byte {
	f := &forms[inst.Form]
	for i := range f.mnem {
		if p := &f.mnem[i]; p.kind == pieceLit && p.word != 0 {
			dst = putWord(dst, p.word) // the name: no call
		} else {
			dst = putPiece(dst, f, p, inst.Raw)
		}
	}
	return dst
}

// appendPiece appends one piece's text to any dst.
func appendPiece(dst []byte, f *form, p *piece, v uint64) []byte {
	return putPiece(slices.Grow(dst, textRoom), f, p, v)
}

// putPiece writes one piece in place: dst has room for it.
func putPiece(dst []byte, f *form, p *piece, v uint64) []byte {
	switch p.kind {
	case pieceLit:
		return putText(dst, p.text, p.word)
	case pieceJoin:
		if f.class == ClassLong && f_mark.Get(v) == 2 {
			dst = putWord(dst, '.'|'S'<<8|2<<56)
		}
	case pieceCC:
		if f_ccw.Get(v) != 0 {
			dst = putWord(dst, '.'|'C'<<8|('0'+f_ccr.Get(v))<<16|3<<56)
		}
	case pieceEnum:
		x := p.field.Get(v)
		return putText(dst, p.opts[x], p.words[x])
	case pieceFlag:
		if p.field.Get(v) == 1 {
			dst = putText(dst, p.text, p.word)
		}
	case pieceNotFlag:
		if p.field.Get(v) == 0 {
			dst = putText(dst, p.text, p.word)
		}
	case pieceOperand:
		half := p.half || p.wide && p.field.Get(v)&1 == 0
		return appendOperand(dst, f.class, p, half, v)
	}
	return dst
}

// A word holds a text of up to 7 bytes in its low bytes (first byte
// lowest) and the text's length in its top byte; putWord stores it with one
// 8-byte write. Its spare bytes land past the new end of dst.
func putWord(dst []byte, w uint64) []byte {
	n := len(dst)
	binary.LittleEndian.PutUint64(dst[n:n+8], w)
	return dst[:n+int(w>>56)]
}

// putText writes a literal: its word when it has one (texts of up to 7
// bytes), else the text.
func putText(dst []byte, s string, w uint64) []byte {
	if w != 0 {
		return putWord(dst, w)
	}
	return append(dst, s...)
}

// regWords spells R0..R127 (index r) and the halves R0L..R63H (index
// 128+r) as words.
//
// buildRegWords computes regWords (inittables.go holds its value).
func buildRegWords() (t [256]uint64) {
	for i := range 128 {
		t[i] = isa.TextWord("R" + string(appendDec(nil, uint64(i))))
		t[128+i] = isa.TextWord("R" + string(appendDec(nil, uint64(i>>1))) + string("LH"[i&1]))
	}
	return
}

func appendReg(dst []byte, r uint64, half bool) []byte {
	if half {
		return putWord(dst, regWords[128+r&127])
	}
	return putWord(dst, regWords[r&127])
}

// appendDec writes x in decimal.
func appendDec(dst []byte, x uint64) []byte { return isa.AppendDec(dst, x) }

const hexDigits = "0123456789abcdef"

// hexNum writes x as 0x and its minimal hex digits, in place (x < 1<<64
// takes at most 18 bytes of the room).
func hexNum(dst []byte, x uint64) []byte {
	n := len(dst)
	digits := (bits.Len64(x|1) + 3) >> 2
	b := dst[n : n+2+digits]
	b[0], b[1] = '0', 'x'
	for i := len(b) - 1; i >= 2; i-- {
		b[i] = hexDigits[x&0xf]
		x >>= 4
	}
	return dst[:n+2+digits]
}
