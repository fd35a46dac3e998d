package emu

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// DefaultBudget is the launch-wide limit in warp-instructions when the
// configuration gives none: some seconds to half a minute of emulation,
// far more than any test kernel, so that a huge grid or a runaway kernel
// stops on its own (gpuisa run -budget 0 lifts it).
const DefaultBudget = 1 << 30

// BlockCost is what a block counts against the budget before it runs: a
// block's setup costs about as much as that many warp-instructions, so a
// huge grid of tiny blocks stops as soon as a huge grid of long ones.
const BlockCost = 16

// MaxWorkerBytes bounds the memory the parallel blocks hold together
// (each worker's shared and local memory): Run uses fewer workers rather
// than more memory.
const MaxWorkerBytes = 512 << 20

// MaxParallelCopy bounds the global memory a block's parallel rounds
// copy before they start (parallel.go): past it the block runs the usual
// way, so that a launch's memory is not held a third time.
const MaxParallelCopy = 256 << 20

// BudgetShare says where one launch of a sequence stands in the run's
// budget, which all its launches share (Config.Budget is what is left of
// it): the error that stops the launch names the whole budget, what was
// used and which launch stopped.
type BudgetShare struct {
	Total  int64 // the run's budget, for all its launches
	Spent  int64 // what the launches before this one used of it
	Launch int   // this launch's number in the sequence, from 1; 0: none
}

var (
	// ErrBudget: the launch ran more warp-instructions than its budget.
	ErrBudget = errors.New("launch budget used up")
	// ErrTimeout: the launch ran past its deadline.
	ErrTimeout = errors.New("time limit reached")
)

// flushSteps is how many warp-instructions a block runs between looks at
// the launch-wide counters; a budget smaller than 16 times that is looked
// at every 1/16 of it, so that a small budget stops a launch near it (a
// block charges a warp's turn, up to 4096 instructions, at a time).
const flushSteps = 1 << 16

// launchState is what the workers of one Run share besides the grid: the
// budget and the deadline (the progress a display shows is Config.Progress).
type launchState struct {
	budget   int64
	every    int64 // flush after this many warp-instructions of a block
	share    BudgetShare
	used     atomic.Int64
	deadline time.Time
	blocks   int // in the grid
	done     atomic.Int64
	start    time.Time
}

func newLaunchState(cfg Config, nblocks int) *launchState {
	st := &launchState{budget: cfg.Budget, share: cfg.BudgetShare, deadline: cfg.Deadline, blocks: nblocks, start: time.Now()}
	if st.budget == 0 {
		st.budget = DefaultBudget
	}
	st.every = flushSteps
	if st.budget > 0 {
		st.every = max(1, min(flushSteps, st.budget/16))
	}
	return st
}

// charge counts n warp-instructions of block b (its worker's, since a
// worker reuses its Block); every st.every it adds
// them to the launch's total and checks the budget, the deadline and
// the deadline. A non-nil error stops the block.
func (st *launchState) charge(b *Block, n int64) error {
	if st == nil {
		return nil
	}
	b.unflushed += n
	if b.unflushed < st.every {
		return nil
	}
	return st.flush(b)
}

func (st *launchState) flush(b *Block) error {
	used := st.used.Add(b.unflushed)
	b.unflushed = 0
	if st.budget > 0 && used > st.budget && st.share.Launch > 0 {
		sh := st.share
		return fmt.Errorf("%w: the run's budget of %d warp-instructions, for all its launches: %d used by the %d before this one, %d by this one (launch %d), which stopped with %d of %d blocks finished (raise it with -budget)",
			ErrBudget, sh.Total, sh.Spent, sh.Launch-1, used, sh.Launch, st.done.Load(), st.blocks)
	}
	if st.budget > 0 && used > st.budget {
		return fmt.Errorf("%w: %d warp-instructions, %d of %d blocks finished (raise it with -budget)",
			ErrBudget, st.budget, st.done.Load(), st.blocks)
	}
	if !st.deadline.IsZero() && time.Now().After(st.deadline) {
		return fmt.Errorf("%w after %v: %d of %d blocks finished, %d warp-instructions",
			ErrTimeout, st.deadline.Sub(st.start).Round(time.Millisecond), st.done.Load(), st.blocks, used)
	}
	return nil
}

// blockDone counts a finished block (on a nil state, a block run outside
// Run, nothing).
func (st *launchState) blockDone() {
	if st != nil {
		st.done.Add(1)
	}
}

// finish adds a worker's last instructions to the total.
func (st *launchState) finish(b *Block) {
	st.used.Add(b.unflushed)
	b.unflushed = 0
}

// workersFor caps the workers so that their blocks' memory stays within
// MaxWorkerBytes (at least one worker runs, whatever a block needs).
func workersFor(workers int, blockBytes int64) int {
	if blockBytes <= 0 {
		return workers
	}
	return int(max(1, min(int64(workers), MaxWorkerBytes/blockBytes)))
}

// runBlockGuarded is runBlock with the launch's limits and a panic turned
// into a *PanicError.
func runBlockGuarded(cfg Config, x Exec, b *Block, index int, st *Stats) (err error) {
	defer recoverWorker(&err)
	if err := b.launch.charge(b, BlockCost); err != nil {
		return &Fault{Block: cfg.Grid.At(index), Err: err}
	}
	err = runBlock(cfg, x, b, index, st)
	b.launch.blockDone()
	return err
}
