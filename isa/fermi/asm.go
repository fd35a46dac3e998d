package fermi

import (
	"strings"

	"gpuisa/isa/asm"
)

// Assemble turns a listing into machine code placed at address 0. It reads
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
	asm.Lines(src, func(line string, n int) {
		text := blankComments(line)
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
			labels[name] = uint64(len(prog)) * 8
			col = c + i + 1
		}
		for _, part := range splitStatements(text, col) {
			s, err := parseStmt(text, part[0], part[1])
			if err != nil {
				errs.Add(asm.Pos{File: filename, Line: n, Col: err.col + 1}, "%s", err.msg)
				continue
			}
			if s != nil {
				prog = append(prog, pending{*s, n})
			}
		}
	})
	out := make([]byte, 0, len(prog)*8)
	resolve := func(name string) (uint64, bool) {
		a, ok := labels[name]
		return a, ok
	}
	for i := range prog {
		p := &prog[i]
		inst, err := encodeStmt(&p.s, uint64(i)*8, resolve, d)
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

func isLabelChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.'
}

func isNumberStart(c byte) bool { return c >= '0' && c <= '9' }

// blankComments replaces /* */, // and # comments by blanks so columns stay put.
func blankComments(line string) string {
	if !strings.ContainsAny(line, "/#") {
		return line
	}
	b := []byte(line)
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
			return string(b)
		}
	}
	return string(b)
}

// splitStatements returns the [start,end) spans of the ';'-separated
// statements of the line from col on.
func splitStatements(text string, col int) [][2]int {
	var spans [][2]int
	start := col
	for i := col; i <= len(text); i++ {
		if i == len(text) || text[i] == ';' {
			if strings.TrimSpace(text[start:i]) != "" {
				spans = append(spans, [2]int{start, i})
			}
			start = i + 1
		}
	}
	return spans
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
// operands. It returns nil for listing lines that are not instructions.
func parseStmt(text string, start, end int) (*stmt, *encodeError) {
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
	s := &stmt{}
	w, c := word()
	if strings.HasPrefix(w, "@") {
		s.guard, s.guardCol = w[1:], c
		if s.guard == "" {
			return nil, errAt(c, "missing guard predicate after @")
		}
		w, c = word()
	}
	if w == "" {
		return nil, errAt(c, "missing instruction")
	}
	if s.guard == "" && listingNoise(w) {
		return nil, nil
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
					return nil, errAt(opStart, "empty operand")
				}
				s.ops = append(s.ops, op)
				s.opCols = append(s.opCols, opStart+lead)
				opStart = j + 1
			}
		}
	}
	return s, nil
}
