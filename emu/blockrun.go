package emu

import (
	"errors"
	"fmt"
)

// BlockRun is one block run the way the engine runs every block: its warps
// take turns in a fixed order, each turn at most a quantum of
// warp-instructions, warps waiting at a barrier skipped until it
// completes. Unlike Run, it can pause before any warp-instruction and go on
// later, and CopyTo makes a checkpoint of it: fault injection (emu/inject)
// runs a block to an instruction, copies it and changes the copy. Pausing
// does not change what runs: a block run in any number of pieces executes
// the same instructions in the same order as in one.
type BlockRun struct {
	cfg Config
	x   Exec
	B   *Block
	// the scheduler's place: the warp whose turn it is, what is left of
	// its turn (0: the turn has not started) and the warps counted in
	// this round so far
	turn          int
	left          int64
	live, waiting int
	done          bool
	traceBlock    bool
	// parallel rounds (parallel.go): tried once per block
	triedParallel bool
	// probed: a probe ran in the block, and may have written any byte of
	// its shared memory (Start then clears it all)
	probed bool
}

// SharedExtent is implemented by an Exec that records how far into shared
// memory a block's run wrote (its stores raise a high-water mark; InitBlock
// resets it): Start then clears only the bytes below the mark instead of
// all of shared memory, which for raw code is the architecture's maximum
// (48 KiB on sm_2x) although most kernels use a few words or none.
type SharedExtent interface {
	// SharedExtent is the number of bytes from the start of b's shared
	// memory that may be nonzero (every byte past it is).
	SharedExtent(b *Block) int
}

// clearShared zeroes what the block's previous run may have written.
func (r *BlockRun) clearShared() {
	data := r.B.Shared.Data
	if se, ok := r.x.(SharedExtent); ok && !r.probed {
		data = data[:min(len(data), max(0, se.SharedExtent(r.B)))]
	}
	clear(data)
	r.probed = false
}

// Until says where BlockRun.Run pauses: after Steps more warp-instructions
// of the block (< 0: no limit), or, when Warp >= 0, once that warp has
// executed WarpSteps instructions in total (before its next one).
type Until struct {
	Steps     int64
	Warp      int
	WarpSteps int64
}

// ToEnd runs a block until it finishes.
var ToEnd = Until{Steps: -1, Warp: -1}

// Probe watches a block's execution instruction by instruction, and may
// change it: fault injection's hook. The ISA emulators read Block.Probe
// when a warp's Run begins and call it for every instruction when it is
// not nil, so it costs nothing otherwise (their fast paths, which run
// several instructions at once, are off while it is set); a probe that
// clears Block.Probe is called until that Run returns.
type Probe interface {
	// Before is called when warp w is about to execute the instruction at
	// program index pc for the lanes in mask (its guard holds in them);
	// it returns the lanes that execute it (mask, unless it injects a
	// fault into the guard).
	Before(b *Block, w *Warp, pc, mask uint32) uint32
	// After is called once the instruction executed without a fault (the
	// warp's PC already names the next one).
	After(b *Block, w *Warp, pc, mask uint32)
}

// ErrHalt, set as a warp's Fault by a probe, pauses the block after the
// instruction that runs: BlockRun.Run returns unfinished, the Fault
// cleared, and Halted reports it.
var ErrHalt = errors.New("halted by a probe")

// NewBlockRun makes the storage of a block of launches of cfg on x; Start
// begins a block in it. Only cfg.MaxSteps limits it: the launch-wide budget
// and deadline (Config.Budget, Deadline) belong to Run, and a caller of
// BlockRun keeps its own (emu/inject stops a faulted run at its hang
// budget, a multiple of the golden run's instructions).
func NewBlockRun(cfg Config, x Exec) *BlockRun {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	return &BlockRun{cfg: cfg, x: x, B: newBlock(cfg, x)}
}

// Start begins block index (its linear index in the grid): shared memory
// cleared (as far as the last block wrote it, when the ISA says:
// SharedExtent), warps at the start, the ISA's InitBlock and InitWarp run.
func (r *BlockRun) Start(index int) error {
	cfg, b := r.cfg, r.B
	r.turn, r.left, r.live, r.waiting, r.done = 0, 0, 0, 0, false
	b.Index, b.ID, b.Steps, b.Epoch = index, cfg.Grid.At(index), 0, 0
	b.Check = cfg.Checker
	if b.Check != nil {
		b.Check.startBlock(index)
	}
	px, _ := r.x.(ParallelExec)
	r.triedParallel = px == nil || cfg.parallel < 2 || len(b.Warps) < 2
	b.bars = [NumBarriers]barrier{}
	r.clearShared()
	b.Trace = nil
	r.traceBlock = cfg.Trace != nil && (cfg.TraceBlock < 0 || cfg.TraceBlock == index)
	nthreads := cfg.Block.Count()
	for i := range b.Warps {
		w := &b.Warps[i]
		// registers are the ISA's to initialise (InitWarp), so that it can
		// clear only the rows a program uses
		regs, local, stack := w.Regs, w.Local, w.Stack[:0]
		clear(local)
		*w = Warp{Index: i, Regs: regs, Local: local, Stack: stack}
		lanes := min(WarpSize, nthreads-i*WarpSize)
		w.Active = uint32(1<<lanes - 1)
		w.Exited = ^w.Active
	}
	if err := r.x.InitBlock(b); err != nil {
		return &Fault{Block: b.ID, Err: err}
	}
	for i := range b.Warps {
		r.x.InitWarp(b, &b.Warps[i])
	}
	return nil
}

// Done reports whether the block has finished.
func (r *BlockRun) Done() bool { return r.done }

// Run runs the block until it finishes (true), pauses as u says or a probe
// halts it (false, nil), or faults.
func (r *BlockRun) Run(u Until) (bool, error) {
	if r.done {
		return true, nil
	}
	cfg, x, b := &r.cfg, r.x, r.B
	r.probed = r.probed || b.Probe != nil
	// the scheduler's place in locals (a turn can be a few instructions)
	turn, left := r.turn, r.left
	defer func() { r.turn, r.left = turn, left }()
	var ran int64
	q := int64(quantum)
	if cfg.Schedule.Interleave {
		q = 1
	}
	// the warp whose turn it is (the last first with Schedule.Reverse)
	warpAt := func(turn int) int {
		if cfg.Schedule.Reverse {
			return len(b.Warps) - 1 - turn
		}
		return turn
	}
	for {
		if turn == 0 && left == 0 && !r.triedParallel && u == ToEnd && b.Probe == nil {
			if done, err := r.tryParallel(); done || err != nil {
				r.done = done
				return done, err
			}
		}
		if turn == len(b.Warps) {
			r.turn = 0
			if err := r.endRound(); err != nil {
				return false, err
			}
			turn = 0
			if r.done {
				return true, nil
			}
			continue
		}
		wi := warpAt(turn)
		w := &b.Warps[wi]
		if w.Done {
			turn++
			continue
		}
		halted := false
		if !w.AtBarrier {
			if u.Steps >= 0 && ran >= u.Steps || u.Warp == wi && w.Steps >= u.WarpSteps {
				return false, nil
			}
			if left == 0 {
				left = q
				b.Trace = nil
				if r.traceBlock && (cfg.TraceWarp < 0 || cfg.TraceWarp == wi) {
					b.Trace = cfg.Trace
				}
			}
			budget := min(left, cfg.MaxSteps-b.Steps)
			if u.Steps >= 0 {
				budget = min(budget, u.Steps-ran)
			}
			if u.Warp == wi {
				budget = min(budget, u.WarpSteps-w.Steps)
			}
			before := w.Steps
			err := x.Run(b, w, budget)
			n := w.Steps - before
			b.Steps += n
			ran += n
			left -= n
			if cfg.Progress != nil {
				cfg.Progress.WarpInsts.Add(n)
			}
			if err != nil {
				return false, err
			}
			if err := b.launch.charge(b, n); err != nil {
				addr, text := x.Where(w.PC)
				return false, b.Fault(w, firstLane(w.Active), addr, text, err)
			}
			if w.Fault == ErrHalt {
				w.Fault, halted = nil, true
			}
			if w.Fault != nil {
				addr, text := x.Where(w.PC)
				return false, &Fault{Block: b.ID, Thread: b.Dim.At(w.Index * WarpSize), Warp: w.Index, PC: addr, Inst: text, Err: w.Fault}
			}
			if b.Steps >= cfg.MaxSteps && !w.Done && !w.AtBarrier {
				addr, text := x.Where(w.PC)
				lane := firstLane(w.Active)
				return false, b.Fault(w, lane, addr, text, fmt.Errorf("%w: %d warp-instructions in this block", ErrStepLimit, b.Steps))
			}
			if left > 0 && !w.Done && !w.AtBarrier {
				// the turn goes on: paused, halted, or the ISA returned early
				if halted || u.Steps >= 0 && ran >= u.Steps || u.Warp == wi && w.Steps >= u.WarpSteps {
					return false, nil
				}
				continue
			}
		}
		left = 0
		if !w.Done {
			r.live++
			if w.AtBarrier {
				r.waiting++
			}
		}
		turn++
		if halted {
			return false, nil
		}
	}
}

// endRound ends a round of turns: the block finishes when no warp is live;
// completed barriers release their warps; every live warp waiting with no
// barrier able to complete is a deadlock.
func (r *BlockRun) endRound() error {
	b := r.B
	live, waiting := r.live, r.waiting
	r.live, r.waiting = 0, 0
	if live == 0 {
		r.done = true
		return nil
	}
	if waiting > 0 && !b.releaseBarriers(live) && waiting == live {
		for i := range b.Warps {
			if w := &b.Warps[i]; !w.Done {
				addr, text := r.x.Where(w.PC - 1)
				bar := &b.bars[w.Barrier]
				return b.Fault(w, firstLane(w.Active), addr, text, fmt.Errorf(
					"%w: all %d live warps wait; barrier %d has %d of %d arrivals", ErrDeadlock, live, w.Barrier,
					bar.arrived, bar.needed(live)))
			}
		}
	}
	return nil
}

// tryParallel runs the rest of the block in parallel rounds when it has
// run long enough the usual way (parallel.go): it reports whether the
// block finished; if not, the block is as it was and runs on the usual way.
func (r *BlockRun) tryParallel() (bool, error) {
	cfg, b := &r.cfg, r.B
	px := r.x.(ParallelExec)
	after := cfg.WarpCoresAfter
	if cfg.WarpCores == 0 {
		// the rounds start with a copy of global memory: worth it for
		// blocks that run long
		after = max(after, int64(len(px.GlobalMemory().Data)>>lineShift))
	}
	if b.Steps+1 < after || !b.idle() {
		return false, nil
	}
	r.triedParallel = true
	if len(px.GlobalMemory().Segments) > 0 || len(px.GlobalMemory().Data) > MaxParallelCopy {
		return false, nil
	}
	return runParallel(*cfg, r.x, px, b, cfg.parallel)
}

// addStats adds the block's counts to st.
func (r *BlockRun) addStats(st *Stats) {
	if p := r.cfg.Progress; p != nil {
		p.Blocks.Add(1)
		p.Warps.Add(int64(len(r.B.Warps)))
	}
	st.Blocks++
	for i := range r.B.Warps {
		w := &r.B.Warps[i]
		st.Warps++
		st.WarpInsts += w.Steps
		st.ThreadInsts += w.ThreadSteps
		st.Divergent += w.Divergent
	}
}

// AuxCloner is implemented by ISA state kept in Block.Aux that a
// checkpoint must copy (locks, reductions in progress).
type AuxCloner interface {
	CloneAux() any
}

// CopyTo makes dst a checkpoint of r: the same block at the same
// instruction, with its own copy of shared memory, registers, local
// memory, stacks, barriers and the ISA's block state. dst must come from
// NewBlockRun with the same configuration and Exec (its storage is
// reused). Global memory is not copied: the caller keeps it.
func (r *BlockRun) CopyTo(dst *BlockRun) error {
	src, d := r.B, dst.B
	if len(src.Warps) != len(d.Warps) || len(src.Shared.Data) != len(d.Shared.Data) {
		return fmt.Errorf("checkpoint of a block of another shape")
	}
	aux := src.Aux
	if aux != nil {
		c, ok := aux.(AuxCloner)
		if !ok {
			return fmt.Errorf("the ISA's block state (%T) cannot be copied", aux)
		}
		aux = c.CloneAux()
	}
	warps := d.Warps
	*d = Block{Index: src.Index, ID: src.ID, Dim: src.Dim, GridDim: src.GridDim, Warps: warps, Steps: src.Steps,
		Epoch: src.Epoch, bars: src.bars, Aux: aux, Shared: Memory{Space: src.Shared.Space, Data: d.Shared.Data}}
	copy(d.Shared.Data, src.Shared.Data)
	for i := range src.Warps {
		s, w := &src.Warps[i], &warps[i]
		regs, local, stack := w.Regs, w.Local, w.Stack[:0]
		*w = *s
		w.Regs = regs
		copy(w.Regs, s.Regs)
		if len(local) != len(s.Local) {
			local = make([]byte, len(s.Local))
		}
		copy(local, s.Local)
		w.Local = local
		w.Stack = append(stack, s.Stack...)
	}
	dst.turn, dst.left, dst.live, dst.waiting, dst.done = r.turn, r.left, r.live, r.waiting, r.done
	dst.triedParallel = true // a checkpoint runs the usual way
	dst.probed = r.probed
	dst.traceBlock = false
	return nil
}
