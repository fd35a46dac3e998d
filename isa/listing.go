package isa

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// Listing lines are built with append-style helpers so a disassembler can
// print millions of instructions without allocating per line.

const hexDigits = "0123456789abcdef"

// AppendHex appends x as exactly n lower-case hex digits (no prefix).
func AppendHex(dst []byte, x uint64, n int) []byte {
	l := len(dst)
	dst = append(dst, "0000000000000000"[:min(n, 16)]...)
	for n > 16 {
		dst = append(dst, '0')
		n--
	}
	for i := len(dst) - 1; i >= l && x != 0; i-- {
		dst[i] = hexDigits[x&0xf]
		x >>= 4
	}
	return dst
}

// AppendHexNum appends x as 0x followed by the minimal number of hex digits
// (0x0 for zero), the way NVIDIA's tools print immediates and offsets.
func AppendHexNum(dst []byte, x uint64) []byte {
	// all 16 digits at once, then the significant ones: no loop whose
	// length depends on x (a mispredicted exit costs more than the digits)
	n := max((bits.Len64(x)+3)/4, 1)
	var b [18]byte
	binary.BigEndian.PutUint64(b[2:10], HexDigits8(uint32(x>>32)))
	binary.BigEndian.PutUint64(b[10:18], HexDigits8(uint32(x)))
	b[16-n], b[17-n] = '0', 'x'
	return append(dst, b[16-n:]...)
}

// HexDigits8 spreads the 8 nibbles of v into the bytes of a word, most
// significant first, and turns each into its lower-case hex digit.
func HexDigits8(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	letters := (x + 0x0606060606060606) >> 4 & 0x0101010101010101 // 1 where the nibble is a-f
	return x + 0x3030303030303030 + letters*('a'-'0'-10)
}

// HexPair is b's two lower-case hex digits as a little-endian word (the
// first digit in the low byte): a listing stores an address column's last
// two digits with one lookup, the rest of the column being that of the
// line before.
func HexPair(b uint8) uint16 { return hexPairs[b] }

var hexPairs = func() (t [256]uint16) {
	const digits = "0123456789abcdef"
	for b := range t {
		t[b] = uint16(digits[b>>4]) | uint16(digits[b&15])<<8
	}
	return t
}()

// AppendDec appends x in decimal (strconv.AppendUint(dst, x, 10) without
// its call for the small numbers listings are full of: register numbers,
// repeat counts, flag values).
func AppendDec(dst []byte, x uint64) []byte {
	switch {
	case x < 10:
		return append(dst, byte('0'+x))
	case x < 100:
		return append(dst, byte('0'+x/10), byte('0'+x%10))
	case x < 1000:
		return append(dst, byte('0'+x/100), byte('0'+x/10%10), byte('0'+x%10))
	}
	var b [20]byte
	i := len(b)
	for x >= 10 {
		i--
		b[i] = byte('0' + x%10)
		x /= 10
	}
	i--
	b[i] = byte('0' + x)
	return append(dst, b[i:]...)
}

// AppendAddr appends the /*0000*/ address column (at least 4 hex digits).
func AppendAddr(dst []byte, addr uint64) []byte {
	n := 4
	for t := addr >> 16; t != 0; t >>= 4 {
		n++
	}
	dst = append(dst, "/*"...)
	dst = AppendHex(dst, addr, n)
	return append(dst, "*/"...)
}

// LineStyle fixes the column layout of a listing line.
type LineStyle struct {
	Indent   int // blanks before the address column
	Gap      int // blanks between address and text
	TextCol  int // the text is padded with blanks to this width
	HexWidth int // hex digits of the widest instruction (16); shorter ones are padded with blanks after the digits
}

// CuobjdumpStyle is the layout of cuobjdump -sass (CUDA 5+) listings.
var CuobjdumpStyle = LineStyle{Indent: 8, Gap: 8, TextCol: 46, HexWidth: 16}

// NvdisasmStyle is the layout of nvdisasm -hex -novliw listings.
var NvdisasmStyle = LineStyle{Indent: 8, Gap: 19, TextCol: 40, HexWidth: 16}

const blanks = "                                                                                                                                "

func appendBlanks(dst []byte, n int) []byte {
	for n > len(blanks) {
		dst = append(dst, blanks...)
		n -= len(blanks)
	}
	if n > 0 {
		dst = append(dst, blanks[:n]...)
	}
	return dst
}

// AppendLine appends one listing line "/*addr*/ text /* 0xhex */\n" where raw
// holds digits hex digits.
func (s LineStyle) AppendLine(dst []byte, addr uint64, text []byte, raw uint64, digits int) []byte {
	dst = s.AppendPrefix(dst, addr)
	dst = append(dst, text...)
	return s.AppendSuffix(dst, len(text), raw, digits)
}

// AppendPrefix appends the start of a listing line, up to where the text
// goes; a disassembler appends the text itself, then AppendSuffix, so the
// text is written once.
func (s LineStyle) AppendPrefix(dst []byte, addr uint64) []byte {
	l := len(dst)
	if uint(s.Indent) > 8 || uint(s.Gap) > 22 || addr>>32 != 0 || cap(dst)-l < prefixRoom {
		return s.appendPrefixSlow(dst, addr)
	}
	// written in place with whole-word stores into prefixRoom bytes of
	// room (one bounds check): blanks, /*, the digits (at least 4), */
	// and blanks; what the stores write past the prefix is overwritten
	// by the text
	digits := max((bits.Len32(uint32(addr))+3)>>2, 4)
	b := (*[prefixRoom]byte)(dst[l : l+prefixRoom])
	binary.LittleEndian.PutUint64(b[0:], blankWord)
	a := (*[prefixRoom - 8]byte)(b[s.Indent&15:])
	binary.LittleEndian.PutUint16(a[0:], '/'|'*'<<8)
	binary.BigEndian.PutUint64(a[2:], HexDigits8(uint32(addr))<<(8*(8-digits)))
	e := (*[24]byte)(a[2+digits&15:])
	binary.LittleEndian.PutUint64(e[0:], '*'|'/'<<8|0x2020202020200000)
	binary.LittleEndian.PutUint64(e[8:], blankWord)
	binary.LittleEndian.PutUint64(e[16:], blankWord)
	return dst[:l+s.Indent+4+digits+s.Gap]
}

// appendPrefixSlow is AppendPrefix when dst has no room for the stores
// or the layout does not fit them.
func (s LineStyle) appendPrefixSlow(dst []byte, addr uint64) []byte {
	if uint(s.Indent) > 8 || uint(s.Gap) > 22 || addr>>32 != 0 {
		dst = appendBlanks(dst, s.Indent)
		dst = AppendAddr(dst, addr)
		return appendBlanks(dst, s.Gap)
	}
	return s.AppendPrefix(slices.Grow(dst, prefixRoom), addr)
}

// prefixRoom is the room AppendPrefix's stores take: an indent of at most
// 8, "/*", 8 digits and "*/" with a gap of at most 22.
const prefixRoom = 8 + 2 + 8 + 24

// blankWord is eight blanks as one little-endian word.
const blankWord = 0x2020202020202020

// suffixRoom is the room AppendSuffix's stores take: padding of at most 64
// (its stores run 8 bytes past it), " /* 0x", 16 digits, " */\n".
const suffixRoom = 64 + 8 + 6 + 16 + 8

// AppendSuffix pads text of textLen bytes and appends the hex column.
func (s LineStyle) AppendSuffix(dst []byte, textLen int, raw uint64, digits int) []byte {
	pad := max(s.TextCol-textLen, 0)
	if digits > 16 || s.HexWidth > 16 || digits > s.HexWidth || digits < 0 || pad > 64 {
		dst = appendBlanks(dst, pad)
		dst = append(dst, " /* 0x"...)
		dst = AppendHex(dst, raw, digits)
		dst = appendBlanks(dst, s.HexWidth-digits)
		return append(dst, " */\n"...)
	}
	// written in place into suffixRoom bytes of room (one bounds check):
	// padding, " /* 0x", the digits, their padding, " */\n"
	l := len(dst)
	if cap(dst)-l < suffixRoom {
		dst = slices.Grow(dst, suffixRoom)
	}
	b := (*[suffixRoom]byte)(dst[l : l+suffixRoom])
	// the padding in whole words: what a word writes past it is
	// overwritten below
	for i := 0; i < pad; i += 8 {
		binary.LittleEndian.PutUint64(b[i&63:], blankWord)
	}
	h := (*[suffixRoom - 64]byte)(b[pad:])
	// " /* 0x" as one store; its last two bytes are overwritten by digits
	binary.LittleEndian.PutUint64(h[0:], ' '|'/'<<8|'*'<<16|' '<<24|'0'<<32|'x'<<40)
	switch digits {
	case 16:
		binary.BigEndian.PutUint64(h[6:], HexDigits8(uint32(raw>>32)))
		binary.BigEndian.PutUint64(h[14:], HexDigits8(uint32(raw)))
	case 8:
		binary.BigEndian.PutUint64(h[6:], HexDigits8(uint32(raw)))
		binary.LittleEndian.PutUint64(h[14:], blankWord)
	default:
		binary.LittleEndian.PutUint64(h[6:], blankWord)
		binary.LittleEndian.PutUint64(h[14:], blankWord)
		for i := digits - 1; i >= 0; i-- {
			h[6+i] = hexDigits[raw&0xf]
			raw >>= 4
		}
	}
	// the blanks up to HexWidth are stored above; then the end
	binary.LittleEndian.PutUint32(h[(6+s.HexWidth)&31:], ' '|'*'<<8|'/'<<16|'\n'<<24)
	return dst[:l+pad+6+s.HexWidth+4]
}

// fillBlanks sets b to blanks, eight at a time.
func fillBlanks(b []byte) {
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, 0x2020202020202020)
		b = b[8:]
	}
	for i := range b {
		b[i] = ' '
	}
}

// grow extends dst by n bytes (their content is to be overwritten).
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		dst = append(dst[:cap(dst)], make([]byte, n+cap(dst)/2)...)[:len(dst)]
	}
	return dst[:len(dst)+n]
}

// AppendBare appends a line holding only a hex comment, as nvdisasm prints
// Maxwell control words.
func (s LineStyle) AppendBare(dst []byte, raw uint64, digits int) []byte {
	dst = appendBlanks(dst, s.Indent+8+s.Gap+s.TextCol)
	dst = append(dst, " /* 0x"...)
	dst = AppendHex(dst, raw, digits)
	return append(dst, " */\n"...)
}

// TextWord packs a text of up to 7 bytes as a word for PutWord: the bytes
// from the lowest up, the length in the top byte; 0 when s is empty or
// longer.
func TextWord(s string) uint64 {
	if len(s) == 0 || len(s) > 7 {
		return 0
	}
	w := uint64(len(s)) << 56
	for i := len(s) - 1; i >= 0; i-- {
		w |= uint64(s[i]) << (8 * i)
	}
	return w
}

// AppendWord appends the text packed in w (TextWord) with one 8-byte store
// when dst has room for it.
func AppendWord(dst []byte, w uint64) []byte {
	n := len(dst)
	if cap(dst)-n < 8 {
		dst = slices.Grow(dst, 8)
	}
	binary.LittleEndian.PutUint64(dst[n:n+8], w)
	return dst[:n+int(w>>56)]
}
