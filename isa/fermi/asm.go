package fermi

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/isa/asm"
)

// Assemble turns a listing into machine code. The code is placed at the
// address of the first /*addr*/ column, or at 0 (branch targets are absolute
// addresses, as the listings print them). It reads
// our own listings and cuobjdump's in both print styles (the /*addr*/ and hex
// comment columns are ignored), plain statements, and labels ("name:") usable
// as branch targets. Errors come back as an asm.ErrorList.
func Assemble(filename string, src []byte) ([]byte, error) {
	return AssembleDialect(filename, src, DetectDialect(src))
}

var newline = []byte{'\n'}

// DetectDialect guesses the print style of a listing: Old when it spells
// constants "c [", the true predicate "pt" or special registers like SR_Tid_X.
// Each marker is found by jumping to its rarest byte ('[', 'p', '_').
func DetectDialect(src []byte) Dialect {
	isAny := func(c byte, set string) bool { return strings.IndexByte(set, c) >= 0 }
	for i := 0; ; i++ { // "c [" (New: "c[")
		j := bytes.IndexByte(src[i:], '[')
		if j < 0 {
			break
		}
		i += j
		if i >= 2 && src[i-1] == ' ' && src[i-2] == 'c' {
			return Old
		}
	}
	for i := 0; ; i++ { // "pt" as a word (New: "PT")
		j := bytes.IndexByte(src[i:], 'p')
		if j < 0 {
			break
		}
		i += j
		if i+1 < len(src) && src[i+1] == 't' &&
			(i == 0 || isAny(src[i-1], " \t,!@")) &&
			(i+2 == len(src) || isAny(src[i+2], " \t,;\r\n")) {
			return Old
		}
	}
	for i := 0; ; i++ { // SR_Tid_X and friends (New: SR_TID.X)
		j := bytes.IndexByte(src[i:], '_')
		if j < 0 {
			break
		}
		i += j
		if i >= 2 && src[i-2] == 'S' && src[i-1] == 'R' && oldSRegAt(src[i-2:]) {
			return Old
		}
	}
	return New
}

// oldSRegAt reports whether b starts with an old-style special register
// name that the new style spells differently.
func oldSRegAt(b []byte) bool {
	for _, p := range [...]string{"SR_Tid", "SR_NTid", "SR_CTAid", "SR_NCTAid", "SR_Clock", "SR_LaneId"} {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}

// AssembleDialect is Assemble with the dialect given: it decides whether
// "-0x.." is a negate bit (Old) or a negative immediate (New).
//
// Statements are encoded as they are read; only those naming a label not
// yet defined wait for the end of the file. Nothing is allocated per line.
func AssembleDialect(filename string, src []byte, d Dialect) ([]byte, error) {
	var errs asm.ErrorList
	type pending struct {
		s    stmt
		line int
		at   int // offset of its 8 bytes in out
	}
	var later []pending
	labels := map[string]uint64{}
	origin, haveOrigin := uint64(0), false
	out := make([]byte, 0, 8*(bytes.Count(src, newline)+1))
	missed := false // a label lookup failed
	resolve := func(name string) (uint64, bool) {
		a, ok := labels[name]
		missed = missed || !ok
		return a, ok
	}
	var sc lineScanner
	var wordLx asm.Lexer
	// The forms by mnemonic, fetched once; d and they are one pointer for
	// the per-line closures to hold (as d alone was): a closure holding
	// one more word cost ~9 host instructions a line.
	enc := &struct {
		byName map[string][]uint16
		d      Dialect
	}{formsByName(), d}
	asm.Lines(src, func(line string, n int) {
		if !haveOrigin && len(out) == 0 {
			// a listing starts where its first /*addr*/ column says
			if a, ok := addressColumn(line); ok {
				origin, haveOrigin = a, true
			}
		}
		if v, col, msg, ok := rawWord(&wordLx, line); ok {
			// a word that did not decode, as dis lists it: four bytes as they are
			if msg != "" {
				errs.Add(asm.Pos{File: filename, Line: n, Col: col}, "%s", msg)
			}
			out = binary.LittleEndian.AppendUint32(out, v)
			return
		}
		sc.scan(line,
			func(name string, col int) {
				if _, dup := labels[name]; dup {
					errs.Add(asm.Pos{File: filename, Line: n, Col: col}, "label %s defined twice", name)
				}
				labels[name] = origin + uint64(len(out))
			},
			func(s stmt, parsed bool) {
				at := len(out)
				out = append(out, 0, 0, 0, 0)
				if !s.short() {
					out = append(out, 0, 0, 0, 0)
				}
				if !parsed {
					return // reported by scan
				}
				missed = false
				inst, err := encodeStmt(&s, origin+uint64(at), resolve, enc.d, enc.byName)
				switch {
				case err == nil:
					inst.Bytes(out[at:at])
				case missed:
					later = append(later, pending{s, n, at})
				default:
					errs.Add(asm.Pos{File: filename, Line: n, Col: err.col + 1}, "%s", err.msg)
				}
			},
			func(col int, msg string) {
				errs.Add(asm.Pos{File: filename, Line: n, Col: col}, "%s", msg)
			})
	})
	for i := range later {
		p := &later[i]
		inst, err := encodeStmt(&p.s, origin+uint64(p.at), resolve, enc.d, enc.byName)
		if err != nil {
			errs.Add(asm.Pos{File: filename, Line: p.line, Col: err.col + 1}, "%s", err.msg)
			continue
		}
		inst.Bytes(out[p.at:p.at])
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// rawWord reads a ".word N;" line (after an optional label-free address
// column): ok says the line is one, msg (at col) what is wrong with it.
func rawWord(lx *asm.Lexer, line string) (v uint32, col int, msg string, ok bool) {
	if !strings.Contains(line, ".word") {
		return 0, 0, "", false
	}
	lx.Reset(line)
	t := lx.Next()
	if t.Kind != asm.Ident || t.Text != ".word" {
		return 0, 0, "", false
	}
	num := lx.Next()
	x, err := strconv.ParseUint(num.Text, 0, 32)
	if num.Kind != asm.Number || err != nil {
		return 0, num.Col, ".word: expected one 32-bit number", true
	}
	if end := lx.Next(); !(end.Kind == asm.EOL || end.Kind == asm.Punct && end.Text == ";" && lx.Next().Kind == asm.EOL) {
		return 0, end.Col, ".word: expected one 32-bit number", true
	}
	return uint32(x), 0, "", true
}

// addressColumn reads the /*0000*/ column that starts a listing line.
func addressColumn(line string) (uint64, bool) {
	t := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(t, "/*") {
		return 0, false
	}
	end := strings.Index(t, "*/")
	if end < 3 || end > 18 {
		return 0, false
	}
	v, err := strconv.ParseUint(t[2:end], 16, 64)
	return v, err == nil
}

// listingNoise reports the first word of a cuobjdump listing line that is
// not an instruction ("code for sm_20", "Function : f", ".headerflags ...").
func listingNoise(first string) bool {
	switch first {
	case "code", "Fatbin", "arch", "host", "compile_size", "identifier", "ptxasOptions", "producer":
		return true
	}
	return strings.HasPrefix(first, ".")
}

// lineScanner splits source lines into labels and statements with the
// shared lexer, which also drops /* */ and // comments (so the address and
// hex columns of listings vanish).
type lineScanner struct {
	lx  asm.Lexer
	buf [64]asm.Token // a line's tokens: enough for any listing line (longer ones allocate)
	s   stmt
}

// scan reports the labels of line and each statement (parsed is false when
// it could not be read; the error went to fail) and reports errors at
// 1-based columns. Statements are passed by value: a pointer into sc given
// to a callback would move every lineScanner to the heap.
func (sc *lineScanner) scan(line string, label func(name string, col int), inst func(s stmt, parsed bool), fail func(col int, msg string)) {
	sc.lx.Reset(line)
	toks := sc.buf[:0] // a local slice: keeping it in sc would move sc to the heap
	for {
		t := sc.lx.Next()
		toks = append(toks, t)
		if t.Kind == asm.EOL {
			break
		}
	}
	if sc.lx.Unterminated {
		fail(len(line)+1, "unterminated comment or string")
		return
	}
	if toks[0].Text == "Function" && isPunct(toks[1], ":") {
		return // "Function : name"
	}
	if toks[0].Kind == asm.Ident && !isPunct(toks[1], ":") && (listingNoise(toks[0].Text) || isPunct(toks[1], "=")) {
		return
	}
	for i := 0; toks[i].Kind != asm.EOL; {
		t := toks[i]
		switch {
		case t.Kind == asm.Punct && t.Text == ";":
			i++
		case t.Kind == asm.Ident && toks[i+1].Kind == asm.Punct && toks[i+1].Text == ":":
			label(t.Text, t.Col)
			i += 2
		default:
			var err *encodeError
			i, err = parseStmt(&sc.s, line, toks, i)
			if err != nil {
				fail(err.col+1, err.msg)
				// resume at the next ';' (a Punct, not a string holding one)
				for toks[i].Kind != asm.EOL && !isPunct(toks[i], ";") {
					i++
				}
			}
			inst(sc.s, err == nil)
		}
	}
}

func isPunct(t asm.Token, p string) bool { return t.Kind == asm.Punct && t.Text == p }

// parseStmt reads one statement from toks[i:] into s: guard, mnemonic and
// the operands' source text (up to ';' or the end of the line). It returns
// the index of the token after the statement.
func parseStmt(s *stmt, line string, toks []asm.Token, i int) (int, *encodeError) {
	*s = stmt{}
	if isPunct(toks[i], "@") {
		s.guardCol = toks[i].Col - 1
		i++
		if isPunct(toks[i], "!") {
			s.guardNeg = true
			i++
		}
		if toks[i].Kind != asm.Ident {
			return i, errAt(toks[i].Col-1, "missing guard predicate after @")
		}
		s.guard = toks[i].Text
		i++
	}
	if toks[i].Kind != asm.Ident {
		return i, errAt(toks[i].Col-1, "want an instruction, found %q", toks[i].Text)
	}
	s.mnem, s.mnemCol = toks[i].Text, toks[i].Col-1
	i++
	for first := i; ; i++ {
		t := toks[i]
		if t.Kind == asm.Bad {
			return i, errAt(t.Col-1, "unexpected character %q", t.Text)
		}
		end := t.Kind == asm.EOL || isPunct(t, ";")
		if !end && !isPunct(t, ",") {
			continue
		}
		if i == first {
			if end && s.nops == 0 {
				return i, nil // no operands
			}
			return i, errAt(t.Col-1, "empty operand")
		}
		if s.nops == len(s.ops) {
			return i, errAt(toks[first].Col-1, "too many operands")
		}
		last := toks[i-1]
		s.ops[s.nops] = line[toks[first].Col-1 : last.Col-1+len(last.Text)]
		s.opCols[s.nops] = toks[first].Col - 1
		s.nops++
		if end {
			return i, nil
		}
		first = i + 1
	}
}
