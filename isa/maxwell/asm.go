package maxwell

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gpuisa/gpuisa/isa/asm"
)

// Assemble turns a listing into raw code: bundles of a control word and three
// instructions. It reads nvdisasm's listings and ours: "/*0008*/ TEXT ; /* 0x.. */"
// lines (the address and hex columns are optional), bare "/* 0x... */" lines
// holding control words, "name:" labels, ".word 0x..." for raw words, the
// "{ A ; / B }" pairs of nvdisasm's VLIW layout and its (*"..."*)
// annotations, and ignores directives such as .headerflags. Without a control
// line the control field of each instruction follows from its text (.reuse,
// .T/.P, "X;", a braced pair).
//
// The first pass reads the lines into statements (and the labels), the second
// encodes them in one scratch space: a line allocates nothing.
func Assemble(filename string, src []byte, sm int) ([]byte, error) {
	lines := bytes.Count(src, []byte{'\n'}) + 1
	r := assembleLines(filename, func(fn func(string, int)) { asm.Lines(src, fn) }, lines, sm, false, newEncScratch(lines))
	return r.code, r.err
}

// CodeLine is one line of a listing and its number in the file.
type CodeLine struct {
	Text string
	Line int
}

// RefKind says how a relocated operand is printed, and so which part of the
// symbol's address the relocation puts in the instruction.
type RefKind uint8

const (
	RefAbs   RefKind = iota // `(sym): the address (or a branch to a function elsewhere)
	RefLo                   // 32@lo(sym)
	RefHi                   // 32@hi(sym)
	RefConst                // c[`(sym)]: the constant bank and offset of sym
)

// CodeRef is an operand of the code that names a symbol rather than a value:
// the relocation a cubin needs there. The field is assembled as zero.
type CodeRef struct {
	Offset    uint64 // of the instruction in the code
	Kind      RefKind
	Symbol    string
	Line, Col int
}

// Code is what AssembleCode makes of one function's lines.
type Code struct {
	Code []byte
	// Labels maps every label defined in the lines to its address: that of
	// the instruction after it, or of the bundle when the label stands
	// before a bundle's control word (or before its first instruction in
	// lines without control words), as ptxas's branches to a bundle's first
	// instruction point at the bundle; the end of the code after the last.
	Labels map[string]uint64
	Refs   []CodeRef
}

// InstAt is the address of the instruction a code address stands for: the
// first of the bundle for the bundle's own address.
func InstAt(addr uint64) uint64 {
	if addr%BundleSize == 0 {
		return addr + 8
	}
	return addr
}

// AssembleCode assembles the code section of a whole-cubin listing: lines as
// Assemble reads them, where an operand may name a symbol of the cubin
// (`(sym), 32@lo(sym), 32@hi(sym), c[`(sym)], [R1+`(sym)]) instead of a
// value. Such operands are assembled as zero and listed in Refs. Errors
// carry the lines' numbers.
func AssembleCode(filename string, lines []CodeLine, sm int) (Code, error) {
	return NewCodeAssembler(sm, len(lines)).Assemble(filename, lines)
}

// A CodeAssembler assembles the code sections of one cubin (AssembleCode
// for each) in one scratch space, which remembers the instruction texts
// encoded before: sections share their cache and their buffers.
type CodeAssembler struct {
	sm int
	sc *encScratch
}

// NewCodeAssembler makes a CodeAssembler for sm and about lines code lines
// in all.
func NewCodeAssembler(sm, lines int) *CodeAssembler {
	return &CodeAssembler{sm: sm, sc: newEncScratch(lines)}
}

// Assemble is AssembleCode of one section's lines.
func (a *CodeAssembler) Assemble(filename string, lines []CodeLine) (Code, error) {
	r := assembleLines(filename, func(fn func(string, int)) {
		for _, l := range lines {
			fn(l.Text, l.Line)
		}
	}, len(lines), a.sm, true, a.sc)
	return Code{Code: r.code, Labels: r.labels, Refs: r.refs}, r.err
}

// asmResult is what assembleLines makes.
type asmResult struct {
	code   []byte
	labels map[string]uint64
	refs   []CodeRef
	err    error
}

// labelDef is where a label was defined: the instructions before it, its
// line, and whether a control word came between the bundle's start and it.
type labelDef struct {
	index     int
	line      int32
	afterCtrl bool
}

// addr is the address the label stands for: the bundle when it is at a
// bundle's start, unless it follows the control word.
func (d labelDef) addr() uint64 {
	if d.index%3 == 0 && !d.afterCtrl {
		return uint64(d.index / 3 * BundleSize)
	}
	return addrOf(d.index)
}

// assembleLines assembles the lines each yields. With refs, operands naming
// symbols that are not labels are assembled as zero and reported.
func assembleLines(filename string, each func(func(line string, n int)), lines, sm int, refs bool, sc *encScratch) asmResult {
	var errs asm.ErrorList
	stmts := sc.stmts[:0] // the statements of the last section done, no longer needed
	if cap(stmts) < lines {
		stmts = make([]asmStmt, 0, lines)
	}
	defer func() { sc.stmts = stmts[:0] }()
	labels := map[string]labelDef{}
	n := 0            // instructions so far
	pairHex := false  // the next bare hex line is the encoding of a braced pair's second instruction
	ctrlSeen := false // a control word for instruction n's bundle has been read
	// a listing starts where its first instruction's /*addr*/ column says
	// (dis -base): branch targets are absolute, their encodings relative.
	// A whole cubin's functions start at 0.
	var origin uint64
	haveOrigin := refs
	each(func(line string, ln int) {
		st, label, hasLabel, msg := parseLine(&sc.arena, line)
		if !haveOrigin && (st.kind == stmtInst || st.kind == stmtWord) {
			origin, haveOrigin = listingOrigin(line, n)
		}
		if hasLabel {
			if prev, dup := labels[label]; dup {
				errs.Add(asm.Pos{File: filename, Line: ln, Col: labelCol(line, label)}, "label %s defined twice (first on line %d)", label, prev.line)
			} else {
				labels[label] = labelDef{n, int32(ln), ctrlSeen && n%3 == 0}
			}
		}
		if msg != "" {
			errs.Add(asm.Pos{File: filename, Line: ln, Col: 1}, "%s", msg)
			return
		}
		switch st.kind {
		case stmtNone:
			return
		case stmtCtrl:
			if pairHex {
				// the second instruction's own encoding: the text says it
				// all, the word is its listed one
				pairHex = false
				if k := len(stmts) - 1; k >= 0 && stmts[k].kind == stmtInst && stmts[k].flags&flagHex == 0 {
					stmts[k].value, stmts[k].flags = st.value, stmts[k].flags|flagHex
				}
				return
			}
			if n%3 == 0 && !ctrlSeen {
				ctrlSeen = true
				break
			}
			// where no control word goes (inside a bundle, or right after
			// its control line) a bare hex line is an instruction's word:
			// nvdisasm's VLIW layout lists some by their hex comment alone
			// (vliwHidden)
			st.kind, st.flags = stmtWord, flagBare
			fallthrough
		default:
			if n%3 == 2 {
				ctrlSeen = false
			}
			if st.flags&flagClosesPair != 0 {
				pairHex = true
			}
			n++
		}
		st.line, st.index = int32(ln), int32(n)
		if st.kind != stmtCtrl {
			st.index--
		}
		stmts = append(stmts, st)
	})
	resolve := func(name string) (uint64, bool) {
		a, ok := labels[name]
		return origin + a.addr(), ok
	}
	nb := (n + 2) / 3
	out := make([]byte, nb*BundleSize)
	ctrlGiven := make([]bool, nb)
	// default: neutral control fields and NOP padding
	for b := 0; b < nb; b++ {
		c := uint64(NeutralCtrl) | uint64(NeutralCtrl)<<21 | uint64(NeutralCtrl)<<42
		binary.LittleEndian.PutUint64(out[b*BundleSize:], c)
		for s := 0; s < 3; s++ {
			binary.LittleEndian.PutUint64(out[b*BundleSize+8+8*s:], nopWord)
		}
	}
	var refList []CodeRef
	isLabel := func(name string) bool { _, ok := labels[name]; return ok }
	for i := range stmts {
		st := &stmts[i]
		b := int(st.index) / 3
		slot := int(st.index) % 3
		switch st.kind {
		case stmtCtrl:
			if b < nb {
				binary.LittleEndian.PutUint64(out[b*BundleSize:], st.value)
				ctrlGiven[b] = true
			}
		case stmtWord:
			binary.LittleEndian.PutUint64(out[b*BundleSize+8+8*slot:], st.value)
		default:
			text := st.text
			pc := origin + addrOf(int(st.index))
			if refs && hasSymbolRef(text) {
				n0 := len(refList)
				text, refList = cutSymbolRefs(&sc.arena, text, isLabel, refList)
				for k := n0; k < len(refList); k++ {
					r := &refList[k]
					r.Offset, r.Line = pc, int(st.line)
					r.Col += int(st.col) - 1
				}
			}
			if st.flags&(flagHex|flagCtrl) == flagHex && ctrlGiven[b] &&
				sc.listedWordFits(text, st.value, CtrlField(binary.LittleEndian.Uint64(out[b*BundleSize:]), slot), pc, sm) {
				// the listing's own word prints as the text: it is an
				// encoding of it (the one the listing came from)
				binary.LittleEndian.PutUint64(out[b*BundleSize+8+8*slot:], st.value)
				continue
			}
			w, c, err := sc.encode(text, pc, sm, resolve)
			if err != nil {
				// saying why takes trials: only for the first errors
				d := diagnosis{msg: err.Error() + ": " + text}
				if len(errs) < maxExplained {
					d = explainFailure(text, pc, sm, resolve, err)
				}
				errs.Add(asm.Pos{File: filename, Line: int(st.line), Col: int(st.col) + d.off}, "%s", d.msg)
				continue
			}
			binary.LittleEndian.PutUint64(out[b*BundleSize+8+8*slot:], w)
			if st.flags&flagCtrl != 0 {
				// the line's own fields, with the reuse bits (or texture
				// phase) its text implies
				c = st.ctrl | c&(0xf<<17)
				cw := binary.LittleEndian.Uint64(out[b*BundleSize:])
				cw = cw&^(0x1fffff<<(21*uint(slot))) | uint64(c)<<(21*uint(slot))
				binary.LittleEndian.PutUint64(out[b*BundleSize:], cw)
			} else if !ctrlGiven[b] {
				if st.flags&flagOpensPair != 0 {
					c = c&^0x1f | 0x10 // dual issue: stall 0, yield
				}
				cw := binary.LittleEndian.Uint64(out[b*BundleSize:])
				cw = cw&^(0x1fffff<<(21*uint(slot))) | uint64(c)<<(21*uint(slot))
				binary.LittleEndian.PutUint64(out[b*BundleSize:], cw)
			}
		}
	}
	checkGivenCtrl(out, stmts, ctrlGiven, sm, filename, &errs)
	r := asmResult{code: out, refs: refList}
	if refs {
		r.labels = make(map[string]uint64, len(labels))
		for k, v := range labels {
			r.labels[k] = v.addr()
		}
	}
	if err := errs.Err(); err != nil {
		r.err = err
	}
	return r
}

// labelCol is the column where label starts in line.
func labelCol(line, label string) int {
	if i := strings.Index(line, label); i >= 0 {
		return i + 1
	}
	return 1
}

// maxExplained is how many errors of one listing get a diagnosis; the
// rest say only that no form matches (a listing that is not one would
// otherwise take long to explain).
const maxExplained = 20

// addrOf is the address of instruction i (after its bundle's control word).
func addrOf(i int) uint64 { return uint64(i/3*BundleSize + 8 + 8*(i%3)) }

// asmStmt is one line that makes code.
type asmStmt struct {
	text  string // stmtInst: the instruction
	value uint64 // stmtCtrl, stmtWord: the word
	index int32  // instruction number (stmtCtrl: of the bundle's first)
	line  int32
	col   int32 // stmtInst: column of the text, for errors
	kind  uint8
	flags uint8
	ctrl  Ctrl // flagCtrl: the fields a [B------:R-:W-:Y:S00] prefix gives
}

// Flags of an instruction statement in nvdisasm's VLIW layout.
const (
	flagOpensPair  = 1 << iota // "{ A ;": A is dual-issued with the next one
	flagClosesPair             // "B }": B's encoding follows on a bare hex line
	flagCtrl                   // the line gives the control fields in text
	flagHex                    // value holds the line's hex column: its word as listed
	flagBare                   // stmtWord: a bare hex line where an instruction goes
)

const (
	stmtNone uint8 = iota // blank, label only, comment or directive
	stmtInst
	stmtCtrl
	stmtWord
)

// parseLine reads one listing line: the statement it holds, a label it
// defines, or an error message. A text it rewrites is kept in arena.
func parseLine(arena *textArena, line string) (st asmStmt, label string, hasLabel bool, msg string) {
	s := trimSpace(line)
	// an address column /*0008*/
	if len(s) > 2 && s[0] == '/' && s[1] == '*' && s[2] != ' ' {
		if end := strings.Index(s[2:], "*/") + 2; end > 2 {
			if _, ok := parseHex64(s[2:end]); ok {
				s = trimSpace(s[end+2:])
			}
		}
	}
	var flags uint8
	if len(s) > 0 && s[0] == '{' {
		flags |= flagOpensPair
		s = trimSpace(s[1:])
	}
	var ctrl Ctrl
	if len(s) > 0 && s[0] == '[' && len(s) > 2 && s[1] == 'B' {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return asmStmt{}, "", false, "bad control fields " + s + ": want [B------:R-:W-:Y:S00]"
		}
		c, msg := parseCtrlFields(s[:end+1])
		if msg != "" {
			return asmStmt{}, "", false, msg
		}
		ctrl, flags = c, flags|flagCtrl
		s = trimSpace(s[end+1:])
	}
	// a // comment (dis -nvn puts one after the hex column)
	if i := strings.Index(s, "//"); i >= 0 {
		s = trimSpace(s[:i])
	}
	// a trailing hex column /* 0x... */, or a bare control line
	var hexcol uint64
	hasHex := false
	if strings.HasSuffix(s, "*/") {
		if i := lastHexColumn(s); i >= 0 {
			if v, ok := parseHex64(trimSpace(s[i+5 : len(s)-2])); ok {
				hexcol, hasHex = v, true
				s = trimSpace(s[:i])
			}
		}
	}
	if len(s) > 0 && s[len(s)-1] == '}' && (len(s) < 2 || s[len(s)-2] == ' ' || s[len(s)-2] == ';') {
		flags |= flagClosesPair // "{5,4,0}" ends a DEPBAR's set, not a pair
		s = trimSpace(s[:len(s)-1])
	}
	col := offsetIn(line, s) + 1
	if i := strings.IndexByte(s, '('); i >= 0 {
		if j := strings.Index(s[i:], "(*\""); j >= 0 {
			s = cutAnnotation(arena, s, i+j)
		}
	}
	if !hasHex && strings.HasPrefix(s, "/* 0x") && strings.HasSuffix(s, "*/") {
		return asmStmt{}, "", false, badCtrlWord(s)
	}
	s = stripBlockComments(s)
	switch {
	case s == "" && hasHex:
		return asmStmt{kind: stmtCtrl, value: hexcol}, "", false, ""
	case s == "":
		return
	case s[len(s)-1] == ':' && !strings.ContainsAny(s, " \t;"):
		return asmStmt{}, s[:len(s)-1], true, ""
	case isLabelPrefix(s):
		// "name: instruction" on one line
		i := strings.IndexByte(s, ':')
		label, hasLabel = s[:i], true
		rest := trimSpace(s[i+1:])
		if within(line, rest) {
			col = offsetIn(line, rest) + 1
		} else {
			// s is stripBlockComments' copy: counted in it (the
			// comments it dropped are not counted)
			col += int32(len(s) - len(rest))
		}
		s = rest
	}
	switch {
	case s == "":
		return
	case strings.HasPrefix(s, ".word"):
		v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s[5:]), "0x"), 16, 64)
		if err != nil {
			return asmStmt{}, label, hasLabel, "bad .word: " + err.Error()
		}
		return asmStmt{kind: stmtWord, value: v}, label, hasLabel, ""
	case s[0] == '.':
		return // directives (.headerflags, .section, ...) carry no code
	}
	if hasHex {
		flags |= flagHex
	}
	return asmStmt{kind: stmtInst, text: s, col: col, flags: flags, ctrl: ctrl, value: hexcol}, label, hasLabel, ""
}

// within says whether s is a substring of line (shares its memory).
func within(line, s string) bool {
	if len(s) == 0 || len(line) == 0 {
		return false
	}
	p, l := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(line)))
	return p >= l && p+uintptr(len(s)) <= l+uintptr(len(line))
}

// offsetIn is where s, a substring of line, starts in it.
func offsetIn(line, s string) int32 {
	if len(s) == 0 {
		return 0
	}
	return int32(uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.StringData(line))))
}

// cutAnnotation removes nvdisasm's (*"BRANCH_TARGETS ..."*) or
// (*"INDIRECT_CALL"*) comment, which starts at i, from an instruction text,
// writing the new text to arena.
func cutAnnotation(arena *textArena, s string, i int) string {
	end := strings.Index(s[i:], "\"*)")
	if end < 0 {
		return s
	}
	start := arena.begin()
	arena.write(trimSpace(s[:i]))
	arena.write(" ")
	arena.write(trimSpace(s[i+end+3:]))
	return arena.end(start)
}

// lastHexColumn is strings.LastIndex(s, "/* 0x"), found from the slashes
// near the end of the line rather than by hashing it.
func lastHexColumn(s string) int {
	for i := len(s); ; {
		j := strings.LastIndexByte(s[:i], '/')
		if j < 0 || strings.HasPrefix(s[j:], "/* 0x") {
			return j
		}
		i = j
	}
}

// asciiSpace marks the bytes strings.TrimSpace trims below 0x80.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// trimSpace is strings.TrimSpace, without decoding UTF-8 unless an end of the
// string is not ASCII.
func trimSpace(s string) string {
	i, j := 0, len(s)
	for j-i >= 8 && s[i:i+8] == "        " {
		i += 8
	}
	for i < j && asciiSpace[s[i]] {
		i++
	}
	for j-i >= 8 && s[j-8:j] == "        " {
		j -= 8 // runs of blanks pad the listing's columns
	}
	for j > i && asciiSpace[s[j-1]] {
		j--
	}
	if i < j && (s[i] >= 0x80 || s[j-1] >= 0x80) {
		return strings.TrimSpace(s[i:j])
	}
	return s[i:j]
}

// parseHex64 is strconv.ParseUint(s, 16, 64) without the error value: hex
// digits only, at least one, at most 64 bits.
func parseHex64(s string) (uint64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d := hexVal(s[i])
		if d > 15 || v>>60 != 0 {
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// nopWord pads a last, incomplete bundle.
const nopWord = 0x50b0000000070f00

// isLabelPrefix: the line starts with "identifier:" followed by more text.
func isLabelPrefix(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if !(c == '_' || c == '.' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
