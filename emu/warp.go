package emu

import "math/bits"

// WarpSize is the number of lanes (threads) a warp runs in lockstep.
const WarpSize = 32

// MaxStackDepth bounds the divergence stack; deeper nesting is a fault.
const MaxStackDepth = 256

// StackKind is the kind of a divergence-stack entry. Tesla uses Sync (SSY,
// joined by the .S marker), Div, Call and Break (breakaddr/break); Fermi and
// Maxwell add Cont (PCNT/CONT) and use Sync for SSY/SYNC, Break for PBK/BRK.
type StackKind uint8

const (
	StackSync  StackKind = iota // reconvergence point: resume at PC with Mask when every path arrived
	StackDiv                    // a pending path of a divergent branch
	StackCall                   // return address of a call
	StackBreak                  // break target
	StackCont                   // continue target
	StackExit                   // pre-exit target (Maxwell PEXIT): where EXIT sends lanes
)

// StackEntry is one divergence-stack entry.
type StackEntry struct {
	Kind StackKind
	PC   uint32 // an index into the lowered program
	Mask uint32
}

// Warp is the state the engine keeps for one warp; the ISA package keeps its
// registers in Regs (row r, lane l at r*WarpSize+l).
type Warp struct {
	Index    int    // warp number within the block
	PC       uint32 // index into the lowered program
	Active   uint32 // lanes running the current path
	Exited   uint32 // lanes that finished, or that do not exist
	Rejoined bool   // a join just restored the path: run the join instruction itself
	Done     bool
	// Barrier state: waiting at barrier Barrier.
	AtBarrier bool
	Barrier   uint8
	Stack     []StackEntry
	Regs      []uint32
	Local     []byte // per-thread local memory (ISA-managed)
	Fault     error  // set by the divergence operations (stack overflow)
	// In a parallel round (parallel.go): the warp's access record and the
	// ISA's per-warp working state.
	Track *Track
	Aux   any

	// counters
	Steps       int64 // warp-instructions executed
	ThreadSteps int64 // sum of active lanes over them
	Divergent   int64 // branches that split the warp
}

func (w *Warp) push(k StackKind, pc, mask uint32) bool {
	if len(w.Stack) >= MaxStackDepth {
		if w.Fault == nil {
			w.Fault = errStackOverflow
		}
		return false
	}
	w.Stack = append(w.Stack, StackEntry{k, pc, mask})
	return true
}

// Push pushes an entry with the current active mask (SSY, PBK, PCNT,
// breakaddr): resume at pc.
func (w *Warp) Push(k StackKind, pc uint32) bool { return w.push(k, pc, w.Active) }

// Branch moves the lanes in taken (a subset of Active) to target and the rest
// to next. When the warp splits, the not-taken path waits on the stack.
func (w *Warp) Branch(taken, target, next uint32) {
	switch taken &= w.Active; taken {
	case w.Active:
		w.PC = target
	case 0:
		w.PC = next
	default:
		w.Divergent++
		if !w.push(StackDiv, next, w.Active&^taken) {
			return
		}
		w.Active = taken
		w.PC = target
	}
}

// Diverge sets the lanes in mask aside as a pending path at pc (an
// indirect branch's other targets, lanes whose guard failed).
func (w *Warp) Diverge(pc, mask uint32) {
	if mask &= w.Active; mask == 0 {
		return
	}
	w.Divergent++
	if w.push(StackDiv, pc, mask) {
		w.Active &^= mask
	}
}

// Call pushes the return address and jumps.
func (w *Warp) Call(target, ret uint32) {
	if w.push(StackCall, ret, w.Active) {
		w.PC = target
	}
}

// Join handles a join marker before its instruction executes. It reports
// whether the instruction should run now (the path was rejoined, or there is
// nothing to join); otherwise the warp switched to another path.
func (w *Warp) Join() bool {
	if w.Rejoined {
		w.Rejoined = false
		return true
	}
	n := len(w.Stack)
	if n == 0 {
		return true
	}
	switch w.Stack[n-1].Kind {
	case StackSync, StackDiv:
		w.unwind()
		return false
	}
	return true
}

// Exit ends the lanes in mask.
func (w *Warp) Exit(mask uint32) {
	w.Exited |= mask
	w.Active &^= mask
	if w.Active == 0 {
		w.unwind()
	}
}

// leave removes lanes from the current path up to the innermost entry of
// kind k (a return, break or continue); the lanes wait there. Without such
// an entry a return ends the lanes.
func (w *Warp) leave(k StackKind, mask uint32) {
	mask &= w.Active
	i := len(w.Stack) - 1
	for i >= 0 && w.Stack[i].Kind != k {
		i--
	}
	if i < 0 {
		w.Exit(mask)
		return
	}
	for j := i + 1; j < len(w.Stack); j++ {
		w.Stack[j].Mask &^= mask
	}
	w.Active &^= mask
	if w.Active == 0 {
		w.unwind()
	}
}

// ExitLanes is Maxwell's EXIT: it ends the lanes in mask, unless a pre-exit
// target (PEXIT) is on the stack; then the lanes wait there as BRK's wait at
// PBK's, and go on at that target once every lane has left the region.
// NVIDIA names PEXIT "pre-exit" beside "pre-break", "pre-continue" and
// "pre-return"; the pairing with EXIT is by that analogy (ptxas never emits
// PEXIT), not from a documented semantics.
func (w *Warp) ExitLanes(mask uint32) { w.leave(StackExit, mask) }

// Ret returns the lanes in mask from the innermost call (ending them at top level).
func (w *Warp) Ret(mask uint32) { w.leave(StackCall, mask) }

// Break sends the lanes in mask to the innermost break target.
func (w *Warp) Break(mask uint32) { w.leave(StackBreak, mask) }

// Cont sends the lanes in mask to the innermost continue target.
func (w *Warp) Cont(mask uint32) { w.leave(StackCont, mask) }

// Sync sends the lanes in mask to the innermost reconvergence point (a
// guarded Fermi/Maxwell SYNC): they wait there while the rest go on.
func (w *Warp) Sync(mask uint32) { w.leave(StackSync, mask) }

// PopSync pops a Sync entry explicitly (Fermi's SYNC): like a join.
func (w *Warp) PopSync() { w.unwind() }

// unwind resumes the next waiting path: the top stack entry whose lanes are
// not all exited. An empty stack ends the warp.
func (w *Warp) unwind() {
	for n := len(w.Stack); n > 0; n = len(w.Stack) {
		e := w.Stack[n-1]
		w.Stack = w.Stack[:n-1]
		m := e.Mask &^ w.Exited
		if m == 0 {
			continue
		}
		w.Active, w.PC = m, e.PC
		w.Rejoined = e.Kind == StackSync
		return
	}
	w.Active = 0
	w.Done = true
}

// ActiveCount is the number of running lanes.
func (w *Warp) ActiveCount() int { return bits.OnesCount32(w.Active) }
