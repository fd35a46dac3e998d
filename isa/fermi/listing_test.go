package fermi

import (
	"testing"

	"github.com/gpuisa/gpuisa/isa"
)

// The lister's cached address column is putAddrColumn's, from block to
// block, back and forth, across a digit more and in both dialects; and
// putAddrColumn's New column is isa.CuobjdumpStyle's.
func TestAddrColumn(t *testing.T) {
	addrs := []uint32{0, 4, 0xf8, 0x100, 0xfffc, 0x10000, 0x10008, 8, 0xfffffff8, 0xfffffffc, 0x12345678, 0x1234567c}
	for _, d := range []Dialect{New, Old, New} {
		var c addrColumn
		for _, addr := range addrs {
			var got, want [addrColumnRoom + 16]byte
			n := c.put(got[:], addr, d)
			m := putAddrColumn(want[:], addr, d)
			if n != m || string(got[:n]) != string(want[:m]) {
				t.Errorf("%v column of %#x: %q, want %q", d, addr, got[:n], want[:m])
			}
			if d == New {
				if s := string(isa.CuobjdumpStyle.AppendPrefix(nil, uint64(addr))); string(want[:m]) != s {
					t.Errorf("New column of %#x: %q, want %q", addr, want[:m], s)
				}
			}
		}
	}
}
