package main

import (
	"bytes"
	"io"
	"runtime"
	"testing"
)

// TestRawListingMemoryFlat: the heap a streamed raw listing takes does not
// grow with the code: 12 MiB of code take about what 4 MiB take (a part
// per core, the read window, the first decode errors), for every ISA whose
// raw listing is read as it goes.
func TestRawListingMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("lists 48 MiB of code")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	peak := func(arch string, size int) uint64 {
		code := make([]byte, size)
		for i := range code {
			code[i] = byte(i * 7 / 3) // varied words, many of them invalid
		}
		return peakHeap(func() {
			cio := &cmdIO{stdin: bytes.NewReader(code), stdout: io.Discard, stderr: io.Discard}
			findCommand("dis").invoke([]string{"-arch", arch, "-"}, cio)
		})
	}
	for _, arch := range []string{"sm_10", "sm_20", "sgx543"} {
		small, large := peak(arch, 4<<20), peak(arch, 12<<20)
		t.Logf("%s: %d KiB of heap at most for 4 MiB of code, %d KiB for 12 MiB", arch, small>>10, large>>10)
		if large > small+small/2 { // a listing held whole grows 3 times (12 MiB: about 300 MiB)
			t.Errorf("%s: listing 12 MiB of code took %d KiB of heap, 4 MiB %d KiB: memory grows with the code", arch, large>>10, small>>10)
		}
	}
}
