package usse

import "github.com/gpuisa/gpuisa/isa/usse"

// Repeats (.rpt) follow Vita3K's repeat model (its translator's
// get_repeat_offset; facts, our code). Each operand has a slot (source 0,
// 1, 2, destination) and iteration it of a repeated instruction adds an
// offset to its register number:
//
//   - external mode: it*4 to registers outside the internal bank;
//   - internal mode: it to internal registers;
//   - both: it to internal registers (not to a GPI slot of VMAD/VDP), it*4
//     to the others;
//   - MOE mode (every instruction without a mode field, and VMAD/VDP's mode
//     3, which the compiler sets in all 39 VMAD words here): the increment
//     the MOE state holds for the slot and iteration (it, unless smlsi set
//     it), times the instruction's multiplier for unified-store registers
//     (r, o, pa, sa): 2 by default, 1 for VBW and integer VMOVs, and 1 for
//     VPCK's destination and integer sources.
//
// smlsi sets the MOE increments: per slot an 8-bit signed step (it*step) or,
// in swizzle mode, four 2-bit increments for iterations 0..3; smbo sets
// them to it plus a per-slot base offset. Here the MOE
// state is taken in program order as the code is lowered (Vita3K does the
// same as it translates): an smlsi that only some paths reach, or one
// reached again after a branch back, is not modelled.
type rptMode uint8

const (
	rmExternal rptMode = iota
	rmInternal
	rmBoth
	rmMOE
)

// Operand slots of the MOE state (Vita3K's order).
const (
	slotSrc0 = iota
	slotSrc1
	slotSrc2
	slotDst
)

// maxRepeats is the most iterations a repeat field gives (4 bits + 1).
const maxRepeats = 16

// moeState is the increments smlsi set, per slot and iteration.
type moeState struct {
	inc [4][maxRepeats]int16
	// unknown: bit it is set when the increment of iteration it is not
	// known (swizzle mode gives four).
	unknown [4]uint16
}

func defaultMOE() *moeState {
	m := &moeState{}
	for s := range m.inc {
		for it := range m.inc[s] {
			m.inc[s][it] = int16(it)
		}
	}
	return m
}

// rptOff is the offset in file words that iteration it adds to operand o
// in slot slot (gpi: a VMAD/VDP internal source slot), with multiplier mult
// for unified-store registers. An internal register is four words: its
// offsets step whole registers (i0, i1, ...), as Vita3K's do.
func (l *lowerer) rptOff(mode rptMode, slot int, o usse.Operand, gpi bool, it, mult int) int {
	if it == 0 && mode != rmMOE {
		return 0
	}
	internal := o.Bank == usse.BankInternal
	regs := 0
	switch {
	case mode == rmInternal && internal:
		regs = it
	case gpi:
	case mode == rmBoth:
		regs = 4 * it
		if internal {
			regs = it
		}
	case mode == rmExternal && !internal:
		regs = 4 * it
	case mode == rmMOE:
		m := l.moe
		if m == nil {
			m = defaultMOE()
			l.moe = m
		}
		if it >= maxRepeats || m.unknown[slot]>>it&1 != 0 {
			l.fail("repeat %d: the MOE increment smlsi's swizzle mode gives for it is not known: %w", it, errUnsupported)
			return 0
		}
		regs = int(m.inc[slot][it])
		switch o.Bank {
		case usse.BankTemp, usse.BankOutput, usse.BankPrimary, usse.BankSecondary:
			regs *= mult
		}
	}
	if internal {
		return 4 * regs
	}
	return regs
}

// SMLSI: the MOE increments of later repeats (program order, see above).
// Its limits (registers where the increments wrap, by Vita3K's names
// temp/pa/sa limit) have no description: non-zero ones fault.
func lowerSmlsi(l *lowerer) {
	for _, f := range []string{"tlimit", "palimit", "salimit"} {
		if l.field(f) != 0 {
			l.fail("smlsi %s %d: %w (no description of the limits)", f, l.field(f), errUnsupported)
			return
		}
	}
	m := defaultMOE()
	for slot, names := range [4][2]string{{"s0mode", "s0inc"}, {"s1mode", "s1inc"}, {"s2mode", "s2inc"}, {"dmode", "dinc"}} {
		v := l.field(names[1])
		if l.field(names[0]) == 0 {
			for it := range m.inc[slot] {
				m.inc[slot][it] = int16(it) * int16(int8(v))
			}
			continue
		}
		for it := range m.inc[slot] {
			if it < 4 {
				m.inc[slot][it] = int16(v >> (2 * it) & 3)
			} else {
				m.unknown[slot] |= 1 << it
			}
		}
	}
	l.moe = m
	l.emit(op{kind: kNop})
}

// SMBO (set MOE base offsets, one per slot): the MOE increment of
// iteration it becomes it + the slot's offset, replacing what smlsi set
// (Vita3K's translator, a 2025 copy of its special.cpp in the
// ikhoeyZX/Vita3K-Android fork: repeat_increase = i + offset). The
// offset so applies to iteration 0 too: every later MOE-mode operand moves
// by offset times its multiplier, repeated or not.
func lowerSmbo(l *lowerer) {
	m := defaultMOE()
	for slot, f := range [4]string{"s0off", "s1off", "s2off", "doff"} {
		off := int16(l.field(f))
		for it := range m.inc[slot] {
			m.inc[slot][it] = int16(it) + off
		}
	}
	l.moe = m
	l.emit(op{kind: kNop})
}

// rptModeOf reads VMAD/VDP's repeat mode field.
func (l *lowerer) rptModeOf() rptMode {
	m := l.field("rptmode")
	if m > 3 {
		l.fail("repeat mode %d", m)
	}
	return rptMode(m)
}
