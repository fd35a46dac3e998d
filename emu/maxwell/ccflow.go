package maxwell

// Condition-code liveness. ptxas computes every 64-bit address with an
// IADD.CC (or ISCADD.CC) and an IADD.X, which reads the carry; the next
// address's IADD.CC then writes all four flags again, so the zero, sign
// and overflow flags of the first are never read. Computing them costs as
// much as the additions, so the fast paths compute only the flags a later
// instruction may read (op.ccLive); traces, fault injection's probe and
// the tests' general paths compute them all (scratch.ccAll).

// The condition code's flags by their row: carry at 0, zero 1, sign 2,
// overflow 3 (ccFlags, writeCC).
const (
	ccRowC = 1 << iota
	ccRowZ
	ccRowS
	ccRowO
	ccRowAll = ccRowC | ccRowZ | ccRowS | ccRowO
)

// ccLiveness sets every op's ccLive: the flags that an instruction after
// it may read before an unguarded IADD.CC or ISCADD.CC writes them all
// again. It follows the code and plain branches (BRA to an instruction:
// the flags live at the target, and after the branch when its guard may
// fail), so that the last address of a loop's body does not keep every
// flag live for the loop's top; after any other instruction that may move
// the PC or change the active lanes (joins, returns, calls, exits), and
// after the last, every flag is live. The overwriting instruction runs for
// every lane still on the path (a branch only takes some lanes away, to a
// path whose own reads are counted), so no lane keeps a flag of the
// earlier write that it reads.
func (p *Program) ccLiveness() {
	n := len(p.ops)
	pt := uint16(p.rowP(7))
	liveIn := make([]uint8, n+1) // before each instruction; past the last: all
	liveIn[n] = ccRowAll
	// a backward pass until nothing changes (loops: twice or so)
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			o := &p.ops[i]
			out := liveIn[i+1]
			switch {
			case o.kind == kBra && o.hasTarg && int(o.target) < n:
				if o.guard == pt && !o.gnot && o.flags&fCCTest == 0 {
					out = 0 // every lane branches
				}
				out |= liveIn[o.target]
			case movesWarp(o):
				out = ccRowAll
			}
			o.ccLive = out
			in := out
			if (o.kind == kIAdd || o.kind == kIscadd) && o.flags&fCC != 0 && o.guard == pt && !o.gnot {
				in = 0
			}
			in |= ccReads(o)
			if in != liveIn[i] {
				liveIn[i], changed = in, true
			}
		}
	}
}

// movesWarp reports whether o may change the warp's PC (other than to the
// next instruction), its active lanes, or end it.
func movesWarp(o *op) bool {
	if o.hasTarg {
		return true
	}
	switch o.kind {
	case kInvalid, kBra, kBrx, kJmx, kSync, kBrk, kCont, kRet, kExit, kCal, kPret, kBpt, kBar:
		return true
	}
	return false
}

// ccReads is the flags o reads: the carry for IADD.X and ISCADD.X, every
// flag for any other reader (conservatively).
func ccReads(o *op) uint8 {
	if o.flags&(fX|fXHI|fXLO|fCCTest) == 0 && o.d.kind != oCC && o.d2.kind != oCC {
		switch o.kind {
		case kCsetp, kP2R, kR2P:
			return ccRowAll
		}
		for i := range o.s {
			if o.s[i].kind == oCC {
				return ccRowAll
			}
		}
		return 0
	}
	if (o.kind == kIAdd || o.kind == kIscadd) && o.flags&(fXHI|fXLO|fCCTest) == 0 {
		return ccRowC
	}
	return ccRowAll
}
