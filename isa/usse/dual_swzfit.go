package usse

// Swizzle texts read back: dualAssign.source takes the first entry of a
// range of its group's swizzle table that starts with a source's channels,
// and the level search asks whether a rival reading the word's text prints
// those channels again. dualSwzFirst answers the first from the generated
// tables without scanning them; dualSwzRoundTrip the second without
// building the rival.

// dualSwzLetters are the letters of the dual swizzle tables; a source
// showing any other letter begins no entry.
const dualSwzLetters = "xyzw01h2"

// dualLetterCodes[c] is c's index in dualSwzLetters, or 0xff.
//
// buildDualLetterCodes computes dualLetterCodes (inittables.go holds its value).
func buildDualLetterCodes() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < len(dualSwzLetters); i++ {
		t[dualSwzLetters[i]] = uint8(i)
	}
	return t
}

// dualChansKey numbers channels (letters past n ignored) densely below
// dualChansKeys: those of one letter first, then of two, ...; ok is false
// for no channels, a letter outside dualSwzLetters or more than four (no
// entry starts with such channels).
func dualChansKey(ch *dualChans) (uint32, bool) {
	n := uint32(ch.n)
	if n-1 >= 4 { // none, or more than four
		return 0, false
	}
	// all four letters' codes, then those past n dropped
	c := &dualLetterCodes
	codes := uint32(c[ch.c[0]])<<24 | uint32(c[ch.c[1]])<<16 | uint32(c[ch.c[2]])<<8 | uint32(c[ch.c[3]])
	codes &= 0xffffffff << (8 * (4 - n))
	packed := (codes>>24&7)<<9 | (codes>>16&7)<<6 | (codes>>8&7)<<3 | codes&7
	return dualChansKeyBase[n&7] + packed>>(3*(4-n)), codes&0xf8f8f8f8 == 0
}

// dualChansKeyBase[n] is the first dualChansKey of n letters.
var dualChansKeyBase = [8]uint32{1: 0, 2: 8, 3: 8 + 64, 4: 8 + 64 + 512}

// dualChansKeys bounds dualChansKey.
const dualChansKeys = 8 + 64 + 512 + 4096

// The entry ranges dualAssign.source searches: the standard half, both
// halves, the extended half.
const (
	swzRangeStd = iota
	swzRangeAll
	swzRangeExt
	swzRanges
)

// dualSwzRangeBounds are the ranges' entries [lo, hi).
var dualSwzRangeBounds = [swzRanges][2]int{{0, 16}, {0, 32}, {16, 32}}

// dualSwzFirst[vec4][range][dualChansKey] is 1 + the first defined entry
// of the range of the vec3 (0) or vec4 (1) table that starts with those
// channels, or 0 for none. Computed once, read-only afterwards.
func buildDualSwzFirst() *[2][swzRanges][dualChansKeys]uint8 {
	m := new([2][swzRanges][dualChansKeys]uint8)
	for v, ti := range [2]int{enumDswz3, enumDswz4} {
		t := enumTables[ti]
		for r, b := range dualSwzRangeBounds {
			for i := b[0]; i < b[1] && i < len(t); i++ {
				if t[i] == "?" {
					continue
				}
				for n := 1; n <= 4 && n <= len(t[i]); n++ {
					var ch dualChans
					ch.n = uint8(copy(ch.c[:], t[i][:n]))
					k, ok := dualChansKey(&ch)
					if !ok {
						panic("usse: dual swizzle entry " + t[i] + " has a letter outside dualSwzLetters") // fixed tables: any test meets it
					}
					if m[v][r][k] == 0 {
						m[v][r][k] = uint8(i + 1)
					}
				}
			}
		}
	}
	return m
}

// dualSwzFirst returns dualSwzFirstTable, which inittables.go holds (buildDualSwzFirst computes it).
func dualSwzFirst() *[2][swzRanges][dualChansKeys]uint8 { return &dualSwzFirstTable }

// dualSwzFind is the first defined entry in [lo, hi) of the vec3 or vec4
// table that starts with ch (dualAssign.source's look-up).
func dualSwzFind(vec4 bool, lo, hi int, ch *dualChans) (int, bool) {
	r := -1
	for i, b := range dualSwzRangeBounds {
		if b == [2]int{lo, hi} {
			r = i
		}
	}
	k, ok := dualChansKey(ch)
	if r < 0 || !ok {
		return 0, false
	}
	i := dualSwzFirst()[b2u(vec4)][r][k]
	return int(i) - 1, i != 0
}

// dualSwzRoundTrip reports whether channels ch (their dualChansKey, ok as
// it returned), read by a source through a letter that searches span
// (dualSpanStd or dualSpanAll) of the vec4 or vec3 table, print as ch again
// when the operation reads nch channels: the first entry starting with them
// (dualSwzFirst) printed as srcOpnd prints it. first is
// dualSwzFirst().
func dualSwzRoundTrip(first *[2][swzRanges][dualChansKeys]uint8, key uint32, ok bool, ch *dualChans, vec4 bool, span, nch int) bool {
	r := swzRangeStd
	if span == dualSpanAll {
		r = swzRangeAll
	}
	v := b2u(vec4)
	i := first[v][r][key%(5<<12)]
	return ok && i != 0 && dualSwzChans[v][span][(i-1)&31][min(nch, 4)] == *ch
}
