package asm

import "unsafe"

// Lines calls fn for every line of src with its 1-based number. It does not
// allocate or copy: each line aliases src, so src must not change while the
// lines (or tokens cut from them) are in use.
func Lines(src []byte, fn func(line string, n int)) {
	s := unsafe.String(unsafe.SliceData(src), len(src))
	n := 1
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		fn(s[:i], n)
		if i == len(s) {
			return
		}
		s = s[i+1:]
		n++
	}
}
