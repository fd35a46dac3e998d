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

// TestAllocSmall: below HugeMin a buffer is the heap's, and free does
// nothing to it.
func TestAllocSmall(t *testing.T) {
	b, free := Alloc(HugeMin - 1)
	free()
	b[len(b)-1] = 7 // still the caller's
	if len(b) != HugeMin-1 || b[0] != 0 {
		t.Fatalf("len %d, first byte %d", len(b), b[0])
	}
}
