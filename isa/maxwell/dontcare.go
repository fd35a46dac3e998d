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
