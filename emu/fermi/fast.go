package fermi

import (
	"math/bits"

	"github.com/gpuisa/gpuisa/emu"
)

// Fast paths: the forms real kernels run most (integer adds, shifts,
// logic, moves, multiply-adds, selects, ISETP, the scans' three-way VADD,
// 8- to 32-bit loads and stores, S2R, TLD, branches that do not diverge)
// are picked once per launch (resolve) and run in a loop of their own
// (runFastStretch, called by Run), without the general dispatch. None of
// them changes the warp's control state but its program counter, so the
// loop keeps that and the step counts in locals. A fast form with a lane
// that needs more (an address out of range or misaligned, a diverging
// branch) ends the loop and runs the general way.

// Fast forms (op.fast); 0 is none.
const (
	fastNone  uint8 = iota
	fastAdd         // a + b
	fastSub         // a - b
	fastRsub        // b - a
	fastScadd       // a<<sub + b
	fastShl         // a << imm
	fastShr         // a >> imm, unsigned
	fastSar         // a >> imm, signed (the amount at most 31)
	fastAnd         // (a^na) & (b^nb)
	fastOr
	fastXor
	fastMov
	fastMul   // a * b, low word
	fastMad   // a * b + c, low word
	fastSel   // predicate ? a : b
	fastIsetp // predicates from a comparison
	fastFsetp // predicates from a float comparison (no FTZ, negation, absolute value)
	fastAdd3  // VADD.ACC of whole words: a + b + c
	fastLoad  // 8-, 16- and 32-bit LD, LDS, LDC (load32Fast, loadSmallFast)
	fastStore // 8-, 16- and 32-bit ST, STS (store32Fast, storeSmallFast)
	fastS2r   // S2R of any register but SR_CLOCKLO (which counts the warp's steps)
	fastTld   // TLD of one 32-bit channel (tldFast)
	fastBra   // BRA that every active lane takes or none does (divergence: the general path)
	// The rest run their kind's own code (ialu, falu, video): no form of
	// their own, but they stay in the loop (none faults or branches).
	fastIalu  // PRMT, BFE, BFI, FLO, POPC, IMNMX, ICMP
	fastFalu  // FADD, FMUL, FFMA, FMNMX
	fastVideo // VSHL, VSHR, VADD, VMNMX, VABSDIFF, VMAD (not VSET/VSETP)
	// Forms whose second source is an immediate or a constant: the scalar
	// fimm (with the source's negation or inversion applied) in every lane.
	fastAddI   // a + fimm
	fastRsubI  // fimm - a
	fastScaddI // a<<sub + fimm
	fastAndI   // (a^na) & fimm
	fastOrI
	fastXorI
	fastMovI // fimm
	// Forms the loop only skips: when no lane runs them they do nothing
	// (EXIT, KIL, RET, BRK, CONT testing no condition code flag; NOP and
	// BPT); otherwise they end the stretch and run the general way.
	fastSkip
	fastPred // CSET, CSETP, PSET, PSETP, P2R, R2P (predOps: nothing when no lane runs them)
	fastPush // SSY, PBK, PCNT without a guard, while the stack has room
)

// scalarSource reports whether s is an immediate or a constant (resolved
// for the launch), and its low word.
func scalarSource(s *opnd) (uint32, bool) { return uint32(s.imm), s.kind == oImm || s.kind == oConst }

// pickScalar chooses o's immediate form and its scalar, once constants are
// resolved; fastNone when it has none.
func pickScalar(o *op, form uint8) (uint8, uint32) {
	a, b := &o.s[0], &o.s[1]
	v, ok := scalarSource(b)
	if form == fastMov {
		if v, ok := scalarSource(a); ok {
			return fastMovI, v
		}
		return fastNone, 0
	}
	if !ok {
		return fastNone, 0
	}
	switch form {
	case fastAdd:
		return fastAddI, v
	case fastSub:
		return fastAddI, -v
	case fastRsub:
		return fastRsubI, v
	case fastScadd:
		return fastScaddI, v
	case fastAnd:
		return fastAndI, v ^ notMask(b.not)
	case fastOr:
		return fastOrI, v ^ notMask(b.not)
	case fastXor:
		return fastXorI, v ^ notMask(b.not)
	}
	return fastNone, 0
}

// pickFast chooses o's fast form, once its constants are resolved (and
// fimm, for the immediate forms).
func pickFast(o *op) uint8 {
	form := pickForm(o)
	if f, v := pickScalar(o, form); f != fastNone {
		o.fimm = v
		return f
	}
	return form
}

// pickForm is pickFast's form before the immediate forms.
func pickForm(o *op) uint8 {
	if o.sync {
		return fastNone
	}
	plainInt := o.flags&(fCCOut|fX|fSAT) == 0 && o.d.kind == oReg
	a, b := &o.s[0], &o.s[1]
	imm := func(s *opnd) (uint32, bool) { return uint32(s.imm), s.kind == oImm || s.kind == oConst }
	switch o.kind {
	case kIadd:
		switch {
		case !plainInt:
		case !a.neg && !b.neg:
			return fastAdd
		case !a.neg:
			return fastSub
		case !b.neg:
			return fastRsub
		}
	case kIscadd:
		if plainInt && !a.neg && !b.neg {
			return fastScadd
		}
	case kShl:
		if n, ok := imm(b); ok && plainInt {
			if o.flags&fW != 0 {
				n &= 31
			}
			if n < 32 {
				return fastShl
			}
		}
	case kShr:
		if n, ok := imm(b); ok && plainInt && o.flags&fBREV == 0 {
			if o.flags&fW != 0 {
				n &= 31
			}
			if o.flags&fU32 == 0 {
				return fastSar
			}
			if n < 32 {
				return fastShr
			}
		}
	case kLop:
		if plainInt && o.sub <= 2 {
			return [...]uint8{fastAnd, fastOr, fastXor}[o.sub]
		}
	case kMov:
		if plainInt && o.lanes == 0xf {
			return fastMov
		}
	case kImul:
		if plainInt && o.flags&fHI == 0 {
			return fastMul
		}
	case kImad:
		if plainInt && o.flags&fHI == 0 && !a.neg && !o.s[2].neg {
			return fastMad
		}
	case kSel:
		if plainInt {
			return fastSel
		}
	case kIsetp:
		if o.flags&fX == 0 {
			return fastIsetp
		}
	case kFsetp:
		if o.flags&fFTZ == 0 && !a.neg && !a.abs && !b.neg && !b.abs && b.kind != oNone {
			return fastFsetp
		}
	case kVadd:
		if o.flags&(fSAT|fPO|fCCOut) == 0 && o.sub2 == vredAcc && a.sel == 6 && b.sel == 6 && !a.neg && !b.neg &&
			o.s[2].kind != oNone && o.s[2].kind != oPred && o.d.kind == oReg {
			return fastAdd3
		}
		if o.flags&fCCOut == 0 && o.d.kind == oReg {
			return fastVideo
		}
	case kLd, kLds, kLdc:
		if (o.size == 4 || o.size == 2 || o.size == 1) && o.d.kind == oReg {
			return fastLoad
		}
	case kSt, kSts:
		if o.size == 4 || o.size == 2 || o.size == 1 {
			return fastStore
		}
	case kS2R:
		if o.s[0].imm != srClockLo {
			return fastS2r
		}
	case kTld:
		return fastTld
	case kBra:
		if o.cc == ccT {
			return fastBra
		}
	case kExit, kKil, kRet, kBrk, kCont:
		if o.cc == ccT {
			return fastSkip
		}
	case kNop, kBpt:
		return fastSkip
	case kCset, kCsetp, kPset, kPsetp, kP2R, kR2P:
		return fastPred
	case kSsy, kPbk, kPcnt:
		// they push whatever the guard (run.go): the loop skips a false one
		if o.guard == predPT && !o.gnot {
			return fastPush
		}
	case kPrmt, kBfe, kBfi, kFlo, kPopc, kImnmx, kIcmp:
		if o.flags&(fCCOut|fX|fSAT) == 0 && o.d.kind == oReg {
			return fastIalu
		}
	case kFadd, kFmul, kFfma, kFmnmx:
		if o.flags&fCCOut == 0 && o.d.kind == oReg {
			return fastFalu
		}
	case kVshl, kVshr, kVmnmx, kVabsdiff, kVmad:
		if o.flags&fCCOut == 0 && o.d.kind == oReg {
			return fastVideo
		}
	}
	return fastNone
}

// dest is the row an ALU form of the fast loop writes: the destination
// itself when every lane runs, else scratch (written through the mask
// after).
func dest(regs []uint32, o *op, mask uint32, sc *scratch) *lanes {
	if mask == ^uint32(0) {
		return rowOf(regs, o.d.row)
	}
	return &sc.r
}

// shiftAmount is the fast shifts' amount (pickFast checked its range).
func shiftAmount(o *op) uint32 {
	n := uint32(o.s[1].imm)
	if o.flags&fW != 0 {
		n &= 31
	}
	return min(n, 31)
}

// runFastStretch runs fast forms from w.PC on, up to budget instructions,
// and reports how many it ran. Each form is one case of a switch (a jump
// table) in the loop itself; a form that needs the general path (its
// helper reports false, having written nothing) ends the stretch. The ALU
// forms write to the destination row in place when every lane runs, else
// through scratch.
func (k *Kernel) runFastStretch(b *emu.Block, w *emu.Warp, sc *scratch, budget int64) int64 {
	// the ops with resolve's zero op past the end (no fast form): a
	// stretch that runs off the end stops there
	ops := k.ops[:len(k.ops)+1]
	regs := w.Regs
	flags := rowOf(regs, rowFlags)
	pc, active := w.PC, w.Active
	if int(pc) >= len(ops) {
		return 0 // the general way reports it
	}
	left := budget // the instructions it may still run
stretch:
	for ; left > 0; pc, left = pc+1, left-1 {
		o := &ops[pc]
		mask := active
		if !o.uncond {
			g := flags[o.guard&31]
			if o.gnot {
				g = ^g
			}
			// no lane runs it: a fast form does nothing, the others
			// (the switch's first case) still leave the loop
			if mask &= g; mask == 0 && o.fast != fastNone {
				continue
			}
		}
		switch o.fast {
		case fastNone:
			break stretch
		case fastLoad:
			if o.size == 4 && !k.load32Fast(b, w, o, &o.s[0], mask, sc) || o.size < 4 && !k.loadSmallFast(b, w, o, &o.s[0], mask, sc) {
				break stretch
			}
			continue
		case fastStore:
			if o.size == 4 && !k.store32Fast(b, w, o, &o.s[0], mask, sc) || o.size < 4 && !k.storeSmallFast(b, w, o, &o.s[0], mask, sc) {
				break stretch
			}
			continue
		case fastIsetp:
			k.isetp(regs, o, mask, sc)
			continue
		case fastFsetp:
			t := fcmpLanes(k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b), o.sub)
			p := pred(regs, &o.s[2])
			setPred(regs, &o.d, mask, bop(o.sub2, t, p))
			setPred(regs, &o.d2, mask, bop(o.sub2, ^t, p))
			continue
		case fastS2r:
			k.s2r(b, w, o, mask, sc)
			continue
		case fastSkip:
			break stretch // a lane runs it
		case fastPred:
			k.predOps(w, o, mask)
			continue
		case fastPush:
			if len(w.Stack) >= emu.MaxStackDepth {
				break stretch // the general way reports the overflow
			}
			w.Push(pushKind(o.kind), o.target)
			continue
		case fastMovI:
			if mask == ^uint32(0) {
				fillLanes(rowOf(regs, o.d.row), o.fimm)
				continue
			}
			row := rowOf(regs, o.d.row)
			for m := mask; m != 0; m &= m - 1 {
				row[bits.TrailingZeros32(m)] = o.fimm
			}
			continue
		case fastTld:
			if !k.tldFast(w, o, mask, sc) {
				break stretch
			}
			continue
		case fastBra:
			if mask != active {
				if o.flags&fAllWarp == 0 {
					break stretch // the warp diverges
				}
				continue // BRA.U not taken by every lane: no lane branches
			}
			pc = o.target - 1 // the loop's step adds 1
			continue
		case fastIalu:
			k.ialu(w, o, mask, sc)
			continue
		case fastFalu:
			k.falu(w, o, mask, sc)
			continue
		case fastVideo:
			k.video(w, o, mask, sc)
			continue
		// the ALU forms write to the destination row (dest), then
		// through the mask unless every lane ran
		case fastMov:
			if mask != ^uint32(0) {
				write(regs, int(o.d.row), mask, k.row(regs, &o.s[0], &sc.a)) // straight from the source
				continue
			}
			copyLanes(rowOf(regs, o.d.row), k.row(regs, &o.s[0], &sc.a))
			continue
		case fastAddI:
			addImmLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), o.fimm)
		case fastRsubI:
			rsubImmLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), o.fimm)
		case fastScaddI:
			scaddImmLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), o.fimm, o.sub&31)
		case fastAndI:
			andImmLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), notMask(o.s[0].not), o.fimm)
		case fastOrI:
			orImmLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), notMask(o.s[0].not), o.fimm)
		case fastXorI:
			xorImmLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), notMask(o.s[0].not), o.fimm)
		case fastShl:
			shlLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), shiftAmount(o))
		case fastShr:
			shrLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), shiftAmount(o))
		case fastSar:
			sarLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), shiftAmount(o))
		case fastAdd:
			addLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b))
		case fastSub:
			subLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b))
		case fastRsub:
			subLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[1], &sc.b), k.row(regs, &o.s[0], &sc.a))
		case fastScadd:
			scaddLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b), o.sub&31)
		case fastAnd:
			andLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b), notMask(o.s[0].not), notMask(o.s[1].not))
		case fastOr:
			orLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b), notMask(o.s[0].not), notMask(o.s[1].not))
		case fastXor:
			xorLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b), notMask(o.s[0].not), notMask(o.s[1].not))
		case fastMul:
			mulLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b))
		case fastSel:
			selLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b), pred(regs, &o.s[2]))
		case fastMad:
			madLanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b), k.row(regs, &o.s[2], &sc.c))
		case fastAdd3:
			add3Lanes(dest(regs, o, mask, sc), k.row(regs, &o.s[0], &sc.a), k.row(regs, &o.s[1], &sc.b), k.row(regs, &o.s[2], &sc.c))
		default:
			break stretch
		}
		if mask != ^uint32(0) {
			write(regs, int(o.d.row), mask, &sc.r)
		}
	}
	n := budget - left
	if n > 0 {
		w.PC = pc
		w.Steps += n
		w.ThreadSteps += n * int64(bits.OnesCount32(active))
		w.Rejoined = false
	}
	return n
}
