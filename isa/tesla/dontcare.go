package tesla

// DontCare is the mask of the bits of inst that its listing line does not
// show, so that the assembler cannot give them back as they were: the bits
// the hardware ignores (the spec's ignore set, which the assembler fills as
// ptxas does) and, on a long instruction that is not a .S join, the
// end-of-program marker (cuobjdump does not print it; the assembler sets
// it where ptxas does). docs/roundtrip.md lists them.
func (i Inst) DontCare() uint64 {
	m := forms[i.Form].ignore
	if i.Class() == ClassLong && f_mark.Get(i.Raw) != 2 {
		m |= 1 << f_mark.Pos
	}
	return m
}
