package inject

import (
	"math/rand/v2"
	"sort"

	"github.com/gpuisa/gpuisa/emu"
)

// injection is one fault to inject: drawn from the seed and its id alone,
// so that any shard of any sharding draws it the same.
type injection struct {
	id  int
	exp int
	e   *Experiment
	rng *rand.Rand
	// the unit drawn: unit r of block (launch, block)'s population
	launch, block int
	r             int64
	// found by locating it in the block: the instruction (the block's
	// seq-th warp-instruction), its warp and lane (-1: warp-level), the
	// run's time
	seq      int64
	warp     int
	lane     int
	lanes    uint32
	pc       uint32
	time     int64
	located  bool
	noSite   bool
	perm     permFault // a permanent fault's place, drawn with the injection
	rec      Record
	recorded bool
}

// permFault is where a permanent fault is: a functional unit of one lane,
// or a register-file cell (register reg of warp slot slot, lane lane),
// with its stuck bit and value.
type permFault struct {
	unit       emu.Unit
	slot, lane int
	reg        emu.Reg
	bit        int
	value      uint32
}

// newRNG is injection id's random stream.
func newRNG(seed uint64, id int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(id)^0x9e3779b97f4a7c15))
}

// draw draws injection id (its experiment, and for faults at one
// instruction the unit of the population it hits).
func (ld *Loaded) draw(g *Golden, id int) *injection {
	ei, _ := ld.experimentOf(id)
	inj := &injection{id: id, exp: ei, e: &ld.Experiments[ei], rng: newRNG(ld.Seed, id), lane: -1}
	if permanent(inj.e.Model) {
		inj.perm = drawPermanent(inj.e, inj.rng, g)
		return inj
	}
	pop := &g.pops[ei]
	if pop.total == 0 {
		inj.noSite = true
		return inj
	}
	u := inj.rng.Int64N(pop.total)
	i := sort.Search(len(pop.blocks), func(i int) bool { return pop.blocks[i].start+pop.blocks[i].count > u })
	bc := pop.blocks[i]
	inj.launch, inj.block, inj.r = bc.launch, bc.block, u-bc.start
	return inj
}

// before orders injections by where they happen in the run.
func before(a, b *injection) bool {
	if a.launch != b.launch {
		return a.launch < b.launch
	}
	if a.block != b.block {
		return a.block < b.block
	}
	return a.id < b.id
}

// drawPermanent draws a permanent fault's place (what the experiment does
// not pin).
func drawPermanent(e *Experiment, rng *rand.Rand, g *Golden) permFault {
	var f permFault
	pinned := func(v *int, n int) int {
		if v != nil {
			return *v
		}
		return rng.IntN(n)
	}
	switch e.Model {
	case ModelStuckUnit:
		f.unit = unitNames[e.Unit]
		f.lane, f.bit = pinned(e.Lane, emu.WarpSize), pinned(e.Bit, 32)
	case ModelStuckReg:
		f.slot, f.lane = rng.IntN(max(1, g.Warps)), pinned(e.Lane, emu.WarpSize)
		f.reg = emu.Reg{File: emu.RegGPR, N: uint16(rng.IntN(max(1, g.Alloc)))}
		f.bit = pinned(e.Bit, 32)
	}
	f.value = uint32(pinned(e.Value, 2))
	return f
}
