package maxwell

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
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
	if opts.NVN {
		start := len(dst)
		opts.NVN = false
		out, errs := ListCubin(dst, f, opts)
		annotated := AnnotateNVN(nil, out[start:])
		return append(out[:start], annotated...), errs
	}
	if opts.Raw {
		opts.NoHex = true // -raw has no hex comments and no line info
		opts.LineInfo = LineInfoNone
	}
	start := len(dst)
	dst = append(dst, "\t.headerflags\t@\""...)
	dst = append(dst, cubin.HeaderFlags(f.Flags)...)
	dst = append(dst, "\"\n\t.elftype\t@\""...)
	if f.Type == cubin.ETRel {
		dst = append(dst, "ET_REL"...)
	} else {
		dst = append(dst, "ET_EXEC"...)
	}
	dst = append(dst, "\"\n"...)
	lists, bySection, errs := labelFunctions(f, opts, opts.LifeRanges == LifeRangesNone)
	// one layout for the whole file: annotations start after the widest
	// plain line, hex comments two blanks after it or one after the longest
	// annotated line
	plain, annot, far := 0, 0, 0
	for _, l := range lists {
		if opts.LifeRanges != LifeRangesNone && opts.VLIW {
			l.slots = l.slotPairs()
		}
		p, a, q := l.texts(opts.VLIW, opts.NoDataflow)
		plain, annot, far = max(plain, p), max(annot, a), max(far, q)
	}
	noteCol := 8 + 19 + max(plain, far)
	col := noteCol + 2
	if annot > 0 {
		col = max(col, noteCol+annot+1)
	}
	var lifeLy *lifeLayout
	lifeOf := map[*funcListing]*lifeInfo{}
	if opts.LifeRanges != LifeRangesNone {
		infos := make([]*lifeInfo, len(lists))
		for k, l := range lists {
			infos[k] = l.lifeRanges()
			lifeOf[l] = infos[k]
		}
		lifeLy = newLifeLayout(opts.LifeRanges, lists, infos)
		lifeLy.col = col + 4
		if !opts.NoHex {
			lifeLy.col += len("/* 0x0000000000000000 */")
		}
	}
	// every section in file order: code as above, data as nvdisasm lays it out
	textOf := map[int]*funcListing{}
	infoOf := map[string]*funcListing{}
	for _, l := range lists {
		textOf[l.fn.Section] = l
		infoOf[".nv.info."+l.fn.Name] = l
	}
	dl := &dataLister{f: f, xlabel: func(sec int, addr uint64) string {
		l := infoOf[f.Sections[sec].Name]
		if l == nil {
			return fmt.Sprintf("0x%08x", addr) // the code is not listed (-fun)
		}
		name := ".L_x_" + strconv.Itoa(l.lb.first[l.lb.key(addr)]) + "@srel"
		if off := l.lb.pairOffset(addr); off != 0 {
			return fmt.Sprintf("(%s + %#x)", name, off) // inside a braced pair
		}
		return name
	}}
	dl.codeAddr = func(sym uint32, addend int64) string {
		s := f.Symbols[sym]
		l := bySection[int(s.Section)]
		if l == nil {
			return fmt.Sprintf("(%s + %#x)", s.Name, addend)
		}
		a := s.Value + uint64(addend)
		text := "(" + s.Name + " + .L_x_" + strconv.Itoa(l.lb.first[l.lb.key(a)]) + "@srel)"
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
	lifeText := map[*funcListing][]byte{}
	if lifeLy != nil {
		// the column starts after the longest line of the code sections,
		// directives and labels included
		for _, l := range lists {
			lifeText[l] = l.list(nil, opts, noteCol, col)
			lifeLy.col = max(lifeLy.col, longestLine(lifeText[l])+2+4)
		}
	}
	for i := range f.Sections {
		switch l := textOf[i]; {
		case l != nil && lifeLy != nil:
			dst = l.withLifeRanges(dst, lifeText[l], lifeOf[l], lifeLy, !opts.NoHex)
		case l != nil:
			dst = l.list(dst, opts, noteCol, col)
		case lifeLy != nil && !lifeSectionListed(f.Sections[i].Name):
		case listable(&f.Sections[i]) && !opts.CodeOnly && f.Sections[i].Flags&cubin.SHFExecInstr == 0:
			dst = dl.listData(dst, i)
		}
	}
	dst = dl.listSymbols(dst)
	if opts.Raw {
		dst = append(dst[:start], expandTabs(dst[start:])...)
	}
	return dst, errs
}

// expandTabs replaces every tab by the blanks up to the next multiple of 8
// columns, as nvdisasm -raw prints.
func expandTabs(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	col := 0
	for _, c := range b {
		switch c {
		case '\t':
			n := 8 - col%8
			out = append(out, spaces[:n]...)
			col += n
		case '\n':
			out = append(out, c)
			col = 0
		default:
			out = append(out, c)
			col++
		}
	}
	return out
}

// labelFunctions decodes the code sections opts selects and numbers their
// labels as nvdisasm does, all functions together: direct branch targets
// first, then the code addresses of the debug sections, the indirect-branch
// tables, the line-info comments and the end labels.
//
// withDebug: the debug sections' labels are numbered (the listing shows
// those sections; the control-flow graphs do not).
func labelFunctions(f *cubin.File, opts ListOptions, withDebug bool) (lists []*funcListing, bySection map[int]*funcListing, errs []*isa.DecodeError) {
	sm := f.SM()
	// nvdisasm numbers the labels of all functions together: direct branch
	// targets first, then the indirect-branch tables, then the end labels
	next := 0
	for i := range f.Functions {
		if opts.Sections != nil && !opts.Sections[f.Functions[i].Section] {
			continue
		}
		l := newFuncListing(f, &f.Functions[i], sm, &next, opts.VLIW)
		lists = append(lists, l)
		errs = append(errs, l.errs...)
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
			if _, ok := l.lb.first[l.lb.key(a)]; !ok {
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
				if a%BundleSize == 0 {
					a += 8 // a control word's address stands for the instruction after it
				}
				l.lb.lines[a] = append(l.lb.lines[a], note...)
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
		// debug section made keeps its number and takes a hidden one
		show := showAlways
		if l.lb.syms[end] != "" && end%BundleSize != 0 || debugLabels[l][end] {
			show = showNever
		}
		l.lb.add(end, show)
	}
	for _, l := range lists {
		if !ends[l][uint64(len(l.fn.Code))] && !debugLabels[l][uint64(len(l.fn.Code))] {
			l.lb.add(uint64(len(l.fn.Code)), showAlways)
		}
		l.lb.endLbl = l.lb.first[l.lb.key(uint64(len(l.fn.Code)))]
	}
	return lists, bySection, errs
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
	at     map[uint64][]int // address → label numbers, in allocation order
	first  map[uint64]int   // address → the label nvdisasm names it by
	syms   map[uint64]string
	next   *int                // label numbers run through the whole file
	indir  map[uint64][]uint64 // branch address → EIATTR_INDIRECT_BRANCH_TARGETS targets
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

func (l *funcLabels) add(addr uint64, show int) int {
	addr = l.key(addr)
	n := *l.next
	*l.next++
	_, labeled := l.first[addr]
	if !labeled {
		l.first[addr] = n
	}
	if show == showAlways || show == showIfFirst && !labeled {
		l.at[addr] = append(l.at[addr], n)
	}
	return n
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

// name appends the operand text of a branch to target: a function symbol of
// the section, or the label there.
func (l *funcLabels) name(dst []byte, target uint64) []byte {
	dst = append(dst, "`("...)
	if s, ok := l.syms[target]; ok {
		dst = append(dst, s...)
	} else {
		dst = append(dst, ".L_x_"...)
		dst = strconv.AppendInt(dst, int64(l.first[l.key(target)]), 10)
	}
	return append(dst, ')')
}

// symAt is a function symbol of the section being listed.
type symAt struct {
	s    cubin.Symbol
	addr uint64
}

// funcListing is one .text section on its way to the listing.
type funcListing struct {
	fn    *cubin.Function
	insts []labeled
	lb    *funcLabels
	syms  []symAt
	errs  []*isa.DecodeError

	// filled by texts
	text               []byte
	ends, leads, notes []int  // notes: where a (*"..."*) annotation starts, 0 for none
	closes             []bool // VLIW: the second instruction of a braced pair
	slots              []bool // -plr: the second instruction of a pair printed with SLOT 0/1 (liveness.go)
	quests             []bool // the annotation is a ??? operand: -raw adds no blanks
}

func newFuncListing(f *cubin.File, fn *cubin.Function, sm int, next *int, vliw bool) *funcListing {
	code := fn.Code
	n := len(code) / BundleSize
	insts := make([]labeled, n*3)
	var errs []*isa.DecodeError
	lb := &funcLabels{at: map[uint64][]int{}, first: map[uint64]int{}, syms: map[uint64]string{}, indir: map[uint64][]uint64{}, next: next, size: uint64(len(code))}
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
				errs = append(errs, err.(*isa.DecodeError))
				continue
			}
			insts[b*3+s] = labeled{inst, true}
			if t, ok := relTarget(inst, addr); ok {
				if _, sym := lb.syms[t]; !sym {
					if _, seen := lb.first[lb.key(t)]; !seen {
						lb.add(t, showAlways)
					}
				}
			}
		}
	}
	if rest := len(code) % BundleSize; rest != 0 {
		errs = append(errs, &isa.DecodeError{Addr: uint64(n * BundleSize), Len: rest, Err: isa.ErrTruncated,
			Detail: "Unaligned instruction found"})
	}
	return &funcListing{fn: fn, insts: insts, lb: lb, syms: syms, errs: errs}
}

// closers marks the second instruction of every braced pair, by instruction
// index: the one after an instruction that opens a pair and does not itself
// close one.
func closers(code []byte) []bool {
	n := len(code) / BundleSize
	closes := make([]bool, n*3)
	for i := 1; i < n*3; i++ {
		ctrl := binary.LittleEndian.Uint64(code[(i-1)/3*BundleSize:])
		closes[i] = opensPair(CtrlField(ctrl, (i-1)%3)) && !closes[i-1]
	}
	return closes
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
	for _, a := range fl.fn.Info {
		if a.ID != attrIndirectBranchTargets {
			continue
		}
		d := a.Data
		for len(d) >= 12 {
			at := uint64(binary.LittleEndian.Uint32(d))
			cnt := int(binary.LittleEndian.Uint32(d[8:]))
			d = d[12:]
			lb.add(at, showIfFirst)
			for k := 0; k < cnt && len(d) >= 4; k++ {
				t := uint64(binary.LittleEndian.Uint32(d))
				d = d[4:]
				lb.add(t, showIfFirst)
				lb.indir[at] = append(lb.indir[at], t)
			}
		}
	}
}

// texts prints every instruction's text into fl.text and returns the
// widest address+text of the lines without a (*"..."*) annotation, the
// longest annotation and the farthest address+text before a ??? operand.
func (fl *funcListing) texts(vliw, noDataflow bool) (plain, annot, far int) {
	insts, lb, code := fl.insts, fl.lb, fl.fn.Code
	var text []byte
	ends := make([]int, len(insts))
	leads := make([]int, len(insts))
	notes := make([]int, len(insts))
	closes := make([]bool, len(insts))
	quests := make([]bool, len(insts))
	for i := range insts {
		start := len(text)
		addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
		if !insts[i].ok {
			text = append(text, ".word "...)
			text = isa.AppendHexNum(text, binary.LittleEndian.Uint64(code[addr:]))
		} else {
			text = appendGuard(text, insts[i].inst)
			leads[i] = len(text) - start
			text = appendBodyLabels(text, insts[i].inst, addr, lb)
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
			if forms[insts[i].inst.form].name == "JMX" && !noDataflow {
				// a call through a register
				text = trimSemicolon(text, start)
				notes[i] = len(text) - start
				text = append(text, "(*\"INDIRECT_CALL\"*);"...)
			}
			if ts := lb.indir[addr]; len(ts) != 0 && !noDataflow {
				// the targets of an indirect branch go in a comment before the ';'
				text = trimSemicolon(text, start)
				notes[i] = len(text) - start
				text = append(text, "(*\"BRANCH_TARGETS "...)
				for k, t := range ts {
					if k > 0 {
						text = append(text, ',')
					}
					text = append(text, ".L_x_"...)
					text = strconv.AppendInt(text, int64(lb.first[lb.key(t)]), 10)
				}
				text = append(text, "\"*);"...)
			}
		}
		slot := 0 // -plr's SLOT marks do not widen the hex column
		if vliw && lb.closes[i] {
			closes[i] = true
			if n := len(text); n > start && text[n-1] == ';' {
				text = text[:n-1] // "X ;" becomes "X         }", "(*...*);" "(*...*)        }"
			}
			if fl.slots != nil && fl.slots[i] {
				text = append(trimSemicolon(text, start), "   SLOT 1"...)
			}
			text = append(text, "        }"...)
		} else if i+1 < len(fl.slots) && fl.slots[i+1] {
			n := len(text)
			text = append(trimSemicolon(text, start), "   SLOT 0;"...)
			slot = len(text) - n
		}
		if notes[i] == 0 {
			// an operand printed as ??? starts an annotation too (random words
			// only), in the same column, or farther when its line's raw layout
			// puts it there
			if q := questAt(text[start:]); q >= 0 {
				notes[i], quests[i] = q, true
				far = max(far, addrLen(addr)+q)
			}
		}
		ends[i] = len(text)
		// a pair's second line has no hex comment: it widens the hex column
		// only through an annotation (as measured on the oracle's listings)
		switch {
		case notes[i] != 0:
			annot = max(annot, len(text)-start-notes[i])
		case !closes[i]:
			plain = max(plain, addrLen(addr)+len(text)-start-slot)
		}
	}
	fl.text, fl.ends, fl.leads, fl.notes, fl.closes, fl.quests = text, ends, leads, notes, closes, quests
	return plain, annot, far
}

// list appends the section; an annotation starts at column noteCol, the hex
// comments at column col.
func (fl *funcListing) list(dst []byte, opts ListOptions, noteCol, col int) []byte {
	fn, lb, syms := fl.fn, fl.lb, fl.syms
	code := fn.Code
	n := len(code) / BundleSize
	text, ends, leads, notes, closes := fl.text, fl.ends, fl.leads, fl.notes, fl.closes

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
				end = ".L_x_" + strconv.Itoa(lb.first[lb.key(e)])
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
	putLabels := func(dst []byte, addr uint64) []byte {
		for _, k := range lb.at[addr] {
			dst = append(dst, ".L_x_"...)
			dst = strconv.AppendInt(dst, int64(k), 10)
			dst = append(dst, ":\n"...)
		}
		return dst
	}
	dst = putSyms(dst, 0)
	// the hex comment of a pair's second instruction waits on its own line
	// until the labels of the next address are out
	pendingHex := -1
	flushHex := func(dst []byte) []byte {
		if pendingHex >= 0 {
			dst = blanks(dst, col)
			dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[pendingHex:]))
			pendingHex = -1
		}
		return dst
	}
	start := 0
	for b := 0; b < n; b++ {
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
			t := text[start:ends[i]]
			start = ends[i]
			g := leads[i]
			if opts.Raw {
				g = 0 // the guard does not hang left of the mnemonic
			}
			lineStart := len(dst)
			dst = blanks(dst, 8)
			dst = isa.AppendAddr(dst, addr)
			dst = blanks(dst, 19-g)
			if i+1 < len(closes) && closes[i+1] {
				dst[lineStart+8+addrLen(addr)+9] = '{' // in the blanks left of the guard
			}
			if k := notes[i]; k != 0 {
				dst = append(dst, t[:k]...)
				switch {
				case opts.Raw && fl.quests[i]:
				case opts.Raw:
					dst = blanks(dst, 10)
				default:
					dst = blanks(dst, noteCol-(len(dst)-lineStart))
				}
				t = t[k:]
			}
			dst = append(dst, t...)
			switch {
			case opts.NoHex:
				dst = append(dst, '\n')
			case closes[i]:
				dst = append(dst, '\n')
				pendingHex = int(addr)
			default:
				dst = blanks(dst, col-(len(dst)-lineStart))
				dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[addr:]))
			}
		}
	}
	dst = putLabels(dst, uint64(len(code)))
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
