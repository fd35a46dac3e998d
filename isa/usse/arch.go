package usse

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"unsafe"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/asm"
)

// Style is the listing layout: the NVIDIA line shape with a wider text column
// because USSE lines are long.
var Style = isa.LineStyle{Indent: 8, Gap: 8, TextCol: 64, HexWidth: 16}

// Archs returns the registry entry for the SGX543.
func Archs() []isa.Arch {
	return []isa.Arch{{Name: "sgx543", ISA: "usse", Disassemble: Disassemble, WriteListing: WriteListing, WriteListingFrom: WriteListingFrom, Assemble: Assemble, Graphs: Graphs, WriteJSON: WriteJSON}}
}

// Disassemble lists code loaded at base, one line per 64-bit word. Words that
// do not decode are listed as ".quad 0x..." and reported in errs. A trailing
// partial word is reported as truncated.
func Disassemble(dst []byte, code []byte, base uint64) ([]byte, []*isa.DecodeError) {
	return isa.ListSteps(dst, code, base, newStep())
}

// WriteListing writes the listing Disassemble returns to w a buffer at a
// time: memory does not grow with the code.
func WriteListing(w io.Writer, code []byte, base uint64) ([]*isa.DecodeError, error) {
	return isa.WriteParts(w, code, base, newStep, newPart)
}

// WriteListingFrom is WriteListing of the code read from r as it goes
// (isa.WriteListingFromFunc).
func WriteListingFrom(w io.Writer, r io.Reader, base uint64, onErr func(*isa.DecodeError)) error {
	return isa.WritePartsFrom(w, r, base, newStep, newPart, Len, onErr)
}

// Assemble turns a listing (ours, with or without the /*addr*/ and /* 0x */
// columns) into machine code. Labels ("name:") may stand for branch targets:
// ba takes the absolute instruction index, br the offset from the branch, both
// in 8-byte units.
func Assemble(filename string, src []byte) ([]byte, error) {
	type stmt struct {
		text      string
		line, col int32
	}
	stmts := make([]stmt, 0, bytes.Count(src, []byte{'\n'})+1)
	labels := map[string]uint64{}
	var errs asm.ErrorList
	// the lines without comments go to arena, which only keeps those whose
	// statements are not plain substrings of the line (a comment inside a
	// statement); appending to it may move it, but a statement's string
	// keeps its old array alive and nothing writes there again
	var arena []byte
	asm.Lines(src, func(line string, n int) {
		start := len(arena)
		arena = stripColumns(arena, line)
		body := unsafe.String(unsafe.SliceData(arena[start:]), len(arena)-start)
		// stripping keeps columns: a statement without blanked comments in
		// it reads the same in line at the same offset
		inArena := false
		defer func() {
			if !inArena {
				arena = arena[:start] // nothing refers to this line's copy
			}
		}()
		own := func(t string, at int) string {
			if at+len(t) <= len(line) && line[at:at+len(t)] == t {
				return line[at : at+len(t)]
			}
			inArena = true
			return t
		}
		base := 0 // offset of body in the line
		for {
			i := strings.IndexByte(body, ':')
			if i <= 0 || !isLabel(strings.TrimSpace(body[:i])) {
				break
			}
			name := strings.TrimSpace(body[:i])
			if _, dup := labels[name]; dup {
				errs.Add(asm.Pos{File: filename, Line: n, Col: base + strings.Index(body, name) + 1}, "label %s defined twice", name)
			}
			labels[name] = uint64(len(stmts)) * Len
			inArena = true // the map keeps name
			base += i + 1
			body = body[i+1:]
		}
		for len(body) > 0 {
			part, rest, _ := strings.Cut(body, ";")
			if t := strings.TrimSpace(part); t != "" {
				at := base + strings.Index(part, t)
				stmts = append(stmts, stmt{own(t, at), int32(n), int32(at + 1)})
			}
			base += len(part) + 1
			body = rest
		}
	})
	out := make([]byte, 0, len(stmts)*Len)
	var scratch parseScratch
	for i, s := range stmts {
		pc := uint64(i) * Len
		resolve := func(f *form, in *Inst, fi int8, label string) (uint32, bool) {
			target, ok := labels[label]
			if !ok || f.name != "branch" || f.fields[fi].name != "off" {
				return 0, false
			}
			if br, _ := in.Field("br"); br == 1 {
				return uint32((target-pc)/Len) & 0xfffff, true
			}
			return uint32(target/Len) & 0xfffff, true
		}
		in, err := parseInst(s.text, resolve, &scratch)
		if err != nil {
			errs.Add(asm.Pos{File: filename, Line: int(s.line), Col: int(s.col)}, "%v: %s", err, s.text)
			out = binary.LittleEndian.AppendUint64(out, 0)
			continue
		}
		out = binary.LittleEndian.AppendUint64(out, in.Raw)
	}
	if err := errs.Err(); err != nil {
		return out, err
	}
	return out, nil
}

func isLabel(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// stripColumns appends line to dst with comments blanked out (the /*addr*/
// and /* 0x.. */ columns, // and # comments) so the rest keeps its columns.
func stripColumns(dst []byte, line string) []byte {
	start := len(dst)
	dst = append(dst, line...)
	b := dst[start:]
	hash := bytes.IndexByte(b, '#') // the next '#' at or after i, or -1
	for i := 0; i < len(b); {
		// the next comment start: '/' or '#'
		k := bytes.IndexByte(b[i:], '/')
		if k >= 0 {
			k += i
		}
		if hash >= 0 && hash < i {
			if hash = bytes.IndexByte(b[i:], '#'); hash >= 0 {
				hash += i
			}
		}
		if hash >= 0 && (k < 0 || hash < k) {
			return trimBlanks(dst[:start+hash], start)
		}
		if k < 0 || k+1 >= len(b) {
			break
		}
		switch b[k+1] {
		case '/':
			return trimBlanks(dst[:start+k], start)
		case '*':
			stop := len(b)
			if end := strings.Index(line[k+2:], "*/"); end >= 0 {
				stop = k + 2 + end + 2
			}
			for x := k; x < stop; x++ {
				b[x] = ' '
			}
			i = stop
		default:
			i = k + 1
		}
	}
	return trimBlanks(dst, start)
}

// trimBlanks drops the blanks (left by comments) at the end of b[start:].
func trimBlanks(b []byte, start int) []byte {
	for len(b) > start && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
