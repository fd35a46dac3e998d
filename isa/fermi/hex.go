package fermi

// Fast formatting helpers: the shared isa helpers append digit by digit,
// these fill a small array first (the listing is printed at >10M lines/s).

const hexDigits = "0123456789abcdef"

const blanks = "                                                                "

// appendHexDigits appends x as exactly n hex digits (n <= 16).
func appendHexDigits(dst []byte, x uint64, n int) []byte {
	l := len(dst)
	if cap(dst)-l >= n {
		dst = dst[:l+n] // fill in place: no copy
	} else {
		dst = append(dst, "0000000000000000"[:n]...)
	}
	for i := l + n - 1; i >= l; i-- {
		dst[i] = hexDigits[x&15]
		x >>= 4
	}
	return dst
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
