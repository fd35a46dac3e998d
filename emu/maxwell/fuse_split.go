package maxwell

// Split 64-bit adds: ptxas often schedules an instruction or two between
// the IADD.CC and the IADD.X of an address (IADD.CC; ISETP; IADD.X).
// When those instructions are plain ALU instructions that neither touch
// the condition code nor read or write the add's rows, running the IADD.X
// with its IADD.CC (and nothing at the IADD.X's place) gives the same
// registers: runFast does so (sAdd64Split, sAdd64Tail) when the IADD.CC
// runs for every active lane. The instructions between cannot stop the
// warp (no control flow, no memory, no faults), so the IADD.X is always
// reached in the same call.

// maxGap is the most instructions a split pair may have between its halves.
const maxGap = 3

// splitAdd64 reports whether the IADD.CC at i has its IADD.X (addHigh)
// gap instructions later, each between them aside.
func (k *Kernel) splitAdd64(i int, addHigh func(*op) bool) (gap int, ok bool) {
	a := &k.ops[i]
	for gap = 1; gap <= maxGap && i+1+gap < len(k.ops); gap++ {
		b := &k.ops[i+gap]
		if addHigh(&k.ops[i+1+gap]) {
			r := pairRows(a, &k.ops[i+1+gap], gap)
			for m := i + 1; m <= i+gap; m++ {
				if !aside(&k.ops[m], &r) {
					return 0, false
				}
			}
			return gap, true
		}
		if !aside(b, &addRows{}) {
			return 0, false // not even without the rows: no IADD.X will do
		}
	}
	return 0, false
}

// aside reports whether o may run after the 64-bit add of rows r instead
// of between its halves: an ALU instruction that reads no condition code
// and writes none, writes none of the add's rows, and reads neither of
// the rows the add writes.
func aside(o *op, r *addRows) bool {
	switch o.kind {
	case kMov, kIAdd, kXmad, kIsetp, kShl, kShr, kIscadd, kLop, kSel, kFfma, kFadd, kFmul:
	default:
		return false
	}
	if o.flags&(fCC|fX) != 0 || ccReads(o) != 0 {
		return false
	}
	isRow := func(row uint16, rows ...int32) bool {
		for _, x := range rows {
			if x >= 0 && int32(row)*32 == x {
				return true
			}
		}
		return false
	}
	for _, d := range [2]*opnd{&o.d, &o.d2} {
		switch d.kind {
		case oNone, oPred:
		case oReg:
			if isRow(d.row, r.a1, r.b1, r.d1, r.a2, r.b2, r.d2) {
				return false
			}
		default:
			return false // the condition code, memory, ...
		}
	}
	for i := range o.s {
		s := &o.s[i]
		switch s.kind {
		case oReg, oCIdx:
			if isRow(s.row, r.d1, r.d2) {
				return false
			}
		case oCC:
			return false
		}
	}
	return true
}
