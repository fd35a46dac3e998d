package fermi

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/isa"
)

// Fast formatting helpers: the shared isa helpers append digit by digit,
// these fill a small array first (the listing is printed at >10M lines/s).

const hexDigits = "0123456789abcdef"

const blanks = "                                                                "

// buildHexPairs makes hexPairs (inittables.go): every byte spelt as two
// hex digits. The listing's hex columns are most of its digits, and a pair
// per step halves the work.
func buildHexPairs() (t [512]byte) {
	for i := range 256 {
		t[2*i], t[2*i+1] = hexDigits[i>>4], hexDigits[i&15]
	}
	return t
}

// buildHexPairWords makes hexPairWords (inittables.go): hexPairs as
// little-endian 16-bit words.
func buildHexPairWords() (t [256]uint64) {
	pairs := buildHexPairs() // not hexPairs: the generated table may be stale
	for i := range t {
		t[i] = uint64(pairs[2*i]) | uint64(pairs[2*i+1])<<8
	}
	return t
}

// hexWord8 is the 8 hex digits of v as a word for st64 (most significant
// digit in the lowest byte): isa.HexDigits8 by four table loads.
func hexWord8(v uint32) uint64 {
	return hexPairWords[v>>24] | hexPairWords[v>>16&255]<<16 | hexPairWords[v>>8&255]<<32 | hexPairWords[v&255]<<48
}

// appendHexDigits appends x as exactly n hex digits (n <= 16).
func appendHexDigits(dst []byte, x uint64, n int) []byte {
	l := len(dst)
	if cap(dst)-l >= n {
		dst = dst[:l+n] // fill in place: no copy
	} else {
		dst = append(dst, "0000000000000000"[:n]...)
	}
	i := l + n - 1
	for ; i > l; i -= 2 {
		b := x & 0xff
		dst[i-1], dst[i] = hexPairs[2*b], hexPairs[2*b+1]
		x >>= 8
	}
	if i == l {
		dst[l] = hexDigits[x&15]
	}
	return dst
}

// appendHex16 appends x as exactly 16 hex digits.
func appendHex16(dst []byte, x uint64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, isa.HexDigits8(uint32(x>>32)))
	return binary.BigEndian.AppendUint64(dst, isa.HexDigits8(uint32(x)))
}

// appendHex8 appends x as exactly 8 hex digits.
func appendHex8(dst []byte, x uint32) []byte {
	return binary.BigEndian.AppendUint64(dst, isa.HexDigits8(x))
}

// appendHexNum appends 0x and the minimal hex digits of x.
func appendHexNum(dst []byte, x uint64) []byte {
	n := 1
	for t := x >> 4; t != 0; t >>= 4 {
		n++
	}
	dst = append(dst, '0', 'x')
	return appendHexDigits(dst, x, n)
}

// appendAddrColumn appends /*0000*/ (at least 4 digits).
func appendAddrColumn(dst []byte, addr uint64) []byte {
	n := 4
	for t := addr >> 16; t != 0; t >>= 4 {
		n++
	}
	dst = append(dst, '/', '*')
	dst = appendHexDigits(dst, addr, n)
	return append(dst, '*', '/')
}

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
