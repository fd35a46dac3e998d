package fermi

import (
	"strconv"
	"strings"

	"gpuisa/isa/asm"
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

// DetectDialect guesses the print style of a listing: Old when it spells
// constants "c [", the true predicate "pt" or special registers like SR_Tid_X.
func DetectDialect(src []byte) Dialect {
	s := string(src)
	for _, marker := range []string{"c [", "SR_Tid", "SR_NTid", "SR_CTAid", "SR_NCTAid", "SR_Clock", "SR_LaneId"} {
		if strings.Contains(s, marker) {
			return Old
		}
	}
	for i := strings.Index(s, "pt"); i >= 0; {
		before := i == 0 || strings.IndexByte(" \t,!@", s[i-1]) >= 0
		after := i+2 == len(s) || strings.IndexByte(" \t,;\n", s[i+2]) >= 0
		if before && after {
			return Old
		}
		j := strings.Index(s[i+2:], "pt")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return New
}

// AssembleDialect is Assemble with the dialect given: it decides whether
// "-0x.." is a negate bit (Old) or a negative immediate (New).
func AssembleDialect(filename string, src []byte, d Dialect) ([]byte, error) {
	var errs asm.ErrorList
	type pending struct {
		s    stmt
		line int
	}
	var prog []pending
	labels := map[string]uint64{}
	origin, haveOrigin := uint64(0), false
	var sc lineScanner
	asm.Lines(src, func(line string, n int) {
		if !haveOrigin && len(prog) == 0 {
			// a listing starts where its first /*addr*/ column says
			if a, ok := addressColumn(line); ok {
				origin, haveOrigin = a, true
			}
		}
		sc.scan(line,
			func(name string, col int) {
				if _, dup := labels[name]; dup {
					errs.Add(asm.Pos{File: filename, Line: n, Col: col}, "label %s defined twice", name)
				}
				labels[name] = origin + uint64(len(prog))*8
			},
			func() *stmt {
				prog = append(prog, pending{line: n})
				return &prog[len(prog)-1].s
			},
			func(col int, msg string) {
				errs.Add(asm.Pos{File: filename, Line: n, Col: col}, "%s", msg)
			})
	})
	out := make([]byte, 0, len(prog)*8)
	resolve := func(name string) (uint64, bool) {
		a, ok := labels[name]
		return a, ok
	}
	for i := range prog {
		p := &prog[i]
		inst, err := encodeStmt(&p.s, origin+uint64(i)*8, resolve, d)
		if err != nil {
			errs.Add(asm.Pos{File: filename, Line: p.line, Col: err.col + 1}, "%s", err.msg)
			out = append(out, make([]byte, 8)...)
			continue
		}
		out = inst.Bytes(out)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return out, nil
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
	lx   asm.Lexer
	toks []asm.Token
}

// scan reports the labels of line, fills a statement from newStmt for each
// instruction and reports errors at 1-based columns.
func (sc *lineScanner) scan(line string, label func(name string, col int), newStmt func() *stmt, fail func(col int, msg string)) {
	sc.lx.Reset(line)
	sc.toks = sc.toks[:0]
	for {
		t := sc.lx.Next()
		sc.toks = append(sc.toks, t)
		if t.Kind == asm.EOL {
			break
		}
	}
	if sc.lx.Unterminated {
		fail(len(line)+1, "unterminated comment or string")
		return
	}
	toks := sc.toks
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
			i, err = parseStmt(newStmt(), line, toks, i)
			if err != nil {
				fail(err.col+1, err.msg)
				// resume at the next ';' (a Punct, not a string holding one)
				for toks[i].Kind != asm.EOL && !isPunct(toks[i], ";") {
					i++
				}
			}
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
			s.guard = "!"
			i++
		}
		if toks[i].Kind != asm.Ident {
			return i, errAt(toks[i].Col-1, "missing guard predicate after @")
		}
		s.guard += toks[i].Text
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
