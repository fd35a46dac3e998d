package pagemem

import (
	"syscall"
	"testing"
)

// minorFaults is the process's minor page faults so far.
func minorFaults(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// readFaults is the minor faults of reading one byte in each page of s.
func readFaults(t *testing.T, s []lineLike) int64 {
	before := minorFaults(t)
	sum := 0
	for i := 0; i < len(s); i += pageSize / 64 {
		sum += int(s[i].n)
	}
	if sum != 0 {
		t.Fatal("fresh memory is not zero")
	}
	return minorFaults(t) - before
}

type lineLike struct {
	key uint64
	n   uint8
	b   [55]byte
}

// TestTouchZeroedFaults: after TouchZeroed, reading the memory faults no
// more (it would map the zero page otherwise, and fault again on writing).
func TestTouchZeroedFaults(t *testing.T) {
	const n = 8 << 20 / 64 // 8 MiB of entries: fresh memory from the system
	if faults := readFaults(t, make([]lineLike, n)); faults < n/64/2 {
		t.Skipf("reading 2,048 pages of fresh memory faulted %d times: it was not fresh", faults)
	}
	s := make([]lineLike, n)
	TouchZeroed(s)
	if faults := readFaults(t, s); faults > n/64/16 {
		t.Errorf("reading 2,048 touched pages faulted %d times, want almost none", faults)
	}
}
