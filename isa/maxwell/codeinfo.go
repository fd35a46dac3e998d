package maxwell

import (
	"encoding/binary"
	"strings"
)

// CodeFacts are the facts about a function's code that a cubin records
// beside it: what `gpuisa as -patch` recomputes when it replaces the code.
type CodeFacts struct {
	// Registers is one more than the highest register the code names,
	// counting the registers a 64- or 128-bit operand spans (.sectioninfo
	// SHI_REGISTERS, EIATTR_REGCOUNT).
	Registers int
	// Barriers is one more than the highest barrier a BAR names
	// (SHF_BARRIERS); -1 when a BAR takes its barrier from a register.
	Barriers int
	// Exits are the offsets of the EXIT instructions
	// (EIATTR_EXIT_INSTR_OFFSETS); CTAIDReads those of the S2R instructions
	// that read SR_CTAID.X/Y/Z (EIATTR_S2RCTAID_INSTR_OFFSETS).
	Exits, CTAIDReads []uint32
	// Targets are the addresses the PC-relative instructions (branches,
	// calls, SSY, PBK, ...) point at, in code order.
	Targets []uint64
}

// Facts works out the CodeFacts of code (whole bundles) for sm. Words that do
// not decode count for nothing. All 140 functions of the 110 oracle cubins
// give ptxas's values (TestFactsOracle).
func Facts(code []byte, sm int) CodeFacts {
	var f CodeFacts
	maxReg := -1
	for b := 0; b+BundleSize <= len(code); b += BundleSize {
		cw := binary.LittleEndian.Uint64(code[b:])
		for s := 0; s < 3; s++ {
			addr := uint64(b + 8 + 8*s)
			w := binary.LittleEndian.Uint64(code[addr:])
			inst, err := Decode(w, CtrlField(cw, s), sm, addr)
			if err != nil {
				continue
			}
			o := inst.Operands(addr)
			maxReg = max(maxReg, highestRegister(&o))
			if t, ok := relTarget(inst, addr); ok {
				f.Targets = append(f.Targets, t)
			}
			switch o.Op {
			case "EXIT":
				f.Exits = append(f.Exits, uint32(addr))
			case "S2R":
				if readsCTAID(&o) {
					f.CTAIDReads = append(f.CTAIDReads, uint32(addr))
				}
			case "BAR":
				if f.Barriers < 0 {
					break
				}
				if b := o.Args[0]; b.Kind == ArgImm {
					f.Barriers = max(f.Barriers, int(b.Imm)+1)
				} else {
					f.Barriers = -1 // the barrier number is in a register
				}
			}
		}
	}
	f.Registers = maxReg + 1
	return f
}

// BranchTargets is Facts's Targets alone: the addresses the PC-relative
// instructions of code point at, in code order, without working out the
// operands of every instruction (the cubin assembler numbers labels by them).
func BranchTargets(code []byte, sm int) []uint64 {
	var out []uint64
	for b := 0; b+BundleSize <= len(code); b += BundleSize {
		cw := binary.LittleEndian.Uint64(code[b:])
		for s := 0; s < 3; s++ {
			addr := uint64(b + 8 + 8*s)
			inst, err := Decode(binary.LittleEndian.Uint64(code[addr:]), CtrlField(cw, s), sm, addr)
			if err != nil {
				continue
			}
			if t, ok := relTarget(inst, addr); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// highestRegister is the highest register an instruction names (-1 for
// none): every register of its operands, as wide as they are (pairs,
// quads, texture results, 64-bit addresses).
func highestRegister(o *Operands) int {
	hi := -1
	for _, a := range o.Args[:o.NArgs()] {
		if first, n := a.Registers(); n > 0 {
			hi = max(hi, first+n-1)
		}
	}
	return hi
}

// readsCTAID reports whether an S2R reads SR_CTAID.X/Y/Z.
func readsCTAID(o *Operands) bool {
	for _, a := range o.Args[:o.NArgs()] {
		if a.Kind == ArgSpecial {
			return strings.HasPrefix(a.Mod.Text(), "SR_CTAID.")
		}
	}
	return false
}
