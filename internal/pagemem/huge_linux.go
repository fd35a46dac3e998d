package pagemem

import (
	"sync"
	"syscall"
	"unsafe"
)

// mapHuge maps n bytes (rounded up to huge pages) at a huge page boundary,
// advised MADV_HUGEPAGE: with transparent huge pages in "madvise" mode (the
// usual default) the kernel then fills it a 2 MiB page a fault.
func mapHuge(n int) ([]byte, func(), bool) {
	size := (n + hugePage - 1) &^ (hugePage - 1)
	// one huge page more, to use an aligned run of it (kernels before 6.7
	// align a mapping to 4 KiB only); the rest is never touched and costs
	// address space only
	m, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	head := int((hugePage - start%hugePage) % hugePage)
	b := m[head : head+size : head+size]
	// refused (no transparent huge pages): still a mapping, in 4 KiB
	// pages, as the heap's would be
	_ = syscall.Madvise(b, madvHugePage)
	var once sync.Once
	return b[:n], func() { once.Do(func() { syscall.Munmap(m) }) }, true
}

// madvHugePage is MADV_HUGEPAGE (the syscall package does not name it).
const madvHugePage = 14
