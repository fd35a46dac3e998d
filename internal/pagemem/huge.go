package pagemem

// Large buffers of the listings (a 10 MB input, the texts of a million
// instructions, the blocks of a listing being written) are fresh memory,
// and the system gives fresh memory a page at a time, each on a fault. On
// the 2-core virtual machine the listings are measured on, a fault costs
// 11-14 us (the hypervisor shadows the page tables): 10 MB in 4 KiB pages
// took 30-35 ms of CPU time, as much as listing a million instructions.
// In 2 MiB pages the same 10 MB took 0.6-4 ms. Alloc hands such buffers
// out in huge pages where the system has them.

// HugeMin is the size from which Alloc maps memory of its own: below it a
// huge page would be mostly zeroed for nothing.
const HugeMin = 1 << 20

// hugePage is the huge page size Alloc aligns its mappings to (x86-64 and
// arm64 with 4 KiB pages).
const hugePage = 2 << 20

// Alloc returns n bytes of zeroed memory and free, which gives it back.
// From HugeMin bytes on (on Linux) the memory is a mapping of its own,
// outside the Go heap, aligned to and advised into huge pages: the caller
// must call free once nothing uses the memory any more (a use after it
// crashes the process), and must store no Go pointers in it (the
// collector does not see them). free may be called more than once. Below
// HugeMin, or where no mapping can be made, it is make([]byte, n) and free
// does nothing.
func Alloc(n int) (b []byte, free func()) {
	if n >= HugeMin {
		if b, free, ok := mapHuge(n); ok {
			return b, free
		}
	}
	return make([]byte, n), func() {}
}
