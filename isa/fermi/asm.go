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
// constants "c [", the true predicate "pt" or special registers "SR_Tid".
func DetectDialect(src []byte) Dialect {
	s := string(src)
	for _, marker := range []string{"c [", " pt", "@pt", "@!pt", "!pt", "SR_Tid", "SR_CTAid", "SR_Clock"} {
		if strings.Contains(s, marker) {
			return Old
		}
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
	var scratch []byte
	origin, haveOrigin := uint64(0), false
	asm.Lines(src, func(line string, n int) {
		if !haveOrigin && len(prog) == 0 {
			// a listing starts where its first /*addr*/ column says
			if a, ok := addressColumn(line); ok {
				origin, haveOrigin = a, true
			}
		}
		var text string
		text, scratch = blankComments(line, scratch)
		col := 0
		for {
			// labels: identifier followed by ':'
			rest := strings.TrimLeft(text[col:], " \t")
			c := col + len(text[col:]) - len(rest)
			i := 0
			for i < len(rest) && isLabelChar(rest[i]) {
				i++
			}
			if i == 0 || i >= len(rest) || rest[i] != ':' || isNumberStart(rest[0]) {
				col = c
				break
			}
			name := rest[:i]
			if _, dup := labels[name]; dup {
				errs.Add(asm.Pos{File: filename, Line: n, Col: c + 1}, "label %s defined twice", name)
			}
			labels[name] = origin + uint64(len(prog))*8
			col = c + i + 1
		}
		splitStatements(text, col, func(start, end int) {
			prog = append(prog, pending{line: n})
			ok, err := parseStmt(&prog[len(prog)-1].s, text, start, end)
			if err != nil {
				errs.Add(asm.Pos{File: filename, Line: n, Col: err.col + 1}, "%s", err.msg)
			}
			if !ok {
				prog = prog[:len(prog)-1]
			}
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

func isLabelChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.'
}

func isNumberStart(c byte) bool { return c >= '0' && c <= '9' }

// blankComments replaces /* */, // and # comments by blanks so columns stay
// put. scratch is reused between calls.
func blankComments(line string, scratch []byte) (string, []byte) {
	if !strings.ContainsAny(line, "/#") {
		return line, scratch
	}
	b := append(scratch[:0], line...)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			j := strings.Index(line[i+2:], "*/")
			end := len(b)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			for k := i; k < end; k++ {
				b[k] = ' '
			}
			i = end - 1
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/', b[i] == '#':
			for k := i; k < len(b); k++ {
				b[k] = ' '
			}
			return string(b), b
		}
	}
	return string(b), b
}

// splitStatements calls fn with the [start,end) span of every ';'-separated
// statement of the line from col on.
func splitStatements(text string, col int, fn func(start, end int)) {
	start := col
	for i := col; i <= len(text); i++ {
		if i == len(text) || text[i] == ';' {
			if strings.TrimSpace(text[start:i]) != "" {
				fn(start, i)
			}
			start = i + 1
		}
	}
}

// listingNoise reports lines of a cuobjdump listing that are not instructions.
func listingNoise(first string) bool {
	switch first {
	case "code", "Function", "Fatbin", "arch", "host", "compile_size", "identifier", "ptxasOptions", "EF_CUDA_SM20", "EF_CUDA_SM21":
		return true
	}
	return strings.HasPrefix(first, ".") || strings.HasPrefix(first, "=")
}

// parseStmt splits one statement text[start:end] into guard, mnemonic and
// operands. It reports false for listing lines that are not instructions.
func parseStmt(s *stmt, text string, start, end int) (bool, *encodeError) {
	i := start
	skip := func() {
		for i < end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r') {
			i++
		}
	}
	word := func() (string, int) {
		skip()
		c := i
		for i < end && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' {
			i++
		}
		return text[c:i], c
	}
	*s = stmt{}
	w, c := word()
	if strings.HasPrefix(w, "@") {
		s.guard, s.guardCol = w[1:], c
		if s.guard == "" {
			return false, errAt(c, "missing guard predicate after @")
		}
		w, c = word()
	}
	if w == "" {
		return false, errAt(c, "missing instruction")
	}
	if s.guard == "" && listingNoise(w) {
		return false, nil
	}
	s.mnem, s.mnemCol = w, c
	skip()
	if i < end {
		opStart := i
		for j := i; j <= end; j++ {
			if j == end || text[j] == ',' {
				op := strings.TrimSpace(text[opStart:j])
				lead := len(text[opStart:j]) - len(strings.TrimLeft(text[opStart:j], " \t"))
				if op == "" {
					return false, errAt(opStart, "empty operand")
				}
				if s.nops == len(s.ops) {
					return false, errAt(opStart, "too many operands")
				}
				s.ops[s.nops], s.opCols[s.nops] = op, opStart+lead
				s.nops++
				opStart = j + 1
			}
		}
	}
	return true, nil
}
