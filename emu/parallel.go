package emu

import (
	"math/bits"
	"slices"
	"sync"
)

// The warps of one block on several cores (when a launch has fewer blocks
// than cores), with results that do not depend on it.
//
// After a block has run parallelAfter warp-instructions the usual way, its
// state is saved and its warps run in rounds: in each round every warp runs
// on its own (a core takes several) until it exits, reaches a barrier, has
// run parallelRound instructions, or stops before an instruction whose
// effect depends on the order of warps (barriers, atomics, surface writes:
// the ISA decides, Track.Stopped). The ISA reports every plain global and
// shared access to the warp's Track. After the round, if two warps touched
// the same 64-byte line of global memory (16-byte granule of shared
// memory) and one of them wrote it, the order would matter: the block goes
// back to the saved state and runs on the usual way. Otherwise the round's
// result is the one any order gives; the stopped warps then run their
// instruction one by one in warp order, barriers complete, and the next
// round starts. A fault or the step limit in a round also goes back, so
// that they are reported where the usual schedule reports them.

const (
	parallelAfter = 1 << 15 // warp-instructions run the usual way first
	parallelRound = 1 << 14 // a warp's instructions per round at most
	wordShift     = 2       // global memory is tracked in words,
	lineShift     = 6       // or 64-byte lines past fineMemory bytes
	fineMemory    = 64 << 20
	granuleShift  = 2 // shared memory in words
)

// ParallelExec is what an Exec offers to run a block's warps on several
// cores.
type ParallelExec interface {
	// GlobalMemory is the memory the block's global accesses go to.
	GlobalMemory() *Memory
	// WarpAux is per-warp working state for a warp running on its own
	// (Warp.Aux); the ISA uses it instead of Block.Aux.
	WarpAux() any
	// SaveAux saves what the ISA keeps in Block.Aux and returns what
	// restores it.
	SaveAux(b *Block) (restore func())
}

// Track records a warp's plain memory accesses during a parallel round.
type Track struct {
	gRead, gWrite, sRead, sWrite LineSet
	gShift                       uint // global memory's granule
	// Stopped is set by the ISA when the warp stopped before an
	// instruction that must not run in a round (the PC is that instruction).
	Stopped bool
	// Round counts the rounds the record was cleared after: an ISA may
	// skip recording an access it recorded before in the same round.
	Round uint64
}

// Access records an access of size bytes at addr (an offset) of global or
// shared memory.
func (t *Track) Access(space Space, addr uint64, size int, write bool) {
	t.AccessRange(space, addr, addr+uint64(max(size, 1)), write)
}

// AccessRange records an access of the bytes [lo, hi) of global or shared
// memory: a warp's coalesced access is a few bitmap words, not a mark per
// lane.
func (t *Track) AccessRange(space Space, lo, hi uint64, write bool) {
	set, shift := t.Lines(space, write)
	if set == nil || hi <= lo {
		return // local memory is the thread's own
	}
	set.MarkRange(lo>>shift, (hi-1)>>shift)
}

// Lines is the set that records reads or writes of global or shared
// memory, and the shift from an address to its line (nil for other
// spaces): an ISA's loop over lanes marks lines with it directly.
func (t *Track) Lines(space Space, write bool) (*LineSet, uint) {
	switch space {
	case Global:
		if write {
			return &t.gWrite, t.gShift
		}
		return &t.gRead, t.gShift
	case Shared:
		if write {
			return &t.sWrite, granuleShift
		}
		return &t.sRead, granuleShift
	}
	return nil, 0
}

// LineSet is a set of line numbers: a bitmap and the words in use.
type LineSet struct {
	bits    []uint64
	touched []int
}

// Mark adds a line.
func (s *LineSet) Mark(line uint64) {
	w := int(line >> 6)
	if w >= len(s.bits) {
		return // past the memory: the access faults, and the round goes back
	}
	if s.bits[w] == 0 {
		s.touched = append(s.touched, w)
	}
	s.bits[w] |= 1 << (line & 63)
}

// MarkRange adds the lines first..last, a bitmap word at a time.
func (s *LineSet) MarkRange(first, last uint64) {
	for first <= last {
		w := first >> 6
		if w >= uint64(len(s.bits)) {
			return // past the memory (see Mark)
		}
		n := min(last, w<<6|63) - first + 1 // lines in this word
		m := ^uint64(0) >> (64 - n) << (first & 63)
		if s.bits[w] == 0 {
			s.touched = append(s.touched, int(w))
		}
		s.bits[w] |= m
		first += n
	}
}

// union adds the lines of o.
func (s *LineSet) union(o *LineSet) {
	for _, w := range o.touched {
		if s.bits[w] == 0 {
			s.touched = append(s.touched, w)
		}
		s.bits[w] |= o.bits[w]
	}
}

func tz64(x uint64) int { return bits.TrailingZeros64(x) }

func (s *LineSet) reset() {
	for _, w := range s.touched {
		s.bits[w] = 0
	}
	s.touched = s.touched[:0]
}

// conflicts reports whether one warp wrote a line another touched.
func conflicts(tracks []*Track, global bool) bool {
	sets := func(t *Track) (w, r *LineSet) {
		if global {
			return &t.gWrite, &t.gRead
		}
		return &t.sWrite, &t.sRead
	}
	for i, t := range tracks {
		w, _ := sets(t)
		for _, word := range w.touched {
			for j, u := range tracks {
				if i == j {
					continue
				}
				w2, r2 := sets(u)
				if w.bits[word]&(w2.bits[word]|r2.bits[word]) != 0 {
					return true
				}
			}
		}
	}
	return false
}

// saved is a block's state at the start of its parallel rounds.
type saved struct {
	global, shared []byte
	warps          []Warp
	regs           [][]uint32
	local          [][]byte
	stacks         [][]StackEntry
	steps          int64
	epoch          uint64
	bars           [NumBarriers]barrier
	restoreAux     func()
}

func save(b *Block, px ParallelExec) *saved {
	s := &saved{global: slices.Clone(px.GlobalMemory().Data), shared: slices.Clone(b.Shared.Data),
		warps: slices.Clone(b.Warps), steps: b.Steps, epoch: b.Epoch, bars: b.bars, restoreAux: px.SaveAux(b)}
	for i := range b.Warps {
		w := &b.Warps[i]
		s.regs = append(s.regs, slices.Clone(w.Regs))
		s.local = append(s.local, slices.Clone(w.Local))
		s.stacks = append(s.stacks, slices.Clone(w.Stack))
	}
	return s
}

// restore puts the block back as save found it: of global memory, which
// other blocks may be writing meanwhile, the lines the block wrote.
func (s *saved) restore(b *Block, px ParallelExec, written *LineSet, shift uint) {
	g := px.GlobalMemory().Data
	for _, word := range written.touched {
		for bits := written.bits[word]; bits != 0; bits &= bits - 1 {
			line := word<<6 | tz64(bits)
			lo := min(line<<shift, len(g))
			hi := min(lo+1<<shift, len(g))
			copy(g[lo:hi], s.global[lo:hi])
		}
	}
	copy(b.Shared.Data, s.shared)
	for i := range b.Warps {
		w := &b.Warps[i]
		regs, local := w.Regs, w.Local
		*w = s.warps[i]
		w.Regs, w.Local = regs, local
		copy(w.Regs, s.regs[i])
		copy(w.Local, s.local[i])
		w.Stack = append(w.Stack[:0], s.stacks[i]...)
		w.Track, w.Aux = nil, nil
	}
	b.Steps, b.Epoch, b.bars = s.steps, s.epoch, s.bars
	s.restoreAux()
}

// runParallel runs the rest of block b in parallel rounds on n cores. It
// reports whether the block finished (with its error); if not, the block is
// as it was when the rounds started and runs on the usual way.
func runParallel(cfg Config, x Exec, px ParallelExec, b *Block, n int) (bool, error) {
	gm := px.GlobalMemory()
	s := save(b, px)
	tracks := make([]*Track, len(b.Warps))
	gshift := uint(wordShift)
	if len(gm.Data) > fineMemory {
		gshift = lineShift
	}
	glines := (len(gm.Data)>>gshift)/64 + 1
	slines := (len(b.Shared.Data)>>granuleShift)/64 + 1
	for i := range b.Warps {
		tracks[i] = &Track{gShift: gshift, gRead: LineSet{bits: make([]uint64, glines)}, gWrite: LineSet{bits: make([]uint64, glines)},
			sRead: LineSet{bits: make([]uint64, slines)}, sWrite: LineSet{bits: make([]uint64, slines)}}
		b.Warps[i].Aux = px.WarpAux()
	}
	// the lines of global memory the block wrote in its rounds
	written := LineSet{bits: make([]uint64, glines)}
	back := func() (bool, error) {
		for _, t := range tracks {
			written.union(&t.gWrite)
		}
		s.restore(b, px, &written, gshift)
		return false, nil
	}
	errs := make([]error, len(b.Warps))
	for {
		// a round: every warp that can run, on n goroutines
		var run []int
		for i := range b.Warps {
			w := &b.Warps[i]
			if !w.Done && !w.AtBarrier {
				run = append(run, i)
				w.Track = tracks[i]
			}
		}
		before := make([]int64, len(b.Warps))
		for i := range b.Warps {
			before[i] = b.Warps[i].Steps
		}
		var wg sync.WaitGroup
		for g := range min(n, len(run)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := g; k < len(run); k += n {
					i := run[k]
					errs[i] = x.Run(b, &b.Warps[i], parallelRound)
				}
			}()
		}
		wg.Wait()
		var steps int64
		for _, i := range run {
			w := &b.Warps[i]
			w.Track = nil
			steps += w.Steps - before[i]
			if errs[i] != nil || w.Fault != nil {
				return back() // the usual schedule reports it where it occurs
			}
		}
		if conflicts(tracks, true) || conflicts(tracks, false) {
			return back()
		}
		b.Steps += steps
		if cfg.Progress != nil {
			cfg.Progress.WarpInsts.Add(steps)
		}
		if b.Steps >= cfg.MaxSteps || b.launch.charge(b, steps) != nil {
			// the usual schedule reports the step limit, the budget or the
			// deadline (those stay used up) at its instruction
			return back()
		}
		for _, t := range tracks {
			written.union(&t.gWrite)
			t.gRead.reset()
			t.gWrite.reset()
			t.sRead.reset()
			t.sWrite.reset()
			t.Round++
		}
		// the stopped warps' instructions, one each, in warp order
		for i := range b.Warps {
			t := tracks[i]
			if !t.Stopped {
				continue
			}
			t.Stopped = false
			w := &b.Warps[i]
			aux := w.Aux
			w.Aux = nil
			before := w.Steps
			err := x.Run(b, w, 1)
			w.Aux = aux
			b.Steps += w.Steps - before
			if err != nil || w.Fault != nil {
				return back()
			}
		}
		live, waiting := 0, 0
		for i := range b.Warps {
			if w := &b.Warps[i]; !w.Done {
				live++
				if w.AtBarrier {
					waiting++
				}
			}
		}
		if live == 0 {
			for i := range b.Warps {
				b.Warps[i].Aux = nil
			}
			return true, nil
		}
		if waiting > 0 && !b.releaseBarriers(live) && waiting == live {
			return back() // a deadlock: reported by the usual schedule
		}
	}
}
