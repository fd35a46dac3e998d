package isa

// Listing lines are built with append-style helpers so a disassembler can
// print millions of instructions without allocating per line.

const hexDigits = "0123456789abcdef"

// AppendHex appends x as exactly n lower-case hex digits (no prefix).
func AppendHex(dst []byte, x uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, hexDigits[(x>>(4*uint(i)))&0xf])
	}
	return dst
}

// AppendHexNum appends x as 0x followed by the minimal number of hex digits
// (0x0 for zero), the way NVIDIA's tools print immediates and offsets.
func AppendHexNum(dst []byte, x uint64) []byte {
	dst = append(dst, '0', 'x')
	n := 1
	for t := x >> 4; t != 0; t >>= 4 {
		n++
	}
	return AppendHex(dst, x, n)
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
	dst = appendBlanks(dst, s.Indent)
	dst = AppendAddr(dst, addr)
	dst = appendBlanks(dst, s.Gap)
	dst = append(dst, text...)
	dst = appendBlanks(dst, s.TextCol-len(text))
	dst = append(dst, " /* 0x"...)
	dst = AppendHex(dst, raw, digits)
	dst = appendBlanks(dst, s.HexWidth-digits)
	return append(dst, " */\n"...)
}

// AppendBare appends a line holding only a hex comment, as nvdisasm prints
// Maxwell control words.
func (s LineStyle) AppendBare(dst []byte, raw uint64, digits int) []byte {
	dst = appendBlanks(dst, s.Indent+8+s.Gap+s.TextCol)
	dst = append(dst, " /* 0x"...)
	dst = AppendHex(dst, raw, digits)
	return append(dst, " */\n"...)
}
