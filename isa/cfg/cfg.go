// Package cfg builds control-flow graphs of machine code for every ISA and
// renders them: DOT (Graphviz), JSON and SVG (laid out here, no external
// program). Each ISA supplies its branch facts per decoded instruction
// (Inst: falls through, jumps, exits, calls; predicated or not; targets);
// Build splits the code into basic blocks reachable from the entry and links
// them, and Hyperblocks merges chains of blocks as nvdisasm -cfg does.
package cfg

import "sort"

// Kind is how an instruction passes control on.
type Kind uint8

const (
	Next Kind = iota // to the next instruction
	Jump             // to its Targets (an indirect jump lists what it may reach)
	Exit             // out of the function (EXIT, RET)
	Call             // to a subroutine, then to the next instruction
)

// Inst is one instruction's branch facts.
type Inst struct {
	Addr    uint64
	Kind    Kind
	Cond    bool     // predicated: it may also fall through to the next instruction
	Targets []uint64 // Jump: where it goes
	Leader  bool     // a block starts here whatever branches (a label in the listing)
	// Opaque ends the block here without knowing where control goes (an
	// indirect jump with no known targets).
	Opaque bool
}

// Edge is a successor of a block.
type Edge struct {
	To   int  // block index
	Fall bool // reached by falling through (not by the jump)
}

// Block is a run of instructions [Start, End) entered only at Start.
type Block struct {
	Start, End int
	Succs      []Edge
	Preds      []int
}

// Graph is the blocks of one function reachable from its entry, in address
// order.
type Graph struct {
	Insts  []Inst
	Blocks []Block
}

// Last is the index of the last instruction of block b.
func (g *Graph) Last(b int) int { return g.Blocks[b].End - 1 }

// endsBlock reports an instruction after which a new block starts.
func endsBlock(in *Inst) bool { return in.Kind == Jump || in.Kind == Exit || in.Opaque }

// Build makes the graph of the function entered at insts[entry]: the
// blocks of insts (in address order) reachable from there.
func Build(insts []Inst, entry int) *Graph {
	g := &Graph{Insts: insts}
	if entry < 0 || entry >= len(insts) {
		return g
	}
	index := make(map[uint64]int, len(insts))
	for i := range insts {
		index[insts[i].Addr] = i
	}
	leader := make([]bool, len(insts))
	leader[0], leader[entry] = true, true
	for i := range insts {
		in := &insts[i]
		if in.Leader {
			leader[i] = true
		}
		if endsBlock(in) && i+1 < len(insts) {
			leader[i+1] = true
		}
		for _, t := range in.Targets {
			if k, ok := index[t]; ok {
				leader[k] = true
			}
		}
	}
	// blocks by their first instruction, then the reachable ones
	var starts []int
	for i, l := range leader {
		if l {
			starts = append(starts, i)
		}
	}
	blockAt := map[int]int{}
	for k, s := range starts {
		blockAt[s] = k
	}
	end := func(k int) int {
		if k+1 < len(starts) {
			return starts[k+1]
		}
		return len(insts)
	}
	succs := func(k int) []Edge {
		last := &insts[end(k)-1]
		var out []Edge
		if last.Kind == Jump {
			for _, t := range last.Targets {
				if i, ok := index[t]; ok {
					out = append(out, Edge{To: blockAt[i]})
				}
			}
		}
		falls := last.Kind == Next || last.Kind == Call || last.Cond && !last.Opaque
		if falls && end(k) < len(insts) {
			out = append(out, Edge{To: blockAt[end(k)], Fall: true})
		}
		return out
	}
	seen := make([]bool, len(starts))
	work := []int{blockAt[entry]}
	seen[blockAt[entry]] = true
	for len(work) > 0 {
		k := work[len(work)-1]
		work = work[:len(work)-1]
		for _, e := range succs(k) {
			if !seen[e.To] {
				seen[e.To] = true
				work = append(work, e.To)
			}
		}
	}
	renum := make([]int, len(starts))
	for k := range starts {
		renum[k] = -1
		if seen[k] {
			renum[k] = len(g.Blocks)
			g.Blocks = append(g.Blocks, Block{Start: starts[k], End: end(k)})
		}
	}
	for k := range starts {
		if !seen[k] {
			continue
		}
		b := &g.Blocks[renum[k]]
		for _, e := range succs(k) {
			b.Succs = append(b.Succs, Edge{To: renum[e.To], Fall: e.Fall})
		}
	}
	for k := range g.Blocks {
		for _, e := range g.Blocks[k].Succs {
			g.Blocks[e.To].Preds = append(g.Blocks[e.To].Preds, k)
		}
	}
	for k := range g.Blocks {
		sort.Ints(g.Blocks[k].Preds)
	}
	return g
}

// Hyperblock is a chain of blocks entered only at its first: each later
// block is reached only by falling through from the one before it.
type Hyperblock struct {
	Blocks []int
}

// Hyperblocks groups g's blocks into hyperblocks in address order: a block
// joins the one before it when it is entered only by falling through from
// it and does not start at a leader (a label).
func (g *Graph) Hyperblocks() []Hyperblock {
	var out []Hyperblock
	for k := range g.Blocks {
		b := &g.Blocks[k]
		if len(out) > 0 && k > 0 && len(b.Preds) == 1 && b.Preds[0] == k-1 && !g.Insts[b.Start].Leader && fallsInto(&g.Blocks[k-1], k) {
			h := &out[len(out)-1]
			h.Blocks = append(h.Blocks, k)
			continue
		}
		out = append(out, Hyperblock{Blocks: []int{k}})
	}
	return out
}

func fallsInto(b *Block, k int) bool {
	for _, e := range b.Succs {
		if e.To == k && e.Fall {
			return true
		}
	}
	return false
}
