package maxwell

import "math/bits"

// RegSet is a set of the general registers R0..R254 (RZ is never in it).
type RegSet [4]uint64

// Add puts registers first..first+n-1 in the set, stopping before RZ.
func (s *RegSet) Add(first, n int) {
	for r := max(first, 0); r < first+n && r < 255; r++ {
		s[r>>6] |= 1 << (r & 63)
	}
}

// Has reports whether register r is in the set.
func (s RegSet) Has(r int) bool { return r >= 0 && r < 255 && s[r>>6]&(1<<(r&63)) != 0 }

// Union is the registers in either set.
func (s RegSet) Union(o RegSet) RegSet {
	return RegSet{s[0] | o[0], s[1] | o[1], s[2] | o[2], s[3] | o[3]}
}

// Intersect is the registers in both sets.
func (s RegSet) Intersect(o RegSet) RegSet {
	return RegSet{s[0] & o[0], s[1] & o[1], s[2] & o[2], s[3] & o[3]}
}

// Minus is the registers of s not in o.
func (s RegSet) Minus(o RegSet) RegSet {
	return RegSet{s[0] &^ o[0], s[1] &^ o[1], s[2] &^ o[2], s[3] &^ o[3]}
}

// Empty reports whether the set has no register.
func (s RegSet) Empty() bool { return s[0]|s[1]|s[2]|s[3] == 0 }

// Len is the number of registers in the set.
func (s RegSet) Len() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}

// First is the lowest register in the set, -1 if it is empty.
func (s RegSet) First() int {
	for k, w := range s {
		if w != 0 {
			return 64*k + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// Last is the highest register in the set, -1 if it is empty.
func (s RegSet) Last() int {
	for k := 3; k >= 0; k-- {
		if s[k] != 0 {
			return 64*k + 63 - bits.LeadingZeros64(s[k])
		}
	}
	return -1
}

// Access is what an instruction reads and writes: the registers of its
// operands by their roles and widths (a register pair, a texture result's
// components, a 64-bit address's pair), the predicates P0..P6 (bit i; PT
// is never in them; the guard is read), and the condition code.
type Access struct {
	Read, Written         RegSet
	PredRead, PredWritten uint8
	CC                    Role
}

// allPreds is P0..P6: the PR operand of P2R and R2P.
const allPreds = 0x7f

// Access collects the registers, predicates and condition code the
// operands read and write.
func (o *Operands) Access() Access {
	var x Access
	if g := o.Guard; g.Kind == ArgPred && g.Reg < 7 {
		x.PredRead |= 1 << g.Reg
	}
	for k := range o.Args {
		a := &o.Args[k]
		if a.Kind == ArgNone {
			break
		}
		switch a.Kind {
		case ArgReg, ArgMem, ArgConst:
			first, n := a.Registers()
			if a.Role.Reads() {
				x.Read.Add(first, n)
			}
			if a.Role.Writes() {
				x.Written.Add(first, n)
			}
		case ArgPred:
			if a.Reg < 7 {
				if a.Role.Reads() {
					x.PredRead |= 1 << a.Reg
				}
				if a.Role.Writes() {
					x.PredWritten |= 1 << a.Reg
				}
			}
		case ArgEnum:
			if modInfos[a.Mod.id].name == "PRCC" && a.Mod.Value == 0 { // PR: every predicate
				if a.Role.Reads() {
					x.PredRead |= allPreds
				}
				if a.Role.Writes() {
					x.PredWritten |= allPreds
				}
			}
		}
	}
	x.CC = o.CC
	return x
}
