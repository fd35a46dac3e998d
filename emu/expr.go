package emu

import (
	"fmt"
	"strconv"
	"strings"
)

// Templates in a launch file's "launches": a string may hold expressions
// in braces, {20*$i+1}, which a repeated step evaluates for each
// repetition ($i counts from 0) and replaces by their decimal value, so
// that parameters, grid sizes and buffer names ("r{$i%2}") change from one
// launch to the next as a host loop's do. Expressions are 64-bit integer
// arithmetic: + - * / % (truncating, as C), unary -, parentheses, min(a, b),
// max(a, b), decimal and 0x numbers, and $i.

// maxExpr bounds an expression's length, maxDepth its nesting.
const (
	maxExpr  = 256
	maxDepth = 32
)

// expand replaces every {expression} in s with its value for $i = i.
func expand(s string, i int64) (string, error) {
	if !strings.Contains(s, "{") {
		return s, nil
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("%q: no } after the { at %d", s, open)
		}
		v, err := evalExpr(s[open+1:open+end], i)
		if err != nil {
			return "", fmt.Errorf("%q: %v", s, err)
		}
		b.WriteString(s[:open])
		b.WriteString(strconv.FormatInt(v, 10))
		s = s[open+end+1:]
	}
}

// evalExpr evaluates one expression for $i = i.
func evalExpr(src string, i int64) (int64, error) {
	if len(src) > maxExpr {
		return 0, fmt.Errorf("expression longer than %d bytes", maxExpr)
	}
	p := exprParser{src: src, i: i}
	v, err := p.sum(0)
	if err != nil {
		return 0, err
	}
	p.blanks()
	if p.pos < len(p.src) {
		return 0, p.errorf("unexpected %q", p.src[p.pos:])
	}
	return v, nil
}

type exprParser struct {
	src string
	pos int
	i   int64
}

func (p *exprParser) errorf(format string, args ...any) error {
	return fmt.Errorf("expression {%s} at %d: %s", p.src, p.pos, fmt.Sprintf(format, args...))
}

func (p *exprParser) blanks() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

// peek returns the next non-blank byte (0 at the end).
func (p *exprParser) peek() byte {
	p.blanks()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *exprParser) sum(depth int) (int64, error) {
	v, err := p.product(depth)
	for err == nil {
		op := p.peek()
		if op != '+' && op != '-' {
			break
		}
		p.pos++
		var w int64
		if w, err = p.product(depth); err == nil {
			if op == '+' {
				v += w
			} else {
				v -= w
			}
		}
	}
	return v, err
}

func (p *exprParser) product(depth int) (int64, error) {
	v, err := p.unary(depth)
	for err == nil {
		op := p.peek()
		if op != '*' && op != '/' && op != '%' {
			break
		}
		p.pos++
		var w int64
		if w, err = p.unary(depth); err != nil {
			break
		}
		switch {
		case op == '*':
			v *= w
		case w == 0:
			return 0, p.errorf("division by zero")
		case v == -1<<63 && w == -1:
			v = -v // the quotient wraps; Go would panic on the remainder
			if op == '%' {
				v = 0
			}
		case op == '/':
			v /= w
		default:
			v %= w
		}
	}
	return v, err
}

func (p *exprParser) unary(depth int) (int64, error) {
	if depth > maxDepth {
		return 0, p.errorf("nested deeper than %d", maxDepth)
	}
	switch c := p.peek(); {
	case c == '-':
		p.pos++
		v, err := p.unary(depth + 1)
		return -v, err
	case c == '(':
		p.pos++
		v, err := p.sum(depth + 1)
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, p.errorf("no )")
		}
		p.pos++
		return v, nil
	case c == '$':
		if !strings.HasPrefix(p.src[p.pos:], "$i") {
			return 0, p.errorf("unknown variable (only $i)")
		}
		p.pos += 2
		return p.i, nil
	case c >= '0' && c <= '9':
		start := p.pos
		for p.pos < len(p.src) && isWordByte(p.src[p.pos]) {
			p.pos++
		}
		v, err := strconv.ParseInt(p.src[start:p.pos], 0, 64)
		if err != nil {
			return 0, p.errorf("bad number %q", p.src[start:p.pos])
		}
		return v, nil
	case strings.HasPrefix(p.src[p.pos:], "min(") || strings.HasPrefix(p.src[p.pos:], "max("):
		isMax := p.src[p.pos+1] == 'a'
		p.pos += 4
		a, err := p.sum(depth + 1)
		if err != nil {
			return 0, err
		}
		if p.peek() != ',' {
			return 0, p.errorf("min and max take two arguments")
		}
		p.pos++
		b, err := p.sum(depth + 1)
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, p.errorf("no )")
		}
		p.pos++
		if isMax {
			return max(a, b), nil
		}
		return min(a, b), nil
	case c == 0:
		return 0, p.errorf("expression ends early")
	}
	return 0, p.errorf("unexpected %q", p.src[p.pos:])
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}
