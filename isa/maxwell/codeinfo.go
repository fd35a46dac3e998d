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
			fm := &forms[inst.form]
			maxReg = max(maxReg, highestRegister(fm, w))
			if t, ok := relTarget(inst, addr); ok {
				f.Targets = append(f.Targets, t)
			}
			switch {
			case fm.name == "EXIT":
				f.Exits = append(f.Exits, uint32(addr))
			case fm.name == "S2R" && readsCTAID(fm, w):
				f.CTAIDReads = append(f.CTAIDReads, uint32(addr))
			case fm.name == "BAR" && f.Barriers >= 0:
				if w>>44&1 == 0 {
					f.Barriers = -1 // the barrier number is in a register
				} else {
					f.Barriers = max(f.Barriers, int(w>>8&0xff)+1)
				}
			}
		}
	}
	f.Registers = maxReg + 1
	return f
}

// highestRegister is the highest register an instruction names (-1 for
// none), a data operand of a 64-bit form spanning two and of a 128-bit one
// four. Widths come from the form: double-precision mnemonics, and size
// modifiers whose table entry is .64/.128 (until the typed operand API says
// each operand's width).
func highestRegister(fm *form, w uint64) int {
	span := 0
	if fm.name[0] == 'D' && fm.name != "DEPBAR" {
		span = 1
	}
	for k := range fm.toks {
		t := &fm.toks[k]
		if t.kind != tkTable {
			continue
		}
		e := tables[t.arg].entries[t.get(w)]
		switch {
		case strings.Contains(e, "128"):
			span = 3
		case strings.Contains(e, "64"):
			span = max(span, 1)
		}
	}
	hi := -1
	for k := range fm.toks {
		t := &fm.toks[k]
		var r uint64
		width := span
		switch t.kind {
		case tkReg, tkRegPair:
			r = t.get(w) + uint64(t.shift)
		case tkAddr, tkUAddr:
			r, _ = t.addr(w)
			width = 0
		default:
			continue
		}
		if r < 255 {
			hi = max(hi, int(r)+width)
		}
	}
	return hi
}

// ctaidSR holds the SR table values of SR_CTAID.X, .Y and .Z.
var ctaidSR = func() (m [256]bool) {
	for ti := range tables {
		if tables[ti].name != "SR" {
			continue
		}
		for v, e := range tables[ti].entries {
			if strings.HasPrefix(e, "SR_CTAID.") {
				m[v] = true
			}
		}
	}
	return
}()

// readsCTAID reports whether an S2R reads SR_CTAID.X/Y/Z.
func readsCTAID(fm *form, w uint64) bool {
	for k := range fm.toks {
		t := &fm.toks[k]
		if t.kind == tkTable && tables[t.arg].name == "SR" {
			return ctaidSR[t.get(w)&0xff]
		}
	}
	return false
}
