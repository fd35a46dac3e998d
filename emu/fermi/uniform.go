package fermi

// Block-uniform results. Kernels begin with arithmetic on parameters,
// block indices and block sizes (BuildTree4: the level's rounded count, the
// last index) that gives every lane of every warp of a block the same row.
// The first warp of a block whose lanes all run such an ALU form keeps its
// result (scratch.memo); the block's other warps copy the row instead of
// computing it again. Only the straight-line start of the program
// qualifies (planMemo): no instruction there is a branch target, so each
// warp runs each of its instructions at most once, its lanes only ever
// leave (a guarded EXIT), and a row written there by an unguarded form from
// immediates, constants, block-wide special registers and such rows holds
// the same value in every lane of every warp whose lanes all ran it.

// maxMemo bounds the memoised forms (scratch.memoOK is a bit set).
const maxMemo = 64

// memoForm reports whether the fast form writes only its destination row,
// from its register, immediate and constant sources.
func memoForm(f uint8) bool {
	switch f {
	case fastAddI, fastRsubI, fastScaddI, fastAndI, fastOrI, fastXorI, fastShl, fastShr, fastSar,
		fastAdd, fastSub, fastRsub, fastScadd, fastAnd, fastOr, fastXor, fastMul, fastMad, fastAdd3:
		return true
	}
	return false
}

// blockWideSR reports whether a special register holds one value for a
// whole block (its position and the launch's sizes).
func blockWideSR(sr int64) bool {
	return sr >= srCtaidX && sr <= srCtaidX+2 || sr >= srNtidX && sr <= srNtidX+2 || sr >= srNctaidX && sr <= srNctaidX+2
}

// planMemo turns into fastMemo forms (numbered by op.memo, from 1) the ALU
// forms of the program's straight-line start whose sources are
// block-uniform, once the launch has chosen the fast forms, and reports
// how many it turned.
func planMemo(ops []op) int {
	end := len(ops)
	for i := range ops {
		switch ops[i].kind {
		case kBra, kCal, kSsy, kPbk, kPcnt, kPret:
			end = min(end, int(ops[i].target))
		case kBrx:
			return 0 // targets unknown
		}
	}
	var uniform [numRows]bool
	for r := range uniform {
		uniform[r] = true // InitWarp clears the rows
	}
	set := func(d *opnd, u bool) {
		if d.kind == oReg && int(d.row) < rowRZ {
			uniform[d.row] = u
		}
	}
	sourcesUniform := func(o *op) bool {
		for j := range o.s {
			switch x := &o.s[j]; x.kind {
			case oNone, oImm, oConst:
			case oReg:
				if !uniform[x.row] {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	n := 0
	for i := range ops[:end] {
		o := &ops[i]
		switch f := o.fast; {
		case memoForm(f):
			u := o.uncond && sourcesUniform(o) && o.d.kind == oReg && int(o.d.row) < rowRZ && n < maxMemo
			if u {
				n++
				o.memo, o.fast = uint8(n), fastMemo
			}
			set(&o.d, u)
		case f == fastMovI, f == fastMov:
			set(&o.d, o.uncond && sourcesUniform(o))
		case f == fastS2r:
			set(&o.d, o.uncond && blockWideSR(o.s[0].imm))
		case f == fastIalu, f == fastFalu, f == fastVideo, f == fastLoad:
			set(&o.d, false)
			set(&o.d2, false)
		case f == fastStore, f == fastIsetp, f == fastFsetp:
			// no register row written
		case f == fastSkip && (o.kind == kExit || o.kind == kNop):
			// lanes leave; the rest still agree
		default:
			return n
		}
	}
	return n
}

// keep saves the row a fastMemo form wrote in every lane of a warp (the
// general way ran it), for the block's other warps.
func (sc *scratch) keep(o *op, regs []uint32) {
	if sc.memoOff {
		return
	}
	copyLanes(&sc.memo[o.memo-1], rowOf(regs, o.d.row))
	sc.memoOK |= 1 << (o.memo - 1)
}
