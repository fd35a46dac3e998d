package fermi

import "strings"

// Modifier parsing: the inverse of appendMod in print.go.

// hasMod reports whether rem starts with the modifier text t, followed by
// another modifier or nothing.
func hasMod(rem, t string) bool {
	return strings.HasPrefix(rem, t) && (len(rem) == len(t) || rem[len(t)] == '.')
}

func parseMod(m *mod, raw uint64, rem string) (uint64, string, bool) {
	switch m.kind {
	case modLit:
		if !hasMod(rem, m.text) {
			return raw, rem, false
		}
		return raw, rem[len(m.text):], true
	case modFlag:
		if hasMod(rem, m.text) {
			return m.f.Set(raw, 1), rem[len(m.text):], true
		}
		return raw, rem, true
	case modFlagInv:
		if hasMod(rem, m.text) {
			return raw, rem[len(m.text):], true
		}
		return m.f.Set(raw, 1), rem, true
	case modEnum:
		best, bestLen, empty := -1, -1, -1
		for v, e := range tables[m.table] {
			switch {
			case e == "":
				empty = v
			case e != "?" && len(e) > bestLen && hasMod(rem, e):
				best, bestLen = v, len(e)
			}
		}
		if best >= 0 {
			return m.set(raw, uint64(best)), rem[bestLen:], true
		}
		if empty >= 0 {
			return m.set(raw, uint64(empty)), rem, true
		}
		return raw, rem, false
	case modVType:
		s1, sel1, rest, ok1 := parseVType(rem)
		if !ok1 {
			raw |= 1<<6 | 1<<5 | 6<<44 | 6<<32 // both S32
			return raw, rem, true
		}
		s2, sel2, rest, ok2 := parseVType(rest)
		if !ok2 {
			return raw, rem, false
		}
		raw |= s1<<6 | s2<<5 | sel1<<44 | sel2<<32
		return raw, rest, true
	}
	return raw, rem, false
}

// parseVType reads one video operand type such as .U8.B1, .S16 or .U32.
func parseVType(rem string) (signed, sel uint64, rest string, ok bool) {
	switch {
	case strings.HasPrefix(rem, ".U"):
	case strings.HasPrefix(rem, ".S"):
		signed = 1
	default:
		return 0, 0, rem, false
	}
	r := rem[2:]
	switch {
	case hasMod(r, "8"):
		r, sel = r[1:], 0
		for b := uint64(1); b < 4; b++ {
			if hasMod(r, ".B"+string(rune('0'+b))) {
				r, sel = r[3:], b
				break
			}
		}
	case hasMod(r, "16"):
		r, sel = r[2:], 4
		if hasMod(r, ".H1") {
			r, sel = r[3:], 5
		}
	case hasMod(r, "32"):
		r, sel = r[2:], 6
	default:
		return 0, 0, rem, false
	}
	return signed, sel, r, true
}
