package inject

import (
	"math/rand/v2"
	"sort"
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
	rec      Record
	recorded bool
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
