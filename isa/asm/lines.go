package asm

import (
	"strings"
	"unsafe"
)

// Lines calls fn for every line of src with its 1-based number. It does not
// allocate or copy: each line aliases src, so src must not change while the
// lines (or tokens cut from them) are in use.
func Lines(src []byte, fn func(line string, n int)) {
	s := unsafe.String(unsafe.SliceData(src), len(src))
	n := 1
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			fn(s, n)
			return
		}
		fn(s[:i], n)
		s = s[i+1:]
		n++
	}
}
