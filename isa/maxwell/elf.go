package maxwell

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa"
)

// ListOptions selects variants of the ELF-mode listing.
type ListOptions struct {
	// NoHex leaves out the /* 0x... */ columns and the control-word lines,
	// as plain `nvdisasm file.cubin` does. The default is `nvdisasm -hex
	// -novliw`.
	NoHex bool
	// NVN adds comments naming constant banks and attribute addresses
	// (see AnnotateNVN).
	NVN bool
	// VLIW braces dual-issued pairs as nvdisasm does without -novliw: an
	// instruction whose control field has stall 0 and the yield bit set opens
	// "{" with the next one, which loses its ';', closes with "}" and has its
	// hex comment on a line of its own.
	VLIW bool

	// CodeOnly lists the code sections only (nvdisasm -c).
	CodeOnly bool
	// SeparateFunctions puts four blank lines before every function
	// symbol's directives (nvdisasm -sf).
	SeparateFunctions bool
	// NoDataflow leaves out the (*"BRANCH_TARGETS ..."*) and
	// (*"INDIRECT_CALL"*) annotations (nvdisasm -ndf).
	NoDataflow bool
	// NoDataflowSections leaves them out of these code sections only (by
	// section index): nvdisasm gives up its dataflow analysis for a
	// function where it warns of an unresolved indirect branch, and keeps
	// it for the others.
	NoDataflowSections map[int]bool
	// Raw lists as nvdisasm -raw: guards do not hang left of the mnemonic,
	// annotations follow the text after ten blanks, no hex comments, no
	// line info, and tabs are expanded to 8-column stops.
	Raw bool
	// Sections, when not nil, lists only these code sections (by section
	// index), numbering labels among them alone (nvdisasm -fun).
	Sections map[int]bool
	// LineInfo annotates instructions with their source lines from
	// .debug_line: LineInfoFile (nvdisasm -g) or LineInfoInline (-gi).
	LineInfo int
	// LifeRanges adds nvdisasm -plr's register life-range column to the
	// code sections (LifeRangesWide, LifeRangesNarrow or LifeRangesCount,
	// -lrm's modes) and lists no other sections than .nv.info and the
	// constant banks.
	LifeRanges int
}

// noDataflow says section sec is listed without the dataflow annotations.
func (o *ListOptions) noDataflow(sec int) bool { return o.NoDataflow || o.NoDataflowSections[sec] }

// Values of ListOptions.LineInfo.
const (
	LineInfoNone   = iota
	LineInfoFile   // -g: "//## File "f", line N"
	LineInfoInline // -gi: also "inlined at" lines
	LineInfoPTX    // -gp: PTX lines, from .nv_debug_line_sass
)

// opensPair: stall 0 with the yield bit set marks the first instruction of a
// dual-issued pair (nvdisasm's braces; 1,476 pairs in the oracle cubins, no
// exception).
func opensPair(c Ctrl) bool { return c&0x1f == 0x10 }

// ListCubin appends what `nvdisasm -hex -novliw file.cubin` prints for an
// sm_5x cubin: the .headerflags and .elftype lines, then every section in file
// order. Code sections (.text.<name>) carry their section directives, the
// function symbols (.global/.weak/.type/.size/.other), labels at branch
// targets (.L_x_N, numbered as nvdisasm numbers them: direct targets in code
// order, then the EIATTR_INDIRECT_BRANCH_TARGETS entries, then one per
// function end), branch operands printed as those labels or as the functions
// they call, relocated operands by symbol (`(sym), 32@lo(sym), c[`(sym)]) and
// (*"BRANCH_TARGETS ..."*) / (*"INDIRECT_CALL"*) annotations. Data sections
// (.nv.info*, .nv.constant*, .nv.rel.action, .nv.shared*, .nv.callgraph,
// .nv.prototype) list their EIATTR records, object symbols and bytes with
// nvdisasm's .L_N labels; a SYMBOLS section lists undefined symbols.
//
// All 110 oracle cubins list byte for byte as nvdisasm does. Record kinds the
// oracle does not show fall back to plain .word/.byte lines.
func ListCubin(dst []byte, f *cubin.File, opts ListOptions) ([]byte, []*isa.DecodeError) {
	w := &appendWriter{b: dst}
	var errs []*isa.DecodeError
	WriteCubin(w, f, opts, func(e *isa.DecodeError) { errs = append(errs, e) })
	return w.b, errs
}

// WriteCubin writes ListCubin's listing to w as it is made, a piece of
// outChunk bytes at a time, and calls onErr (when not nil) with every
// encoding that does not decode, in address order, before the listing of
// its function is written. Memory is what the labels take and the listing
// of one function for -plr (LifeRanges), not the listing: every
// instruction is decoded and printed once to lay out the columns and again
// to write it. It returns the first error of w.
func WriteCubin(w io.Writer, f *cubin.File, opts ListOptions, onErr func(*isa.DecodeError)) error {
	if opts.NVN {
		nvn := NewNVNWriter(w)
		opts.NVN = false
		err := WriteCubin(nvn, f, opts, onErr)
		if cerr := nvn.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if onErr == nil {
		onErr = func(*isa.DecodeError) {}
	}
	if opts.Raw {
		opts.NoHex = true // -raw has no hex comments and no line info
		opts.LineInfo = LineInfoNone
		w = &tabExpander{w: w}
	}
	o := &listOut{w: w}
	dst := make([]byte, 0, outChunk+outChunk/4)
	dst = append(dst, "\t.headerflags\t@\""...)
	dst = append(dst, cubin.HeaderFlags(f.Flags)...)
	dst = append(dst, "\"\n\t.elftype\t@\""...)
	if f.Type == cubin.ETRel {
		dst = append(dst, "ET_REL"...)
	} else {
		dst = append(dst, "ET_EXEC"...)
	}
	dst = append(dst, "\"\n"...)
	// -plr's liveness needs every decoded instruction; the plain listing
	// decodes them again as it goes
	lifeRanges := opts.LifeRanges != LifeRangesNone
	lists, bySection := labelFuncs(f, opts, !lifeRanges, lifeRanges, onErr)
	// one layout for the whole file: annotations start after the widest
	// plain line, hex comments two blanks after it or one after the longest
	// annotated line
	plain, annot, far := 0, 0, 0
	for _, l := range lists {
		if opts.LifeRanges != LifeRangesNone && opts.VLIW {
			l.slots = l.slotPairs()
		}
		p, a, q := l.widths(opts.VLIW, opts.noDataflow(l.fn.Section))
		plain, annot, far = max(plain, p), max(annot, a), max(far, q)
	}
	noteCol := 8 + 19 + max(plain, far)
	col := noteCol + 2
	if annot > 0 {
		col = max(col, noteCol+annot+1)
	}
	var lifeLy *lifeLayout
	lifeOf := map[*funcListing]*lifeInfo{}
	if lifeRanges {
		infos := make([]*lifeInfo, len(lists))
		for k, l := range lists {
			l.closes = l.lb.closes // withLifeRanges reads the braced pairs
			infos[k] = l.lifeRanges()
			lifeOf[l] = infos[k]
		}
		lifeLy = newLifeLayout(opts.LifeRanges, lists, infos)
		lifeLy.col = col + 4
		if !opts.NoHex {
			lifeLy.col = hexLifeCol(lists, noteCol, col, opts.VLIW, opts.NoDataflow) + 4 + len("/* 0x0000000000000000 */")
		}
	}
	// every section in file order: code as above, data as nvdisasm lays it out
	textOf := map[int]*funcListing{}
	infoOf := map[string]*funcListing{}
	for _, l := range lists {
		textOf[l.fn.Section] = l
		infoOf[".nv.info."+l.fn.Name] = l
	}
	dl := &dataLister{f: f, out: o, xlabel: func(sec int, addr uint64) string {
		l := infoOf[f.Sections[sec].Name]
		if l == nil {
			return fmt.Sprintf("0x%08x", addr) // the code is not listed (-fun)
		}
		name := ".L_x_" + strconv.Itoa(l.lb.first(l.lb.key(addr))) + "@srel"
		if off := l.lb.pairOffset(addr); off != 0 {
			return fmt.Sprintf("(%s + %#x)", name, off) // inside a braced pair
		}
		return name
	}}
	dl.codeAddr = func(sym uint32, addend int64) string {
		if int(sym) >= len(f.Symbols) { // a damaged relocation
			return fmt.Sprintf("(%d + %#x)", sym, addend)
		}
		s := f.Symbols[sym]
		l := bySection[int(s.Section)]
		if l == nil {
			return fmt.Sprintf("(%s + %#x)", s.Name, addend)
		}
		a := s.Value + uint64(addend)
		text := "(" + s.Name + " + .L_x_" + strconv.Itoa(l.lb.first(l.lb.key(a))) + "@srel)"
		if a == l.lb.size {
			return "(" + text + " + 0x8)" // nvdisasm counts the end label 8 bytes early
		}
		if off := l.lb.pairOffset(a); off != 0 {
			return fmt.Sprintf("(%s + %#x)", text, off)
		}
		return text
	}
	if lifeLy != nil {
		dl.hidden = func(sec int) bool {
			return sec < len(f.Sections) && textOf[sec] == nil && !lifeSectionListed(f.Sections[sec].Name)
		}
	}
	dl.endLabels()
	var section []byte // -plr: one code section's listing at a time
	if lifeLy != nil {
		// the column starts after the longest line of the code sections,
		// directives and labels included
		longest, note := 0, 0
		for _, l := range lists {
			lw := &longestWriter{}
			lo := &listOut{w: lw}
			section = l.list(section[:0], opts, noteCol, col, lo)
			lo.end(section)
			longest = max(longest, lw.n, longestLine(lw.part))
			note = max(note, l.syncNoteWidth(opts.VLIW, opts.noDataflow(l.fn.Section)))
		}
		lifeLy.col = max(lifeLy.col, lifeColumn(longest, note))
	}
	for i := range f.Sections {
		switch l := textOf[i]; {
		case l != nil && lifeLy != nil:
			// the listing is annotated and written as it is made
			lw := l.newLifeWriter(dst, lifeOf[l], lifeLy, !opts.NoHex, o)
			lo := &listOut{w: lw}
			lo.end(l.list(section[:0], opts, noteCol, col, lo))
			dst = append(lw.dst, lw.bare...) // words no label came after (-hex)
			delete(lifeOf, l)                // listed: its liveness is no longer needed
		case l != nil:
			dst = l.list(dst, opts, noteCol, col, o)
		case lifeLy != nil && !lifeSectionListed(f.Sections[i].Name):
		case listable(&f.Sections[i]) && !opts.CodeOnly && f.Sections[i].Flags&cubin.SHFExecInstr == 0:
			dst = dl.listData(dst, i)
		}
		dst = o.flush(dst)
	}
	dst = dl.listSymbols(dst)
	return o.end(dst)
}

// outChunk is how much listing WriteCubin gathers before writing it.
const outChunk = 64 << 10

// listOut is where a streamed listing goes: pieces are appended to a
// buffer, which flush writes to w once it holds outChunk bytes.
type listOut struct {
	w   io.Writer
	err error
}

// flush writes dst when it holds outChunk bytes or more and returns it
// emptied (then dst's room is used again); a nil o keeps everything.
func (o *listOut) flush(dst []byte) []byte {
	if o == nil || len(dst) < outChunk {
		return dst
	}
	return o.write(dst)
}

func (o *listOut) write(dst []byte) []byte {
	if o.err == nil && len(dst) > 0 {
		_, o.err = o.w.Write(dst)
	}
	return dst[:0]
}

// end writes what is left and returns the first write error.
func (o *listOut) end(dst []byte) error {
	o.write(dst)
	return o.err
}

// appendWriter appends what is written to b (ListCubin's WriteCubin).
type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// tabExpander replaces every tab by the blanks up to the next multiple of
// 8 columns, as nvdisasm -raw prints, on the way to w.
type tabExpander struct {
	w   io.Writer
	col int
	buf []byte
}

func (t *tabExpander) Write(b []byte) (int, error) {
	out := t.buf[:0]
	for _, c := range b {
		switch c {
		case '\t':
			n := 8 - t.col%8
			out = append(out, spaces[:n]...)
			t.col += n
		case '\n':
			out = append(out, c)
			t.col = 0
		default:
			out = append(out, c)
			t.col++
		}
	}
	t.buf = out
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// labelFunctions decodes the code sections opts selects and numbers their
// labels as nvdisasm does, all functions together: direct branch targets
// first, then the code addresses of the debug sections, the indirect-branch
// tables, the line-info comments and the end labels.
//
// withDebug: the debug sections' labels are numbered (the listing shows
// those sections; the control-flow graphs do not). The functions keep their
// decoded instructions (funcListing.insts).
func labelFunctions(f *cubin.File, opts ListOptions, withDebug bool) (lists []*funcListing, bySection map[int]*funcListing, errs []*isa.DecodeError) {
	lists, bySection = labelFuncs(f, opts, withDebug, true, func(e *isa.DecodeError) { errs = append(errs, e) })
	return lists, bySection, errs
}

// labelFuncs is labelFunctions that keeps the decoded instructions only
// when keep is set (they take three times the code) and passes the decode
// errors to onErr as it finds them.
func labelFuncs(f *cubin.File, opts ListOptions, withDebug, keep bool, onErr func(*isa.DecodeError)) (lists []*funcListing, bySection map[int]*funcListing) {
	sm := f.SM()
	// nvdisasm numbers the labels of all functions together: direct branch
	// targets first, then the indirect-branch tables, then the end labels
	next := 0
	for i := range f.Functions {
		if opts.Sections != nil && !opts.Sections[f.Functions[i].Section] {
			continue
		}
		lists = append(lists, newFuncListing(f, &f.Functions[i], sm, &next, opts.VLIW, keep, onErr))
	}
	bySection = map[int]*funcListing{}
	for _, l := range lists {
		bySection[l.fn.Section] = l
	}
	// the 64-bit code addresses of the debug sections (DWARF ranges, line
	// tables) name labels, in section and offset order
	debugLabels := map[*funcListing]map[uint64]bool{}
	for i := range f.Sections {
		if !withDebug || !listable(&f.Sections[i]) || f.Sections[i].Flags&cubin.SHFExecInstr != 0 {
			continue
		}
		rels := sectionRelocs(f, i)
		slices.SortStableFunc(rels, func(a, b cubin.Reloc) int { return cmp.Compare(a.Offset, b.Offset) })
		for _, r := range rels {
			if r.Type != relocR64 || r.Addend == 0 || int(r.Symbol) >= len(f.Symbols) {
				continue
			}
			s := f.Symbols[r.Symbol]
			l := bySection[int(s.Section)]
			if l == nil {
				continue
			}
			a := s.Value + uint64(r.Addend)
			if !l.lb.has(l.lb.key(a)) {
				l.lb.add(a, showAlways)
				if debugLabels[l] == nil {
					debugLabels[l] = map[uint64]bool{}
				}
				debugLabels[l][a] = true
			}
		}
	}
	// one label at the end of every function symbol, in symbol-table order
	// across sections, named by the symbol found there if any
	for _, l := range lists {
		l.indirect()
	}
	if opts.LineInfo != LineInfoNone {
		// a damaged line table gives what it has: nvdisasm warns and goes on
		rows, _ := LineTable(f)
		if opts.LineInfo == LineInfoPTX {
			rows, _ = PTXLineTable(f)
		}
		for _, l := range lists {
			for a, note := range lineNotes(rows, l.fn.Section, opts.LineInfo == LineInfoInline) {
				if l.lb.lines == nil {
					l.lb.lines = map[uint64][]byte{}
				}
				l.lb.lines[a] = note
			}
		}
	}
	ends := map[*funcListing]map[uint64]bool{}
	for _, s := range f.Symbols {
		l := bySection[int(s.Section)]
		if l == nil || s.Type() != 2 {
			continue
		}
		if ends[l] == nil {
			ends[l] = map[uint64]bool{}
		}
		end := s.Value + s.Size
		if ends[l][end] {
			continue
		}
		ends[l][end] = true
		// a symbol at a control word does not name that address; a label a
		// debug section or a branch made keeps its number and the end
		// label takes a hidden one (nvdisasm 11.8, patched cubins)
		show := showAlways
		if l.lb.syms[end] != "" && end%BundleSize != 0 || debugLabels[l][end] || l.lb.has(l.lb.key(end)) {
			show = showNever
		}
		l.lb.add(end, show)
	}
	for _, l := range lists {
		if !ends[l][uint64(len(l.fn.Code))] && !debugLabels[l][uint64(len(l.fn.Code))] {
			l.lb.add(uint64(len(l.fn.Code)), showAlways)
		}
	}
	for _, l := range lists {
		l.lb.finish()
		l.lb.endLbl = l.lb.first(l.lb.key(uint64(len(l.fn.Code))))
	}
	return lists, bySection
}

// sectionRule appends nvdisasm's "//----- name -----" line.
func sectionRule(dst []byte, name string) []byte {
	dst = append(dst, "\n\n//--------------------- "...)
	dst = append(dst, name...)
	dst = blanks(dst, 25-len(name))
	return append(dst, " --------------------------\n"...)
}

// labeled is one instruction of a function being listed.
type labeled struct {
	inst Inst
	ok   bool
}

// funcLabels numbers the labels of one .text section.
type funcLabels struct {
	labels []label             // in number order, then (finish) by address
	marks  []uint64            // until finish: a bit per instruction address with a label
	others map[uint64][]uint32 // the labels elsewhere (label's low half)
	syms   map[uint64]string
	next   *int                // label numbers run through the whole file
	indir  map[uint64][]uint64 // branch address → EIATTR_INDIRECT_BRANCH_TARGETS targets
	calls  map[uint64]bool     // the branches that attribute marks as calls (kind 1)
	relocs map[uint64]string   // instruction address → the text of its relocated operand
	closes []bool              // VLIW: instructions that close a braced pair
	lines  map[uint64][]byte   // -g: source line comments before instructions
	size   uint64              // of the section
	endLbl int
}

// How add shows a new label in the listing.
const (
	showIfFirst = iota // only when no label is at the address yet
	showAlways
	showNever // the address has a symbol, which names it
)

// key is where a label at addr lives: a control word's address means the
// instruction after it (the end of the section stays itself).
func (l *funcLabels) key(addr uint64) uint64 {
	if addr%BundleSize == 0 && addr < l.size {
		return addr + 8
	}
	return addr - l.pairOffset(addr)
}

// add numbers a label at addr (all before finish).
func (l *funcLabels) add(addr uint64, show int) int {
	key := l.key(addr)
	n := *l.next
	*l.next++
	labeled := l.has(key)
	v := uint32(n) << 1
	if show == showAlways || show == showIfFirst && !labeled {
		v |= 1 // listed as a line of its own
	}
	if l.inSection(key) {
		if l.marks == nil {
			l.marks = make([]uint64, l.size/8/64+1)
		}
		l.marks[key/8/64] |= 1 << (key / 8 % 64)
		l.labels = append(l.labels, label(key/8)<<32|label(v))
	} else {
		if l.others == nil {
			l.others = map[uint64][]uint32{}
		}
		l.others[key] = append(l.others[key], v)
	}
	return n
}

// label is one .L_x_N label at an instruction address of a code section:
// the address/8 in the high half, the number times 2 in the low half and
// 1 when it is listed as a line of its own. A label per instruction is
// possible (code that branches everywhere), so it is small, and the
// labels sort by address, each address's in number order.
type label uint64

// inSection reports whether key is an instruction address of the section
// (or its end), where labels are kept as labels; attributes and random
// branches give others, kept in a map.
func (l *funcLabels) inSection(key uint64) bool { return key%8 == 0 && key <= l.size }

// has reports whether a label lives at key (before finish).
func (l *funcLabels) has(key uint64) bool {
	if l.inSection(key) {
		return l.marks != nil && l.marks[key/8/64]>>(key/8%64)&1 != 0
	}
	_, ok := l.others[key]
	return ok
}

// finish sorts the labels by address.
func (l *funcLabels) finish() {
	slices.Sort(l.labels)
	l.marks = nil
}

// at appends to dst the labels at key, in number order (after finish),
// each its number times 2, plus 1 when it is listed.
func (l *funcLabels) at(dst []uint32, key uint64) []uint32 {
	if !l.inSection(key) {
		return append(dst, l.others[key]...)
	}
	i, _ := slices.BinarySearch(l.labels, label(key/8)<<32)
	for ; i < len(l.labels) && uint64(l.labels[i]>>32) == key/8; i++ {
		dst = append(dst, uint32(l.labels[i]))
	}
	return dst
}

// first is the number of the label nvdisasm names key by (the first one
// there; 0 for none).
func (l *funcLabels) first(key uint64) int {
	var buf [4]uint32
	if at := l.at(buf[:0], key); len(at) > 0 {
		return int(at[0] >> 1)
	}
	return 0
}

// shownAt returns the numbers of the labels listed at key.
func (l *funcLabels) shownAt(key uint64) []int {
	var out []int
	for _, v := range l.at(nil, key) {
		if v&1 != 0 {
			out = append(out, int(v>>1))
		}
	}
	return out
}

// relocField is the bit where every operand relocation of sm_5x code starts
// (R_CUDA_*_20).
const relocField = 20

// relocAt returns the text nvdisasm prints for the relocated operand of the
// instruction at pc, or "".
func (l *funcLabels) relocAt(pc uint64) string {
	if l == nil || l.relocs == nil {
		return ""
	}
	return l.relocs[pc]
}

// relocText is how nvdisasm prints an operand relocated against sym, by
// relocation type name; "" for types it leaves as numbers.
func relocText(typ, sym string) string {
	switch typ {
	case "R_CUDA_ABS32_20", "R_CUDA_ABS16_20", "R_CUDA_ABS24_20":
		return "`(" + sym + ")"
	case "R_CUDA_ABS32_LO_20":
		return "32@lo(" + sym + ")"
	case "R_CUDA_ABS32_HI_20":
		return "32@hi(" + sym + ")"
	case "R_CUDA_CONST_FIELD19_20":
		return "c[`(" + sym + ")]"
	}
	return ""
}

// name appends the operand text of a branch to target: its address when
// it is outside the section or between instructions (nvdisasm labels no
// such target), else a function symbol of the section, or the label there.
func (l *funcLabels) name(dst []byte, target uint64) []byte {
	if !l.inSection(target) {
		return appendSHex(dst, int64(target))
	}
	dst = append(dst, "`("...)
	if s := l.symbolFor(target); s != "" {
		dst = append(dst, s...)
	} else {
		dst = append(dst, ".L_x_"...)
		dst = strconv.AppendInt(dst, int64(l.first(l.key(target))), 10)
	}
	return append(dst, ')')
}

// symbolFor is the function symbol of the section that names a branch to
// target: one at target, or at the control word before the instruction
// there ("" for none).
func (l *funcLabels) symbolFor(target uint64) string {
	if s, ok := l.syms[target]; ok {
		return s
	}
	if target%BundleSize == 8 {
		return l.syms[target-8]
	}
	return ""
}

// symAt is a function symbol of the section being listed.
type symAt struct {
	s    cubin.Symbol
	addr uint64
}

// funcListing is one .text section on its way to the listing.
type funcListing struct {
	fn    *cubin.Function
	sm    int
	insts []labeled // nil when not kept: decoded again as needed
	lb    *funcLabels
	syms  []symAt

	// filled by texts
	text               []byte
	ends, leads, notes []int  // notes: where a (*"..."*) annotation starts, 0 for none
	closes             []bool // VLIW: the second instruction of a braced pair
	slots              []bool // -plr: the second instruction of a pair printed with SLOT 0/1 (liveness.go)
	quests             []bool // the annotation is a ??? operand: -raw adds no blanks
	hidden             []bool // VLIW: instructions listed only by their hex comment (vliwHidden)
}

func newFuncListing(f *cubin.File, fn *cubin.Function, sm int, next *int, vliw, keep bool, onErr func(*isa.DecodeError)) *funcListing {
	code := fn.Code
	n := len(code) / BundleSize
	var insts []labeled
	if keep {
		insts = make([]labeled, n*3)
	}
	lb := &funcLabels{syms: map[uint64]string{}, indir: map[uint64][]uint64{}, next: next, size: uint64(len(code))}
	if vliw {
		lb.closes = closers(code)
	}
	// function symbols of this section (the function and its local
	// subroutines) name call targets
	var syms []symAt
	for _, s := range f.Symbols {
		if int(s.Section) == fn.Section && s.Type() == 2 {
			lb.syms[s.Value] = s.Name
			syms = append(syms, symAt{s, s.Value})
		}
	}
	for _, r := range fn.Relocs {
		if int(r.Symbol) < len(f.Symbols) {
			if t := relocText(cubin.RelocTypeName(r.Type), f.Symbols[r.Symbol].Name); t != "" {
				if lb.relocs == nil {
					lb.relocs = map[uint64]string{}
				}
				lb.relocs[r.Offset&^7] = t
			}
		}
	}
	for b := 0; b < n; b++ {
		ctrl := binary.LittleEndian.Uint64(code[b*BundleSize:])
		for s := 0; s < 3; s++ {
			addr := uint64(b*BundleSize + 8 + 8*s)
			w := binary.LittleEndian.Uint64(code[addr:])
			inst, err := Decode(w, CtrlField(ctrl, s), sm, addr)
			if err != nil {
				onErr(err.(*isa.DecodeError))
				continue
			}
			if keep {
				insts[b*3+s] = labeled{inst, true}
			}
			// a target outside the section (or between instructions) is
			// printed as its address, and one a symbol names by the symbol
			if t, ok := relTarget(inst, addr); ok && lb.inSection(t) && lb.symbolFor(t) == "" && !lb.has(lb.key(t)) {
				lb.add(t, showAlways)
			}
		}
	}
	if rest := len(code) % BundleSize; rest != 0 {
		onErr(&isa.DecodeError{Addr: uint64(n * BundleSize), Len: rest, Err: isa.ErrTruncated,
			Detail: "Unaligned instruction found"})
	}
	return &funcListing{fn: fn, sm: sm, insts: insts, lb: lb, syms: syms}
}

// count is the number of instruction slots of the whole bundles.
func (fl *funcListing) count() int { return len(fl.fn.Code) / BundleSize * 3 }

// decoded is instruction i, decoded again when the listing keeps none.
func (fl *funcListing) decoded(i int) (Inst, bool) {
	if fl.insts != nil {
		return fl.insts[i].inst, fl.insts[i].ok
	}
	code := fl.fn.Code
	addr := i/3*BundleSize + 8 + 8*(i%3)
	inst, err := Decode(binary.LittleEndian.Uint64(code[addr:]), CtrlField(binary.LittleEndian.Uint64(code[i/3*BundleSize:]), i%3), fl.sm, uint64(addr))
	return inst, err == nil
}

// closers marks the second instruction of every braced pair, by instruction
// index: the one after an instruction that opens a pair and does not itself
// close one. An all-zero word is in no pair, opening or closing (nvdisasm
// 11.8, probed on raw bundles and patched cubins): it neither takes a brace
// nor uses up its neighbour's.
func closers(code []byte) []bool {
	n := len(code) / BundleSize
	closes := make([]bool, n*3)
	for i := 1; i < n*3; i++ {
		ctrl := binary.LittleEndian.Uint64(code[(i-1)/3*BundleSize:])
		closes[i] = opensPair(CtrlField(ctrl, (i-1)%3)) && !closes[i-1] &&
			instWord(code, i-1) != 0 && instWord(code, i) != 0
	}
	return closes
}

// instWord is instruction i of code (by index, three to a bundle).
func instWord(code []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(code[i/3*BundleSize+8+8*(i%3):])
}

// vliwHidden tells whether nvdisasm's VLIW layout (without -novliw) leaves
// out instruction i of code, listing only its hex comment, on a line of its
// own where a pair's second's goes (closes: closers(code)). That is the
// instruction after one whose control field opens a pair (stall 0 with
// yield) when that one closes a pair itself, or when this one is an
// all-zero word and that one is not (probed with nvdisasm 11.8 on raw
// bundles and patched cubins; the instruction before a hidden zero word
// loses its brace, see closers).
func vliwHidden(code []byte, closes []bool, i int) bool {
	if i == 0 || !opensPair(CtrlField(binary.LittleEndian.Uint64(code[(i-1)/3*BundleSize:]), (i-1)%3)) {
		return false
	}
	if instWord(code, i) == 0 {
		return instWord(code, i-1) != 0
	}
	return closes[i-1]
}

// pairOffset is how far an address lies after the first instruction of its
// braced pair (0 outside pairs): labels name the pair's first instruction.
func (l *funcLabels) pairOffset(addr uint64) uint64 {
	if addr%BundleSize < 8 || addr >= l.size {
		return 0 // a control word (an attribute may point inside one)
	}
	i := addr/BundleSize*3 + addr%BundleSize/8 - 1
	if int(i) >= len(l.closes) || !l.closes[i] {
		return 0
	}
	if addr%BundleSize == 8 {
		return 16 // the pair spans a control word
	}
	return 8
}

// indirect numbers the labels of EIATTR_INDIRECT_BRANCH_TARGETS.
func (fl *funcListing) indirect() {
	lb := fl.lb
	for _, b := range indirectBranches(fl.fn) {
		if b.kind == indirectKindCall {
			if lb.calls == nil {
				lb.calls = map[uint64]bool{}
			}
			lb.calls[b.at] = true
		}
		lb.add(b.at, showIfFirst)
		for _, t := range b.targets {
			lb.add(t, showIfFirst)
			lb.indir[b.at] = append(lb.indir[b.at], t)
		}
	}
}

// instLayout is where the parts of one instruction's text lie.
type instLayout struct {
	lead   int  // the guard's length: it hangs left of the mnemonic
	note   int  // where a (*"..."*) annotation or a ??? operand starts, 0 for none
	closes bool // VLIW: the second instruction of a braced pair
	quest  bool // the annotation is a ??? operand: -raw adds no blanks
	hidden bool // VLIW: listed only by its hex comment (vliwHidden)
}

// isIndirectCall tells a call through a register: JMX, and a BRX that
// EIATTR_INDIRECT_BRANCH_TARGETS marks as a call (kind 1, no targets),
// which ptxas emits for a call through a function pointer (nvdisasm
// annotates both "INDIRECT_CALL").
func isIndirectCall(inst Inst, markedCall bool) bool {
	switch forms[inst.form].name {
	case "JMX":
		return true
	case "BRX":
		return markedCall
	}
	return false
}

// indirectCall tells whether instruction i is a call through a register.
func (fl *funcListing) indirectCall(i int, inst Inst) bool {
	return isIndirectCall(inst, fl.lb.calls[uint64(i/3*BundleSize+8+8*(i%3))])
}

// appendText appends the text of instruction i as the listing prints it.
func (fl *funcListing) appendText(text []byte, i int, vliw, noDataflow bool) ([]byte, instLayout) {
	lb, code := fl.lb, fl.fn.Code
	var ly instLayout
	start := len(text)
	addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
	if vliw && vliwHidden(code, lb.closes, i) {
		ly.hidden = true
		return text, ly
	}
	if inst, ok := fl.decoded(i); !ok {
		text = append(text, ".word "...)
		text = isa.AppendHexNum(text, binary.LittleEndian.Uint64(code[addr:]))
	} else {
		text = appendGuard(text, inst)
		ly.lead = len(text) - start
		text = appendBodyLabels(text, inst, addr, lb)
		if r := lb.relocAt(addr); strings.HasPrefix(r, "c[") {
			// a relocated constant-bank operand names the symbol instead of c[bank][offset]
			if k := bytes.Index(text[start:], []byte("c[0x")); k >= 0 {
				rest := text[start+k:]
				if e := bytes.IndexByte(rest[bytes.IndexByte(rest, ']')+1:], ']'); e >= 0 {
					tail := append([]byte(r), rest[bytes.IndexByte(rest, ']')+1+e+1:]...)
					text = append(text[:start+k], tail...)
				}
			}
		}
		if !noDataflow && fl.indirectCall(i, inst) {
			// a call through a register
			text = trimSemicolon(text, start)
			ly.note = len(text) - start
			text = append(text, "(*\"INDIRECT_CALL\"*);"...)
		}
		if ts := lb.indir[addr]; len(ts) != 0 && !noDataflow {
			// the targets of an indirect branch go in a comment before the ';'
			text = trimSemicolon(text, start)
			ly.note = len(text) - start
			text = append(text, "(*\"BRANCH_TARGETS "...)
			for k, t := range ts {
				if k > 0 {
					text = append(text, ',')
				}
				text = append(text, ".L_x_"...)
				text = strconv.AppendInt(text, int64(lb.first(lb.key(t))), 10)
			}
			text = append(text, "\"*);"...)
		}
	}
	if vliw && lb.closes[i] {
		ly.closes = true
		if n := len(text); n > start && text[n-1] == ';' {
			text = text[:n-1] // "X ;" becomes "X         }", "(*...*);" "(*...*)        }"
		}
		if fl.slots != nil && fl.slots[i] {
			text = append(trimSemicolon(text, start), "   SLOT 1"...)
		}
		text = append(text, "        }"...)
	} else if i+1 < len(fl.slots) && fl.slots[i+1] {
		// -plr: the mark widens the columns after it like any text
		text = append(trimSemicolon(text, start), "   SLOT 0;"...)
	}
	if ly.note == 0 {
		// an operand printed as ??? starts an annotation too (random words
		// only), in the same column, or farther when its line's raw layout
		// puts it there
		if q := questAt(text[start:]); q >= 0 {
			ly.note, ly.quest = q, true
		}
	}
	return text, ly
}

// widen updates texts' widths with one instruction's text t at addr.
func widen(plain, annot, far *int, addr uint64, t []byte, ly instLayout) {
	if ly.quest {
		*far = max(*far, addrLen(addr)+ly.note)
	}
	// a pair's second line has no hex comment: it widens the hex column
	// only through an annotation (as measured on the oracle's listings)
	switch {
	case ly.hidden:
	case ly.note != 0:
		*annot = max(*annot, len(t)-ly.note)
	case !ly.closes:
		*plain = max(*plain, addrLen(addr)+len(t))
	}
}

// widths returns the widest address+text of the lines without a
// (*"..."*) annotation, the longest annotation and the farthest
// address+text before a ??? operand, printing each text and forgetting it.
func (fl *funcListing) widths(vliw, noDataflow bool) (plain, annot, far int) {
	var text []byte
	for i := range fl.count() {
		var ly instLayout
		text, ly = fl.appendText(text[:0], i, vliw, noDataflow)
		widen(&plain, &annot, &far, uint64(i/3*BundleSize+8+8*(i%3)), text, ly)
	}
	return plain, annot, far
}

// texts prints every instruction's text into fl.text (the control-flow
// graphs keep them) and returns widths' widths.
func (fl *funcListing) texts(vliw, noDataflow bool) (plain, annot, far int) {
	n := fl.count()
	var text []byte
	ends := make([]int, n)
	leads := make([]int, n)
	notes := make([]int, n)
	closes := make([]bool, n)
	quests := make([]bool, n)
	hidden := make([]bool, n)
	for i := range n {
		start := len(text)
		var ly instLayout
		text, ly = fl.appendText(text, i, vliw, noDataflow)
		widen(&plain, &annot, &far, uint64(i/3*BundleSize+8+8*(i%3)), text[start:], ly)
		ends[i], leads[i], notes[i], closes[i], quests[i], hidden[i] = len(text), ly.lead, ly.note, ly.closes, ly.quest, ly.hidden
	}
	fl.text, fl.ends, fl.leads, fl.notes, fl.closes, fl.quests, fl.hidden = text, ends, leads, notes, closes, quests, hidden
	return plain, annot, far
}

// list appends the section, printing every instruction's text again; an
// annotation starts at column noteCol, the hex comments at column col. It
// writes dst to o (when not nil) between bundles once it is large.
func (fl *funcListing) list(dst []byte, opts ListOptions, noteCol, col int, o *listOut) []byte {
	fn, lb, syms := fl.fn, fl.lb, fl.syms
	code := fn.Code
	n := len(code) / BundleSize
	var t []byte

	name := ".text." + fn.Name
	dst = sectionRule(dst, name)
	dst = append(dst, "\t.section\t"...)
	dst = append(dst, name...)
	dst = append(dst, ",\"ax\",@progbits\n"...)
	if fn.Barriers != 0 {
		dst = fmt.Appendf(dst, "\t.sectionflags\t@\"SHF_BARRIERS=%d\"\n", fn.Barriers)
	}
	dst = fmt.Appendf(dst, "\t.sectioninfo\t@\"SHI_REGISTERS=%d\"\n\t.align\t32\n", fn.Registers)
	separated := false // -sf: the blank lines are out already, before the labels
	symBlock := func(dst []byte, s cubin.Symbol, end string) []byte {
		if opts.SeparateFunctions && !separated {
			dst = append(dst, "\n\n\n\n"...)
		}
		separated = false
		switch s.Bind() {
		case 1:
			dst = append(dst, "        .global         "...)
			dst = append(dst, s.Name...)
			dst = append(dst, '\n')
		case 2:
			dst = append(dst, "        .weak           "...)
			dst = append(dst, s.Name...)
			dst = append(dst, '\n')
		}
		dst = fmt.Appendf(dst, "        .type           %s,@function\n        .size           %s,(%s - %s)\n", s.Name, s.Name, end, s.Name)
		if s.Other&0x10 != 0 {
			dst = fmt.Appendf(dst, "        .other          %s,@\"STO_CUDA_ENTRY STV_DEFAULT\"\n", s.Name)
		}
		return dst
	}
	endName := ".L_x_" + strconv.Itoa(lb.endLbl)
	// the section label comes after a global symbol's own label, before a local or weak one's
	sectionLabelDone := false
	putSyms := func(dst []byte, addr uint64) []byte {
		for _, s := range syms {
			if s.addr != addr {
				continue
			}
			end := endName
			if e := s.addr + s.s.Size; lb.syms[e] != "" && e%BundleSize != 0 {
				end = lb.syms[e]
			} else if e < uint64(len(code)) {
				end = ".L_x_" + strconv.Itoa(lb.first(lb.key(e)))
			}
			if addr == 0 && s.s.Bind() != 1 && !sectionLabelDone {
				if opts.SeparateFunctions {
					dst = append(dst, "\n\n\n\n"...)
					separated = true
				}
				dst = append(dst, name...)
				dst = append(dst, ":\n"...)
				sectionLabelDone = true
			}
			dst = symBlock(dst, s.s, end)
			dst = append(dst, s.s.Name...)
			dst = append(dst, ":\n"...)
		}
		if addr == 0 && !sectionLabelDone {
			dst = append(dst, name...)
			dst = append(dst, ":\n"...)
			sectionLabelDone = true
		}
		return dst
	}
	var at []uint32
	putLabels := func(dst []byte, addr uint64) []byte {
		at = lb.at(at[:0], addr)
		for _, v := range at {
			if v&1 == 0 {
				continue
			}
			dst = append(dst, ".L_x_"...)
			dst = strconv.AppendInt(dst, int64(v>>1), 10)
			dst = append(dst, ":\n"...)
		}
		return dst
	}
	dst = putSyms(dst, 0)
	// the hex comment of a pair's second instruction (or of a hidden one)
	// waits on its own line until the labels of the next address are out;
	// a hidden one's at the end of the code is not listed
	pendingHex := -1
	pendingHidden := false
	flushHex := func(dst []byte) []byte {
		if pendingHex >= 0 {
			dst = blanks(dst, col)
			dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[pendingHex:]))
			pendingHex = -1
		}
		return dst
	}
	for b := 0; b < n; b++ {
		dst = o.flush(dst)
		first := uint64(b*BundleSize + 8)
		if b > 0 {
			if opts.SeparateFunctions {
				for _, s := range syms {
					if s.addr == first-8 || s.addr == first {
						dst = append(dst, "\n\n\n\n"...)
						separated = true
						break
					}
				}
			}
			// labels at a control word are keyed to the instruction after it
			dst = putLabels(dst, first)
			dst = putSyms(dst, first-8)
			dst = putSyms(dst, first)
			dst = append(dst, lb.lines[first]...)
			dst = flushHex(dst)
		} else {
			dst = putLabels(dst, first)
			dst = append(dst, lb.lines[first]...)
		}
		if !opts.NoHex {
			dst = blanks(dst, col)
			dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[b*BundleSize:]))
		}
		for s := 0; s < 3; s++ {
			i := b*3 + s
			addr := first + uint64(8*s)
			if s > 0 {
				dst = putSyms(dst, addr)
				dst = putLabels(dst, addr)
				dst = append(dst, lb.lines[addr]...)
				dst = flushHex(dst)
			}
			var ly instLayout
			t, ly = fl.appendText(t[:0], i, opts.VLIW, opts.noDataflow(fl.fn.Section))
			if ly.hidden {
				if !opts.NoHex {
					pendingHex, pendingHidden = int(addr), true
				}
				continue
			}
			g := ly.lead
			if opts.Raw {
				g = 0 // the guard does not hang left of the mnemonic
			}
			lineStart := len(dst)
			dst = blanks(dst, 8)
			dst = isa.AppendAddr(dst, addr)
			dst = blanks(dst, 19-g)
			if opts.VLIW && i+1 < len(lb.closes) && lb.closes[i+1] {
				dst[lineStart+8+addrLen(addr)+9] = '{' // in the blanks left of the guard
			}
			if k := ly.note; k != 0 {
				dst = append(dst, t[:k]...)
				switch {
				case opts.Raw && ly.quest:
				case opts.Raw:
					dst = blanks(dst, 10)
				default:
					dst = blanks(dst, noteCol-(len(dst)-lineStart))
				}
				dst = append(dst, t[k:]...)
			} else {
				dst = append(dst, t...)
			}
			switch {
			case opts.NoHex:
				dst = append(dst, '\n')
			case ly.closes:
				dst = append(dst, '\n')
				pendingHex, pendingHidden = int(addr), false
			default:
				dst = blanks(dst, col-(len(dst)-lineStart))
				dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[addr:]))
			}
		}
	}
	dst = putLabels(dst, uint64(len(code)))
	if pendingHidden {
		return dst
	}
	return flushHex(dst)
}

// attrIndirectBranchTargets is EIATTR_INDIRECT_BRANCH_TARGETS: entries of
// u32 branch offset, u16, u16, u32 count, count × u32 target offsets.
const attrIndirectBranchTargets = 0x34

// relTarget returns the address a PC-relative form at addr points to.
func relTarget(inst Inst, addr uint64) (uint64, bool) {
	f := &forms[inst.form]
	if f.attrs&attrPCRel == 0 {
		return 0, false
	}
	for k := range f.toks {
		t := &f.toks[k]
		if t.kind == tkRel {
			return uint64(int64(addr) + 8 + isa.SignExtend(t.get(inst.Word), t.width())), true
		}
	}
	return 0, false
}

// trimSemicolon removes the " ;" (or ";") ending the text that starts at start.
func trimSemicolon(text []byte, start int) []byte {
	for len(text) > start && (text[len(text)-1] == ';' || text[len(text)-1] == ' ') {
		text = text[:len(text)-1]
	}
	return text
}
