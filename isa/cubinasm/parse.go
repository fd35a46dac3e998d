// Package cubinasm rebuilds cubins from whole-cubin listings: what `gpuisa
// dis` and NVIDIA's nvdisasm print for an sm_5x cubin (with or without the
// hex column, in the VLIW layout or with -novliw). The listing carries the
// sections in file order with their flags, the symbols, every data byte
// (.nv.info records with index@(sym) words, constant banks, .nv.rel.action)
// and the code; what it leaves out (the symbol and string tables, the
// relocation sections, the file layout) is rebuilt as ptxas makes it, so that
// a listing of a ptxas cubin assembles back to the same bytes. Patch replaces
// one function's code in a cubin and brings the attributes that describe the
// code up to date.
package cubinasm

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/asm"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// Listing is a parsed whole-cubin listing.
type Listing struct {
	File      string
	Flags     uint32 // e_flags, from .headerflags
	FlagsLine int    // the line of .headerflags
	Type      uint16 // cubin.ETExec or cubin.ETRel, from .elftype
	Sections  []*Section
	Undefined []*Symbol // the SYMBOLS block: symbols no section defines
	symbols   map[string]*Symbol
	order     []*Symbol // every symbol, in the order the listing declares them
}

// SM is the target the listing's .headerflags name.
func (l *Listing) SM() int { return int(l.Flags & cubin.EFSMMask) }

// Section is one section of the listing.
type Section struct {
	Name      string
	Type      uint32
	Flags     uint64
	Align     uint64
	EntSize   uint64
	Registers int // .sectioninfo @"SHI_REGISTERS=n"
	Barriers  int // .sectionflags @"SHF_BARRIERS=n"
	Line      int

	alignSet bool
	data     []byte // sections with file data
	size     uint64 // sections without: the .zero total
	labels   map[string]uint64
	fixups   []fixup
	relocs   []dataReloc
	code     []maxwell.CodeLine
	isCode   bool
	asm      maxwell.Code
	// code: where its lines start in the parser's codeLines, while there
	codeFrom   int
	codeShared bool
	// code: the branch targets (endLabels), once worked out
	targets    []uint64
	targetsSet bool
}

// Code reports whether the section holds machine code (.text.<name>).
func (s *Section) Code() bool { return s.isCode }

// Symbol is a symbol the listing declares.
type Symbol struct {
	Name    string
	Bind    uint8 // 0 local, 1 global (.global), 2 weak (.weak)
	Type    uint8 // STT_*: 1 object, 2 function, 10 texture, 11 sampler, 12 surface, 13 CUDA object
	Other   uint8
	Section *Section // nil: undefined
	Line    int

	size      uint64
	sizeEnd   string // .size NAME,(END - NAME)
	sizeAlign uint64 // .size NAME, SIZE, ALIGN (shared objects)
	defined   bool   // a NAME: label places it
	value     uint64 // data sections: the label's offset
}

// fixup is a data word whose value is known only once the cubin is laid out.
type fixup struct {
	off   int
	size  int // bytes: 2 or 4
	kind  uint8
	a, b  string // symbol or labels
	add   uint64
	line  int
	col   int
	srelT bool // .L_x_N@srel names a branch target (the bundle), not a branch
}

const (
	fixIndex    = iota // index@(sym): symbol table index
	fixStrIndex        // str_index@("s"): string table offset
	fixDiff            // (.L_b - .L_a) between labels of the section
	fixSrel            // .L_x_N@srel: an address in the function's code
	fixCodeAddr        // (sym + .L_x_N@srel) [+ add]: an address in sym's code (the addend of an R_CUDA_64)
)

// dataReloc is a relocation of a data word.
type dataReloc struct {
	off  uint64
	typ  uint32
	sym  string
	line int
}

// maxSectionSize bounds what a listing can ask for, per section and in
// all (a cubin's sections are kilobytes; this keeps a hostile .zero from
// taking the machine's memory).
const maxSectionSize = 1 << 26

// Parse reads a whole-cubin listing.
func Parse(filename string, src []byte) (*Listing, error) {
	p := &parser{l: &Listing{File: filename, symbols: map[string]*Symbol{}}, file: filename}
	// room for every line: code sections take their lines from it in turn
	p.codeLines = make([]maxwell.CodeLine, 0, bytes.Count(src, []byte{'\n'})+1)
	asm.Lines(src, p.line)
	if p.l.Flags == 0 {
		p.errs.Add(asm.Pos{File: filename, Line: 1, Col: 1}, "no .headerflags line: not a whole-cubin listing")
	}
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	return p.l, nil
}

// IsCubinListing reports whether src looks like a whole-cubin listing (it
// has .headerflags and .section directives) rather than bare code.
func IsCubinListing(src []byte) bool {
	return bytes.Contains(src, []byte(".headerflags")) && bytes.Contains(src, []byte("\t.section\t")) ||
		bytes.Contains(src, []byte(".elftype"))
}

type parser struct {
	total     uint64 // bytes of section data so far
	l         *Listing
	file      string
	errs      asm.ErrorList
	cur       *Section
	inSymbols bool
	codeLines []maxwell.CodeLine // backs the code sections' lines, one after the other
}

func (p *parser) errorf(line, col int, format string, args ...any) {
	p.errs.Add(asm.Pos{File: p.file, Line: line, Col: col}, format, args...)
}

func (p *parser) line(raw string, n int) {
	// code lines, the most, go to the ISA's assembler as they are: only
	// the first character decides
	i := 0
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t') {
		i++
	}
	if i == len(raw) {
		return
	}
	if p.cur != nil && p.cur.isCode && raw[i] != '.' && (raw[i] != '/' || i+1 < len(raw) && raw[i+1] == '*') {
		// (instruction lines of listings start with their address column
		// /*0008*/, control words with /* 0x...; // starts a comment)
		p.codeLine(raw, n, i)
		return
	}
	s := strings.TrimSpace(raw)
	if s == "" {
		return
	}
	col := i + 1
	if strings.HasPrefix(s, "//") {
		if strings.HasPrefix(s, "//----") && strings.Contains(s, " SYMBOLS ") {
			p.cur, p.inSymbols = nil, true
		}
		return
	}
	if p.cur != nil && p.cur.isCode {
		if s[0] == '.' && !isLabel(s) && !strings.HasPrefix(s, ".word") {
			p.directive(s, n, col)
			return
		}
		p.codeLine(raw, n, i)
		return
	}
	// an address column /*0004*/ before data
	if strings.HasPrefix(s, "/*") && !strings.HasPrefix(s, "/* ") {
		if end := strings.Index(s, "*/"); end > 2 && isHex(s[2:end]) {
			rest := strings.TrimSpace(s[end+2:])
			col += len(s) - len(rest)
			s = rest
		}
	}
	if s == "" {
		return // an address with nothing after it
	}
	if isLabel(s) {
		p.label(s[:len(s)-1], n, col)
		return
	}
	if s[0] == '.' {
		p.directive(s, n, col)
		return
	}
	p.errorf(n, col, "unexpected text outside code: %s", s)
}

// codeLine keeps a line of a code section for the ISA's assembler (and
// notes the label it defines, if that is all it holds).
func (p *parser) codeLine(raw string, n, i int) {
	s, line := p.cur, maxwell.CodeLine{Text: raw, Line: n}
	// a section's lines take the next places of p.codeLines while they end
	// it (it has a place for every line of the listing, so it never moves);
	// s.code's capacity ends at its lines, so an append elsewhere copies
	room := len(p.codeLines) < cap(p.codeLines)
	switch {
	case len(s.code) == 0 && room:
		s.codeFrom, s.codeShared = len(p.codeLines), true
		fallthrough
	case s.codeShared && room && s.codeFrom+len(s.code) == len(p.codeLines):
		p.codeLines = append(p.codeLines, line)
		s.code = p.codeLines[s.codeFrom:len(p.codeLines):len(p.codeLines)]
	default:
		s.code, s.codeShared = append(s.code, line), false
	}
	if raw[len(raw)-1] == ':' || raw[len(raw)-1] == ' ' || raw[len(raw)-1] == '\t' {
		if s := strings.TrimSpace(raw); isLabel(s) {
			p.label(s[:len(s)-1], n, i+1)
		}
	}
}

// isHex: s is hex digits.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return len(s) > 0
}

// isLabel: "name:" alone on the line.
func isLabel(s string) bool {
	return len(s) > 1 && s[len(s)-1] == ':' && !strings.ContainsAny(s, " \t;,")
}

func (p *parser) label(name string, n, col int) {
	if p.cur == nil {
		p.errorf(n, col, "label %s outside any section", name)
		return
	}
	if !p.cur.isCode {
		if _, dup := p.cur.labels[name]; dup {
			p.errorf(n, col, "label %s defined twice", name)
			return
		}
		p.cur.labels[name] = p.cur.offset()
	}
	if y := p.l.symbols[name]; y != nil && y.Section == nil && !p.inSymbols {
		y.Section, y.defined, y.value = p.cur, true, p.cur.offset()
	}
}

func (s *Section) offset() uint64 {
	if s.hasData() {
		return uint64(len(s.data))
	}
	return s.size
}

// hasData: the section's bytes are in the file (not NOBITS or the CUDA
// types of relocatable files that only reserve memory).
func (s *Section) hasData() bool {
	switch s.Type {
	case cubin.SecNobits, cubin.SecCUDAGlobal, cubin.SecCUDALocal, cubin.SecCUDAShared:
		return false
	}
	return true
}

// symbol returns the symbol called name, declaring it.
func (p *parser) symbol(name string, n int) *Symbol {
	y := p.l.symbols[name]
	if y == nil || y.defined {
		// a new symbol (relocatable cubins have a _param in each bank)
		y = &Symbol{Name: name, Line: n}
		p.l.symbols[name] = y
		p.l.order = append(p.l.order, y)
		if p.inSymbols {
			p.l.Undefined = append(p.l.Undefined, y)
		}
	}
	return y
}

// splitDirective splits ".name args" (a tab or blanks between).
func splitDirective(s string) (string, string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// quoted returns the text of @"..." or "...".
func quoted(s string) (string, bool) {
	s = strings.TrimPrefix(s, "@")
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	return s[1 : len(s)-1], true
}

func (p *parser) directive(s string, n, col int) {
	name, args := splitDirective(s)
	argCol := col + len(s) - len(args) // args is a suffix of s
	need := func() bool {
		if p.cur == nil {
			p.errorf(n, col, "%s outside any section", name)
			return false
		}
		return true
	}
	switch name {
	case ".headerflags":
		q, ok := quoted(args)
		flags, err := parseHeaderFlags(q)
		if !ok || err != "" {
			p.errorf(n, argCol, "bad .headerflags %s: %s", args, err)
			return
		}
		p.l.Flags, p.l.FlagsLine = flags, n
	case ".elftype":
		switch q, _ := quoted(args); q {
		case "ET_EXEC":
			p.l.Type = cubin.ETExec
		case "ET_REL":
			p.l.Type = cubin.ETRel
		default:
			p.errorf(n, argCol, "unknown .elftype %s (want @\"ET_EXEC\" or @\"ET_REL\")", args)
		}
	case ".section":
		p.section(args, n, col, argCol)
	case ".sectionflags", ".sectioninfo":
		if !need() {
			return
		}
		key, limit, field := "SHF_BARRIERS", 127, &p.cur.Barriers
		if name == ".sectioninfo" {
			key, limit, field = "SHI_REGISTERS", 255, &p.cur.Registers
		}
		q, _ := quoted(args)
		v, ok := strings.CutPrefix(q, key+"=")
		x, err := strconv.Atoi(v)
		if !ok || err != nil || x < 0 || x > limit {
			p.errorf(n, argCol, "bad %s %s (want @\"%s=n\", n 0..%d)", name, args, key, limit)
			return
		}
		*field = x
	case ".sectionentsize":
		if !need() {
			return
		}
		v, err := strconv.ParseUint(args, 0, 64)
		if err != nil {
			p.errorf(n, argCol, "bad .sectionentsize %s", args)
			return
		}
		p.cur.EntSize = v
	case ".align":
		if !need() {
			return
		}
		v, err := strconv.ParseUint(args, 0, 64)
		if err != nil || v == 0 || v&(v-1) != 0 || v > 1<<16 {
			p.errorf(n, argCol, "bad .align %s (want a power of two)", args)
			return
		}
		if !p.cur.alignSet {
			p.cur.Align, p.cur.alignSet = v, true
			return
		}
		if p.cur.offset()+v > maxSectionSize {
			p.errorf(n, argCol, "section %s larger than %d bytes", p.cur.Name, maxSectionSize)
			return
		}
		p.cur.pad(v)
	case ".global", ".weak":
		y := p.symbol(args, n)
		y.Bind = 1
		if name == ".weak" {
			y.Bind = 2
		}
	case ".type":
		p.typeDirective(args, n, argCol)
	case ".size":
		p.sizeDirective(args, n, argCol)
	case ".other":
		p.otherDirective(args, n, argCol)
	case ".byte", ".short", ".word", ".dword", ".zero":
		if !need() {
			return
		}
		p.data(name, args, n, argCol)
	default:
		p.errorf(n, col, "unknown directive %s", name)
	}
}

func (p *parser) section(args string, n, col, argCol int) {
	parts := strings.Split(args, ",")
	if len(parts) != 3 {
		p.errorf(n, argCol, "bad .section %s (want NAME,\"FLAGS\",TYPE)", args)
		return
	}
	// no .align: 1, as every section of ptxas's whose listing shows none
	s := &Section{Name: strings.TrimSpace(parts[0]), Line: n, Align: 1, labels: map[string]uint64{}}
	if why := badSectionName(s.Name); why != "" {
		p.errorf(n, argCol, "bad section name %q: %s", s.Name, why)
		return
	}
	flags, ok := quoted(strings.TrimSpace(parts[1]))
	if !ok {
		p.errorf(n, argCol, "bad section flags %s", parts[1])
		return
	}
	for _, c := range flags {
		switch c {
		case 'a':
			s.Flags |= cubin.SHFAlloc
		case 'w':
			s.Flags |= cubin.SHFWrite
		case 'x':
			s.Flags |= cubin.SHFExecInstr
		default:
			p.errorf(n, argCol, "unknown section flag %q in %s", c, parts[1])
		}
	}
	typ, ok := parseSectionType(strings.TrimSpace(parts[2]))
	if !ok {
		p.errorf(n, argCol, "unknown section type %s", parts[2])
		return
	}
	s.Type = typ
	s.isCode = strings.HasPrefix(s.Name, ".text.") && s.Flags&cubin.SHFExecInstr != 0
	for _, o := range p.l.Sections {
		if o.Name == s.Name {
			p.errorf(n, argCol, "section %s listed twice (first on line %d)", s.Name, o.Line)
			return
		}
	}
	p.l.Sections = append(p.l.Sections, s)
	p.cur, p.inSymbols = s, false
}

// badSectionName says why name cannot name a section, or "". The listing
// writes the name as a label line ("NAME:") and in the ELF string table, so
// it must read back as one label: no blanks, controls or ';', not a comment.
func badSectionName(name string) string {
	switch {
	case name == "":
		return "it is empty"
	case strings.HasPrefix(name, "//"):
		return "it starts a comment"
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c == 0x7f || c == ';' {
			return fmt.Sprintf("it holds %q (a name has no blanks, control characters or ';')", c)
		}
	}
	return ""
}

// parseSectionType reads @progbits, @nobits or @"SHT_...".
func parseSectionType(s string) (uint32, bool) {
	switch s {
	case "@progbits":
		return cubin.SecProgbits, true
	case "@nobits":
		return cubin.SecNobits, true
	}
	q, ok := quoted(s)
	if !ok {
		return 0, false
	}
	if t, ok := sectionTypes()[q]; ok {
		return t, true
	}
	if v, ok := strings.CutPrefix(q, "SHT_0x"); ok {
		t, err := strconv.ParseUint(v, 16, 32)
		return uint32(t), err == nil
	}
	return 0, false
}

// sectionTypes maps the names cubin.SectionTypeName gives back to types
// (made when a listing first names one, not when a program starts).
var sectionTypes = sync.OnceValue(func() map[string]uint32 {
	m := map[string]uint32{}
	for t := uint32(0); t < 16; t++ {
		m[cubin.SectionTypeName(t)] = t
	}
	for t := uint32(cubin.SecCUDAInfo); t < cubin.SecCUDAConstant0+8; t++ {
		m[cubin.SectionTypeName(t)] = t
	}
	return m
})

func (s *Section) pad(align uint64) {
	for s.offset()%align != 0 {
		if s.hasData() {
			s.data = append(s.data, 0)
		} else {
			s.size++
		}
	}
}

var symbolTypes = map[string]uint8{
	"@function": 2, "@object": 1, `@"STT_CUDA_OBJECT"`: 13, `@"STT_CUDA_TEXTURE"`: 10,
	`@"STT_CUDA_SURFACE"`: 12, `@"STT_CUDA_SAMPLER"`: 11, "@notype": 0,
}

func (p *parser) typeDirective(args string, n, col int) {
	name, typ, ok := strings.Cut(args, ",")
	t, known := symbolTypes[strings.TrimSpace(typ)]
	if !ok || !known {
		p.errorf(n, col, "bad .type %s (want NAME,@function, @object or @\"STT_CUDA_...\")", args)
		return
	}
	y := p.symbol(strings.TrimSpace(name), n)
	y.Type = t
}

func (p *parser) sizeDirective(args string, n, col int) {
	name, expr, ok := strings.Cut(args, ",")
	if !ok {
		p.errorf(n, col, "bad .size %s", args)
		return
	}
	y := p.symbol(strings.TrimSpace(name), n)
	expr = strings.TrimSpace(expr)
	if strings.HasPrefix(expr, "(") {
		// (END - NAME)
		inner := strings.TrimSuffix(strings.TrimPrefix(expr, "("), ")")
		end, start, ok := strings.Cut(inner, " - ")
		if !ok || strings.TrimSpace(start) != y.Name {
			p.errorf(n, col, "bad .size expression %s (want (END - %s))", expr, y.Name)
			return
		}
		y.sizeEnd = strings.TrimSpace(end)
		return
	}
	sz, al, hasAlign := strings.Cut(expr, ",")
	v, err := strconv.ParseUint(strings.TrimSpace(sz), 0, 64)
	if err != nil {
		p.errorf(n, col, "bad .size %s", expr)
		return
	}
	y.size = v
	if hasAlign {
		a, err := strconv.ParseUint(strings.TrimSpace(al), 0, 64)
		if err != nil {
			p.errorf(n, col, "bad .size alignment %s", al)
			return
		}
		y.sizeAlign = a
	}
}

func (p *parser) otherDirective(args string, n, col int) {
	name, val, ok := strings.Cut(args, ",")
	q, qok := quoted(strings.TrimSpace(val))
	if !ok || !qok {
		p.errorf(n, col, "bad .other %s", args)
		return
	}
	var other uint8
	for _, f := range strings.Fields(q) {
		switch f {
		case "STO_CUDA_ENTRY":
			other |= 0x10
		case "STO_CUDA_CONSTANT":
			other |= 0x80
		case "STO_CUDA_SHARED":
			other |= 0x40
		case "STO_CUDA_GLOBAL":
			other |= 0x20
		case "STV_DEFAULT":
		case "STV_INTERNAL":
			other |= 1
		case "STV_HIDDEN":
			other |= 2
		case "STV_PROTECTED":
			other |= 3
		default:
			p.errorf(n, col, "unknown .other flag %s", f)
		}
	}
	p.symbol(strings.TrimSpace(name), n).Other = other
}

// data reads .byte, .short, .word and .zero.
func (p *parser) data(name, args string, n, col int) {
	s := p.cur
	if name == ".zero" {
		v, err := strconv.ParseUint(args, 0, 32)
		if err != nil {
			p.errorf(n, col, "bad .zero %s", args)
			return
		}
		if s.offset()+v > maxSectionSize || s.hasData() && p.total+v > maxSectionSize {
			p.errorf(n, col, ".zero %s makes the cubin larger than %d bytes", args, maxSectionSize)
			return
		}
		if s.hasData() {
			p.total += v
		}
		if s.hasData() {
			s.data = append(s.data, make([]byte, v)...)
		} else {
			s.size += v
		}
		return
	}
	if !s.hasData() {
		p.errorf(n, col, "%s in section %s, which has no file data (only .zero)", name, s.Name)
		return
	}
	size := 4
	switch name {
	case ".byte":
		size = 1
	case ".short":
		size = 2
	case ".dword":
		size = 8
	}
	for k := 0; len(args) > 0; k++ {
		arg, rest, _ := strings.Cut(args, ",")
		acol := col + len(args) - len(strings.TrimLeft(args, " "))
		arg = strings.TrimSpace(arg)
		args = strings.TrimLeft(rest, " ")
		col += len(arg)
		if k > 0 && size != 1 {
			p.errorf(n, acol, "%s takes one value", name)
			return
		}
		off := len(s.data)
		s.data = append(s.data, make([]byte, size)...)
		if v, ok := parseNumber(arg); ok && v>>(8*size) == 0 {
			putLE(s.data[off:], size, v)
			continue
		}
		if size == 1 {
			p.errorf(n, acol, "bad .byte value %s", arg)
			return
		}
		p.expr(s, off, size, arg, n, acol)
	}
}

// parseNumber reads 0x-prefixed hex or decimal without allocating.
func parseNumber(s string) (uint64, bool) {
	base := uint64(10)
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		base, s = 16, s[2:]
	}
	if s == "" {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if v > (1<<64-1-d)/base {
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}

func putLE(b []byte, size int, v uint64) {
	for i := 0; i < size; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

// expr reads a symbolic data value.
func (p *parser) expr(s *Section, off, size int, arg string, n, col int) {
	fx := fixup{off: off, size: size, line: n, col: col}
	switch {
	case strings.HasPrefix(arg, "index@(") && strings.HasSuffix(arg, ")"):
		fx.kind, fx.a = fixIndex, arg[len("index@("):len(arg)-1]
	case strings.HasPrefix(arg, "str_index@(") && strings.HasSuffix(arg, ")"):
		str, ok := quoted(arg[len("str_index@(") : len(arg)-1])
		if !ok {
			p.errorf(n, col, "bad str_index %s", arg)
			return
		}
		fx.kind, fx.a = fixStrIndex, str
	case strings.HasSuffix(arg, "@srel"):
		fx.kind, fx.a = fixSrel, strings.TrimSuffix(arg, "@srel")
	case strings.HasPrefix(arg, "(") && strings.Contains(arg, "@srel + "):
		// (.L_x_5@srel + 0x8): inside a braced pair
		lbl, add, _ := strings.Cut(strings.Trim(arg, "()"), "@srel + ")
		v, err := strconv.ParseUint(add, 0, 32)
		if err != nil {
			p.errorf(n, col, "bad offset in %s", arg)
			return
		}
		fx.kind, fx.a, fx.add = fixSrel, lbl, v
	case strings.HasPrefix(arg, "(") && strings.Contains(arg, " - "):
		b, a, _ := strings.Cut(strings.Trim(arg, "()"), " - ")
		fx.kind, fx.a, fx.b = fixDiff, strings.TrimSpace(a), strings.TrimSpace(b)
	case strings.HasPrefix(arg, "[20@lo(") && strings.HasSuffix(arg, "]"):
		// [20@lo(0x0)=tref] or [20@lo(0x0)=fun@R_CUDA_SURF_HEADER_INDEX(sref)]
		inner := arg[len("[20@lo(") : len(arg)-1]
		val, target, ok := strings.Cut(inner, ")=")
		v, err := strconv.ParseUint(val, 0, 32)
		if !ok || err != nil {
			p.errorf(n, col, "bad header index %s", arg)
			return
		}
		putLE(s.data[off:], size, v)
		typ := "R_CUDA_TEX_HEADER_INDEX"
		if f, ok := strings.CutPrefix(target, "fun@"); ok {
			t, rest, _ := strings.Cut(f, "(")
			typ, target = t, strings.TrimSuffix(rest, ")")
		}
		p.reloc(s, off, typ, target, n, col)
		return
	case strings.HasPrefix(arg, "R_CUDA_") && strings.HasSuffix(arg, ")"):
		typ, sym, _ := strings.Cut(arg[:len(arg)-1], "(")
		p.reloc(s, off, typ, sym, n, col)
		return
	case strings.HasPrefix(arg, "fun@R_CUDA_") && strings.HasSuffix(arg, ")"):
		// .dword fun@R_CUDA_G64(sym), fun@R_CUDA_UNUSED_CLEAR64(sym)
		typ, sym, _ := strings.Cut(arg[len("fun@"):len(arg)-1], "(")
		p.reloc(s, off, typ, sym, n, col)
		return
	case size == 4 && !strings.ContainsAny(arg, " ()@[]"):
		// .word sym: an R_CUDA_32 address (a function pointer in .nv.global.init)
		p.reloc(s, off, "R_CUDA_32", arg, n, col)
		return
	case size == 8 && !strings.ContainsAny(arg, " ()@[]"):
		// .dword sym: an R_CUDA_64 address (the debug sections')
		p.reloc(s, off, "R_CUDA_64", arg, n, col)
		return
	case size == 8 && strings.HasPrefix(arg, "(") && strings.Contains(arg, "@srel)"):
		// (sym + .L_x_N@srel), ((sym + .L_x_N@srel) + 0x8): an R_CUDA_64
		// to sym whose addend (in the data: a REL entry) is the label's
		// address in sym's code, and the offset after it
		inner, add := arg, uint64(0)
		if strings.HasPrefix(arg, "((") {
			in, a, ok := strings.Cut(arg[1:len(arg)-1], ") + ")
			v, err := strconv.ParseUint(a, 0, 32)
			if !ok || err != nil {
				p.errorf(n, col, "bad code address %s", arg)
				return
			}
			inner, add = in+")", v
		}
		sym, lbl, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(inner, "("), "@srel)"), " + ")
		if !ok || sym == "" || lbl == "" {
			p.errorf(n, col, "bad code address %s", arg)
			return
		}
		fx.kind, fx.a, fx.b, fx.add = fixCodeAddr, lbl, sym, add
		p.reloc(s, off, "R_CUDA_64", sym, n, col)
	case size == 8 && strings.HasPrefix(arg, "(") && strings.Contains(arg, " + 0x"):
		// (.debug_frame + 0x588): an R_CUDA_64 to a symbol outside the
		// code (a section's) whose addend is in the data (a REL entry)
		sym, add, _ := strings.Cut(arg[1:len(arg)-1], " + ")
		v, err := strconv.ParseUint(add, 0, 64)
		if err != nil || sym == "" || strings.ContainsAny(sym, " ()") {
			p.errorf(n, col, "bad data value %s", arg)
			return
		}
		putLE(s.data[off:], size, v)
		p.reloc(s, off, "R_CUDA_64", sym, n, col)
		return
	default:
		p.errorf(n, col, "bad data value %s", arg)
		return
	}
	s.fixups = append(s.fixups, fx)
}

func (p *parser) reloc(s *Section, off int, typ, sym string, n, col int) {
	t, ok := relocType(typ)
	if !ok {
		p.errorf(n, col, "unknown relocation type %s", typ)
		return
	}
	s.relocs = append(s.relocs, dataReloc{off: uint64(off), typ: t, sym: sym, line: n})
}

// relocType is the number of an R_CUDA_* name.
func relocType(name string) (uint32, bool) {
	for t := uint32(0); t < 256; t++ {
		if cubin.RelocTypeName(t) == name {
			return t, true
		}
	}
	if v, ok := strings.CutPrefix(name, "R_CUDA_0x"); ok {
		t, err := strconv.ParseUint(v, 16, 32)
		return uint32(t), err == nil
	}
	return 0, false
}

// parseHeaderFlags is the inverse of cubin.HeaderFlags.
func parseHeaderFlags(s string) (uint32, string) {
	var flags uint32
	named := map[string]uint32{
		"EF_CUDA_TEXMODE_UNIFIED": cubin.EFTexmodeUnified, "EF_CUDA_TEXMODE_INDEPENDENT": cubin.EFTexmodeIndependent,
		"EF_CUDA_64BIT_ADDRESS": cubin.EF64BitAddress, "EF_CUDA_SW_1729687": cubin.EFSW1729687, "EF_CUDA_SW_1729687_v2": cubin.EFSW1729687v2,
	}
	sm := false
	for _, f := range strings.Fields(s) {
		if v, ok := named[f]; ok {
			flags |= v
			continue
		}
		if v, ok := strings.CutPrefix(f, "EF_CUDA_VIRTUAL_SM(EF_CUDA_SM"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(v, ")"))
			if err != nil || n <= 0 || n > 255 {
				return 0, "bad " + f
			}
			flags |= uint32(n) << cubin.EFVirtualSMShift
			continue
		}
		if v, ok := strings.CutPrefix(f, "EF_CUDA_SM"); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n > 255 {
				return 0, "bad " + f
			}
			flags |= uint32(n)
			sm = true
			continue
		}
		return 0, "unknown flag " + f
	}
	if !sm {
		return 0, "no EF_CUDA_SMnn"
	}
	return flags, ""
}
