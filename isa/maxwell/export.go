package maxwell

// Helpers for tools that walk the instruction space (cmd/mxdiff, tests).

// FormCount is the number of instruction forms in the spec.
func FormCount() int { return len(forms) }

// FormInfo describes form i: its fixed bits and the bit fields its template reads.
func FormInfo(i int) (name string, value, mask uint64, fields [][2]uint8) {
	f := &forms[i]
	for k := range f.toks {
		t := &f.toks[k]
		for j := 0; j < int(t.n); j++ {
			fields = append(fields, [2]uint8{t.parts[j].pos, t.parts[j].width})
		}
	}
	return f.name, f.value, f.mask, fields
}

// FormOf returns the index of the form inst matched.
func FormOf(inst Inst) int { return int(inst.form) }

// CareMask is the bits of inst's word that its text depends on: the form's
// fixed bits, the guard (if it prints one) and every field of its template.
// The assembler sets the other bits to zero.
func CareMask(inst Inst) uint64 { return careMask(&forms[inst.form]) }

func careMask(f *form) uint64 {
	m := f.mask | 0xf<<16
	if f.attrs&attrNoGuard != 0 {
		m &^= 0xf << 16
	}
	for k := range f.toks {
		t := &f.toks[k]
		for j := 0; j < int(t.n); j++ {
			p := t.parts[j]
			m |= uint64(1<<p.width-1) << p.pos
		}
	}
	return m
}
