package pagemem

import "testing"

// TestTouchZeroedKeepsZeros: the elements stay zero, however their size
// divides a page.
func TestTouchZeroedKeepsZeros(t *testing.T) {
	type entry struct {
		key uint64
		n   uint8
		b   [37]byte
	}
	s := make([]entry, 3000)
	TouchZeroed(s)
	for i, e := range s {
		if e != (entry{}) {
			t.Fatalf("element %d changed: %+v", i, e)
		}
	}
	big := make([][8192]byte, 3)
	TouchZeroed(big)
	TouchZeroed([]int(nil))
	TouchZeroed(make([]struct{}, 10)) // zero-size elements
}
