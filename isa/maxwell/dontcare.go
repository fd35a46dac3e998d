package maxwell

// DontCare is the mask of the bits of inst's word that neither its form's
// fixed bits nor any of its fields cover: the decoder ignores them and the
// listing cannot show them, so the assembler writes zeros there
// (docs/roundtrip.md). The control field always comes back whole.
func (i Inst) DontCare() uint64 {
	f := &forms[i.form]
	covered := f.mask
	for k := range f.toks {
		t := &f.toks[k]
		for p := 0; p < int(t.n); p++ {
			covered |= (1<<t.parts[p].width - 1) << t.parts[p].pos
		}
	}
	return ^covered
}

// Ambiguous is the mask of inst's table fields whose value prints the same
// as another value of its table (F2F's .PASS stands for three encodings,
// VTYPE's .U8 for four, as nvdisasm prints them): the listing names one of
// them and the assembler writes the first (docs/roundtrip.md).
func (i Inst) Ambiguous() uint64 {
	f := &forms[i.form]
	var m uint64
	for _, k := range tableToks[i.form] {
		t := &f.toks[k]
		tb := &tables[t.arg]
		v := t.get(i.Word)
		if v >= uint64(len(tb.entries)) || tb.kinds[v] != 0 {
			continue
		}
		for w, e := range tb.entries {
			if uint64(w) != v && tb.kinds[w] == 0 && e == tb.entries[v] {
				for p := 0; p < int(t.n); p++ {
					m |= (1<<t.parts[p].width - 1) << t.parts[p].pos
				}
				break
			}
		}
	}
	return m
}
