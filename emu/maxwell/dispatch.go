package maxwell

import (
	"math/bits"
	"unsafe"

	"github.com/gpuisa/gpuisa/emu"
)

// runFast's dispatch: per instruction, decided once a launch (plan), what
// runs it and where its guard is, so that the loop does not look at the
// instruction's kind, guard and group each time it runs it.

// step is how runFast runs one instruction.
type step struct {
	run   uint8 // sGeneral, sAdd64, ...
	gnot  bool  // the guard is negated
	store bool  // sGlobal32: a store
	guard int32 // the guard's predicate row (offset in the registers); -1: PT, every active lane
	// the operand rows of sFfma (rowOffset: a register row, or ^i for
	// broadcast row i); sGlobal32's address (a) and value (d) rows
	a, b, c, d int32
	off        uint64 // sGlobal32: the address's offset in the dense region
}

// What runs an instruction. Each but sGeneral may decline (the lanes in
// its mask, an unusual operand, an address that would fault) and leave the
// instruction to the general path, which does everything.
const (
	sGeneral    = iota // exec: control flow, barriers, faults, every other kind
	sAdd64             // a fuseAdd64 group (fuse.go)
	sFused             // another instruction group (fuse.go)
	sMem               // a load or store: memFast
	sFalu              // FADD, FMUL, FFMA: faluFast
	sFfma              // FFMA with plain operands: ffmaLanes on the rows
	sIalu              // ialuFast's kinds
	sAdd64Split        // the IADD.CC of a split pair (fuse_split.go): both halves
	sAdd64Tail         // the IADD.X of a split pair: nothing when its IADD.CC ran both
	sGlobal32          // LDG.E or STG.E of 32 bits: rowRun32 when every lane runs it, else memOther
)

// plan decides each instruction's step (after fusions), and returns the
// steps and the register words the rows they name need (runFast checks
// that once a call).
func (k *Kernel) plan() ([]step, int) {
	steps := make([]step, len(k.ops))
	pt := uint16(k.Prog.rowP(7))
	need := 0
	for i := range k.ops {
		o, s := &k.ops[i], &steps[i]
		s.guard = -1
		if o.guard != pt || o.gnot {
			s.guard, s.gnot = int32(o.guard)*32, o.gnot
		}
		switch {
		case i < len(k.fuse) && k.fuse[i] == fuseAdd64:
			s.run = sAdd64
			need = max(need, int(k.adds[i].end))
		case i < len(k.fuse) && k.fuse[i] != fuseNone:
			s.run = sFused
		case k.adds[i].gap > 0:
			s.run = sAdd64Split
			need = max(need, int(k.adds[i].end))
		default:
			switch o.kind {
			case kLdg, kStg, kLds, kSts:
				s.run = sMem
				if o.size == 4 && o.flags&fE != 0 && hostLE && (o.kind == kLdg || o.kind == kStg) {
					m, v := &o.s[0], &o.d
					if o.kind == kStg {
						m, v = &o.d, &o.s[0]
					}
					s.run, s.store = sGlobal32, o.kind == kStg
					s.a, s.d, s.off = int32(m.row)*32, int32(v.row)*32, m.imm-GlobalBase
					need = max(need, int(s.a)+64, int(s.d)+32)
				}
			case kFfma, kFadd, kFmul:
				s.run = sFalu
				if plainFfma(o) {
					s.run = sFfma
					s.a, s.b, s.c, s.d = rowOffset(&o.s[0]), rowOffset(&o.s[1]), rowOffset(&o.s[2]), int32(o.d.row)*32
					need = max(need, int(s.a)+32, int(s.b)+32, int(s.c)+32, int(s.d)+32)
				}
			case kMov, kIAdd, kXmad, kIsetp, kShl, kShr, kIscadd, kLop, kSel:
				s.run = sIalu
			}
		}
	}
	for i := range steps { // the tails after the rest: they take over sIalu
		if steps[i].run == sAdd64Split {
			steps[i+1+int(k.adds[i].gap)].run = sAdd64Tail
		}
	}
	return steps, need
}

// plainFfma reports whether o is an FFMA ffmaLanes runs from its rows:
// round to nearest, denormals kept, no saturation, no negated or absolute
// operands, each a whole register or a broadcast row.
func plainFfma(o *op) bool {
	if o.kind != kFfma || o.rnd != 0 || o.flags&(fFTZ|fSAT) != 0 || o.sub != 0 || o.d.kind != oReg {
		return false
	}
	for _, s := range o.s[:3] {
		plain := s.kind == oReg || (s.kind == oImm || s.kind == oConst) && s.bc >= 0
		if !plain || s.sel != 0 || s.neg || s.abs || s.not {
			return false
		}
	}
	return true
}

// runFast is Run's loop when nothing watches the instructions and the
// fast paths are on. The warp's PC and active lanes live in locals while
// fast paths run (none of them reads or changes those), and its counters
// are added up from the instructions left in the budget; all go back to
// w before the general path runs an instruction, and on the way out.
func (k *Kernel) runFast(b *emu.Block, w *emu.Warp, sc *scratch, budget int64) error {
	ops := k.ops
	steps := k.steps[:len(ops)]
	regs := w.Regs
	if len(regs) < k.rowsNeed {
		panic("runFast: register rows past the registers") // lowering's bug, not the kernel's
	}
	tracked := w.Track != nil // a parallel round's (set between calls)
	pc, active := w.PC, w.Active
	// the budget left, and what was left when w's counters were last
	// brought up to date: the fast paths ran the instructions between,
	// each for the active lanes (which only the general path changes)
	left, synced := budget, budget
	skipTail := ^uint32(0) // a split pair's IADD.X that its IADD.CC ran
	for left > 0 && int(pc) < len(steps) {
		s := &steps[pc]
		mask := active
		if s.guard >= 0 {
			g := regs[s.guard]
			if s.gnot {
				g = ^g
			}
			mask &= g
		}
		n := int64(1) // instructions the fast path ran
		switch s.run {
		case sAdd64:
			if mask != active || left < 2 {
				goto general
			}
			k.add64Fast(regs, pc, pc+1, mask)
			n = 2
		case sAdd64Split:
			gap := uint32(k.adds[pc].gap)
			if mask != active || left < int64(gap)+2 {
				goto general
			}
			k.add64Fast(regs, pc, pc+1+gap, mask)
			skipTail = pc + 1 + gap
		case sAdd64Tail:
			if pc == skipTail {
				skipTail = ^uint32(0)
				break
			}
			if !k.ialuFast(&ops[pc], mask, regs, sc) {
				goto general
			}
		case sFused:
			f := k.fuse[pc]
			if !fusable(f, mask, active) || left < fuseLen[f] {
				goto general
			}
			k.fused(regs, &ops[pc], f, pc, mask, false)
			n = fuseLen[f]
		case sGlobal32:
			if mask == ^uint32(0) {
				g := k.Global.Data
				if start, ok := rowRun32(regRow(regs, s.d), regRow(regs, s.a), regRow(regs, s.a+32),
					unsafe.SliceData(g), uint64(len(g)), s.off, s.store); ok {
					if tracked {
						w.Track.AccessRange(k.Global.Space, start, start+128, s.store)
					}
					break
				}
			}
			if !k.memOther(b, w, &ops[pc], mask, sc) {
				goto general
			}
		case sMem:
			if !k.memFast(b, w, &ops[pc], mask, sc) {
				goto general
			}
		case sFfma:
			if mask != 0 && !contiguous(mask) {
				if !k.faluFast(&ops[pc], mask, regs, sc) {
					goto general
				}
				break
			}
			if mask != 0 {
				ffmaLanes(regRow(regs, s.d), k.rowAt(regs, s.a), k.rowAt(regs, s.b), k.rowAt(regs, s.c),
					bits.TrailingZeros32(mask), bits.OnesCount32(mask))
			}
		case sFalu:
			if !k.faluFast(&ops[pc], mask, regs, sc) {
				goto general
			}
		case sIalu:
			if !k.ialuFast(&ops[pc], mask, regs, sc) {
				goto general
			}
		default:
			goto general
		}
		pc += uint32(n)
		left -= n
		continue
	general:
		w.PC = pc
		syncCounters(w, synced-left, active)
		if stop, err := k.runGeneral(b, w, sc, pc, mask); stop {
			return err
		}
		left--
		synced = left
		pc, active = w.PC, w.Active
	}
	w.PC = pc
	syncCounters(w, synced-left, active)
	if int(pc) >= len(steps) && left > 0 {
		addr, _ := k.Prog.Where(pc)
		return b.Fault(w, firstLane(w.Active), addr, "", errPastEnd)
	}
	return nil
}

// syncCounters counts n instructions the fast paths ran for the lanes in
// active, the last of them after the last instruction the general path
// ran: Rejoined, which only it sets, is cleared as they did.
func syncCounters(w *emu.Warp, n int64, active uint32) {
	if n > 0 {
		w.Steps += n
		w.ThreadSteps += n * int64(bits.OnesCount32(active))
		w.Rejoined = false
	}
}

// runGeneral runs instruction pc of warp w (its state in w) by the general
// path, counted, and reports whether the warp stops (and its fault): it
// ended, waits at a barrier, faulted, or in a parallel round reached an
// instruction that must wait for the round's end (uncounted).
func (k *Kernel) runGeneral(b *emu.Block, w *emu.Warp, sc *scratch, pc, mask uint32) (bool, error) {
	o := &k.ops[pc]
	if w.Track != nil && syncPoint(o) {
		w.Track.Stopped = true // the engine runs it between rounds
		return true, nil
	}
	w.Rejoined = false
	w.Steps++
	w.ThreadSteps += int64(bits.OnesCount32(w.Active))
	w.PC = pc + 1
	if err := k.exec(b, w, o, mask, sc, pc); err != nil {
		return true, k.fault(b, w, o, pc, mask, err)
	}
	return w.Done || w.AtBarrier || w.Fault != nil, nil
}

// add64Fast runs the 64-bit add of the IADD.CC at pc and the IADD.X at
// high for the lanes in mask (every active lane) in runFast, where no flag
// but the carry is computed unless a later instruction reads it.
func (k *Kernel) add64Fast(regs []uint32, pc, high, mask uint32) {
	r := &k.adds[pc]
	a1, b1, a2, b2 := k.rowAt(regs, r.a1), k.rowAt(regs, r.b1), k.rowAt(regs, r.a2), k.rowAt(regs, r.b2)
	d1, d2 := regRow(regs, r.d1), regRow(regs, r.d2)
	if r.carryOnly && contiguous(mask) {
		addRange(a1, b1, d1, a2, b2, d2, bits.TrailingZeros32(mask), bits.OnesCount32(mask))
		return
	}
	k.add64(regs, &k.ops[pc], &k.ops[high], r, mask, false)
}
