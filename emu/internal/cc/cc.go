// Package cc holds the condition-code comparisons Tesla (sm_1x) and Fermi
// (sm_2x) share: codes 0..15 of their condition field test the flags a
// compare or subtraction left as the states L (S), E (Z), G (neither) and
// U (Z and S together), O correcting a signed overflow. The formulas are
// the FlexGripPlus reference's (seed 001); Fermi's predicates on the
// condition code use the same sixteen (seed 003, envytools).
package cc

// Compare reports whether comparison code (0..15: F LT EQ LE GT NE GE NUM
// NAN LTU EQU LEU GTU NEU GEU T) holds for the zero, sign and overflow
// flags; other codes are false.
func Compare(code int, z, s, o bool) bool {
	switch code {
	case 1:
		return (s && !z) != o
	case 2:
		return z && !s
	case 3:
		return s != (z || o)
	case 4:
		return !z && s == o
	case 5:
		return !z
	case 6:
		return s == o
	case 7:
		return !z || !s
	case 8:
		return z && s
	case 9:
		return s != o
	case 10:
		return z
	case 11:
		return z || s != o
	case 12:
		return !s != (z || o)
	case 13:
		return !z || s
	case 14:
		return (!s || z) != o
	case 15:
		return true
	}
	return false
}
