package emu

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Dim3 is a grid or block shape, or a position in one.
type Dim3 [3]uint32

// Count is the number of positions.
func (d Dim3) Count() int { return int(d[0]) * int(d[1]) * int(d[2]) }

// At is the position of linear index i (x fastest).
func (d Dim3) At(i int) Dim3 {
	x := uint32(i) % d[0]
	y := uint32(i) / d[0] % d[1]
	z := uint32(i) / (d[0] * d[1])
	return Dim3{x, y, z}
}

func (d Dim3) String() string { return fmt.Sprintf("(%d,%d,%d)", d[0], d[1], d[2]) }

var (
	errStackOverflow = errors.New("divergence stack overflow")
	// ErrStepLimit: a block ran more warp-instructions than allowed.
	ErrStepLimit = errors.New("step limit reached (runaway kernel?)")
	// ErrDeadlock: every live warp waits at a barrier that cannot complete.
	ErrDeadlock = errors.New("barrier deadlock")
)

// Fault is the first error of a run, with where it happened.
type Fault struct {
	Block  Dim3
	Thread Dim3 // the first lane concerned
	Warp   int
	Lane   int
	PC     uint64 // byte address of the instruction
	Inst   string // its text
	Err    error
}

func (f *Fault) Error() string {
	where := fmt.Sprintf("block %v thread %v (warp %d lane %d)", f.Block, f.Thread, f.Warp, f.Lane)
	if f.Inst != "" {
		return fmt.Sprintf("%s pc %#04x %s: %v", where, f.PC, f.Inst, f.Err)
	}
	return fmt.Sprintf("%s pc %#04x: %v", where, f.PC, f.Err)
}

func (f *Fault) Unwrap() error { return f.Err }

// Block is one thread block being run.
type Block struct {
	Index   int
	ID      Dim3
	Dim     Dim3
	GridDim Dim3
	Shared  Memory
	Warps   []Warp
	Steps   int64 // warp-instructions executed in this block
	// Epoch counts the barriers completed in this block: accesses in an
	// earlier epoch are ordered before those in a later one.
	Epoch uint64
	// Check, when not nil, receives the block's memory accesses (the
	// sanitizer, sanitize.go).
	Check *Checker
	bars  [NumBarriers]barrier
	// Trace, when not nil, receives one line per executed warp-instruction.
	Trace io.Writer
	// ISA-owned per-block state (e.g. a reused scratch area).
	Aux any
	// Probe, when not nil, sees every instruction (fault injection).
	Probe Probe

	launch    *launchState // the launch-wide limits (budget.go); nil outside Run
	unflushed int64        // warp-instructions not yet added to them
}

// Fault builds a Fault for lane of w at the instruction at pc.
func (b *Block) Fault(w *Warp, lane int, pc uint64, inst string, err error) *Fault {
	t := w.Index*WarpSize + lane
	return &Fault{Block: b.ID, Thread: b.Dim.At(t), Warp: w.Index, Lane: lane, PC: pc, Inst: inst, Err: err}
}

// Exec is what an ISA package provides to run its lowered program.
type Exec interface {
	// NumRegs is the number of 32-lane register rows a warp needs.
	NumRegs() int
	// InitBlock prepares a block before its warps start (shared memory
	// contents, launch words); InitWarp sets a warp's registers (Regs hold
	// whatever the warp's previous block left there).
	InitBlock(b *Block) error
	InitWarp(b *Block, w *Warp)
	// Run executes warp w until it exits, waits at a barrier, faults or has
	// executed budget warp-instructions. It adds to w.Steps and the
	// counters and returns a *Fault on error.
	Run(b *Block, w *Warp, budget int64) error
	// Where describes the instruction at a program index (for faults).
	Where(pc uint32) (addr uint64, text string)
}

// Config is the shape and limits of one launch.
type Config struct {
	Grid, Block Dim3
	SharedBytes int   // shared memory per block
	MaxSteps    int64 // warp-instructions per block; 0 = DefaultMaxSteps
	Workers     int   // blocks run in parallel; 0 = GOMAXPROCS
	Trace       io.Writer
	TraceBlock  int // -1: every block
	TraceWarp   int // -1: every warp
	// Launch-wide limits (budget.go): warp-instructions of the whole
	// launch (0 = DefaultBudget, <0 none) and a deadline (zero: none).
	// BlockBytes is what the ISA allocates per block besides shared memory
	// (local memory), which bounds the workers (MaxWorkerBytes).
	Budget     int64
	Deadline   time.Time
	BlockBytes int64
	// BudgetShare, for a launch of a sequence, is its place in the run's
	// budget (Budget is what is left of it), for the error that stops it.
	BudgetShare BudgetShare
	// Blocks, when not nil, keeps the workers' blocks for the next launch
	// of the same shape.
	Blocks *Blocks
	// Progress, when not nil, counts blocks, warps and warp-instructions
	// as each block finishes.
	Progress *Progress
	// Checker, when not nil, runs sanitizer checks on every memory access
	// (the blocks then run one after the other).
	Checker *Checker
	// Schedule is the order warps take turns in.
	Schedule Schedule

	// WarpCores is how many cores the warps of one block may use
	// (parallel.go): 0, the cores the blocks leave idle; 1, one.
	// WarpCoresAfter is how many warp-instructions a block runs the usual
	// way first (0: 32768).
	WarpCores      int
	WarpCoresAfter int64
	parallel       int
}

// Schedule is how the warps of a block take turns. By default each runs up
// to 4096 instructions (or to a barrier) before the next; Interleave makes
// them take turns instruction by instruction, Reverse in the opposite order
// (last warp first): a racy kernel then shows other outcomes. Every
// schedule is deterministic.
type Schedule struct {
	Interleave, Reverse bool
}

// ParseSchedule reads a comma-separated schedule: interleave, reverse
// ("" or "default": the default).
func ParseSchedule(s string) (Schedule, error) {
	var sc Schedule
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "interleave":
			sc.Interleave = true
		case "reverse":
			sc.Reverse = true
		case "", "default":
		default:
			return sc, fmt.Errorf("unknown schedule %q (default, interleave, reverse)", f)
		}
	}
	return sc, nil
}

// Progress is a run's work so far, updated atomically as it goes (blocks
// and warps as blocks finish, warp-instructions as warps yield): a display
// reads it from another goroutine.
type Progress struct {
	Blocks, Warps, WarpInsts atomic.Int64
	// GridBlocks is the blocks of the launches begun so far, done or not.
	GridBlocks atomic.Int64
}

// Blocks keeps the engine's working blocks (registers, shared and local
// memory) from one launch to the next of the same program and shape, so
// that short repeated launches (a host loop's) do not allocate them again;
// emu.Loader gives each loaded program one. Safe for concurrent launches.
type Blocks struct {
	mu   sync.Mutex
	free []*Block
}

// get returns a kept block that fits the launch, or a new one.
func (p *Blocks) get(cfg Config, x Exec) *Block {
	if p != nil {
		nwarps := (cfg.Block.Count() + WarpSize - 1) / WarpSize
		p.mu.Lock()
		for i, b := range p.free {
			if len(b.Warps) == nwarps && len(b.Warps[0].Regs) == x.NumRegs()*WarpSize && len(b.Shared.Data) == cfg.SharedBytes {
				p.free = append(p.free[:i], p.free[i+1:]...)
				p.mu.Unlock()
				b.Dim, b.GridDim = cfg.Block, cfg.Grid
				return b
			}
		}
		p.mu.Unlock()
	}
	return newBlock(cfg, x)
}

// put keeps a block for a later launch (a few: the workers of one launch).
func (p *Blocks) put(b *Block) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if len(p.free) < 64 {
		p.free = append(p.free, b)
	}
	p.mu.Unlock()
}

// DefaultMaxSteps is the per-block step limit when none is given: far above
// any test kernel (a 512x512 tiled matrix multiply runs ~5e4 per block),
// low enough that a runaway block stops within seconds even at the slowest
// rates (barrier-bound blocks of 1024 threads, about 4M per second).
const DefaultMaxSteps = 1 << 24

// quantum is how many instructions a warp runs before the next warp of its
// block gets a turn (warps also yield at barriers).
const quantum = 1 << 12

// Stats summarises a run.
type Stats struct {
	Blocks      int64
	Warps       int64
	WarpInsts   int64
	ThreadInsts int64
	Divergent   int64
	Duration    time.Duration
}

// WorkerCount is how many goroutines run n independent items (blocks,
// shader quads): asked (0: every core), one when a trace must stay in
// order, at least 1 and at most n.
func WorkerCount(asked, n int, ordered bool) int {
	if asked <= 0 {
		asked = runtime.GOMAXPROCS(0)
	}
	if ordered {
		asked = 1
	}
	return max(1, min(asked, n))
}

// Run runs every block of the grid and returns the statistics and the first
// fault (of the lowest-numbered failing block).
func Run(cfg Config, x Exec) (Stats, error) {
	start := time.Now()
	nblocks := cfg.Grid.Count()
	workers := WorkerCount(cfg.Workers, nblocks, cfg.Trace != nil || cfg.Checker != nil) // one ordered trace; one checker's memory
	workers = workersFor(workers, int64(cfg.SharedBytes)+cfg.BlockBytes)
	launch := newLaunchState(cfg, nblocks)
	if cfg.Progress != nil {
		cfg.Progress.GridBlocks.Add(int64(nblocks))
	}
	if cfg.Trace == nil && cfg.Checker == nil && cfg.Schedule == (Schedule{}) {
		// cores the blocks leave idle run the warps of a block
		cores := WorkerCount(cfg.Workers, 1<<30, false)
		cfg.parallel = cores / workers
		if cfg.WarpCores > 0 {
			cfg.parallel = cfg.WarpCores
		}
		if cfg.parallel >= 2 {
			// the blocks then run one after the other: a block's rounds
			// go back to its saved global memory, which no other block
			// writes meanwhile
			workers = 1
		}
	}
	if cfg.WarpCoresAfter <= 0 {
		cfg.WarpCoresAfter = parallelAfter
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	var (
		next     atomic.Int64
		stop     atomic.Bool
		mu       sync.Mutex
		total    Stats
		firstErr error
		errBlock = nblocks
		wg       sync.WaitGroup
	)
	work := func() {
		var st Stats
		b := cfg.Blocks.get(cfg, x)
		defer cfg.Blocks.put(b)
		b.launch = launch
		defer launch.finish(b)
		for !stop.Load() {
			i := int(next.Add(1) - 1)
			if i >= nblocks {
				break
			}
			err := runBlockGuarded(cfg, x, b, i, &st)
			if err != nil {
				mu.Lock()
				if i < errBlock {
					errBlock, firstErr = i, err
				}
				mu.Unlock()
				stop.Store(true)
			}
		}
		mu.Lock()
		total.Blocks += st.Blocks
		total.Warps += st.Warps
		total.WarpInsts += st.WarpInsts
		total.ThreadInsts += st.ThreadInsts
		total.Divergent += st.Divergent
		mu.Unlock()
	}
	if workers == 1 {
		work() // no goroutine to start and wait for: short launches cost less
	} else {
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work()
			}()
		}
		wg.Wait()
	}
	total.Duration = time.Since(start)
	return total, firstErr
}

func newBlock(cfg Config, x Exec) *Block {
	nthreads := cfg.Block.Count()
	nwarps := (nthreads + WarpSize - 1) / WarpSize
	b := &Block{Dim: cfg.Block, GridDim: cfg.Grid, Shared: Memory{Space: Shared, Data: make([]byte, cfg.SharedBytes)}}
	b.Warps = make([]Warp, nwarps)
	regs := make([]uint32, nwarps*x.NumRegs()*WarpSize)
	per := x.NumRegs() * WarpSize
	for i := range b.Warps {
		b.Warps[i].Regs = regs[i*per : (i+1)*per : (i+1)*per]
	}
	return b
}

func runBlock(cfg Config, x Exec, b *Block, index int, st *Stats) error {
	r := BlockRun{cfg: cfg, x: x, B: b}
	if err := r.Start(index); err != nil {
		return err
	}
	defer r.addStats(st)
	_, err := r.Run(ToEnd)
	return err
}

// NumBarriers is the number of named barriers per block.
const NumBarriers = 16

// barrier counts the warps that arrived at one named barrier.
type barrier struct {
	arrived int // warps
	threads int // threads the barrier waits for; 0: every live thread
}

// needed is the number of warp arrivals that complete the barrier.
func (bar *barrier) needed(live int) int {
	if bar.threads > 0 && bar.threads < live*WarpSize {
		return (bar.threads + WarpSize - 1) / WarpSize
	}
	return live
}

// Barrier records warp w at barrier id: arrive counts it, wait makes it wait
// until the barrier completes. threads is how many threads complete the
// barrier (rounded up to whole warps; 0 or more than the block: all live
// warps).
func (b *Block) Barrier(w *Warp, id int, threads int, arrive, wait bool) error {
	if id < 0 || id >= NumBarriers {
		return fmt.Errorf("barrier %d does not exist (0..%d)", id, NumBarriers-1)
	}
	if arrive {
		b.bars[id].arrived++
		b.bars[id].threads = threads
	}
	if wait {
		w.AtBarrier, w.Barrier = true, uint8(id)
	}
	return nil
}

// releaseBarriers lets the warps of every completed barrier go on; it
// reports whether any did.
func (b *Block) releaseBarriers(live int) bool {
	released := false
	for id := range b.bars {
		bar := &b.bars[id]
		need := bar.needed(live)
		if bar.arrived < need {
			continue
		}
		for i := range b.Warps {
			if w := &b.Warps[i]; w.AtBarrier && int(w.Barrier) == id {
				w.AtBarrier = false
				released = true
			}
		}
		bar.arrived -= need
		b.Epoch++
	}
	return released
}

// idle reports whether no barrier has arrivals pending.
func (b *Block) idle() bool {
	for _, bar := range b.bars {
		if bar.arrived > 0 {
			return false
		}
	}
	return true
}

func firstLane(m uint32) int {
	for l := range WarpSize {
		if m&(1<<l) != 0 {
			return l
		}
	}
	return 0
}
