package cubinasm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/asm"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// Assemble rebuilds the cubin a whole-cubin listing describes.
func Assemble(filename string, src []byte) ([]byte, error) {
	l, err := Parse(filename, src)
	if err != nil {
		return nil, err
	}
	f, err := l.Build()
	if err != nil {
		return nil, err
	}
	out, err := cubin.Encode(f, cubin.EncodeOptions{ProgramHeaders: f.Type == cubin.ETExec})
	if err != nil {
		return nil, err
	}
	// the last line of defence: a cubin that would not read back is an
	// error here, not a file that fails later in every tool
	if _, err := cubin.Parse(out); err != nil {
		return nil, &ReadBackError{File: filename, Err: err}
	}
	return out, nil
}

// ReadBackError reports a listing that assembled into a cubin that does not
// parse: a check the assembler lacks (please report it, with the listing).
type ReadBackError struct {
	File string
	Err  error
}

func (e *ReadBackError) Error() string {
	return fmt.Sprintf("%s: the cubin built from this listing does not read back (%v); please report it", e.File, e.Err)
}

func (e *ReadBackError) Unwrap() error { return e.Err }

// Relocation types sm_5x code and data use.
const (
	rABS32_20          = 42
	rABS32_LO_20       = 43
	rABS32_HI_20       = 44
	rABS24_20          = 45
	rABS16_20          = 46
	rCONST_FIELD19_20  = 50
	rTEX_HEADER_INDEX  = 6
	rSURF_HEADER_INDEX = 52
)

// outSec is a section of the cubin being built.
type outSec struct {
	name       string
	typ        uint32
	flags      uint64
	align      uint64
	entsize    uint64
	link, info uint32
	data       []byte
	size       uint64
	src        *Section // nil for the tables and relocation sections
	relocs     []outReloc
	relFor     *outSec // a relocation section: the section it relocates
	rel        *outSec // the relocation section of this one
	index      int
	symbol     *outSym // the section's symbol, if it has one
}

type outReloc struct {
	off  uint64
	typ  uint32
	sym  string
	line int
}

// outSym is a symbol table entry.
type outSym struct {
	name  string
	info  uint8
	other uint8
	sec   *outSec
	value uint64
	size  uint64
	index int
}

// builder holds the state of Build.
type builder struct {
	l       *Listing
	errs    asm.ErrorList
	secs    []*outSec
	byName  map[string]*outSec
	syms    map[string]*outSym  // by name (the last declared)
	symOf   map[*Symbol]*outSym // every listing symbol
	strs    []string            // .strtab, in order
	strSeen map[string]bool
	shstrs  []string
	locals  []*outSym
	globals []*outSym
	// subOrder: the order of a code section's subroutines, if not the listing's
	subOrder map[*Section][]*Symbol
}

func (b *builder) errorf(line int, format string, args ...any) {
	b.errs.Add(asm.Pos{File: b.l.File, Line: line, Col: 1}, format, args...)
}

// Build assembles the code and lays the cubin out as ptxas does.
func (l *Listing) Build() (*cubin.File, error) {
	sm := l.SM()
	var errs asm.ErrorList
	if sm < 50 || sm > 53 {
		errs.Add(asm.Pos{File: l.File, Line: l.FlagsLine, Col: 1}, "whole-cubin listings of sm_%d are not supported (sm_50..sm_53)", sm)
		return nil, errs.Err()
	}
	lines := 0
	for _, s := range l.Sections {
		lines += len(s.code)
	}
	ca := maxwell.NewCodeAssembler(sm, lines) // one cache of encoded texts for all sections
	for _, s := range l.Sections {
		if !s.isCode {
			continue
		}
		code, err := ca.Assemble(l.File, s.code)
		if err != nil {
			var el asm.ErrorList
			if errors.As(err, &el) {
				errs = append(errs, el...)
			} else {
				errs.Add(asm.Pos{File: l.File, Line: s.Line, Col: 1}, "%s: %v", s.Name, err)
			}
			continue
		}
		s.asm = code
		s.data = code.Code
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	// ptxas orders a function's subroutines as the PTX source declares them;
	// nvdisasm numbers the labels that end functions in symbol-table order,
	// so the order that lists with the same numbers is ptxas's
	order := map[*Section][]*Symbol{}
	f, funcs, err := l.layout(order)
	if err != nil {
		return nil, err
	}
	for sec, group := range l.subroutines() {
		if len(group) < 2 || len(group) > 5 || l.endsMatch(funcs, group) {
			continue
		}
		permute(slices.Clone(group), func(p []*Symbol) bool {
			order[sec] = p
			g, gfuncs, err := l.layout(order)
			if err == nil && l.endsMatch(gfuncs, group) {
				f, funcs = g, gfuncs
				return true
			}
			delete(order, sec)
			return false
		})
	}
	if err := l.checkInfo(f); err != nil {
		return nil, err
	}
	return f, nil
}

// checkInfo rejects .nv.info records that the listing spelled out byte by
// byte but that no cubin reader takes (an unknown format, a payload past
// the section's end): the cubin built would not parse.
func (l *Listing) checkInfo(f *cubin.File) error {
	var errs asm.ErrorList
	for _, s := range f.Sections {
		if s.Name != ".nv.info" && !strings.HasPrefix(s.Name, ".nv.info.") {
			continue
		}
		err := cubin.CheckAttrs(s.Data)
		if err == nil {
			continue
		}
		line := l.FlagsLine
		if src := l.section(s.Name); src != nil {
			line = src.Line
		}
		var fe *cubin.FormatError
		if errors.As(err, &fe) {
			errs.Add(asm.Pos{File: l.File, Line: line, Col: 1}, "%s: the record at byte 0x%x of the section: %s", s.Name, fe.Off, fe.Msg)
		} else {
			errs.Add(asm.Pos{File: l.File, Line: line, Col: 1}, "%s: %v", s.Name, err)
		}
	}
	return errs.Err()
}

// subroutines lists, per code section, the function symbols it defines
// besides its own function.
func (l *Listing) subroutines() map[*Section][]*Symbol {
	out := map[*Section][]*Symbol{}
	for _, y := range l.order {
		if s := y.Section; s != nil && s.isCode && y.Type == 2 && ".text."+y.Name != s.Name {
			out[s] = append(out[s], y)
		}
	}
	return out
}

// endsMatch reports whether the function symbols, in the symbol-table
// order funcs, give the functions in group (and their sections' own
// functions) the end labels the listing's .size lines name.
func (l *Listing) endsMatch(funcs []*Symbol, group []*Symbol) bool {
	got := l.endLabels(funcs)
	check := slices.Clone(group)
	for _, y := range group {
		if own := l.symbols[strings.TrimPrefix(y.Section.Name, ".text.")]; own != nil {
			check = append(check, own)
		}
	}
	for _, y := range check {
		if y.sizeEnd != "" && got[y] != y.sizeEnd {
			return false
		}
	}
	return true
}

// permute calls try with the permutations of s (the first is s itself,
// which the caller has tried) until it returns true.
func permute(s []*Symbol, try func([]*Symbol) bool) bool {
	var rec func(k int) bool
	first := true
	rec = func(k int) bool {
		if k == len(s) {
			if first {
				first = false
				return false
			}
			return try(slices.Clone(s))
		}
		for i := k; i < len(s); i++ {
			s[k], s[i] = s[i], s[k]
			if rec(k + 1) {
				return true
			}
			s[k], s[i] = s[i], s[k]
		}
		return false
	}
	return rec(0)
}

// layout makes the cubin with the subroutines of each code section in the
// given order (listing order for the sections not in it). It also returns
// the function symbols in symbol-table order.
func (l *Listing) layout(order map[*Section][]*Symbol) (*cubin.File, []*Symbol, error) {
	b := &builder{l: l, byName: map[string]*outSec{}, syms: map[string]*outSym{}, symOf: map[*Symbol]*outSym{}, strSeen: map[string]bool{}, subOrder: order}
	b.sections()
	b.symbols()
	b.names()
	b.headers()
	b.fixups()
	b.relocations()
	if err := b.errs.Err(); err != nil {
		return nil, nil, err
	}
	var funcs []*Symbol
	for _, o := range append(slices.Clone(b.locals), b.globals...) {
		for y, oy := range b.symOf {
			if oy == o && y.Type == 2 {
				funcs = append(funcs, y)
			}
		}
	}
	return b.file(), funcs, nil
}

// sections makes the section list: the ELF tables, the listed sections in
// their order, and a relocation section for each that has relocations,
// placed before the first allocated section.
func (b *builder) sections() {
	add := func(s *outSec) {
		b.secs = append(b.secs, s)
		b.byName[s.name] = s
	}
	add(&outSec{})
	add(&outSec{name: ".shstrtab", typ: cubin.SecStrtab, align: 1})
	add(&outSec{name: ".strtab", typ: cubin.SecStrtab, align: 1})
	add(&outSec{name: ".symtab", typ: cubin.SecSymtab, align: 8, entsize: 24})
	var listed []*outSec
	for _, s := range b.l.Sections {
		o := &outSec{name: s.Name, typ: s.Type, flags: s.Flags, align: s.Align, entsize: s.EntSize, data: s.data, size: s.size, src: s}
		if s.isCode {
			o.flags |= uint64(s.Barriers) << 20
		}
		listed = append(listed, o)
		b.byName[o.name] = o
	}
	// relocations: code first, in section order, then data
	var rels []*outSec
	for _, pass := range []bool{true, false} {
		for _, o := range listed {
			s := o.src
			if s.isCode != pass {
				continue
			}
			for _, r := range s.asm.Refs {
				o.relocs = append(o.relocs, outReloc{off: r.Offset, typ: b.codeRelocType(r), sym: r.Symbol, line: r.Line})
			}
			for _, r := range s.relocs {
				o.relocs = append(o.relocs, outReloc{off: r.off, typ: r.typ, sym: r.sym, line: r.line})
			}
			if len(o.relocs) > 0 {
				o.rel = &outSec{name: ".rel" + o.name, typ: cubin.SecRel, align: 8, entsize: 16, relFor: o}
				rels = append(rels, o.rel)
			}
		}
	}
	placed := false
	for _, o := range listed {
		if !placed && o.flags&cubin.SHFAlloc != 0 {
			for _, r := range rels {
				add(r)
			}
			placed = true
		}
		add(o)
	}
	if !placed {
		for _, r := range rels {
			add(r)
		}
	}
	for i, s := range b.secs {
		s.index = i
	}
}

// codeRelocType is the relocation an operand that names a symbol needs.
func (b *builder) codeRelocType(r maxwell.CodeRef) uint32 {
	sec := ""
	if y := b.l.symbols[r.Symbol]; y != nil && y.Section != nil {
		sec = y.Section.Name
	}
	return relocTypeFor(r.Kind, sec)
}

// function is a code section and the function it is named after.
type function struct {
	name string
	text *outSec
}

func (b *builder) functions() []function {
	var fns []function
	for _, s := range b.secs {
		if s.src != nil && s.src.isCode {
			fns = append(fns, function{strings.TrimPrefix(s.name, ".text."), s})
		}
	}
	return fns
}

// hasSymbol reports whether a section gets a section symbol: all but the
// ELF tables, .nv.info* and relocation sections.
func hasSymbol(s *outSec) bool {
	switch s.typ {
	case cubin.SecNull, cubin.SecStrtab, cubin.SecSymtab, cubin.SecRel, cubin.SecRela, cubin.SecCUDAInfo:
		return false
	}
	return true
}

// symbols makes the symbol table entries of the listing's symbols and of the
// sections; names orders them.
func (b *builder) symbols() {
	for _, s := range b.secs {
		if hasSymbol(s) {
			s.symbol = &outSym{name: s.name, info: 3, sec: s}
		}
	}
	for _, y := range b.l.order {
		o := &outSym{name: y.Name, info: y.Bind<<4 | y.Type, other: y.Other, size: y.size}
		if y.Section != nil {
			o.sec = b.byName[y.Section.Name]
			o.value = b.symbolValue(y, y.Name)
			if y.sizeAlign != 0 {
				o.value = y.sizeAlign // shared objects of relocatable cubins: the value is the alignment
			}
			if y.Type == 13 && y.Other == 0 && strings.HasPrefix(y.Section.Name, ".nv.global") {
				o.other = 0x20 // STO_CUDA_GLOBAL, which nvdisasm does not print
			}
			if y.sizeEnd != "" {
				end := b.symbolValue(y, y.sizeEnd)
				if end < o.value {
					b.errorf(y.Line, "symbol %s ends (%s) before it starts", y.Name, y.sizeEnd)
				}
				o.size = end - o.value
			}
		} else if y.Bind == 0 {
			// the SYMBOLS block says neither: ptxas's descriptor sizes are
			// weak, textures, surfaces and functions global
			o.info |= 1 << 4
			if strings.HasPrefix(y.Name, ".nv.") && strings.HasSuffix(y.Name, "DescSize") {
				o.info = 2<<4 | y.Type
			}
		}
		b.syms[y.Name] = o
		b.symOf[y] = o
	}
}

// symbolValue is the address of label (a symbol, or the end of one) in y's section.
func (b *builder) symbolValue(y *Symbol, label string) uint64 {
	s := y.Section
	if s.isCode {
		a, ok := s.asm.Labels[label]
		if !ok {
			b.errorf(y.Line, "symbol %s: no label %s in %s", y.Name, label, s.Name)
			return 0
		}
		return a
	}
	v, ok := s.labels[label]
	if !ok {
		b.errorf(y.Line, "symbol %s: no label %s in %s", y.Name, label, s.Name)
	}
	return v
}

// addStr appends a name to .strtab (once), and to .shstrtab when it names a
// section (ptxas puts the names of sections it later drops there too).
func (b *builder) addStr(name string, section bool) {
	if b.strSeen[name] {
		return
	}
	b.strSeen[name] = true
	b.strs = append(b.strs, name)
	if section {
		b.shstrs = append(b.shstrs, name)
	}
}

// addSym enters the symbol called name (a section's or the listing's) in
// the table, after its string.
func (b *builder) addSym(y *outSym) {
	if y == nil || y.index != 0 {
		return
	}
	b.addStr(y.name, y.info&0xf == 3)
	y.index = -1
	if y.info>>4 == 1 {
		b.globals = append(b.globals, y)
	} else {
		b.locals = append(b.locals, y)
	}
}

// section enters a section name: its symbol if it has one, else the name.
func (b *builder) section(name string) {
	if s := b.byName[name]; s != nil && s.symbol != nil {
		b.addSym(s.symbol)
		return
	}
	b.addStr(name, true)
}

// names orders strings and symbols as ptxas creates them: the fixed names,
// then function by function its symbol, sections, the module's data and
// undefined symbols (with the first function), its constant banks (with the
// names of the objects ptxas dropped), its subroutines, relocations; then
// .nv.rel.action, the call graph and everything not placed yet.
func (b *builder) names() {
	for _, n := range []string{".shstrtab", ".strtab", ".symtab", ".symtab_shndx", ".nv.info"} {
		b.addStr(n, true)
	}
	fns := b.functions()
	cg := b.callgraph()
	for i, fn := range fns {
		entry := false
		if y := b.syms[fn.name]; y != nil {
			entry = y.other&0x10 != 0
		}
		b.addSym(b.syms[fn.name])
		b.section(fn.text.name)
		rel := b.l.Type == cubin.ETRel
		// ptxas -c enters a function's callees, and with the first function
		// the functions whose address is taken (those the module's data
		// point at first)
		callees := func() {
			b.undefinedRefs(fn)
			for _, c := range cg.callees[fn.name] {
				b.addSym(b.syms[c])
			}
		}
		taken := func() {
			if i == 0 {
				for _, a := range cg.addressTaken {
					b.addSym(b.syms[a])
				}
			}
		}
		module := func() {
			if i == 0 {
				b.moduleData()
				for _, a := range cg.addressTaken {
					if b.moduleRefs()[a] {
						b.addSym(b.syms[a])
					}
				}
			}
		}
		if rel && !entry {
			// a device function has no shared memory of its own; when its
			// own address is taken, the others come before its .nv.info
			module()
			callees()
			if slices.Contains(cg.addressTaken, fn.name) {
				taken()
			}
			b.section(".nv.info." + fn.name)
			taken()
		} else {
			b.section(".nv.info." + fn.name)
			b.section(".nv.shared." + fn.name)
			module()
			if rel {
				callees()
				taken()
			}
		}
		b.undefinedRefs(fn)
		if rel {
			// ptxas -c enters the objects the code's relocations name as it
			// makes them (with their sections), and the relocation section
			// with the first
			for k, r := range sortedByOffset(fn.text.relocs) {
				if o := b.syms[r.sym]; o != nil && o.sec != nil && o.sec.src != nil && !o.sec.src.isCode {
					b.section(o.sec.name)
					b.addSym(o)
				}
				if k == 0 {
					b.addStr(fn.text.rel.name, true)
				}
			}
		}
		if c2 := b.byName[".nv.constant2."+fn.name]; c2 != nil {
			b.section(c2.name)
			if !rel {
				b.addStr("__ocg_const", false) // ptxas's name for the bank's data, dropped from executables
			}
			b.objects(c2)
		}
		subs, ok := b.subOrder[fn.text.src]
		if !ok {
			subs = b.l.subroutines()[fn.text.src]
		}
		for _, y := range subs {
			b.addSym(b.symOf[y])
		}
		if fn.text.rel != nil {
			b.addStr(fn.text.rel.name, true)
		}
		if c0 := b.byName[".nv.constant0."+fn.name]; c0 != nil {
			b.section(c0.name)
			b.objects(c0)
			b.addStr("_param", false)
			rs := slices.Clone(c0.relocs)
			slices.SortFunc(rs, func(a, b outReloc) int { return int(a.off) - int(b.off) })
			for _, r := range rs {
				if r.typ == rTEX_HEADER_INDEX || r.typ == rSURF_HEADER_INDEX {
					b.addStr("$BINDLESS$"+fn.name+"$"+r.sym, false)
				}
			}
			if c0.rel != nil {
				b.addStr(c0.rel.name, true)
			}
		}
		// other sections of the function (further banks, local memory)
		for _, s := range b.secs {
			if s.src != nil && moduleOwner(s.name) == fn.name {
				b.section(s.name)
				b.objects(s)
			}
		}
	}
	for _, s := range b.secs {
		if s.src != nil && s.src.isCode {
			continue
		}
		for _, fx := range fixupsOf(s) {
			if fx.kind == fixStrIndex {
				b.addStr(fx.a, false)
			}
		}
	}
	for _, s := range b.secs {
		if s.rel != nil {
			b.addStr(s.rel.name, true)
		}
	}
	for _, s := range b.secs {
		if s.name == ".nv.rel.action" {
			b.section(s.name)
		}
	}
	for _, s := range b.secs {
		if s.typ == cubin.SecCUDACallgraph || s.typ == cubin.SecCUDAPrototype {
			b.section(s.name)
		}
	}
	if b.byName[".nv.callgraph"] != nil {
		b.addStr(".nv.prototype", true) // there or not
	}
	// anything left: further sections and symbols, in listing order
	for _, s := range b.secs[1:] {
		if s.src != nil {
			b.section(s.name)
			b.objects(s)
		}
	}
	for _, y := range b.l.order {
		b.addSym(b.symOf[y])
	}
	for i, y := range b.locals {
		y.index = i + 1
	}
	for i, y := range b.globals {
		y.index = len(b.locals) + 1 + i
	}
}

// moduleData enters the data sections no function owns (.nv.constant3,
// .nv.global, ...) with their objects, in the order nvdisasm's .L_N labels
// give their objects (it numbers them in symbol-table order).
func (b *builder) moduleData() {
	var secs []*outSec
	for _, s := range b.secs {
		if s.src == nil || s.src.isCode || s.typ == cubin.SecCUDAInfo || moduleOwner(s.name) != "" || !hasSymbol(s) {
			continue
		}
		if s.name == ".nv.rel.action" || s.typ == cubin.SecCUDACallgraph || s.typ == cubin.SecCUDAPrototype {
			continue
		}
		secs = append(secs, s)
	}
	rank := b.objectRanks()
	first := func(s *outSec) int {
		r := 1 << 30
		for _, y := range b.l.order {
			if b.symOf[y].sec == s {
				if v, ok := rank[y]; ok {
					r = min(r, v)
				}
			}
		}
		return r
	}
	slices.SortStableFunc(secs, func(a, c *outSec) int { return first(a) - first(c) })
	for _, s := range secs {
		b.section(s.name)
		b.objects(s)
	}
}

// moduleRefs is the set of symbols relocations of module data name.
func (b *builder) moduleRefs() map[string]bool {
	out := map[string]bool{}
	for _, s := range b.secs {
		if s.src != nil && !s.src.isCode && moduleOwner(s.name) == "" {
			for _, r := range s.relocs {
				out[r.sym] = true
			}
		}
	}
	return out
}

// objectRanks is the place of each object symbol in the symbol table as
// nvdisasm's listing shows it: it numbers one .L_N label per object symbol,
// in symbol-table order, and prints those that end an object; the others
// take the numbers left, in listing order.
func (b *builder) objectRanks() map[*Symbol]int {
	rank := map[*Symbol]int{}
	used := map[int]bool{}
	var hidden []*Symbol
	for _, y := range b.l.order {
		if y.Section == nil || y.Section.isCode || (y.Type != 1 && y.Type != 13) || y.Other&0x40 != 0 {
			continue
		}
		if n, ok := strings.CutPrefix(y.sizeEnd, ".L_"); ok {
			if v, err := strconv.Atoi(n); err == nil && !used[v] {
				rank[y], used[v] = v, true
				continue
			}
		}
		hidden = append(hidden, y)
	}
	next := 1
	for _, y := range hidden {
		for used[next] {
			next++
		}
		rank[y], used[next] = next, true
	}
	return rank
}

// callGraph is what .nv.callgraph says: each function's callees and the
// functions whose address is taken (the 0xfffffffe list).
type callGraph struct {
	callees      map[string][]string
	addressTaken []string
}

// callgraph reads the listing's .nv.callgraph: pairs of words, where
// (0, 0xffffffff) starts caller-callee pairs and (0, 0xfffffffX) lists of
// (function, prototype).
func (b *builder) callgraph() callGraph {
	cg := callGraph{callees: map[string][]string{}}
	s := b.byName[".nv.callgraph"]
	if s == nil || s.src == nil {
		return cg
	}
	names := map[int]string{}
	for _, fx := range s.src.fixups {
		if fx.kind == fixIndex {
			names[fx.off] = fx.a
		}
	}
	mode := uint32(0)
	for off := 0; off+8 <= len(s.data); off += 8 {
		a, okA := names[off]
		c, okC := names[off+4]
		if !okA {
			mode = binary.LittleEndian.Uint32(s.data[off+4:])
			continue
		}
		switch {
		case mode == 0xffffffff && okC:
			cg.callees[a] = append(cg.callees[a], c)
		case mode == 0xfffffffe:
			cg.addressTaken = append(cg.addressTaken, a)
		}
	}
	return cg
}

// undefinedRefs enters the symbols no section defines that relocations of
// fn's code and constant banks name: the global ones (constant banks
// first) before the weak ones.
func (b *builder) undefinedRefs(fn function) {
	var refs []outReloc
	for _, s := range b.secs {
		if s.src != nil && !s.src.isCode && moduleOwner(s.name) == fn.name {
			refs = append(refs, sortedByOffset(s.relocs)...)
		}
	}
	refs = append(refs, sortedByOffset(fn.text.relocs)...)
	for _, weak := range []bool{false, true} {
		for _, r := range refs {
			if o := b.syms[r.sym]; o != nil && o.sec == nil && (o.info>>4 == 2) == weak {
				b.addSym(o)
			}
		}
	}
}

func sortedByOffset(rs []outReloc) []outReloc {
	rs = slices.Clone(rs)
	slices.SortStableFunc(rs, func(a, b outReloc) int { return int(a.off) - int(b.off) })
	return rs
}

// objects enters the symbols defined in section s, in listing order.
func (b *builder) objects(s *outSec) {
	for _, y := range b.l.order {
		if o := b.symOf[y]; o.sec == s {
			b.addSym(o)
		}
	}
}

// moduleOwner returns the function a per-function data section belongs to
// (.nv.constant0.f, .nv.shared.f, .nv.local.f), "" for module sections.
func moduleOwner(name string) string {
	for _, p := range []string{".nv.shared.", ".nv.local.", ".nv.info."} {
		if f, ok := strings.CutPrefix(name, p); ok {
			return f
		}
	}
	if rest, ok := strings.CutPrefix(name, ".nv.constant"); ok {
		if _, f, ok := strings.Cut(rest, "."); ok {
			return f
		}
	}
	return ""
}

func fixupsOf(s *outSec) []fixup {
	if s.src == nil {
		return nil
	}
	return s.src.fixups
}

// headers fills the link and info fields as ptxas does.
func (b *builder) headers() {
	symtab := b.byName[".symtab"]
	symtab.link = uint32(b.byName[".strtab"].index)
	symtab.info = uint32(len(b.locals) + 1)
	textOf := func(fn string) uint32 {
		if t := b.byName[".text."+fn]; t != nil {
			return uint32(t.index)
		}
		return 0
	}
	for _, s := range b.secs {
		switch {
		case s.relFor != nil:
			s.link, s.info = uint32(symtab.index), uint32(s.relFor.index)
		case s.src == nil:
		case s.src.isCode:
			fn := strings.TrimPrefix(s.name, ".text.")
			y := b.syms[fn]
			if y == nil || y.sec != s {
				b.errorf(s.src.Line, "code section %s has no function symbol %s", s.name, fn)
				continue
			}
			s.link = uint32(symtab.index)
			s.info = uint32(s.src.Registers)<<24 | uint32(y.index)
		case s.typ == cubin.SecCUDAInfo:
			s.link = uint32(symtab.index)
			s.info = textOf(strings.TrimPrefix(s.name, ".nv.info."))
		case s.typ == cubin.SecCUDACallgraph || s.typ == cubin.SecCUDAPrototype:
			s.link = uint32(symtab.index)
		default:
			if fn := moduleOwner(s.name); fn != "" {
				s.info = textOf(fn)
			}
		}
	}
}

// fixups resolves the symbolic data words.
func (b *builder) fixups() {
	for _, s := range b.secs {
		if s.src == nil || len(s.src.fixups) == 0 {
			continue
		}
		data := s.data
		var targets map[int]bool
		// the record sizes first: srelTargets walks the records
		fixes := slices.Clone(s.src.fixups)
		slices.SortStableFunc(fixes, func(a, b fixup) int { return btoi(a.kind == fixSrel) - btoi(b.kind == fixSrel) })
		for _, fx := range fixes {
			if fx.kind == fixSrel && targets == nil {
				targets = srelTargets(data)
			}
			var v uint64
			switch fx.kind {
			case fixIndex:
				y := b.syms[fx.a]
				if y == nil {
					if sec := b.byName[fx.a]; sec != nil {
						y = sec.symbol
					}
				}
				if y == nil {
					b.errs.Add(asm.Pos{File: b.l.File, Line: fx.line, Col: fx.col}, "index@(%s): no such symbol", fx.a)
					continue
				}
				v = uint64(y.index)
			case fixStrIndex:
				off := 1
				for _, str := range b.strs {
					if str == fx.a {
						break
					}
					off += len(str) + 1
				}
				v = uint64(off)
			case fixDiff:
				a, okA := s.src.labels[fx.a]
				c, okC := s.src.labels[fx.b]
				if !okA || !okC {
					b.errs.Add(asm.Pos{File: b.l.File, Line: fx.line, Col: fx.col}, "(%s - %s): undefined label", fx.b, fx.a)
					continue
				}
				v = c - a
			case fixSrel:
				fn := strings.TrimPrefix(s.name, ".nv.info.")
				text := b.byName[".text."+fn]
				if text == nil || text.src == nil {
					b.errs.Add(asm.Pos{File: b.l.File, Line: fx.line, Col: fx.col}, "%s@srel: no code section .text.%s", fx.a, fn)
					continue
				}
				a, ok := text.src.asm.Labels[fx.a]
				if !ok {
					b.errs.Add(asm.Pos{File: b.l.File, Line: fx.line, Col: fx.col}, "%s@srel: no label %s in .text.%s", fx.a, fx.a, fn)
					continue
				}
				switch {
				case fx.add != 0:
					v = maxwell.InstAt(a) + fx.add
				case targets[fx.off]:
					v = a
				default:
					v = maxwell.InstAt(a)
				}
			case fixCodeAddr:
				text := b.byName[".text."+fx.b]
				if text == nil || text.src == nil {
					b.errs.Add(asm.Pos{File: b.l.File, Line: fx.line, Col: fx.col}, "(%s + %s@srel): no code section .text.%s", fx.b, fx.a, fx.b)
					continue
				}
				a, ok := text.src.asm.Labels[fx.a]
				if !ok {
					b.errs.Add(asm.Pos{File: b.l.File, Line: fx.line, Col: fx.col}, "(%s + %s@srel): no label %s in .text.%s", fx.b, fx.a, fx.a, fx.b)
					continue
				}
				if a == uint64(len(text.data)) {
					a -= 8 // nvdisasm counts the end label 8 bytes early (and prints + 0x8)
				}
				v = a + fx.add
			}
			putLE(data[fx.off:], fx.size, v)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// srelTargets marks the words of an .nv.info section that are targets of
// EIATTR_INDIRECT_BRANCH_TARGETS entries (u32 branch, u16, u16, u32 count,
// count × u32 target): a label before a bundle names its control word
// there, and the branch itself elsewhere.
func srelTargets(data []byte) map[int]bool {
	out := map[int]bool{}
	for off := 0; off+4 <= len(data); {
		format, id := data[off], data[off+1]
		size := int(binary.LittleEndian.Uint16(data[off+2:]))
		if format != cubin.FmtSVal {
			off += 4
			continue
		}
		p := off + 4
		if id == 0x34 {
			for i := p; i+12 <= p+size && i+12 <= len(data); {
				cnt := int(binary.LittleEndian.Uint32(data[i+8:]))
				i += 12
				for k := 0; k < cnt && i+4 <= p+size; k++ {
					out[i] = true
					i += 4
				}
			}
		}
		off = p + size
	}
	return out
}

// relocations encodes the relocation sections, last offset first as ptxas
// writes them.
func (b *builder) relocations() {
	for _, s := range b.secs {
		if s.rel == nil {
			continue
		}
		rs := slices.Clone(s.relocs)
		slices.SortStableFunc(rs, func(a, b outReloc) int {
			switch {
			case a.off > b.off:
				return -1
			case a.off < b.off:
				return 1
			}
			return 0
		})
		var data []byte
		for _, r := range rs {
			y := b.syms[r.sym]
			if y == nil {
				if sec := b.byName[r.sym]; sec != nil {
					y = sec.symbol
				}
			}
			if y == nil {
				b.errorf(r.line, "relocation against %s: no such symbol", r.sym)
				continue
			}
			data = binary.LittleEndian.AppendUint64(data, r.off)
			data = binary.LittleEndian.AppendUint64(data, uint64(y.index)<<32|uint64(r.typ))
		}
		s.rel.data = data
	}
}

// file assembles the cubin.File.
func (b *builder) file() *cubin.File {
	strtab := []byte{0}
	offs := make(map[string]uint32, len(b.strs))
	for _, s := range b.strs {
		offs[s] = uint32(len(strtab))
		strtab = append(append(strtab, s...), 0)
	}
	shstrtab := []byte{0}
	for _, s := range b.shstrs {
		shstrtab = append(append(shstrtab, s...), 0)
	}
	b.byName[".strtab"].data = strtab
	b.byName[".shstrtab"].data = shstrtab
	var symtab []byte
	symtab = append(symtab, make([]byte, 24)...)
	for _, y := range append(slices.Clone(b.locals), b.globals...) {
		symtab = binary.LittleEndian.AppendUint32(symtab, offs[y.name])
		symtab = append(symtab, y.info, y.other)
		shndx := uint16(0)
		if y.sec != nil {
			shndx = uint16(y.sec.index)
		}
		symtab = binary.LittleEndian.AppendUint16(symtab, shndx)
		symtab = binary.LittleEndian.AppendUint64(symtab, y.value)
		symtab = binary.LittleEndian.AppendUint64(symtab, y.size)
	}
	b.byName[".symtab"].data = symtab
	f := &cubin.File{Class: 64, OSABI: 0x33, ABIVersion: 7, Type: b.l.Type, Machine: cubin.EMCUDA, Version: 0x76, Flags: b.l.Flags}
	for _, s := range b.secs {
		f.Sections = append(f.Sections, cubin.Section{Name: s.name, Type: s.typ, Flags: s.flags, Link: s.link, Info: s.info,
			Align: s.align, EntSize: s.entsize, Data: s.data, Size: s.size})
	}
	return f
}
