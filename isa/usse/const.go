package usse

import (
	"math"
	"strconv"
	"strings"
)

// Sony prints constant sources as their values ({0}, {1, 1}, {0, 0, 0}):
// swizzles made only of the constant selectors 0 1 2 h on i0, and the
// hard-wired constant registers c0..c63 read through a swizzle. The values
// do not name one encoding, so we print braces only for the encoding the
// parser picks back (the first register and table entry giving those
// values) and the register form otherwise.

// gswSwizzle is the swizzle part of a gsw element (fields num, swz, ext,
// mask, selector).
func gswSwizzle(e *elem) elem {
	return elem{kind: kSwz, table: e.table, f: [16]int8{e.f[1], e.f[2], e.f[3], e.f[4], -1, -1, -1, -1}}
}

// rswParts splits an rsw element (bank, ext, num, swz, swzext, mask,
// selector) into its register and swizzle elements.
func rswParts(e *elem) (reg, sw elem, hasSw bool) {
	reg = elem{kind: kReg, table: e.table, f: [16]int8{e.f[0], e.f[1], e.f[2], -1, -1, -1, -1, -1}}
	if e.f[3] < 0 {
		return reg, sw, false
	}
	sel := e.f[6]
	if e.kind == kRswh {
		sel = -1 // rswh's seventh field is its precision
	}
	return reg, elem{kind: kSwz, table: uint8(e.tab2), f: [16]int8{e.f[3], e.f[4], e.f[5], sel, -1, -1, -1, -1}}, true
}

// rswHalf reports whether an rsw element reads f16 constants.
func rswHalf(e *elem, in *Inst) bool {
	return e.kind == kRswh && (e.f[6] < 0 || in.Args[e.f[6]] != 0)
}

// swizzlePrefix is the text of a swz element without the dot: the shortest
// prefix of its entry that names it, at least as long as the mask needs
// (looked up in swzPrefixLen).
func swizzlePrefix(f *form, e *elem, in *Inst) string {
	return swizzlePrefixOf(f, e.table, e.f[0], e.f[1], e.f[2], e.f[3], in)
}

// swizzlePrefixOf is swizzlePrefix for a swz element of table t with fields
// swz, ext, mask and sel (-1: none), without building the element.
func swizzlePrefixOf(f *form, t uint8, swz, ext, mask, sel int8, in *Inst) string {
	ti, idx, ok := swizzleAt(f, t, swz, ext, sel, in)
	if !ok {
		return ""
	}
	tab := swizzleTables[ti]
	m := 4
	if mask >= 0 {
		m = maskLen(in.Args[mask])
	}
	return tab[idx][:swzPrefixLen[ti][idx][m]]
}

// swizzleAt finds the entry that fields swz (low part) and ext (high part,
// or -1) name in swizzle table t (swzV34: picked by field sel); ok is false
// when they name none.
func swizzleAt(f *form, t uint8, swz, ext, sel int8, in *Inst) (table, idx int, ok bool) {
	table = int(t)
	if t == swzV34 {
		table = swzV3
		if arg(in, sel) != 0 {
			table = swzV4
		}
	}
	idx = int(arg(in, ext))<<f.fields[swz].width | int(in.Args[swz])
	tab := swizzleTables[table]
	return table, idx, idx < len(tab) && tab[idx] != "?"
}

// rswSel is the selector field of an rsw element's swizzle (rswParts).
func rswSel(e *elem) int8 {
	if e.kind == kRswh {
		return -1 // rswh's seventh field is its precision
	}
	return e.f[6]
}

const (
	f32Zero = 0x00000000
	f32One  = 0x3f800000
	f32Two  = 0x40000000
	f32Half = 0x3f000000
)

// constChar is the value a constant swizzle selector reads.
func constChar(c byte) (uint32, bool) {
	switch c {
	case '0':
		return f32Zero, true
	case '1':
		return f32One, true
	case '2':
		return f32Two, true
	case 'h':
		return f32Half, true
	}
	return 0, false
}

func allConst(s string) bool {
	for i := 0; i < len(s); i++ {
		if _, ok := constChar(s[i]); !ok {
			return false
		}
	}
	return s != ""
}

// constValue is what constant register n reads in channel c, as f32 bits.
// f32: channel y reads bank 1, the others bank 0. f16 (half): channel x y z
// w reads f16 bank 0 1 2 3, which are the low and high halves of the f32
// banks 0 and 1 (Vita3K's f16 tables are exactly these halves).
func constValue(n uint32, c byte, half bool) uint32 {
	return constValues[b2u(half)][chanIndex[c]][n&63]
}

// chanIndex numbers the swizzle characters as swizzleChans does.
//
// buildChanIndex computes chanIndex (inittables.go holds its value).
func buildChanIndex() (t [256]uint8) {
	for i := 0; i < len(swizzleChans); i++ {
		t[swizzleChans[i]] = uint8(i)
	}
	return t
}

// constValues[half][channel][n] is constValueSlow, tabulated once
// (read-only afterwards).
//
// buildConstValues computes constValues (inittables.go holds its value).
func buildConstValues() (t [2][len(swizzleChans)][64]uint32) {
	for h := range t {
		for c := range t[h] {
			for n := range t[h][c] {
				t[h][c][n] = constValueSlow(uint32(n), swizzleChans[c], h == 1)
			}
		}
	}
	return t
}

func constValueSlow(n uint32, c byte, half bool) uint32 {
	if v, ok := constChar(c); ok {
		return v
	}
	if half {
		k := strings.IndexByte("xyzw", c)
		return f16to32(uint16(constTables[k>>1][n] >> (16 * (k & 1))))
	}
	if c == 'y' {
		return constTables[1][n]
	}
	return constTables[0][n]
}

// f16to32 widens IEEE half-precision bits to single precision bits.
func f16to32(h uint16) uint32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return sign | 0xff<<23 | man<<13
	case exp == 0 && man == 0:
		return sign
	case exp == 0: // subnormal: normalise
		e := uint32(127 - 15 + 1)
		for man&0x400 == 0 {
			man <<= 1
			e--
		}
		return sign | e<<23 | (man&0x3ff)<<13
	}
	return sign | (exp+127-15)<<23 | man<<13
}

func finite(v uint32) bool { return v>>23&0xff != 0xff }

func appendValues(dst []byte, v []uint32) []byte {
	dst = append(dst, '{')
	for i, x := range v {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		switch x { // the common constants, as AppendFloat spells them
		case f32Zero:
			dst = append(dst, '0')
		case f32One:
			dst = append(dst, '1')
		case f32Two:
			dst = append(dst, '2')
		case f32Half:
			dst = append(dst, "0.5"...)
		default:
			dst = strconv.AppendFloat(dst, float64(math.Float32frombits(x)), 'g', -1, 32)
		}
	}
	return append(dst, '}')
}

// firstConst finds the first constant register and swizzle entry (table t,
// or the identity when t is nil) whose first len(want) channels read want.
func firstConst(t []string, want []uint32, half bool) (n uint32, idx int, ok bool) {
	for n = 0; n < 64; n++ {
		if t == nil {
			if constMatch(n, "xyzw", want, half) {
				return n, 0, true
			}
			continue
		}
		// channels whose value at n is the first wanted one: entries
		// starting with another channel cannot match
		var first uint8
		vals := &constValues[b2u(half)]
		for c := range vals {
			if vals[c][n] == want[0] {
				first |= 1 << c
			}
		}
		if first == 0 {
			continue
		}
		for idx, ent := range t {
			if ent != "?" && len(ent) >= len(want) && first>>chanIndex[ent[0]]&1 != 0 && constMatch(n, ent, want, half) {
				return n, idx, true
			}
		}
	}
	return 0, 0, false
}

func constMatch(n uint32, chans string, want []uint32, half bool) bool {
	for i, w := range want {
		if constValue(n, chans[i], half) != w {
			return false
		}
	}
	return true
}

// rswConst reports whether an rsw operand prints as braces, and its values:
// a constant register read through a swizzle entry that is the first
// (register, entry) giving those values (constFirst).
func rswConst(f *form, e *elem, in *Inst, vals *[4]uint32) (int, bool) {
	// the register part's bank fields are e's first two
	if bi := bankIndex(f, e, in); bi >= 8 || bankKinds[e.table][bi] != bkSpecial {
		return 0, false
	}
	n := in.Args[e.f[2]]
	if n >= 64 {
		return 0, false
	}
	k := maskLen(arg(in, e.f[5]))
	chans := "xyzw"
	ti, idx := len(swizzleTables), 0
	if e.f[3] >= 0 { // the swizzle part of rswParts: table tab2, fields 3, 4, selector
		ti = int(e.tab2)
		if e.tab2 == swzV34 {
			ti = swzV3
			if arg(in, rswSel(e)) != 0 {
				ti = swzV4
			}
		}
		idx = int(arg(in, e.f[4]))<<f.fields[e.f[3]].width | int(in.Args[e.f[3]])
		if t := swizzleTables[ti]; idx >= len(t) || len(t[idx]) < k {
			return 0, false // also "?"
		} else {
			chans = t[idx]
		}
	}
	half := rswHalf(e, in)
	if constFirst()[ti][b2u(half)][k-1][n]>>idx&1 == 0 {
		return 0, false
	}
	for i := 0; i < k; i++ {
		vals[i] = constValue(n, chans[i], half)
	}
	return k, true
}
