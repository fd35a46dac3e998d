package usse

import "sync"

// A quick necessary test for dualBuild's swizzles: most rival words the
// level search builds fail because a source's channels begin no entry of
// their group's swizzle table (dualAssign.source). dualSwzFits answers
// that from the generated tables without building the word.

// dualSwzLetters are the letters of the dual swizzle tables; a source
// showing any other letter begins no entry.
const dualSwzLetters = "xyzw01h2"

// dualLetterCodes[c] is c's index in dualSwzLetters, or 0xff.
var dualLetterCodes = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < len(dualSwzLetters); i++ {
		t[dualSwzLetters[i]] = uint8(i)
	}
	return t
}()

// dualChansKey packs channels (letters past n ignored) into an index of
// dualSwzFits: n, then three bits per letter; ok is false for a letter
// outside dualSwzLetters or more than four.
func dualChansKey(ch *dualChans) (uint32, bool) {
	if ch.n > 4 {
		return 0, false
	}
	k := uint32(ch.n) << 12
	bad := uint8(0)
	for i := 0; i < int(ch.n); i++ {
		c := dualLetterCodes[ch.c[i]]
		bad |= c
		k |= uint32(c&7) << (9 - 3*i)
	}
	return k, bad < 8
}

// dualSwzFits[dualChansKey] of a source's channels says where
// dualAssign.source's swizzle look-up can find them: bit 2*v+h is set when
// an entry of the vec3 (v 0) or vec4 (v 1) table below 16 (h 0) or 32 (h
// 1) starts with them. Computed once, read-only afterwards.
var dualSwzFits = sync.OnceValue(func() *[5 << 12]uint8 {
	m := new([5 << 12]uint8)
	for v, ti := range [2]int{enumDswz3, enumDswz4} {
		t := enumTables[ti]
		for i := 0; i < 32 && i < len(t); i++ {
			if t[i] == "?" {
				continue
			}
			bits := uint8(2) << (2 * v) // h 1
			if i < 16 {
				bits |= 1 << (2 * v)
			}
			for n := 1; n <= 4 && n <= len(t[i]); n++ {
				var ch dualChans
				ch.n = uint8(copy(ch.c[:], t[i][:n]))
				k, ok := dualChansKey(&ch)
				if !ok {
					panic("usse: dual swizzle entry " + t[i] + " has a letter outside dualSwzLetters") // fixed tables: any test meets it
				}
				m[k] |= bits
			}
		}
	}
	return m
})

// dualSwzMasks gives dualSwzFits of every source operand of a text.
func dualSwzMasks(t *dualText) (m [2][5]uint8) {
	fits := dualSwzFits()
	for k := 0; k < 2; k++ {
		for j := 1; j < t.n[k] && j < 5; j++ {
			if key, ok := dualChansKey(&t.opnd[k][j].chans); ok {
				m[k][j] = fits[key]
			}
		}
	}
	return m
}

// dualSwizzlesFit reports whether every source swizzle that operations o1,
// o2 read under configuration cfg (layout letters u 0 1) can be found in
// the table of the group (vec4 or not), given the masks of dualSwzMasks.
// False means dualBuildArgs fails; true promises nothing.
func dualSwizzlesFit(m *[2][5]uint8, t *dualText, o1, o2 *dualOp, cfg uint32, vec4 bool) bool {
	lay := &dualLayouts[o1.srcs-1][o2.srcs-1][cfg&3]
	if !lay.ok {
		return false
	}
	v := uint(0)
	if vec4 {
		v = 2
	}
	for k := 0; k < 2; k++ {
		o := [2]*dualOp{o1, o2}[k]
		l := lay.lay[k]
		for i := 0; i < len(l); i++ {
			j := o.srcOperand(i)
			if j >= t.n[k] || j >= 5 {
				return false // the operand counts differ: the build fails
			}
			h := uint(1) // the extended half (the 1 slot, or u with one source)
			switch l[i] {
			case '2':
				continue // no swizzle
			case '0':
				h = 0
			case 'u':
				if o1.srcs >= 2 {
					h = 0
				}
			}
			if m[k][j]>>(v+h)&1 == 0 {
				return false
			}
		}
	}
	return true
}
