package maxwell

import (
	"bytes"
	mbits "math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/isa/cfg"
)

// Register life ranges as nvdisasm -plr (-lrm wide|narrow|count) prints
// them: a column of cells after every line of a code section, one per
// general register and predicate of the file, saying what the instruction
// does with the register (^ writes it, v reads it, x both, : it is live
// across) and how many are live.
//
// The facts come from the operand roles (Operands.Access) and a backward
// dataflow over the function's control flow (the branch targets nvdisasm's
// own dataflow finds for SYNC, BRK and CONT included). What nvdisasm does
// not say and was measured on the oracle: a register written and never
// read shows nothing; EXIT keeps R1 (the stack pointer) live, RET R1, R2
// and the callee-saved registers (calleeSaved); a CAL or JCAL reads R0 and
// R1 and writes every caller-saved register and predicate, whatever the
// callee, showing the writes that stay live; the section's other
// functions are entries too; a guarded write does not end a range; the
// lines of a braced pair show the pair's facts together; labels after
// code that does not fall through get a dotted rule, the end of the
// function a solid one and the legend; without -hex, code after an
// instruction that does not fall through is not listed up to the next
// label; the count cell is as wide as the register count's digits plus
// one; a register live at a loop's head is live all through a loop with
// no label inside;
// what a forward conditional branch leaves live for its target is live
// all the way there when the way through goes to the target; a pair whose
// second instruction writes what the first uses is printed "SLOT
// 0"/"SLOT 1", the SLOT 1 line with the facts of the first instruction of
// its stretch (since the last label, callee symbol or branch other than
// SYNC); R63 is never shown; the column starts past the longest directive
// line by the widest SYNC annotation and five (lifeColumn). With -hex:
// control words show what is live out of the instruction before them and
// what it writes, nothing after the dotted rule; code outside the blocks
// is dumped as bare hex words after the next label; the column may stand
// left of the hex comments' end (hexLifeCol); a guarded write right
// after the line that last reads its register shows it dead on the
// control word between them (ctrlCells). Not modelled yet: a write
// and a read under the same guard (a predicated write ends a range for
// the reads under its predicate).

// Values of ListOptions.LifeRanges.
const (
	LifeRangesNone   = iota
	LifeRangesWide   // -plr, -lrm wide: a spaced column per register
	LifeRangesNarrow // -lrm narrow: one character per register
	LifeRangesCount  // -lrm count: the number of live registers only
)

// hidden are the registers nvdisasm -plr never shows, read, written or
// live, nor counts: R63 (03_intops.O0 writes it with a SEL and stores it
// with an STG.E.128 of R60, 07_f64ops.O0 moves values through it; neither
// shows a mark in its column). It is not callee-saved either (retLive).
var hidden = func() RegSet { var s RegSet; s.Add(63, 1); return s }()

// exitLive is what stays live at an EXIT: R1, the stack pointer.
var exitLive = func() RegSet { var s RegSet; s.Add(1, 1); return s }()

// calleeSaved reports whether a function must keep register r for its
// caller, as nvdisasm -plr assumes at a RET (measured on the oracle and
// the liveness corpus): R16-R31, then every other block of four from R36
// (R36-R39, R44-R47, ..., R68-R71), R63 excepted.
func calleeSaved(r int) bool {
	switch {
	case r >= 16 && r <= 31:
		return true
	case r >= 32 && r != 63:
		return r/4%2 == 1
	}
	return false
}

// retLive is what stays live at a RET of a function with regs registers:
// R1 (the stack pointer), R2 and the callee-saved registers.
func retLive(regs int) RegSet {
	s := exitLive
	s.Add(2, 1)
	for r := 16; r < regs; r++ {
		if calleeSaved(r) {
			s.Add(r, 1)
		}
	}
	return s
}

// callAccess is what nvdisasm -plr assumes a CAL or JCAL does, whatever
// the callee: it reads R0 and R1 and writes every caller-saved register
// of the function's regs (R0, R3-R15 and the registers above R31 that are
// not callee-saved) and the predicates.
func callAccess(regs int) Access {
	var a Access
	a.Read.Add(0, 2)
	for r := 0; r < regs; r++ {
		if r != 1 && r != 2 && (r < 16 || r > 31) && !calleeSaved(r) {
			a.Written.Add(r, 1)
		}
	}
	a.PredWritten = allPreds
	return a
}

// lifeInfo is the liveness of one code section's instructions.
type lifeInfo struct {
	reach     []bool
	call      []bool // a CAL or JCAL: it shows only the writes that stay live
	fall      []bool // control goes on to the next instruction
	fwd       []bool // a branch forward
	acc       []Access
	in, out   []RegSet
	pin, pout []uint8
	guarded   []bool // under a predicate other than PT
}

// successors are the instructions control goes to from each instruction,
// all in one array (a slice per instruction costs more than its targets).
type successors struct {
	first []int32 // instruction i's are to[first[i]:first[i+1]]
	to    []int32
}

// add is a successor of the instruction being filled in; next goes on to
// the next instruction.
func (s *successors) add(k int) { s.to = append(s.to, int32(k)) }
func (s *successors) next()     { s.first = append(s.first, int32(len(s.to))) }

func (s *successors) of(i int) []int32 { return s.to[s.first[i]:s.first[i+1]] }

// liveRange is a stretch of instructions lo..hi that nvdisasm shows
// registers live all through (a loop, a branch's way to its target).
type liveRange struct {
	lo, hi int32
	live   RegSet
	plive  uint8
}

// liveSlots are the registers and then the predicates, one slot each.
const liveSlots = 256 + 7

// fill adds each range's registers to the liveness of its instructions;
// with calls, a range ends at a call in it.
// ranges is sorted by lo. In one pass over the instructions (ranges can
// nest and overlap by the thousand in random code): a register is live at
// an instruction when a range holding it is open there, with calls when
// the last one opened (its stack's top) opened after the last call.
func (li *lifeInfo) fill(ranges []liveRange, calls bool) {
	if len(ranges) == 0 {
		return
	}
	var open [liveSlots][]int32 // the ranges open per slot, the last opened on top
	var lastCall [liveSlots]int32
	for k := range lastCall {
		lastCall[k] = -1
	}
	var busy [(liveSlots + 63) / 64]uint64 // the slots with open ranges
	next := 0
	for m := range int32(len(li.in)) {
		for ; next < len(ranges) && ranges[next].lo == m; next++ {
			r := &ranges[next]
			for k := range liveSlots {
				if k < 256 && r.live.Has(k) || k >= 256 && r.plive&(1<<(k-256)) != 0 {
					open[k] = append(open[k], int32(next))
					busy[k/64] |= 1 << (k % 64)
				}
			}
		}
		if calls && li.call[m] {
			for k := range liveSlots {
				lastCall[k] = m
			}
		}
		var live RegSet
		var plive uint8
		for w, bits := range busy {
			for bits != 0 {
				k := w*64 + mbits.TrailingZeros64(bits)
				bits &= bits - 1
				st := open[k]
				for len(st) > 0 && ranges[st[len(st)-1]].hi < m {
					st = st[:len(st)-1]
				}
				open[k] = st
				if len(st) == 0 {
					busy[w] &^= 1 << (k % 64)
					continue
				}
				if !calls || lastCall[k] < ranges[st[len(st)-1]].lo {
					if k < 256 {
						live.Add(k, 1)
					} else {
						plive |= 1 << (k - 256)
					}
				}
			}
		}
		li.in[m], li.out[m] = li.in[m].Union(live), li.out[m].Union(live)
		li.pin[m], li.pout[m] = li.pin[m]|plive, li.pout[m]|plive
	}
}

// lifeRanges computes the liveness of every instruction of the section.
func (fl *funcListing) lifeRanges() *lifeInfo {
	n := len(fl.insts)
	li := &lifeInfo{reach: make([]bool, n), call: make([]bool, n), fall: make([]bool, n), fwd: make([]bool, n), acc: make([]Access, n), in: make([]RegSet, n), out: make([]RegSet, n),
		pin: make([]uint8, n), pout: make([]uint8, n)}
	succ := &successors{first: make([]int32, 1, n+1)}
	exits := make([]bool, n)
	jumps := make([]bool, n)
	rets := make([]bool, n)
	guarded := make([]bool, n)
	li.guarded = guarded
	joins := make([]bool, n) // SYNC: the way goes on at its target
	index := func(addr uint64) (int, bool) {
		if addr%BundleSize == 0 {
			addr += 8
		}
		i := int(addr/BundleSize*3 + addr%BundleSize/8 - 1)
		return i, i >= 0 && i < n
	}
	for i := range fl.insts {
		if !fl.insts[i].ok {
			li.fall[i] = true
			if i+1 < n {
				succ.add(i + 1)
			}
			succ.next()
			continue
		}
		inst := fl.insts[i].inst
		addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
		ops := inst.Operands(addr)
		li.acc[i] = ops.Access()
		guarded[i] = ops.Guard.Reg != 7 || ops.Guard.Not
		joins[i] = forms[inst.form].name == "SYNC"
		facts := BranchFacts(inst, addr, fl.lb.indir[addr])
		fall := true
		switch facts.Kind {
		case cfg.Jump:
			jumps[i] = true
			for _, t := range facts.Targets {
				if k, ok := index(t); ok {
					succ.add(k)
					li.fwd[i] = li.fwd[i] || k > i
				}
			}
			fall = facts.Cond
		case cfg.Exit:
			exits[i] = true
			rets[i] = forms[inst.form].name == "RET"
			fall = facts.Cond
		case cfg.Call:
			if name := forms[inst.form].name; name == "CAL" || name == "JCAL" || name == "JMX" {
				// JMX (the indirect call PRET sets up) too, its
				// address register read besides
				li.call[i] = true
				c := callAccess(fl.fn.Registers)
				c.Read = c.Read.Union(li.acc[i].Read)
				li.acc[i] = c
			}
		}
		li.acc[i].Read, li.acc[i].Written = li.acc[i].Read.Minus(hidden), li.acc[i].Written.Minus(hidden)
		if facts.Opaque {
			fall = facts.Cond
		}
		li.fall[i] = fall
		if fall && i+1 < n {
			succ.add(i + 1)
		}
		succ.next()
	}
	// reachable from the entry and the section's other functions
	stack := []int{0}
	for addr := range fl.lb.syms {
		if k, ok := index(addr); ok {
			stack = append(stack, k)
		}
	}
	for len(stack) > 0 && n > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if li.reach[i] {
			continue
		}
		li.reach[i] = true
		for _, k := range succ.of(i) {
			stack = append(stack, int(k))
		}
	}
	ret := retLive(fl.fn.Registers)
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			if !li.reach[i] {
				continue
			}
			var out RegSet
			var pout uint8
			if rets[i] {
				out = ret
			} else if exits[i] {
				out = exitLive
			}
			for _, k := range succ.of(i) {
				out = out.Union(li.in[k])
				pout |= li.pin[k]
			}
			a := &li.acc[i]
			kill, pkill := a.Written, a.PredWritten
			if guarded[i] {
				// a guarded write may not happen: nvdisasm's ranges go on
				// through it (the -hex control words are the exception:
				// ctrlCells)
				kill, pkill = RegSet{}, 0
			}
			in := a.Read.Union(out.Minus(kill))
			pin := a.PredRead | pout&^pkill
			if in != li.in[i] || pin != li.pin[i] || out != li.out[i] || pout != li.pout[i] {
				li.in[i], li.out[i], li.pin[i], li.pout[i] = in, out, pin, pout
				changed = true
			}
		}
	}
	// a register live at a loop's head is shown live all through the loop
	// (up to the branch back), also between its last read and a new write
	// in the loop: nvdisasm's ranges are intervals of the listing's order
	// as a linear-scan allocator builds them. Only for a loop without a
	// label inside (a branch back, conditional or not, over straight code
	// and branches out): the -G loops, whose bodies hold labels, show the
	// holes (saxpy.g, matmul.g), and so does 09_branches.O3's outer loop;
	// 13_localmem.O0's BRA back over a body without labels does not.
	labels := fl.labelCounts()
	var loops []liveRange
	for i := range n {
		if !li.reach[i] || !jumps[i] {
			continue
		}
		for _, k := range succ.of(i) {
			if k := int(k); k <= i && labels[i+1] == labels[k+1] {
				loops = append(loops, liveRange{lo: int32(k), hi: int32(i), live: li.in[k], plive: li.pin[k]})
			}
		}
	}
	slices.SortStableFunc(loops, func(a, b liveRange) int { return int(a.lo - b.lo) })
	li.fill(loops, false)
	// what a conditional branch forward leaves live for its target is live
	// all along the way from the branch to the target when that way goes
	// there: falls through to it (also on through a SYNC to its target,
	// spmv.li), or its straight run ends in a branch there (a BRK to the
	// PBK's target, 05_floatops.O0). nvdisasm ranges have no hole there,
	// also where the way writes the register before the target reads it,
	// up to a call (plrcol's callssy, ways.O3); code the way jumps over
	// keeps nothing (ways.O0), nor does a way that branches away elsewhere
	// (blackscholes.g, 11_atomics.O0; with the call and jump rules
	// 11_atomics.O3's ATOM destination too; -plr 107 -> 114 of 142).
	way := newWayTree(li, succ, joins)
	end := make([]int32, n) // the last instruction of the straight run from i
	for i := n - 1; i >= 0; i-- {
		end[i] = int32(i)
		if li.fall[i] && i+1 < n {
			end[i] = end[i+1]
		}
	}
	var ways []liveRange
	for i := range n {
		if !li.reach[i] || !li.fwd[i] || !li.fall[i] || i+1 >= n {
			continue
		}
		for _, t := range succ.of(i) {
			t := int(t)
			if t <= i+1 {
				continue
			}
			if m := int(end[i+1]); !way.on(t, i+1) {
				if m < t && slices.Contains(succ.of(m), int32(t)) {
					ways = append(ways, liveRange{lo: int32(i + 1), hi: int32(m), live: li.in[t], plive: li.pin[t]})
				}
				continue
			}
			// only the stretches the way runs through, not the code
			// between them that a SYNC jumps over (plrcol's ways.O0)
			for j := i + 1; j < t; {
				m := min(int(end[j]), t-1)
				ways = append(ways, liveRange{lo: int32(j), hi: int32(m), live: li.in[t], plive: li.pin[t]})
				if m == t-1 {
					break
				}
				j = int(succ.of(m)[0]) // the SYNC's target, on the way to t
			}
		}
	}
	slices.SortStableFunc(ways, func(a, b liveRange) int { return int(a.lo - b.lo) })
	li.fill(ways, true)
	li.narrowCalls(fl, jumps)
	return li
}

// wayTree is the forest of the ways through a function's code: an
// instruction's parent is where control goes on from it without a choice
// (the next instruction when it falls through, the target of a branch
// forward that is its only successor), so an instruction is on the way
// from another when it is its ancestor (numbered in a walk of the forest:
// entered at tin, left at tout).
type wayTree struct{ tin, tout []int32 }

func newWayTree(li *lifeInfo, succ *successors, joins []bool) wayTree {
	n := len(li.fall)
	parent := make([]int32, n)
	first := make([]int32, n+2) // the children of j: kids[first[j]:first[j+1]] once filled
	for j := range n {
		parent[j] = -1
		if li.fall[j] {
			if j+1 < n {
				parent[j] = int32(j + 1)
			}
		} else if to := succ.of(j); joins[j] && len(to) == 1 && int(to[0]) > j {
			parent[j] = to[0]
		}
		if parent[j] >= 0 {
			first[parent[j]+2]++
		}
	}
	for j := 2; j < len(first); j++ {
		first[j] += first[j-1]
	}
	kids := make([]int32, n)
	for j := range n {
		if p := parent[j]; p >= 0 {
			kids[first[p+1]] = int32(j)
			first[p+1]++
		}
	}
	w := wayTree{tin: make([]int32, n), tout: make([]int32, n)}
	var clock int32
	var stack []int32 // nodes entered, their kids pushed after them
	for root := n - 1; root >= 0; root-- {
		if parent[root] >= 0 {
			continue
		}
		stack = append(stack, int32(root))
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			if j < 0 { // left
				stack = stack[:len(stack)-1]
				w.tout[^j] = clock
				clock++
				continue
			}
			stack[len(stack)-1] = ^j
			w.tin[j] = clock
			clock++
			stack = append(stack, kids[first[j]:first[j+1]]...)
		}
	}
	return w
}

// on reports whether instruction t is on the way from instruction j.
func (w wayTree) on(t, j int) bool { return w.tin[t] <= w.tin[j] && w.tout[j] <= w.tout[t] }

// narrowCalls keeps, of what each call writes, what nvdisasm shows: the
// registers and predicates live after it and those written again later in
// its block (a dead write shows only when another write of the register
// follows it in the block, as measured on the oracle: the first of two
// calls in a block shows every caller-saved register, the second only
// what stays live).
func (li *lifeInfo) narrowCalls(fl *funcListing, jumps []bool) {
	type shown struct {
		i int
		w RegSet
		p uint8
	}
	var calls []shown
	var buf [4]uint32
	for i := range li.call {
		if !li.call[i] || !li.reach[i] {
			continue
		}
		var later RegSet
		var plater uint8
		for j := i + 1; j < len(li.acc) && li.fall[j-1]; j++ {
			addr := uint64(j/3*BundleSize + 8 + 8*(j%3))
			if len(fl.lb.at(buf[:0], addr)) > 0 {
				break
			}
			later, plater = later.Union(li.acc[j].Written), plater|li.acc[j].PredWritten
		}
		calls = append(calls, shown{i, li.acc[i].Written.Intersect(li.out[i].Union(later)), li.acc[i].PredWritten & (li.pout[i] | plater)})
	}
	for _, c := range calls {
		li.acc[c.i].Written, li.acc[c.i].PredWritten = c.w, c.p
	}
}

// lifeLayout is the shape of the column: registers and predicates shown.
type lifeLayout struct {
	mode        int
	regs, preds int // columns: R0..regs-1, P0..preds-1
	col         int // where "// " starts
}

// countWidth is the width of the GPR count cell: a blank and as many
// digits as the number of registers has (nvdisasm: " 8" for R0..R7, "  9"
// for R0..R9).
func (ly *lifeLayout) countWidth() int { return 1 + len(strconv.Itoa(ly.regs)) }

func (ly *lifeLayout) gprWidth() int {
	switch ly.mode {
	case LifeRangesCount:
		return max(4, ly.countWidth()+1)
	case LifeRangesNarrow:
		return ly.countWidth() + 1 + ly.regs + 1
	}
	w := ly.countWidth() + 1
	for r := 0; r < ly.regs; r++ {
		w += len(strconv.Itoa(r)) + 1
	}
	return w
}

func (ly *lifeLayout) predWidth() int {
	switch ly.mode {
	case LifeRangesCount:
		return 5
	case LifeRangesNarrow:
		return 3 + ly.preds + 1
	}
	return 2 + 2*ly.preds + 1
}

// rule is "+-----+-----+" (fill '-', '.').
func (ly *lifeLayout) rule(dst []byte, fill byte) []byte {
	dst = append(dst, '+')
	dst = append(dst, bytes.Repeat([]byte{fill}, ly.gprWidth())...)
	dst = append(dst, '+')
	if ly.preds > 0 {
		dst = append(dst, bytes.Repeat([]byte{fill}, ly.predWidth())...)
		dst = append(dst, '+')
	}
	return dst
}

func centered(dst []byte, label string, w int) []byte {
	left := (w - len(label) - 1) / 2
	dst = blanks(dst, left)
	dst = append(dst, label...)
	return blanks(dst, w-left-len(label))
}

// header is the four lines above the first line of a section (five in
// narrow mode), each without the leading blanks.
func (ly *lifeLayout) header() [][]byte {
	gw, pw := ly.gprWidth(), ly.predWidth()
	row := func(gpr, pred []byte) []byte {
		b := append([]byte("|"), gpr...)
		b = append(b, '|')
		if ly.preds > 0 {
			b = append(b, pred...)
			b = append(b, '|')
		}
		return b
	}
	lines := [][]byte{ly.rule(nil, '-'), row(centered(nil, "GPR", gw), centered(nil, "PRED", pw))}
	switch ly.mode {
	case LifeRangesCount:
		g := append(blanks(nil, ly.countWidth()-1), '#')
		lines = append(lines, row(blanks(g, gw-len(g)), []byte("  #  ")))
	case LifeRangesNarrow:
		tens := blanks(nil, ly.countWidth()+1)
		units := append(blanks(nil, ly.countWidth()-1), "# "...)
		for r := 0; r < ly.regs; r++ {
			tens = append(tens, byte('0'+r/10%10))
			units = append(units, byte('0'+r%10))
		}
		ptens, punits := blanks(nil, 3), []byte(" # ")
		for p := 0; p < ly.preds; p++ {
			ptens = append(ptens, ' ')
			punits = append(punits, byte('0'+p))
		}
		if ly.regs > 10 {
			lines = append(lines, row(append(tens, ' '), append(ptens, ' ')))
		}
		lines = append(lines, row(append(units, ' '), append(punits, ' ')))
	default:
		g, p := append(blanks(nil, ly.countWidth()-1), '#'), []byte(" #")
		for r := 0; r < ly.regs; r++ {
			g = append(g, ' ')
			g = strconv.AppendInt(g, int64(r), 10)
		}
		for k := 0; k < ly.preds; k++ {
			p = append(p, ' ')
			p = strconv.AppendInt(p, int64(k), 10)
		}
		lines = append(lines, row(append(g, ' '), append(p, ' ')))
	}
	return append(lines, ly.rule(nil, '-'))
}

var legend = []string{"Legend:", "    ^       : Register assignment", "    v       : Register usage",
	"    x       : Register usage and reassignment", "    :       : Register in use", "    <space> : Register not in use",
	"    #       : Number of occupied registers"}

// cells appends "|...|...|": for each register, what the instruction does
// with it (read, written: the registers it writes that stay live; live:
// the others live across it); empty is a line outside the function's code.
func (ly *lifeLayout) cells(dst []byte, read, written, live RegSet, pread, pwritten, plive uint8, empty bool) []byte {
	sym := func(r, w, l bool) byte {
		switch {
		case empty:
			return ' '
		case r && w:
			return 'x'
		case w:
			return '^'
		case r:
			return 'v'
		case l:
			return ':'
		}
		return ' '
	}
	count := func(dst []byte, n, width int) []byte {
		if n == 0 || empty {
			return blanks(dst, width)
		}
		s := strconv.Itoa(n)
		dst = blanks(dst, width-len(s))
		return append(dst, s...)
	}
	all := live.Union(read).Union(written)
	pall := plive | pread | pwritten
	dst = append(dst, '|')
	switch ly.mode {
	case LifeRangesCount:
		dst = count(dst, all.Len(), ly.countWidth())
		dst = blanks(dst, ly.gprWidth()-ly.countWidth())
		dst = append(dst, '|')
	case LifeRangesNarrow:
		dst = count(dst, all.Len(), ly.countWidth())
		dst = append(dst, ' ')
		for r := 0; r < ly.regs; r++ {
			dst = append(dst, sym(read.Has(r), written.Has(r), live.Has(r)))
		}
		dst = append(dst, " |"...)
	default:
		dst = count(dst, all.Len(), ly.countWidth())
		for r := 0; r < ly.regs; r++ {
			dst = blanks(dst, len(strconv.Itoa(r)))
			dst = append(dst, sym(read.Has(r), written.Has(r), live.Has(r)))
		}
		dst = append(dst, " |"...)
	}
	if ly.preds == 0 {
		return dst
	}
	np := 0
	for p := 0; p < 7; p++ {
		if pall&(1<<p) != 0 {
			np++
		}
	}
	switch ly.mode {
	case LifeRangesCount:
		dst = count(dst, np, 3)
		dst = append(dst, "  |"...)
	case LifeRangesNarrow:
		dst = count(dst, np, 2)
		dst = append(dst, ' ')
		for p := 0; p < ly.preds; p++ {
			dst = append(dst, sym(pread&(1<<p) != 0, pwritten&(1<<p) != 0, plive&(1<<p) != 0))
		}
		dst = append(dst, " |"...)
	default:
		dst = count(dst, np, 2)
		for p := 0; p < ly.preds; p++ {
			dst = append(dst, ' ', sym(pread&(1<<p) != 0, pwritten&(1<<p) != 0, plive&(1<<p) != 0))
		}
		dst = append(dst, " |"...)
	}
	return dst
}

// instCells appends the cells of instruction i (of pair [i, j]).
func (ly *lifeLayout) instCells(dst []byte, li *lifeInfo, i, j int) []byte {
	if !li.reach[i] {
		return ly.cells(dst, RegSet{}, RegSet{}, RegSet{}, 0, 0, 0, true)
	}
	var read, written RegSet
	var pread, pwritten uint8
	for k := i; k <= j; k++ {
		read = read.Union(li.acc[k].Read)
		pread |= li.acc[k].PredRead
		written = written.Union(li.acc[k].Written)
		pw := li.acc[k].PredWritten
		if !li.call[k] {
			pw &= li.pout[k] // a predicate written and not read shows nothing
		}
		pwritten |= pw
	}
	live := li.in[i].Union(li.out[j])
	plive := li.pin[i] | li.pout[j]
	return ly.cells(dst, read, written, live, pread, pwritten, plive, false)
}

// liveCells appends the cells of a point between instructions (a label or
// a control word before instruction i): what is live there.
func (ly *lifeLayout) liveCells(dst []byte, li *lifeInfo, i int) []byte {
	if i < 0 || i >= len(li.reach) || !li.reach[i] {
		return ly.cells(dst, RegSet{}, RegSet{}, RegSet{}, 0, 0, 0, true)
	}
	return ly.cells(dst, RegSet{}, RegSet{}, li.in[i], 0, 0, li.pin[i], false)
}

// ctrlCells appends the cells of a bundle's control word listed after
// instruction prev (-hex), or of the hex word of a pair first..prev: what
// is live out of prev, and what first..prev write even when nothing reads it (as measured: an LDG.E.128
// whose fourth register is never read, an IADD.X whose result is dead
// show it live on the next control word; -plr -hex 64 -> 73 of 220 +
// the 10 of testdata/plrcol identical).
//
// A guarded write right after the last read of the register it writes
// (the previous line's v) shows the register dead on the control word
// between them, although the write does not end the range elsewhere
// (a guarded write keeps what is live across it): 11_atomics.O3's `@!P0
// MOV R32, R41` after the ISETP that reads R32, 12_warp.O3's `@!P3
// VOTE.ANY R0` after an IADD3 of R0, transpose.li's `@!P0 SHR R6` and
// 03_intops.O3's `@!P4 SEL R6` after a braced pair reading R6. Where the
// last read is further up, the control words keep the register live
// (10_reduce_shared.O3's `@!P0 SHR.U32 R3`, transpose.li's `@!P4 IADD.X
// R5`; -plr -hex 103 -> 113 of 142, the liveness corpus 9 -> 10 of 14;
// a walk along the way where the guard is false, killing where a sure
// write comes before a read, made 106). reads is where the previous
// line's facts start (a pair's first instruction).
func (ly *lifeLayout) ctrlCells(dst []byte, li *lifeInfo, prev, first, reads int) []byte {
	i := prev + 1
	if i >= len(li.reach) || !li.reach[i] {
		return ly.liveCells(dst, li, i)
	}
	live, plive := li.in[i], li.pin[i]
	if li.reach[prev] {
		live, plive = li.out[prev], li.pout[prev]
	}
	if li.guarded[i] {
		var read RegSet
		for k := max(reads, 0); k <= prev; k++ {
			read = read.Union(li.acc[k].Read)
		}
		live = live.Minus(li.acc[i].Written.Minus(li.acc[i].Read).Intersect(read))
	}
	for k := max(first, 0); k <= prev; k++ {
		if li.reach[k] {
			live = live.Union(li.acc[k].Written)
			if li.call[k] {
				plive |= li.acc[k].PredWritten
			}
		}
	}
	return ly.cells(dst, RegSet{}, RegSet{}, live, 0, 0, plive, false)
}

// isAddrLine reports whether line is an instruction line ("        /*0a8*/ ...")
// and returns its address.
func isAddrLine(line []byte) (uint64, bool) {
	if len(line) < 13 || !bytes.HasPrefix(line, []byte("        /*")) {
		return 0, false
	}
	end := bytes.Index(line[10:], []byte("*/"))
	if end <= 0 {
		return 0, false
	}
	a, err := strconv.ParseUint(string(line[10:10+end]), 16, 64)
	return a, err == nil
}

// lifeWriter adds the life-range column to the listing of fl's code
// section written to it, a line at a time, and writes the result to o;
// it drops the padding after the function's last branch to itself as
// nvdisasm -plr does.
type lifeWriter struct {
	fl     *funcListing
	li     *lifeInfo
	ly     *lifeLayout
	hex    bool
	o      *listOut
	dst    []byte
	n      int
	last   int    // the last instruction listed
	listed []bool // the instructions listed
	// with -hex, the hex words of code outside the blocks and of a pair
	// whose label came first, due after the next label (lines, each
	// ended by '\n')
	bare []byte
	prev int // the last instruction line's index
	seen int // the last instruction line's index, listed or not
	// a braced pair's hex comment line is due
	pending bool
	ruled   bool // the dotted rule is out since the last instruction line
	label   bool // a label is out since the last instruction line
	symbol  bool // a function's symbol is out since the last instruction line
	// the header goes above the first line after .align that is not blank:
	// with -sf, the four blank lines come first
	headerDue   bool
	cells, part []byte
}

// newLifeWriter starts the annotated listing of fl's code section after dst.
func (fl *funcListing) newLifeWriter(dst []byte, li *lifeInfo, ly *lifeLayout, hex bool, o *listOut) *lifeWriter {
	n := len(fl.insts)
	last := n - 1 // the last instruction listed
	for i := n - 1; i >= 0; i-- {
		if fl.insts[i].ok && forms[fl.insts[i].inst.form].name == "BRA" {
			addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
			if t, ok := relTarget(fl.insts[i].inst, addr); ok && (t == addr || t+8 == addr && t%BundleSize == 0) {
				last = i
				break
			}
		}
		if !fl.insts[i].ok || forms[fl.insts[i].inst.form].name != "NOP" {
			break
		}
	}
	// nvdisasm lists only the code its blocks hold: after an instruction
	// that does not go on to the next, the listing resumes at the next
	// label (a function's own symbol included); with -hex the words left
	// out follow that label as bare hex (see bare)
	listed := make([]bool, n)
	var buf [4]uint32
	for i := range listed {
		addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
		_, sym := fl.lb.syms[addr]
		labelled := sym || i%3 == 0 && func() bool { _, ok := fl.lb.syms[addr-8]; return ok }()
		for _, l := range fl.lb.at(buf[:0], addr) {
			labelled = labelled || l&1 != 0
		}
		listed[i] = i == 0 || labelled || listed[i-1] && li.fall[i-1]
		if listed[i] && !hex {
			last = i
		}
	}
	return &lifeWriter{fl: fl, li: li, ly: ly, hex: hex, o: o, dst: dst, n: n, last: last, listed: listed, prev: -1, seen: -1}
}

// Write annotates the complete lines of p (the rest waits for its end).
func (w *lifeWriter) Write(p []byte) (int, error) {
	eachLine(&w.part, p, func(line []byte) {
		w.line(line)
		w.dst = w.o.flush(w.dst)
	})
	return len(p), nil
}

func (w *lifeWriter) put(line, cells []byte) []byte {
	dst := append(w.dst, line...)
	dst = blanks(dst, w.ly.col-len(line))
	dst = append(dst, "// "...)
	dst = append(dst, cells...)
	return append(dst, '\n')
}

func (w *lifeWriter) legendAfter(line []byte) []byte {
	w.dst = w.put(line, w.ly.rule(nil, '-'))
	for _, l := range legend {
		w.dst = w.put(nil, []byte(l))
	}
	return append(w.dst, '\n')
}

// toBare keeps the hex word of line for after the next label when it is
// one nvdisasm -plr -hex prints there: a word of code outside the blocks
// (an instruction not listed and the control words before one), and a
// pair's second hex word when a dotted rule came before it (the pair does
// not go on). nvdisasm prints them there without cells, the last one with
// blank cells when an instruction follows (the -G listings' code after
// the final EXIT, 05_floatops.O3's pairs ending in a SYNC).
func (w *lifeWriter) toBare(line []byte) bool {
	trimmed := bytes.TrimLeft(line, " ")
	var word bool
	if bytes.HasPrefix(trimmed, []byte("/* 0x")) {
		switch {
		case w.pending && w.ruled && !(w.symbol && w.prev%3 == 2):
			// (after a function's symbol, the legend: see line)
			w.pending = false
			word = true
		case w.pending || w.prev >= w.last:
		default:
			next := w.seen + 1
			word = next > w.prev && next < w.n && next <= w.last && !w.listed[next]
		}
	} else if addr, ok := isAddrLine(line); ok {
		i := int(addr/BundleSize*3 + addr%BundleSize/8 - 1)
		if i >= 0 && i < w.n && i <= w.last && !w.listed[i] {
			w.seen = max(w.seen, i)
			word = true
		}
	}
	if !word {
		return false
	}
	if k := bytes.Index(line, []byte("/* 0x")); k >= 0 && len(line) >= k+len("/* 0x0000000000000000 */") {
		w.bare = blanks(w.bare, k)
		w.bare = append(w.bare, line[k:k+len("/* 0x0000000000000000 */")]...)
		w.bare = append(w.bare, '\n')
	}
	return true
}

// flushBare writes the words toBare kept, before line: the last one with
// blank cells when line is an instruction's.
func (w *lifeWriter) flushBare(line []byte) {
	b := w.bare
	w.bare = w.bare[:0]
	if _, ok := isAddrLine(line); ok {
		k := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
		w.dst = append(w.dst, b[:k]...)
		w.dst = w.put(b[k:len(b)-1], w.ly.cells(w.cells[:0], RegSet{}, RegSet{}, RegSet{}, 0, 0, 0, true))
		return
	}
	w.dst = append(w.dst, b...)
}

// line annotates one line of the listing.
func (w *lifeWriter) line(line []byte) {
	if w.headerDue && len(line) != 0 {
		w.headerDue = false
		for _, h := range w.ly.header() {
			w.dst = w.put(nil, h)
		}
	}
	if w.hex && w.toBare(line) {
		return
	}
	if len(w.bare) > 0 && !(bytes.HasSuffix(line, []byte(":")) && line[0] != ' ') {
		w.flushBare(line)
	}
	trimmed := bytes.TrimLeft(line, " ")
	switch {
	case len(line) == 0 || bytes.HasPrefix(line, []byte("//")) || line[0] == '\t':
		w.dst = append(w.dst, line...)
		w.dst = append(w.dst, '\n')
		w.headerDue = w.headerDue || bytes.HasPrefix(line, []byte("\t.align"))
	case bytes.HasPrefix(trimmed, []byte("/* 0x")):
		switch {
		case w.pending && (w.prev >= w.last || w.prev%3 == 2):
			// after the hex word of a pair that ends its bundle
			// nvdisasm closes the table as at the end of the function
			// (and goes on without a new header)
			w.pending = false
			w.dst = w.legendAfter(line)
		case w.pending && w.label:
			// a pair's second hex word after a label: what the label shows
			w.pending = false
			w.dst = w.put(line, w.ly.liveCells(w.cells[:0], w.li, w.prev+1))
		case w.pending:
			// a pair's second hex word: what is live after the pair
			// and what the pair writes (callssy's @!P0 RET after an
			// XMAD of R5, rcp's @!P0 MUFU.RCP R4)
			w.pending = false
			w.dst = w.put(line, w.ly.ctrlCells(w.cells[:0], w.li, w.prev, w.prev-1, w.prev-1))
		case w.prev >= 0 && w.prev+1 < w.n && w.fl.closes != nil && w.fl.closes[w.prev+1]:
			// a control word inside a pair: what is live into the pair
			// (nothing inside a SLOT pair)
			if w.fl.slots != nil && w.fl.slots[w.prev+1] {
				w.dst = w.put(line, w.ly.cells(w.cells[:0], RegSet{}, RegSet{}, RegSet{}, 0, 0, 0, true))
			} else {
				w.dst = w.put(line, w.ly.liveCells(w.cells[:0], w.li, w.prev))
			}
		case w.prev >= w.last:
			// the padding's control word is not listed
		case w.prev < 0 || w.ruled:
			// (after the dotted rule: nothing goes on to it)
			w.dst = w.put(line, w.ly.cells(w.cells[:0], RegSet{}, RegSet{}, RegSet{}, 0, 0, 0, true))
		case w.label:
			// after a label: what the label shows
			w.dst = w.put(line, w.ly.liveCells(w.cells[:0], w.li, w.prev+1))
		default:
			lo, _ := w.fl.pairOf(w.prev) // the previous line shows the pair's facts
			w.dst = w.put(line, w.ly.ctrlCells(w.cells[:0], w.li, w.prev, w.prev, lo))
		}
	default:
		addr, isInst := isAddrLine(line)
		switch {
		case isInst:
			i := int(addr/BundleSize*3 + addr%BundleSize/8 - 1)
			w.seen = max(w.seen, i)
			if i < 0 || i >= w.n || i > w.last || !w.listed[i] {
				return
			}
			first, second := i, i
			if w.fl.closes != nil && w.fl.closes[i] {
				first = i - 1
				w.pending = w.hex
			} else if w.fl.closes != nil && i+1 < w.n && w.fl.closes[i+1] {
				second = i + 1
			}
			if w.fl.slots != nil && w.fl.slots[i] {
				// nvdisasm shows the facts of the first instruction
				// of the stretch (see anchor) on a SLOT 1 line
				first, second = w.fl.pairOf(w.fl.anchor(i))
			}
			w.dst = w.put(line, w.ly.instCells(w.cells[:0], w.li, first, second))
			w.prev = i
			w.ruled, w.label, w.symbol = false, false, false
		case bytes.HasSuffix(line, []byte(":")) && line[0] != ' ':
			w.label = true
			w.symbol = w.symbol || !bytes.HasPrefix(line, []byte(".L_"))
			switch {
			case w.prev < 0 || w.ruled:
				w.dst = w.put(line, w.ly.cells(w.cells[:0], RegSet{}, RegSet{}, RegSet{}, 0, 0, 0, true))
			case w.prev >= w.last && w.seen >= w.n-1:
				w.dst = w.legendAfter(line)
			case !w.li.fall[w.prev]:
				w.dst = w.put(line, w.ly.rule(nil, '.'))
				w.ruled = true
			default:
				w.dst = w.put(line, w.ly.liveCells(w.cells[:0], w.li, w.prev+1))
			}
		default: // directives
			if w.prev >= 0 && !w.ruled && !w.li.fall[w.prev] && w.prev < w.last {
				// the first line after code that does not go on is
				// the dotted rule, also when it is a function's
				// directive (the function's lines after it are blank)
				w.dst = w.put(line, w.ly.rule(nil, '.'))
				w.ruled = true
				break
			}
			w.dst = w.put(line, w.ly.cells(w.cells[:0], RegSet{}, RegSet{}, RegSet{}, 0, 0, 0, true))
		}
	}
}

// newLifeLayout sizes the column for the listed code sections: as many
// registers as the most any function has, the predicates up to the highest
// one any instruction shows.
func newLifeLayout(mode int, lists []*funcListing, infos []*lifeInfo) *lifeLayout {
	ly := &lifeLayout{mode: mode}
	for k, l := range lists {
		ly.regs = max(ly.regs, l.fn.Registers)
		for i := range infos[k].acc {
			if !infos[k].reach[i] {
				continue
			}
			p := infos[k].acc[i].PredRead | infos[k].acc[i].PredWritten
			for b := 6; b >= 0; b-- {
				if p&(1<<b) != 0 {
					ly.preds = max(ly.preds, b+1)
					break
				}
			}
		}
	}
	return ly
}

// lifeSectionListed: -plr lists only the .nv.info and constant sections
// besides the code.
func lifeSectionListed(name string) bool {
	return strings.HasPrefix(name, ".nv.info") || strings.HasPrefix(name, ".nv.constant")
}

// longestLine is the length of the longest label or directive line of a
// code section's listing (not the section's own lines, which start with a
// tab; instruction lines are already within the hex column).
func longestLine(b []byte) int {
	n := 0
	for len(b) > 0 {
		k := bytes.IndexByte(b, '\n')
		if k < 0 {
			k = len(b)
		}
		_, inst := isAddrLine(b[:k])
		if inst && bytes.HasSuffix(b[:k], []byte("   SLOT 0;")) || k > 0 && b[0] != '\t' && !bytes.HasPrefix(b, []byte("//")) && !inst && !bytes.HasPrefix(bytes.TrimLeft(b[:k], " "), []byte("/*")) {
			n = max(n, k)
		}
		b = b[min(k+1, len(b)):]
	}
	return n
}

// longestWriter measures longestLine of what is written to it.
type longestWriter struct {
	n    int
	part []byte // a line not ended yet
}

func (w *longestWriter) Write(p []byte) (int, error) {
	eachLine(&w.part, p, func(line []byte) { w.n = max(w.n, longestLine(line)) })
	return len(p), nil
}

// eachLine calls line with every line p ends (the first one completing
// *part, a line not ended before) and keeps the rest in *part.
func eachLine(part *[]byte, p []byte, line func([]byte)) {
	for {
		k := bytes.IndexByte(p, '\n')
		if k < 0 {
			break
		}
		if len(*part) > 0 {
			*part = append(*part, p[:k]...)
			line(*part)
			*part = (*part)[:0]
		} else {
			line(p[:k])
		}
		p = p[k+1:]
	}
	*part = append(*part, p...)
}

// slotPairs marks the braced pairs nvdisasm -plr prints with "SLOT 0" and
// "SLOT 1" instead of as one line pair: those whose second instruction
// writes a register, predicate or the condition code the first one reads
// or writes (measured on
// the oracle). The result is indexed like fl.insts, true at the second.
func (fl *funcListing) slotPairs() []bool {
	slots := make([]bool, len(fl.insts))
	for i := 1; i < len(fl.insts); i++ {
		if i >= len(fl.lb.closes) || !fl.lb.closes[i] || !fl.insts[i].ok || !fl.insts[i-1].ok {
			continue
		}
		a, b := fl.access(i-1), fl.access(i)
		used := a.Read.Union(a.Written)
		pused := a.PredRead | a.PredWritten
		slots[i] = !b.Written.Intersect(used).Empty() || b.PredWritten&pused != 0 || b.CC.Writes() && a.CC != 0
	}
	return slots
}

// access is the operand access of instruction i.
func (fl *funcListing) access(i int) Access {
	addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
	ops := fl.insts[i].inst.Operands(addr)
	return ops.Access()
}

// anchor is where the stretch of code holding instruction i starts, as
// nvdisasm's -plr counts stretches: at the function's entry, at a label
// and after a branch other than SYNC (not after an EXIT).
func (fl *funcListing) anchor(i int) int {
	for ; i > 0; i-- {
		addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
		var buf [4]uint32
		_, sym := fl.lb.syms[addr]
		if _, at := fl.lb.syms[addr-8]; i%3 == 0 && at {
			sym = true // a symbol at the bundle's start
		}
		if sym || len(fl.lb.at(buf[:0], addr)) > 0 {
			return i // a label or a function's symbol (sqrt_k7's callee)
		}
		if p := fl.insts[i-1]; p.ok && forms[p.inst.form].name != "SYNC" {
			if BranchFacts(p.inst, 0, nil).Kind == cfg.Jump {
				return i
			}
		}
	}
	return 0
}

// labelCounts counts the listed labels and functions' symbols: element
// i+1 is how many stand at instructions 0..i.
func (fl *funcListing) labelCounts() []int32 {
	counts := make([]int32, len(fl.insts)+1)
	var buf [4]uint32
	for m := range fl.insts {
		addr := uint64(m/3*BundleSize + 8 + 8*(m%3))
		_, sym := fl.lb.syms[addr]
		if _, at := fl.lb.syms[addr-8]; m%3 == 0 && at {
			sym = true // a symbol at the bundle's start
		}
		for _, l := range fl.lb.at(buf[:0], addr) {
			sym = sym || l&1 != 0
		}
		counts[m+1] = counts[m]
		if sym {
			counts[m+1]++
		}
	}
	return counts
}

// pairOf returns the braced pair instruction i belongs to (i, i when none).
func (fl *funcListing) pairOf(i int) (int, int) {
	switch {
	case fl.closes == nil:
	case fl.closes[i]:
		return i - 1, i
	case i+1 < len(fl.closes) && fl.closes[i+1]:
		return i, i + 1
	}
	return i, i
}

// lifeColumn is where the life-range column starts after the code
// sections' longest label or directive line (longest, usually a .size
// line): two blanks and the "// " gap after it, and, when the file has a
// SYNC, BRK or CONT annotation (note: its width, see syncNoteWidth), as far
// again as that annotation and five blanks. nvdisasm measures its
// directives as if they carried the annotation: files whose callees have
// long .size lines (the sm20 slow paths) put the column 27-36 blanks past
// the longest line, and so does a kernel without calls whose name makes
// its .size line the longest (measured on the oracle and
// testdata/plrcol; the crafted kernels there show the offset is not always
// five, see its README).
func lifeColumn(longest, note int) int {
	col := longest + 2 + 4
	if note > 0 {
		col = max(col, longest+note+5)
	}
	return col
}

// syncNoteWidth is the width of the widest (*"BRANCH_TARGETS ..."*)
// annotation of a SYNC, BRK or CONT in the section, the pair's closing
// brace included (0 without one). A BRX's list of targets does not count:
// 09_branches' four-target BRX leaves the column where the longest line
// puts it.
func (fl *funcListing) syncNoteWidth(vliw, noDataflow bool) int {
	if noDataflow {
		return 0
	}
	w := 0
	var text []byte
	for i := range fl.count() {
		inst, ok := fl.decoded(i)
		if !ok {
			continue
		}
		switch forms[inst.form].name {
		case "SYNC", "BRK", "CONT":
		default:
			continue
		}
		var ly instLayout
		text, ly = fl.appendText(text[:0], i, vliw, noDataflow)
		if ly.note != 0 && !ly.quest {
			w = max(w, len(text)-ly.note)
		}
	}
	return w
}

// hexLifeCol is the column nvdisasm -plr -hex measures its life-range
// column from (the "// " goes 28 further: past a hex comment and four
// blanks): col (the hex comments' column), but in files whose widest line
// is a braced pair's second line, which has no hex comment, it is left of
// col. Found by experiment on plrcol's callssy variants (the pair's SYNC
// under @P0 and @!P0, a plain line widened one character at a time to
// move noteCol from 76 to 94) and fitting the oracle and line-info
// listings. Of the braced lines that reach col - 1: for the first with a
// (*"BRANCH_TARGETS ..."*) annotation (w wide with its brace), noteCol +
// w - 2 + (noteCol - 82 when positive), less its guard's length; else for
// the first without one (17_texsurf.O3's TXQ, 12_warp.O3's SLOT 1 lines),
// noteCol + (noteCol - 90 when positive) less its guard. Never past col.
func hexLifeCol(lists []*funcListing, noteCol, col int, vliw, noDataflow bool) int {
	plain := -1
	var text []byte
	for _, l := range lists {
		for i := range l.count() {
			if i >= len(l.lb.closes) || !l.lb.closes[i] {
				continue
			}
			var ly instLayout
			text, ly = l.appendText(text[:0], i, vliw, noDataflow)
			width := 8 + 19 + addrLen(uint64(i/3*BundleSize+8+8*(i%3))) + len(text) - ly.lead
			if ly.note != 0 {
				width = noteCol + len(text) - ly.note
			}
			switch {
			case ly.hidden || ly.quest || width < col-1:
				// not the widest line (09_branches.O3's BRX list is)
			case ly.note != 0:
				return min(col, noteCol+len(text)-ly.note-2+max(0, noteCol-82)-ly.lead)
			case plain < 0:
				plain = min(col, noteCol+max(0, noteCol-90)-ly.lead)
			}
		}
	}
	if plain >= 0 {
		return plain
	}
	return col
}
