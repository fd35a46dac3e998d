// Package cfg builds control-flow graphs of machine code for every ISA and
// renders them: DOT (Graphviz), JSON and SVG (laid out here, no external
// program). Each ISA supplies its branch facts per decoded instruction
// (Inst: falls through, jumps, exits, calls; predicated or not; targets);
// Build splits the code into basic blocks reachable from the entry and links
// them, and Hyperblocks merges chains of blocks as nvdisasm -cfg does.
package cfg

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
)

// Kind is how an instruction passes control on.
type Kind uint8

const (
	Next Kind = iota // to the next instruction
	Jump             // to its Targets (an indirect jump lists what it may reach)
	Exit             // out of the function (EXIT, RET)
	Call             // to a subroutine (its Targets, when known), then to the next instruction
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
	// Push: the instruction pushes a stack entry of this kind holding
	// PushTarget (SSY, PBK, PCNT, PRET); control goes on as Kind says.
	Push       Stack
	PushTarget uint64
	// PopTo: the instruction goes to the innermost stack entry of this
	// kind (BRK, CONT, Fermi's .S, RET after PRET); Build makes it a Jump
	// to what it reaches. Kind says what it does when no such entry is on
	// the stack (RET: Exit; .S: Next; BRK: Jump with Opaque).
	PopTo Stack
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
// blocks of insts (in address order) reachable from there and from the
// instructions roots (nvdisasm's graphs also grow from the targets
// EIATTR_INDIRECT_BRANCH_TARGETS lists, reached or not). Instructions
// that go where the reconvergence stack says (PopTo) are resolved first, on
// a copy of insts (Graph.Insts).
func Build(insts []Inst, entry int, roots ...int) *Graph {
	if entry < 0 || entry >= len(insts) {
		return &Graph{Insts: insts}
	}
	index := indexOf(insts)
	entries := []int{entry}
	for _, r := range roots {
		if r >= 0 && r < len(insts) && r != entry {
			entries = append(entries, r)
		}
	}
	return newLayout(resolveStack(insts, entry, index), index, entries...).graph(entries...)
}

// addrIndex finds an instruction by its address: by binary search when
// the addresses ascend (every ISA's listing order; no map of millions of
// entries for a large function), else through a map.
type addrIndex struct {
	insts []Inst
	m     map[uint64]int
}

func indexOf(insts []Inst) addrIndex {
	for i := 1; i < len(insts); i++ {
		if insts[i].Addr <= insts[i-1].Addr {
			m := make(map[uint64]int, len(insts))
			for k := range insts {
				m[insts[k].Addr] = k
			}
			return addrIndex{m: m}
		}
	}
	return addrIndex{insts: insts}
}

// at returns the index of the instruction at addr.
func (x addrIndex) at(addr uint64) (int, bool) {
	if x.m != nil {
		i, ok := x.m[addr]
		return i, ok
	}
	i, ok := slices.BinarySearchFunc(x.insts, addr, func(in Inst, a uint64) int { return cmp.Compare(in.Addr, a) })
	return i, ok
}

// layout is the blocks of a function's instructions, reachable or not:
// what the graphs of its entry and of each subroutine share.
type layout struct {
	insts   []Inst
	index   addrIndex
	starts  []int       // the blocks' first instructions
	blockAt map[int]int // block by its first instruction
}

// newLayout cuts insts into blocks; each entry starts one.
func newLayout(insts []Inst, index addrIndex, entries ...int) *layout {
	leader := make([]bool, len(insts))
	leader[0] = true
	for _, e := range entries {
		leader[e] = true
	}
	for i := range insts {
		in := &insts[i]
		if in.Leader {
			leader[i] = true
		}
		if endsBlock(in) && i+1 < len(insts) {
			leader[i+1] = true
		}
		for _, t := range in.Targets {
			if k, ok := index.at(t); ok {
				leader[k] = true
			}
		}
		if in.Push != NoStack {
			if k, ok := index.at(in.PushTarget); ok {
				leader[k] = true // a reconvergence point
			}
		}
	}
	l := &layout{insts: insts, index: index, blockAt: map[int]int{}}
	for i, isLeader := range leader {
		if isLeader {
			l.blockAt[i] = len(l.starts)
			l.starts = append(l.starts, i)
		}
	}
	return l
}

func (l *layout) end(k int) int {
	if k+1 < len(l.starts) {
		return l.starts[k+1]
	}
	return len(l.insts)
}

func (l *layout) succs(k int) []Edge {
	last := &l.insts[l.end(k)-1]
	var out []Edge
	if last.Kind == Jump {
		for _, t := range last.Targets {
			if i, ok := l.index.at(t); ok {
				out = append(out, Edge{To: l.blockAt[i]})
			}
		}
	}
	falls := last.Kind == Next || last.Kind == Call || last.Cond && !last.Opaque
	if falls && l.end(k) < len(l.insts) {
		out = append(out, Edge{To: l.blockAt[l.end(k)], Fall: true})
	}
	return out
}

// graph is the graph of the blocks reachable from the instructions
// entries (the first is the entry), each of which must start a block; its
// cost grows with the reachable blocks only.
func (l *layout) graph(entries ...int) *Graph {
	g := &Graph{Insts: l.insts}
	if _, ok := l.blockAt[entries[0]]; !ok {
		return g
	}
	seen := map[int]bool{}
	var reached, work []int
	for _, e := range entries {
		if k, ok := l.blockAt[e]; ok && !seen[k] {
			seen[k] = true
			reached, work = append(reached, k), append(work, k)
		}
	}
	for len(work) > 0 {
		k := work[len(work)-1]
		work = work[:len(work)-1]
		for _, e := range l.succs(k) {
			if !seen[e.To] {
				seen[e.To] = true
				reached = append(reached, e.To)
				work = append(work, e.To)
			}
		}
	}
	sort.Ints(reached)
	renum := make(map[int]int, len(reached))
	for _, k := range reached {
		renum[k] = len(g.Blocks)
		g.Blocks = append(g.Blocks, Block{Start: l.starts[k], End: l.end(k)})
	}
	for _, k := range reached {
		b := &g.Blocks[renum[k]]
		for _, e := range l.succs(k) {
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

// Program returns the graph of the code entered at insts[entry], named
// name, then one per subroutine: each call target inside insts other than
// the entry, in address order, named name+"@"+its address in hex. lines
// holds the listing text of each instruction.
func Program(name string, insts []Inst, lines []string, entry int) []Function {
	out := []Function{{Name: name, Graph: Build(insts, entry), Lines: lines}}
	if entry < 0 || entry >= len(insts) {
		return out
	}
	index := indexOf(insts)
	var subs []int
	for i := range insts {
		if insts[i].Kind != Call {
			continue
		}
		for _, t := range insts[i].Targets {
			if k, ok := index.at(t); ok && k != entry && !slices.Contains(subs, k) {
				subs = append(subs, k)
			}
		}
	}
	slices.Sort(subs)
	// without stack entries every graph has the same blocks (call targets
	// start blocks): one layout, and each subroutine costs what it reaches.
	// So too when walking the stack from every subroutine would take too
	// long (damaged or random code calling everywhere): their pops are
	// then left as the ISA gave them, going nowhere known.
	var shared *layout
	if !usesStack(insts) || len(subs)*len(insts) > maxStackWalks {
		shared = newLayout(insts, index, subs...)
	}
	for _, k := range subs {
		g := shared.graphOr(insts, k)
		out = append(out, Function{Name: name + "@" + strconv.FormatUint(insts[k].Addr, 16), Graph: g, Lines: lines})
	}
	return out
}

// maxStackWalks bounds the instructions Program's stack walks may copy:
// about a second of work.
const maxStackWalks = 1 << 26

// graphOr is l's graph of entry, or Build's when l is nil.
func (l *layout) graphOr(insts []Inst, entry int) *Graph {
	if l == nil {
		return Build(insts, entry)
	}
	return l.graph(entry)
}

// String is a compact text form of the graph, one block a line: the
// addresses of its first and last instruction, then its successors by
// start address, "j" for a jump and "f" for a fall-through:
// "0x10-0x28: j0x40 f0x30".
func (g *Graph) String() string {
	var b []byte
	for _, bl := range g.Blocks {
		b = append(b, "0x"...)
		b = strconv.AppendUint(b, g.Insts[bl.Start].Addr, 16)
		b = append(b, "-0x"...)
		b = strconv.AppendUint(b, g.Insts[bl.End-1].Addr, 16)
		b = append(b, ':')
		for _, e := range bl.Succs {
			kind := " j0x"
			if e.Fall {
				kind = " f0x"
			}
			b = append(b, kind...)
			b = strconv.AppendUint(b, g.Insts[g.Blocks[e.To].Start].Addr, 16)
		}
		b = append(b, '\n')
	}
	return string(b)
}

// BlockOf returns the index of the block holding the instruction at addr,
// or -1 when no reachable block does.
func (g *Graph) BlockOf(addr uint64) int {
	b := sort.Search(len(g.Blocks), func(b int) bool { return g.Insts[g.Blocks[b].End-1].Addr >= addr })
	if b < len(g.Blocks) && g.Insts[g.Blocks[b].Start].Addr <= addr {
		return b
	}
	return -1
}
