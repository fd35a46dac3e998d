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
// holding control words, "name:" labels, ".word 0x..." for raw words, and
// ignores directives such as .headerflags. Without a control line the control
// field of each instruction follows from its text (.reuse, .T/.P, "X;").
//
// The first pass reads the lines into statements (and the labels), the second
// encodes them in one scratch space: a line allocates nothing.
func Assemble(filename string, src []byte, sm int) ([]byte, error) {
	var errs asm.ErrorList
	stmts := make([]asmStmt, 0, bytes.Count(src, []byte{'\n'})+1)
	labels := map[string]uint64{}
	n := 0 // instructions so far
	// a listing starts where its first instruction's /*addr*/ column says
	// (dis -base): branch targets are absolute, their encodings relative
	var origin uint64
	haveOrigin := false
	forLines(src, func(line string, ln int) {
		st, label, hasLabel, msg := parseLine(line)
		if !haveOrigin && (st.kind == stmtInst || st.kind == stmtWord) {
			origin, haveOrigin = listingOrigin(line, n)
		}
		if hasLabel {
			labels[label] = addrOf(n)
		}
		if msg != "" {
			errs.Add(asm.Pos{File: filename, Line: ln, Col: 1}, "%s", msg)
			return
		}
		switch st.kind {
		case stmtNone:
			return
		case stmtCtrl:
			if n%3 != 0 {
				errs.Add(asm.Pos{File: filename, Line: ln, Col: 1}, "control word in the middle of a bundle")
				return
			}
		default:
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
		return origin + a, ok
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
	var sc encScratch
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
			w, c, err := sc.encode(st.text, origin+addrOf(int(st.index)), sm, resolve)
			if err != nil {
				errs.Add(asm.Pos{File: filename, Line: int(st.line), Col: int(st.col)}, "%v: %s", err, st.text)
				continue
			}
			binary.LittleEndian.PutUint64(out[b*BundleSize+8+8*slot:], w)
			if !ctrlGiven[b] {
				cw := binary.LittleEndian.Uint64(out[b*BundleSize:])
				cw = cw&^(0x1fffff<<(21*uint(slot))) | uint64(c)<<(21*uint(slot))
				binary.LittleEndian.PutUint64(out[b*BundleSize:], cw)
			}
		}
	}
	checkGivenCtrl(out, stmts, ctrlGiven, sm, filename, &errs)
	if err := errs.Err(); err != nil {
		return out, err
	}
	return out, nil
}

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
}

const (
	stmtNone uint8 = iota // blank, label only, comment or directive
	stmtInst
	stmtCtrl
	stmtWord
)

// parseLine reads one listing line: the statement it holds, a label it
// defines, or an error message.
func parseLine(line string) (st asmStmt, label string, hasLabel bool, msg string) {
	s := trimSpace(line)
	// an address column /*0008*/
	if len(s) > 2 && s[0] == '/' && s[1] == '*' && s[2] != ' ' {
		if end := strings.Index(s[2:], "*/") + 2; end > 2 {
			if _, ok := parseHex64(s[2:end]); ok {
				s = trimSpace(s[end+2:])
			}
		}
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
		s = trimSpace(s[i+1:])
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
	return asmStmt{kind: stmtInst, text: s, col: int32(strings.IndexByte(line, s[0]) + 1)}, label, hasLabel, ""
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

// forLines calls fn for each line of src (numbered from 1, without the
// newline), as asm.Lines does, finding the newlines with IndexByte. The
// lines alias src, as asm.Lines's do: they are only used during Assemble.
func forLines(src []byte, fn func(line string, n int)) {
	s := unsafe.String(unsafe.SliceData(src), len(src))
	n := 1
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			fn(s, n)
			return
		}
		fn(s[:i], n)
		s = s[i+1:]
		n++
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
