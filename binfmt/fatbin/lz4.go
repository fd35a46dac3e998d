package fatbin

import "fmt"

// lz4Error locates a problem in a compressed stream.
type lz4Error struct {
	off int
	msg string
}

func (e *lz4Error) Error() string { return fmt.Sprintf("offset %d: %s", e.off, e.msg) }

// decompressLZ4 decodes one LZ4 block (the raw block format, no frame) that
// should produce want bytes. A block is a series of sequences: a token
// (literal length in the high nibble, match length - 4 in the low one, 15
// meaning "add the following bytes, each 255 continuing"), the literals, a
// 2-byte little-endian back offset and the match; the last sequence has
// literals only. Output never grows beyond want.
func decompressLZ4(src []byte, want uint64) ([]byte, error) {
	// LZ4 expands at most ~255:1, which bounds a lying size field.
	if limit := 255*uint64(len(src)) + 16; want > limit {
		return nil, &lz4Error{0, fmt.Sprintf("declared size 0x%x impossible for %d compressed bytes", want, len(src))}
	}
	// Callers check want against the ratio limit (limits.go) first; the
	// capacity trusts it only that far, and grows with the real output.
	dst := make([]byte, 0, min(want, MaxRatio*uint64(len(src))+RatioSlack))
	i := 0
	length := func(n int) (int, error) {
		if n != 15 {
			return n, nil
		}
		for {
			if i >= len(src) {
				return 0, &lz4Error{i, "length runs past the end"}
			}
			b := src[i]
			i++
			n += int(b)
			if n > len(src)*255+15 {
				return 0, &lz4Error{i, "length too large"}
			}
			if b != 255 {
				return n, nil
			}
		}
	}
	for {
		if i >= len(src) {
			return nil, &lz4Error{i, "stream ends without a final literal run"}
		}
		tok := src[i]
		i++
		lit, err := length(int(tok >> 4))
		if err != nil {
			return nil, err
		}
		if lit > len(src)-i {
			return nil, &lz4Error{i, fmt.Sprintf("%d literals run past the end", lit)}
		}
		if uint64(len(dst)+lit) > want {
			return nil, &lz4Error{i, "output exceeds the declared size"}
		}
		dst = append(dst, src[i:i+lit]...)
		i += lit
		if i == len(src) { // last sequence: literals only
			if uint64(len(dst)) != want {
				return nil, &lz4Error{i, fmt.Sprintf("stream decodes to %d bytes, the header says %d", len(dst), want)}
			}
			return dst, nil
		}
		if len(src)-i < 2 {
			return nil, &lz4Error{i, "match offset truncated"}
		}
		back := int(src[i]) | int(src[i+1])<<8
		i += 2
		if back == 0 || back > len(dst) {
			return nil, &lz4Error{i - 2, fmt.Sprintf("match offset %d outside the %d bytes decoded", back, len(dst))}
		}
		m, err := length(int(tok & 0xf))
		if err != nil {
			return nil, err
		}
		m += 4
		if uint64(len(dst)+m) > want {
			return nil, &lz4Error{i, "output exceeds the declared size"}
		}
		// byte by byte: the match may overlap what it produces
		start := len(dst) - back
		for k := 0; k < m; k++ {
			dst = append(dst, dst[start+k])
		}
	}
}
