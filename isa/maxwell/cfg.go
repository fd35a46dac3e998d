package maxwell

import (
	"cmp"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/cfg"
)

// CFGOptions selects the control-flow graph ControlFlowDOT prints.
type CFGOptions struct {
	BasicBlocks bool // one node per basic block (nvdisasm -bbcfg), else per hyperblock (-cfg)
	Offsets     bool // instruction offsets in the nodes (-poff)
	List        ListOptions
}

// guardPT is the guard field value that means "always" (prints nothing).
const guardPT = 7

// BranchFacts returns the cfg facts of a decoded instruction at addr:
// indirect lists the targets nvdisasm's dataflow found for SYNC, BRK, CONT
// and BRX (EIATTR_INDIRECT_BRANCH_TARGETS); a BRX without them ends its
// block with no known successor.
func BranchFacts(inst Inst, addr uint64, indirect []uint64) cfg.Inst {
	in := cfg.Inst{Addr: addr}
	f := &forms[inst.form]
	in.Cond = f.attrs&attrNoGuard == 0 && inst.Word>>16&0xf != guardPT
	switch f.name {
	case "BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "KIL", "BRK", "CONT", "SYNC":
		// a condition-code test (BRA CC.EQ, ...) in bits 0-4; 0xf is T
		in.Cond = in.Cond || inst.Word&0x1f != 0xf
	}
	switch f.name {
	case "BRA":
		if t, ok := relTarget(inst, addr); ok {
			in.Kind, in.Targets = cfg.Jump, []uint64{t}
		}
	case "SYNC", "BRK", "CONT", "BRX", "JMX":
		if f.name == "JMX" {
			in.Kind = cfg.Call
			break
		}
		in.Kind, in.Targets = cfg.Jump, append([]uint64(nil), indirect...)
		in.Opaque = len(indirect) == 0
	case "EXIT", "RET", "KIL":
		// an unconditional KIL ends its thread: nvdisasm's graphs end
		// its block there, with nothing after it
		in.Kind = cfg.Exit
	case "CAL", "JCAL":
		in.Kind = cfg.Call
	}
	for k, t := range in.Targets {
		if t%BundleSize == 0 {
			in.Targets[k] = t + 8 // a control word's address means the instruction after it
		}
	}
	return in
}

// functionGraph is the cfg of one function symbol and the text of its
// section's instructions as the graph shows them.
type functionGraph struct {
	fl   *funcListing
	sym  *symAt // nil: the section has no function symbol at 0
	g    *cfg.Graph
	opts CFGOptions
	// pair[i]: what instruction i, the second of a braced pair opened by
	// a branch, is in the graph (cfgInsts)
	pair []pairRole
}

// pairRole is what the second of a braced pair whose first is a branch
// (patched code: { KIL ; S2R }) is in nvdisasm's graphs.
type pairRole uint8

const (
	pairPlain   pairRole = iota
	pairExit             // -bbcfg: the block ends here, its exit port before the pair
	pairDeadEnd          // -cfg: a block after the exit with no successor
)

// graphs makes the cfg of every function symbol of the section, by address.
func (fl *funcListing) graphs(opts CFGOptions) []*functionGraph {
	insts, pair := fl.cfgInsts(opts.BasicBlocks)
	var syms []*symAt
	for k := range fl.syms {
		syms = append(syms, &fl.syms[k])
	}
	slices.SortStableFunc(syms, func(a, b *symAt) int { return cmp.Compare(a.addr, b.addr) })
	if len(syms) == 0 || syms[0].addr != 0 {
		syms = append([]*symAt{nil}, syms...)
	}
	// instruction i lies at i/3*BundleSize + 8 + 8*(i%3) (no map: a large
	// function has millions)
	// (a damaged symbol table may put a function at an address that is
	// no instruction's: such a function has no graph)
	index := func(addr uint64) (int, bool) {
		if addr%BundleSize == 0 || addr%8 != 0 || addr/BundleSize >= uint64(len(insts)) {
			return 0, false
		}
		i := int(addr/BundleSize*3 + addr%BundleSize/8 - 1)
		return i, i < len(insts)
	}
	for _, s := range syms {
		if s != nil {
			a := s.addr
			if a%BundleSize == 0 {
				a += 8
			}
			if i, ok := index(a); ok {
				insts[i].Leader = true
			}
		}
	}
	var out []*functionGraph
	for _, s := range syms {
		entry := 0
		if s != nil {
			a := s.addr
			if a%BundleSize == 0 {
				a += 8
			}
			var ok bool
			if entry, ok = index(a); !ok {
				continue
			}
		}
		out = append(out, &functionGraph{fl: fl, sym: s, g: cfg.Build(insts, entry, fl.indirectRoots(s, syms, index)...), opts: opts, pair: pair})
	}
	return out
}

// indirectRoots returns the instructions within function symbol s (nil:
// the code before the first) that EIATTR_INDIRECT_BRANCH_TARGETS lists as
// targets: nvdisasm's graphs also hold what they reach, reached from the
// entry or not (code after a KIL patched in).
func (fl *funcListing) indirectRoots(s *symAt, syms []*symAt, index func(uint64) (int, bool)) []int {
	// its code: up to its size or the next symbol (the helpers ptxas
	// appends to a kernel, $kernel$__cuda_sm20_rcp_rn_f32_slowpath and
	// so on, lie within the kernel's size and have graphs of their own)
	lo, hi := uint64(0), uint64(math.MaxUint64)
	if s != nil {
		lo, hi = s.addr, s.addr+s.s.Size
	}
	for _, o := range syms {
		if o != nil && o.addr > lo && o.addr < hi {
			hi = o.addr
		}
	}
	var roots []int
	for _, targets := range fl.lb.indir {
		for _, t := range targets {
			if t%BundleSize == 0 {
				t += 8 // a control word's address means the instruction after it
			}
			if i, ok := index(t); ok && t >= lo && t < hi {
				roots = append(roots, i)
			}
		}
	}
	slices.Sort(roots) // (the map's order is random; the graph is not)
	return roots
}

// cfgInsts returns the branch facts of the section's instructions, for
// basic blocks (-bbcfg) or hyperblocks (-cfg), and the roles of the
// seconds of pairs opened by a branch (functionGraph.pair).
func (fl *funcListing) cfgInsts(basic bool) ([]cfg.Inst, []pairRole) {
	insts := make([]cfg.Inst, len(fl.insts))
	for i := range fl.insts {
		addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
		if fl.insts[i].ok {
			insts[i] = BranchFacts(fl.insts[i].inst, addr, fl.lb.indir[addr])
			if fl.indirectCall(i, fl.insts[i].inst) {
				// a BRX without listed targets is a call, as JMX is
				insts[i].Kind, insts[i].Targets, insts[i].Opaque = cfg.Call, nil, false
			}
		} else {
			insts[i] = cfg.Inst{Addr: addr}
		}
		insts[i].Leader = len(fl.lb.shownAt(addr)) > 0
	}
	// a branch opening a braced pair ({ @P0 KIL ; S2R }: patched code):
	// -bbcfg keeps the pair in one block, which ends after it, its exit
	// port at the branch; -cfg ends the block at the branch and draws the
	// pair's second after it, going on only when the branch may
	var pair []pairRole
	for i := 0; i+1 < len(insts) && i+1 < len(fl.closes); i++ {
		a, b := &insts[i], &insts[i+1]
		if !fl.closes[i+1] || !endsGraphBlock(a) || endsGraphBlock(b) || a.Opaque && !basic {
			continue
		}
		if pair == nil {
			pair = make([]pairRole, len(insts))
		}
		if basic {
			b.Kind, b.Cond, b.Targets, b.Opaque = a.Kind, a.Cond, a.Targets, a.Opaque
			a.Kind, a.Cond, a.Targets, a.Opaque = cfg.Next, false, nil, false
			pair[i+1] = pairExit
		} else if !a.Cond {
			a.Cond = true                     // reaches the second...
			b.Kind, b.Targets = cfg.Jump, nil // ...which goes nowhere
			pair[i+1] = pairDeadEnd
		}
	}
	return insts, pair
}

// endsGraphBlock reports a branch, exit or unknown jump: what ends a block.
func endsGraphBlock(in *cfg.Inst) bool {
	return in.Kind == cfg.Jump || in.Kind == cfg.Exit || in.Opaque
}

// pairRole returns instruction i's role as the second of a pair.
func (fg *functionGraph) pairRole(i int) pairRole {
	if i < len(fg.pair) {
		return fg.pair[i]
	}
	return pairPlain
}

// exitBefore reports whether instruction i took the facts of the branch
// opening its pair (pairExit).
func (fg *functionGraph) exitBefore(i int) bool { return fg.pairRole(i) == pairExit }

// line is the graph text of instruction i, before escaping: the listing's
// guard, body, annotation and pair braces (made when printed, not held: a
// large function has millions).
func (fg *functionGraph) line(i int) string {
	fl, opts := fg.fl, fg.opts
	start := 0
	if i > 0 {
		start = fl.ends[i-1]
	}
	t := string(fl.text[start:fl.ends[i]])
	addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
	closes := fl.closes[i]
	if closes {
		t = strings.TrimRight(strings.TrimSuffix(t, "        }"), " ")
	}
	note := ""
	if k := fl.notes[i]; k != 0 && k <= len(t) {
		t, note = t[:k], t[k:]
	}
	prefix := "  "
	if i+1 < len(fl.insts) && fl.closes[i+1] {
		prefix = "{ "
	}
	line := prefix + t
	if note != "" {
		line += "  " + note
	}
	if closes {
		if note == "" {
			line += " "
		}
		line += "}"
	}
	if opts.Offsets {
		if closes && opts.BasicBlocks {
			// -bbcfg blanks the second of a pair (nvdisasm's width, not
			// the offset's); -cfg gives it its own offset
			line = "         " + line
		} else {
			line = strconv.FormatUint(addr|0x10000, 16)[1:] + ": " + line
		}
	}
	return line
}

// ControlFlowDOT appends what nvdisasm -cfg (or -bbcfg) prints for an sm_5x
// cubin: one DOT cluster per function, its blocks as record nodes holding
// the instructions, edges from each block's exit to its successors.
func ControlFlowDOT(dst []byte, f *cubin.File, opts CFGOptions) ([]byte, []*isa.DecodeError) {
	w := appendWriter{b: dst}
	errs, _ := WriteControlFlowDOT(&w, f, opts)
	return w.b, errs
}

// WriteControlFlowDOT writes what ControlFlowDOT appends, one function's
// graph at a time: what stays in memory is the cubin, one function's
// listing and graph, and the text of one graph node. When an instruction
// does not decode it writes nothing and returns the decoding errors.
func WriteControlFlowDOT(w io.Writer, f *cubin.File, opts CFGOptions) ([]*isa.DecodeError, error) {
	lists, _, errs := labelFunctions(f, opts.List, false)
	if len(errs) > 0 {
		return errs, nil
	}
	if _, err := io.WriteString(w, "digraph f {\n"); err != nil {
		return nil, err
	}
	bb := 0
	var buf []byte
	for _, fl := range lists {
		fl.texts(opts.List.VLIW, opts.List.NoDataflow)
		for _, fg := range fl.graphs(opts) {
			buf = fg.appendDOT(buf[:0], &bb, !opts.BasicBlocks, w)
			if _, err := w.Write(buf); err != nil {
				return nil, err
			}
		}
		fl.release() // the listing text and decoded words of a done function
	}
	_, err := io.WriteString(w, "}\n")
	return nil, err
}

// appendDOT appends one function's cluster; bb numbers unlabeled blocks
// across the file.
func (fg *functionGraph) appendDOT(dst []byte, bb *int, hyper bool, w io.Writer) []byte {
	fl, g := fg.fl, fg.g
	name := fl.fn.Name
	if fg.sym != nil {
		name = fg.sym.s.Name
	}
	dst = append(dst, "subgraph \"cluster_"+name+"\" {\n"...)
	var groups []cfg.Hyperblock
	if hyper {
		groups = g.Hyperblocks()
	} else {
		for k := range g.Blocks {
			groups = append(groups, cfg.Hyperblock{Blocks: []int{k}})
		}
	}
	// node names: the function for the entry, a label, or BBn
	nodeOf := make([]string, len(g.Blocks))
	groupOf := make([]int, len(g.Blocks))
	for gi, h := range groups {
		first := g.Blocks[h.Blocks[0]].Start
		addr := g.Insts[first].Addr
		switch {
		case len(fl.lb.shownAt(addr)) > 0:
			nodeOf[h.Blocks[0]] = ".L_x_" + strconv.Itoa(fl.lb.shownAt(addr)[0])
		case addr == fg.entryAddr() && fg.localAtStart():
			nodeOf[h.Blocks[0]] = ".text." + fl.fn.Name // the section label comes first
		case addr == fg.entryAddr():
			nodeOf[h.Blocks[0]] = name
		default:
			nodeOf[h.Blocks[0]] = "BB" + strconv.Itoa(*bb)
			*bb++
		}
		for _, k := range h.Blocks {
			groupOf[k] = gi
			nodeOf[k] = nodeOf[h.Blocks[0]]
		}
	}
	for _, h := range groups {
		node := nodeOf[h.Blocks[0]]
		dst = append(dst, "node [fontname=\"Courier\",fontsize=10,shape=Mrecord];\n\""+node+"\"\n[label=\"{<entry>"...)
		if a := g.Insts[g.Blocks[h.Blocks[0]].Start].Addr; a == fg.entryAddr() {
			for _, lbl := range fl.lb.shownAt(a) {
				dst = append(dst, dotEscape(".L_x_"+strconv.Itoa(lbl)+":\n")...)
			}
			dst = append(dst, dotEscape(fg.header(name))...)
		}
		type edgeOut struct {
			port string
			e    cfg.Edge
		}
		var edges []edgeOut
		for n, k := range h.Blocks {
			b := &g.Blocks[k]
			// a later block opens its own field, unless its first instruction
			// is its exit, which has one
			last := &g.Insts[b.End-1]
			exits := endsGraphBlock(last) && fg.pairRole(b.End-1) != pairDeadEnd
			if n > 0 && !(exits && (b.End-b.Start == 1 || b.End-b.Start == 2 && fg.exitBefore(b.End-1))) {
				dst = append(dst, "|<exitpost"+strconv.Itoa(n-1)+">"...)
			}
			for i := b.Start; i < b.End; i++ {
				if fl.hidden[i] {
					continue // a zero word the listing shows only in hex
				}
				addr := g.Insts[i].Addr
				if i == b.Start && addr != fg.entryAddr() {
					for _, lbl := range fl.lb.shownAt(addr) {
						dst = append(dst, dotEscape(".L_x_"+strconv.Itoa(lbl)+":\n")...)
					}
				}
				if exits && (i == b.End-1 && !fg.exitBefore(i) || i == b.End-2 && fg.exitBefore(i+1)) {
					dst = append(dst, "|<exit"+strconv.Itoa(n)+">"...)
				}
				dst = append(dst, dotEscape(fg.line(i)+"\n")...)
			}
			port := "entry"
			if n > 0 {
				port = "exitpost" + strconv.Itoa(n-1)
			}
			if last.Kind == cfg.Jump || last.Kind == cfg.Exit || last.Opaque {
				port = "exit" + strconv.Itoa(n)
			}
			for _, e := range b.Succs {
				if hyper && e.Fall && groupOf[e.To] == groupOf[k] {
					continue // inside the hyperblock
				}
				edges = append(edges, edgeOut{port, e})
			}
		}
		dst = append(dst, "}\"]\n"...)
		for _, eo := range edges {
			side := "e"
			if eo.e.Fall {
				side = "s"
			}
			dst = append(dst, "\""+node+"\":"+eo.port+":"+side+" -> \""+nodeOf[eo.e.To]+"\":entry:n [style=solid];\n"...)
		}
		if w != nil && len(dst) >= 1<<16 {
			// a node at a time: a large function's graph is not held whole
			if _, err := w.Write(dst); err != nil {
				return dst[:0]
			}
			dst = dst[:0]
		}
	}
	return append(dst, "}\n"...)
}

func (fg *functionGraph) entryAddr() uint64 {
	if fg.sym == nil || fg.sym.addr%BundleSize == 0 {
		if fg.sym == nil {
			return 8
		}
		return fg.sym.addr + 8
	}
	return fg.sym.addr
}

// header is the function's directives at the top of its entry node.
func (fg *functionGraph) header(name string) string {
	var b strings.Builder
	lb := fg.fl.lb
	if fg.localAtStart() {
		b.WriteString(".text." + fg.fl.fn.Name + ":\n")
	}
	end := ".L_x_" + strconv.Itoa(lb.endLbl)
	if fg.sym != nil {
		if e := fg.sym.addr + fg.sym.s.Size; lb.syms[e] != "" && e%BundleSize != 0 {
			end = lb.syms[e]
		} else if e < lb.size {
			end = ".L_x_" + strconv.Itoa(lb.first(lb.key(e)))
		}
		sym := &fg.sym.s
		switch sym.Bind() {
		case 1:
			b.WriteString("\t.global\t\t" + name + "\n")
		case 2:
			b.WriteString("\t.weak\t\t" + name + "\n")
		}
		b.WriteString("\t.type\t\t" + name + ",@function\n")
		b.WriteString("\t.size\t\t" + name + ",(" + end + " - " + name + ")\n")
		if sym.Other&0x10 != 0 {
			b.WriteString("\t.other\t\t" + name + ",<no object>\n")
		}
		b.WriteString(name + ":\n")
	}
	if fg.sym == nil || fg.sym.addr == 0 && !fg.localAtStart() {
		b.WriteString(".text." + fg.fl.fn.Name + ":\n")
	}
	return b.String()
}

// localAtStart: a local or weak function at the start of its section, whose
// section label the listing puts before the function's directives.
func (fg *functionGraph) localAtStart() bool {
	return fg.sym != nil && fg.sym.addr == 0 && fg.sym.s.Bind() != 1
}

// dotEscape escapes text for a DOT record label: blanks and the record
// metacharacters get a backslash, line ends become \l.
func dotEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			b.WriteString(`\l`)
		case ' ', '[', ']', '{', '}', '<', '>', '|', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Graphs returns the control-flow graph of every function of an sm_5x
// cubin (basic blocks), with the listing text of each instruction, for
// package cfg's renderers.
func Graphs(f *cubin.File, opts ListOptions) ([]cfg.Function, []*isa.DecodeError) {
	lists, _, errs := labelFunctions(f, opts, false)
	var out []cfg.Function
	for _, fl := range lists {
		fl.texts(opts.VLIW, opts.NoDataflow)
		for _, fg := range fl.graphs(CFGOptions{BasicBlocks: true, List: opts}) {
			name := fl.fn.Name
			if fg.sym != nil {
				name = fg.sym.s.Name
			}
			lines := make([]string, len(fl.insts))
			for i := range lines {
				lines[i] = strings.TrimSpace(fg.line(i))
			}
			out = append(out, cfg.Function{Name: name, Graph: fg.g, Lines: lines})
		}
	}
	return out, errs
}

// release drops what texts and the decoding kept of a function whose
// graphs are written.
func (fl *funcListing) release() {
	fl.insts, fl.text, fl.ends, fl.leads, fl.notes, fl.closes, fl.quests, fl.hidden = nil, nil, nil, nil, nil, nil, nil, nil
}
