package usse

// A table derived once from the generated ones (read-only afterwards) so
// that Decode skips the validity check for forms where no field value can
// be invalid.

type formDecoder struct {
	mayFail bool           // check may find an invalid field value
	risky   [][]uint8      // per variant: the elements that may fail check
	checks  [][]fieldCheck // per variant: the tests of its risky elements
}

// fieldCheck is one of check's tests: an enum field whose value's bit in
// bad is set (an entry marked '?' or past the table), a bank index (field
// f1's value above f0's bits) at or past limit, or any other element,
// tested by elemCheck.
type fieldCheck struct {
	kind   uint8 // ckEnum, ckBank, ckElem
	f0, f1 int8
	elem   uint8 // ckElem: the element's index
	shift  uint8
	limit  uint32
	bad    uint64
}

const (
	ckElem = iota
	ckEnum
	ckBank
)

// fieldChecks are the tests of element e of f: one per enum field (fields
// of at most 6 bits), one per bank index, else one ckElem.
func fieldChecks(f *form, e *elem, elemIdx int) []fieldCheck {
	enum := func(fi int8) (fieldCheck, bool) {
		w := width(f, fi)
		if fi < 0 || w > 6 {
			return fieldCheck{}, false
		}
		c := fieldCheck{kind: ckEnum, f0: fi}
		t := enumTables[e.table]
		for v := 0; v < 1<<w; v++ {
			if v >= len(t) || t[v] == "?" {
				c.bad |= 1 << v
			}
		}
		return c, true
	}
	switch e.kind {
	case kPfx, kE, kEo:
		if c, ok := enum(e.f[0]); ok {
			return []fieldCheck{c}
		}
	case kPck, kFmt2:
		c0, ok0 := enum(e.f[0])
		c1, ok1 := enum(e.f[1])
		if ok0 && ok1 {
			return []fieldCheck{c0, c1}
		}
	case kReg, kRegx, kOreg, kNreg, kRegm:
		if w := width(f, e.f[0]); w+width(f, e.f[1]) < 32 {
			return []fieldCheck{{kind: ckBank, f0: e.f[0], f1: e.f[1], shift: uint8(w), limit: uint32(len(bankTables[e.table]))}}
		}
	}
	return []fieldCheck{{kind: ckElem, elem: uint8(elemIdx)}}
}

// buildDecoders computes decoders (inittables.go holds its value).
func buildDecoders() (t [len(forms)]formDecoder) {
	for fi := range forms {
		f := &forms[fi]
		t[fi].mayFail = formMayFail(f)
		t[fi].risky = make([][]uint8, len(f.variants))
		t[fi].checks = make([][]fieldCheck, len(f.variants))
		for vi := range f.variants {
			for j := range f.variants[vi].elems {
				if e := &f.variants[vi].elems[j]; elemMayFail(f, e) {
					t[fi].risky[vi] = append(t[fi].risky[vi], uint8(j))
					t[fi].checks[vi] = append(t[fi].checks[vi], fieldChecks(f, e, j)...)
				}
			}
		}
	}
	return t
}

// formMayFail reports whether check can reject some word of f: a variant
// may be missing, or an element reads a table entry marked '?' or beyond
// the table.
func formMayFail(f *form) bool {
	always := false
	for i := range f.variants {
		v := &f.variants[i]
		if v.cond < 0 || f.fields[v.cond].width <= 5 && v.condVals == 1<<(1<<f.fields[v.cond].width)-1 {
			always = true
		}
		for j := range v.elems {
			if elemMayFail(f, &v.elems[j]) {
				return true
			}
		}
	}
	return !always
}

func width(f *form, fi int8) uint {
	if fi < 0 {
		return 0
	}
	return uint(f.fields[fi].width)
}

func enumMayFail(t []string, w uint) bool {
	if len(t) < 1<<w {
		return true
	}
	for _, s := range t[:1<<w] {
		if s == "?" {
			return true
		}
	}
	return false
}

func swizzleMayFail(f *form, e *elem) bool {
	w := width(f, e.f[0]) + width(f, e.f[1])
	if e.table == swzV34 {
		return enumMayFail(swizzleTables[swzV3], w) || enumMayFail(swizzleTables[swzV4], w)
	}
	return enumMayFail(swizzleTables[e.table], w)
}

func elemMayFail(f *form, e *elem) bool {
	switch e.kind {
	case kPfx, kE, kEo:
		return enumMayFail(enumTables[e.table], width(f, e.f[0]))
	case kPck, kFmt2:
		return enumMayFail(enumTables[e.table], width(f, e.f[0])) || enumMayFail(enumTables[e.table], width(f, e.f[1]))
	case kReg, kRegx, kOreg, kNreg, kRegm:
		return len(bankTables[e.table]) < 1<<(width(f, e.f[0])+width(f, e.f[1]))
	case kDualm:
		return true
	case kSwz:
		return swizzleMayFail(f, e)
	case kGsw:
		sw := gswSwizzle(e)
		return swizzleMayFail(f, &sw)
	case kRsw, kRswh:
		reg, sw, hasSw := rswParts(e)
		return len(bankTables[e.table]) < 1<<(width(f, reg.f[0])+width(f, reg.f[1])) || hasSw && swizzleMayFail(f, &sw)
	}
	return false
}

// formMatch is what the decoder tests of a form: its fixed bits.
type formMatch struct {
	mask, value uint64
	form        int16
	mayFail     bool
}

// groupMatches lists groups' forms by op1 in spec order, compact so that
// the decoder's first-match loop reads no form structs.
//
// buildGroupMatches computes groupMatches (inittables.go holds its value).
func buildGroupMatches() (t [32][]formMatch) {
	for op1, g := range groups {
		for _, fi := range g {
			f := &forms[fi]
			t[op1] = append(t[op1], formMatch{f.mask, f.value, int16(fi), decoders[fi].mayFail})
		}
	}
	return t
}
