package usse

// A table derived once from the generated ones (read-only afterwards): for
// each syntax, the bytes its mnemonic can start with, so that the parser
// tries only the syntaxes a text's first letter allows.

type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]>>(c&63)&1 != 0 }
func (s *byteSet) addAll(t []string) bool {
	for _, x := range t {
		if x == "" {
			return false
		}
		s.add(x[0])
	}
	return true
}

type syntaxLead struct {
	lead byteSet // first byte of the mnemonic (after a predicate prefix)
	any  bool    // lead is unknown: always try
	eo   int     // eoValues
}

var parseIndex = func() (t [len(forms)][]syntaxLead) {
	for fi := range forms {
		f := &forms[fi]
		t[fi] = make([]syntaxLead, len(f.variants))
		for vi := range f.variants {
			v := &f.variants[vi]
			x := &t[fi][vi]
			x.eo = eoValues(v)
			i := 0
			for i < len(v.elems) && v.elems[i].kind == kPfx {
				i++
			}
			if i == len(v.elems) {
				x.any = true
				continue
			}
			e := &v.elems[i]
			switch e.kind {
			case kLit:
				if e.text == "" {
					x.any = true
				} else {
					x.lead.add(e.text[0])
				}
			case kE, kEo:
				x.any = !x.lead.addAll(enumTables[e.table])
			case kPck:
				x.lead.add('m')
				x.lead.add('p')
			case kDualm:
				x.any = !x.lead.addAll(enumTables[enumDualop])
			default:
				x.any = true
			}
		}
	}
	return t
}()

// leadBytes are the first byte of text and, when text starts with a
// predicate prefix and a blank, the first byte after it.
func leadBytes(text string) (a, b byte) {
	if text == "" {
		return 0, 0
	}
	a, b = text[0], text[0]
	for i := 0; i < len(text) && i < 4; i++ {
		if text[i] == ' ' || text[i] == '\t' {
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if j < len(text) {
				b = text[j]
			}
			break
		}
	}
	return a, b
}

// parseOrder lists, for each first byte, the syntaxes (form<<8 | variant)
// whose mnemonic may start with it, in spec order.
var parseOrder = func() (t [256][]uint16) {
	for c := 0; c < 256; c++ {
		for fi := range forms {
			for vi := range forms[fi].variants {
				if x := &parseIndex[fi][vi]; x.any || x.lead.has(byte(c)) {
					t[c] = append(t[c], uint16(fi)<<8|uint16(vi))
				}
			}
		}
	}
	return t
}()

// flagDefaults holds, per form and syntax, the word bits of the fields the
// syntax prints as flags and their values when every flag is at its
// default: a word with those bits prints no flags.
var flagDefaults = func() (t [len(forms)][]struct{ mask, bits uint64 }) {
	for fi := range forms {
		f := &forms[fi]
		t[fi] = make([]struct{ mask, bits uint64 }, len(f.variants))
		for vi := range f.variants {
			x := &t[fi][vi]
			for _, k := range f.variants[vi].flags {
				fd := &f.fields[k]
				var m uint64
				for _, p := range fd.parts {
					m |= p.Mask()
				}
				if x.mask&m != 0 || uint64(fd.def) >= 1<<fd.width {
					// no bit pattern stands for "all defaults": never
					// skip the flags (TestFlagDefaults: does not happen)
					x.mask, x.bits = 0, 1
					break
				}
				x.mask |= m
				x.bits = fd.set(x.bits, fd.def)
			}
		}
	}
	return t
}()
