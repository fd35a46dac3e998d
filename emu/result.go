package emu

import (
	"fmt"
	"sort"
)

// Buffer returns a copy of a buffer's bytes after the run.
func (r *Result) Buffer(name string) ([]byte, error) {
	p, ok := r.Buffers[name]
	if !ok {
		names := make([]string, 0, len(r.Buffers))
		for n := range r.Buffers {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no buffer %q (buffers: %v)", name, names)
	}
	return r.global().Bytes(p.Addr, p.Bytes)
}

// Read returns a copy of n bytes of global memory at addr after the run.
func (r *Result) Read(addr, n uint64) ([]byte, error) {
	return r.global().Bytes(addr, n)
}
