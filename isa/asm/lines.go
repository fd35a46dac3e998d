package asm

// Lines calls fn for every line of src with its 1-based number. It does not
// allocate: each line is a substring of src.
func Lines(src []byte, fn func(line string, n int)) {
	s := string(src) // one copy, so tokens may alias it safely
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
