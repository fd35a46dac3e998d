package fermi

// Mod is one decoded modifier of an instruction, for tools that want values
// rather than text (emulators, analyses). Name is how fermi.spec names it:
// a flag's or literal's text (".FTZ", ".U32", ".ADD.U64"), an enum's table
// ("icmp", "rnd", "ldt"), or "vtype" for the video operand types. Value is
// the field's value: an enum's index into its table, 1 for a flag that is
// in effect (".U32@!5" is in effect when bit 5 is 0) and for a literal, 0
// for a flag that is not; vtype packs src1's selector (bits 0-2) and sign
// (3), src2's selector (4-6) and sign (7), selectors as in the spec (0-3
// byte, 4-5 half, 6 word; src2's lies in an immediate's bits when the
// second source is one).
type Mod struct {
	Name  string
	Value uint32
}

// MaxMods is the most modifiers a form has.
const MaxMods = 8

// Mods decodes the modifiers of inst in the order the spec lists them.
func (i Inst) Mods() (mods [MaxMods]Mod, n int) {
	f := &forms[i.form]
	raw := i.Raw
	for k := range f.mods {
		if n == MaxMods {
			break
		}
		m := &f.mods[k]
		var md Mod
		switch m.kind {
		case modLit:
			md = Mod{m.text, 1}
		case modFlag:
			md = Mod{m.text, uint32(m.f.Get(raw))}
		case modFlagInv:
			md = Mod{m.text, uint32(m.f.Get(raw) ^ 1)}
		case modEnum:
			md = Mod{tableNames[m.table], uint32(m.value(raw))}
		case modVType:
			md = Mod{"vtype", uint32(raw>>44&7 | raw>>6&1<<3 | raw>>32&7<<4 | raw>>5&1<<7)}
		}
		mods[n] = md
		n++
	}
	return mods, n
}

// Mod returns the value of the modifier called name (see Mods) and whether
// the instruction's form has one of that name.
func (i Inst) Mod(name string) (uint32, bool) {
	mods, n := i.Mods()
	for _, m := range mods[:n] {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}
