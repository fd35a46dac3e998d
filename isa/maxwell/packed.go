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

// buildTableLits packs the texts of tables[t].entries[v] (tableLits, in
// inittables.go).
func buildTableLits() (p [len(tables)][]packed) {
	for t := range tables {
		p[t] = make([]packed, len(tables[t].entries))
		for v, e := range tables[t].entries {
			p[t][v] = pack(e)
			if tables[t].kinds[v] != 0 {
				p[t][v].n = -1 // not the entry's text: appendTableSlow
			}
		}
	}
	return
}
