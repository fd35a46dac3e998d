//go:build !linux

package pagemem

// mapHuge maps nothing: elsewhere Alloc's memory is the Go heap's.
func mapHuge(n int) ([]byte, func(), bool) { return nil, nil, false }
