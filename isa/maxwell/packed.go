package maxwell

import "encoding/binary"

// packed is a literal of at most 16 bytes held as two little-endian words, so
// the printer appends it with two 8-byte stores instead of a memmove call.
type packed struct {
	lo, hi uint64
	n      int // -1: too long, append the string
}

func pack(s string) packed {
	if len(s) > 16 {
		return packed{n: -1}
	}
	var b [16]byte
	copy(b[:], s)
	return packed{binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:]), len(s)}
}

// appendPacked appends p, whose text is s.
func appendPacked(dst []byte, p *packed, s string) []byte {
	n := len(dst)
	if p.n < 0 || cap(dst)-n < 16 {
		return append(dst, s...)
	}
	d := dst[n : n+16]
	binary.LittleEndian.PutUint64(d[:8], p.lo)
	binary.LittleEndian.PutUint64(d[8:], p.hi)
	return dst[:n+p.n]
}

// tableLits are the packed texts of tables[t].entries[v], made once from
// the generated tables.
var tableLits = func() (p [len(tables)][]packed) {
	for t := range tables {
		p[t] = make([]packed, len(tables[t].entries))
		for v, e := range tables[t].entries {
			p[t][v] = pack(e)
		}
	}
	return
}()
