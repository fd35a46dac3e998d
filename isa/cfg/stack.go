package cfg

import (
	"slices"
)

// Stack is a kind of entry on the reconvergence stack of NVIDIA's GPUs
// before Volta. SSY, PBK, PCNT and PRET push an entry holding a code
// address; Fermi's .S flag, BRK, CONT and RET send control to the
// innermost entry of their kind. Where they go is not in the instruction,
// so Build finds it by following the stack along every path from the
// entry (the facts nvdisasm takes from EIATTR_INDIRECT_BRANCH_TARGETS on
// sm_5x cubins).
type Stack uint8

const (
	NoStack Stack = iota
	Sync          // SSY: where diverged paths meet again
	Break         // PBK (Tesla: breakaddr): where BRK goes
	Cont          // PCNT: where CONT goes
	Return        // PRET: where RET goes while the entry is on the stack (CAL's return is not modelled: calls fall through)
)

// Limits of the stack walk: deeper stacks are cut (their outer entries are
// forgotten) and an instruction reached with more distinct stacks keeps
// the first ones. Compiled code nests a few levels and merges paths with
// equal stacks; the limits keep damaged or random code linear.
const (
	maxStackDepth  = 32
	maxStackStates = 8
)

// stackNode is one entry of an interned stack: the entry and the stack
// below it (an index into stackWalk.nodes, 0 = empty).
type stackNode struct {
	below  int32
	kind   Stack
	target uint64
}

// stackWalk follows the stack through the code of one function.
type stackWalk struct {
	insts  []Inst
	index  addrIndex
	nodes  []stackNode // nodes[0] is the empty stack
	intern map[stackNode]int32
	depth  []int
	states [][]int32 // per instruction, the stacks it was reached with
	found  [][]uint64
}

func (s *stackWalk) push(st int32, kind Stack, target uint64) int32 {
	if s.depth[st] >= maxStackDepth {
		st = s.cutBottom(st)
	}
	n := stackNode{below: st, kind: kind, target: target}
	if id, ok := s.intern[n]; ok {
		return id
	}
	id := int32(len(s.nodes))
	s.nodes = append(s.nodes, n)
	s.depth = append(s.depth, s.depth[st]+1)
	s.intern[n] = id
	return id
}

// cutBottom drops the outermost entry of st.
func (s *stackWalk) cutBottom(st int32) int32 {
	n := s.nodes[st]
	if n.below == 0 {
		return 0
	}
	return s.push(s.cutBottom(n.below), n.kind, n.target)
}

// resolveStack fills in where the stack-relative instructions of the code
// entered at entry go: each one with PopTo becomes a Jump to the targets it
// was found to reach, or keeps the Kind its ISA gave for an empty stack.
// It returns insts itself when nothing refers to the stack, else a copy.
func resolveStack(insts []Inst, entry int, index addrIndex) []Inst {
	if !usesStack(insts) {
		return insts
	}
	s := &stackWalk{insts: insts, index: index, nodes: []stackNode{{}}, intern: map[stackNode]int32{},
		depth: []int{0}, states: make([][]int32, len(insts)), found: make([][]uint64, len(insts))}
	type item struct {
		at int
		st int32
	}
	work := []item{{entry, 0}}
	s.states[entry] = []int32{0}
	visit := func(at int, st int32) {
		if at < 0 || at >= len(insts) || slices.Contains(s.states[at], st) || len(s.states[at]) >= maxStackStates {
			return
		}
		s.states[at] = append(s.states[at], st)
		work = append(work, item{at, st})
	}
	for len(work) > 0 {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		in := &insts[it.at]
		st := it.st
		// arriving at an entry's address consumes it (the join of an SSY,
		// a loop's exit reached by its own branch)
		for st != 0 && s.nodes[st].target == in.Addr {
			st = s.nodes[st].below
		}
		if in.Push != NoStack {
			st = s.push(st, in.Push, in.PushTarget)
		}
		next := it.at + 1
		if in.PopTo != NoStack {
			e := st
			for e != 0 && s.nodes[e].kind != in.PopTo {
				e = s.nodes[e].below
			}
			if e != 0 {
				t := s.nodes[e].target
				if !slices.Contains(s.found[it.at], t) {
					s.found[it.at] = append(s.found[it.at], t)
				}
				if k, ok := index.at(t); ok {
					visit(k, s.nodes[e].below)
				}
				if in.Cond {
					visit(next, st)
				}
				continue
			}
		}
		switch {
		case in.Opaque || in.Kind == Exit:
			if in.Cond {
				visit(next, st)
			}
		case in.Kind == Jump:
			for _, t := range in.Targets {
				if k, ok := index.at(t); ok {
					visit(k, st)
				}
			}
			if in.Cond {
				visit(next, st)
			}
		default:
			visit(next, st)
		}
	}
	out := slices.Clone(insts)
	for i, ts := range s.found {
		if len(ts) > 0 {
			slices.Sort(ts)
			out[i].Kind, out[i].Targets, out[i].Opaque = Jump, ts, false
		}
	}
	return out
}

// usesStack reports an instruction that pushes or pops a stack entry.
func usesStack(insts []Inst) bool {
	for i := range insts {
		if insts[i].Push != NoStack || insts[i].PopTo != NoStack {
			return true
		}
	}
	return false
}
