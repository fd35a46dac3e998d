package pagemem

import (
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestAllocHuge: a large buffer is zeroed, writable to its end, aligned
// to a huge page, and (where the system gives huge pages on advice) costs
// a fault a huge page rather than one per 4 KiB page. free may be called
// twice.
func TestAllocHuge(t *testing.T) {
	const n = 8<<20 + 123
	b, free := Alloc(n)
	defer free()
	if len(b) != n {
		t.Fatalf("len %d, want %d", len(b), n)
	}
	if start := uintptr(unsafe.Pointer(unsafe.SliceData(b))); start%hugePage != 0 {
		t.Errorf("starts at %#x, not at a huge page", start)
	}
	before := minorFaults(t)
	for i := 0; i < n; i += pageSize {
		if b[i] != 0 {
			t.Fatalf("byte %d of fresh memory is %d", i, b[i])
		}
		b[i] = 1
	}
	b[n-1] = 1
	faults := minorFaults(t) - before
	mode, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if strings.Contains(string(mode), "[never]") || len(mode) == 0 {
		t.Logf("no transparent huge pages here: %d faults for %d pages", faults, n/pageSize)
	} else if faults > n/pageSize/8 {
		t.Errorf("%d faults writing %d pages; in huge pages there would be about %d", faults, n/pageSize, n/hugePage+1)
	}
	free()
	free()
}
