package maxwell

// Assemble as it was before it was made fast (commit 7b7db3e), on the
// reference encoder. TestAssembleSameAsReference checks the fast one.

import (
	"encoding/binary"
	"strconv"
	"strings"

	"gpuisa/isa/asm"
)

// refAssemble turns a listing into raw code: bundles of a control word and three
// instructions. It reads nvdisasm's listings and ours: "/*0008*/ TEXT ; /* 0x.. */"
// lines (the address and hex columns are optional), bare "/* 0x... */" lines
// holding control words, "name:" labels, ".word 0x..." for raw words, and
// ignores directives such as .headerflags. Without a control line the control
// field of each instruction follows from its text (.reuse, .T/.P, "X;").
func refAssemble(filename string, src []byte, sm int) ([]byte, error) {
	type stmt struct {
		text  string
		pos   asm.Pos
		ctrl  *uint64 // a control line starts a new bundle
		word  *uint64 // .word
		index int     // instruction number
	}
	var errs asm.ErrorList
	var stmts []stmt
	labels := map[string]uint64{}
	n := 0 // instructions so far
	addrOf := func(i int) uint64 { return uint64(i/3*BundleSize + 8 + 8*(i%3)) }
	asm.Lines(src, func(line string, ln int) {
		pos := asm.Pos{File: filename, Line: ln, Col: 1}
		s := strings.TrimSpace(line)
		// an address column /*0008*/
		if strings.HasPrefix(s, "/*") && len(s) > 2 && s[2] != ' ' {
			if end := strings.Index(s[2:], "*/") + 2; end > 2 {
				if _, err := strconv.ParseUint(s[2:end], 16, 64); err == nil {
					s = strings.TrimSpace(s[end+2:])
				}
			}
		}
		// a trailing hex column /* 0x... */, or a bare control line
		var hexcol *uint64
		if i := strings.LastIndex(s, "/* 0x"); i >= 0 && strings.HasSuffix(s, "*/") {
			if v, err := strconv.ParseUint(strings.TrimSpace(s[i+5:len(s)-2]), 16, 64); err == nil {
				hexcol = &v
				s = strings.TrimSpace(s[:i])
			}
		}
		if i := strings.Index(s, "//"); i >= 0 {
			s = strings.TrimSpace(s[:i])
		}
		switch {
		case s == "" && hexcol != nil:
			if n%3 != 0 {
				errs.Add(pos, "control word in the middle of a bundle")
				return
			}
			stmts = append(stmts, stmt{pos: pos, ctrl: hexcol, index: n})
			return
		case s == "":
			return
		case strings.HasSuffix(s, ":") && !strings.ContainsAny(s, " \t;"):
			labels[strings.TrimSuffix(s, ":")] = addrOf(n)
			return
		case refIsLabelPrefix(s):
			// "name: instruction" on one line
			i := strings.IndexByte(s, ':')
			labels[s[:i]] = addrOf(n)
			s = strings.TrimSpace(s[i+1:])
		}
		switch {
		case s == "":
			return
		case strings.HasPrefix(s, ".word"):
			v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s[5:]), "0x"), 16, 64)
			if err != nil {
				errs.Add(pos, "bad .word: %v", err)
				return
			}
			stmts = append(stmts, stmt{pos: pos, word: &v, index: n})
			n++
			return
		case strings.HasPrefix(s, "."):
			return // directives (.headerflags, .section, ...) carry no code
		}
		pos.Col = strings.Index(line, s[:1]) + 1
		stmts = append(stmts, stmt{text: s, pos: pos, index: n})
		n++
	})
	resolve := func(name string) (uint64, bool) {
		a, ok := labels[name]
		return a, ok
	}
	nb := (n + 2) / 3
	out := make([]byte, nb*BundleSize)
	ctrlGiven := make([]bool, nb)
	// default: neutral control fields and NOP padding
	for b := 0; b < nb; b++ {
		c := uint64(NeutralCtrl) | uint64(NeutralCtrl)<<21 | uint64(NeutralCtrl)<<42
		binary.LittleEndian.PutUint64(out[b*BundleSize:], c)
		for s := 0; s < 3; s++ {
			binary.LittleEndian.PutUint64(out[b*BundleSize+8+8*s:], refNopWord)
		}
	}
	for _, st := range stmts {
		b := st.index / 3
		switch {
		case st.ctrl != nil:
			if b < nb {
				binary.LittleEndian.PutUint64(out[b*BundleSize:], *st.ctrl)
				ctrlGiven[b] = true
			}
		case st.word != nil:
			binary.LittleEndian.PutUint64(out[b*BundleSize+8+8*(st.index%3):], *st.word)
		default:
			w, c, err := refEncodeText(st.text, addrOf(st.index), sm, resolve)
			if err != nil {
				errs.Add(st.pos, "%v: %s", err, st.text)
				continue
			}
			binary.LittleEndian.PutUint64(out[b*BundleSize+8+8*(st.index%3):], w)
			if !ctrlGiven[b] {
				slot := uint(st.index % 3)
				cw := binary.LittleEndian.Uint64(out[b*BundleSize:])
				cw = cw&^(0x1fffff<<(21*slot)) | uint64(c)<<(21*slot)
				binary.LittleEndian.PutUint64(out[b*BundleSize:], cw)
			}
		}
	}
	if err := errs.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// refNopWord pads a last, incomplete bundle.
const refNopWord = 0x50b0000000070f00

// refIsLabelPrefix: the line starts with "identifier:" followed by more text.
func refIsLabelPrefix(s string) bool {
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
