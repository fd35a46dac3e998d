package asm

import "strings"

// Kind is a token kind.
type Kind uint8

const (
	EOL    Kind = iota // end of the line (or of a statement at ';')
	Ident              // letters, digits, '_', '$', '.' starting with a letter, '_', '$' or '.'
	Number             // 0x1f, 17, 1.5, 1e-3 (a sign is a separate Punct token)
	Punct              // one of [ ] ( ) , | - + ~ ! @ { } : ;
	String             // "..." with the quotes removed
	Bad                // a character the lexer does not know
)

// Token is one lexical token of a line. Text aliases the line.
type Token struct {
	Kind Kind
	Text string
	Col  int // 1-based column
}

// Lexer splits one line into tokens. Comments (/* ... */, // ...) are skipped;
// /* */ comments spanning lines are not supported (listings never need them).
// A Lexer is reused line after line without allocating.
type Lexer struct {
	line string
	pos  int
	// Unterminated is set when a /* comment or string was not closed on the line.
	Unterminated bool
}

// Reset starts lexing a new line.
func (l *Lexer) Reset(line string) {
	l.line, l.pos, l.Unterminated = line, 0, false
}

// Rest is the unread remainder of the line.
func (l *Lexer) Rest() string { return l.line[l.pos:] }

// charClass holds, per byte, whether it may start (identStart) or continue
// (identChar) an identifier: one load per character in the lexer's loops.
var charClass = func() (t [256]uint8) {
	for c := range 256 {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '.' {
			t[c] = identStart | identChar
		} else if c >= '0' && c <= '9' {
			t[c] = identChar
		}
	}
	return
}()

const (
	identStart = 1 << iota
	identChar
)

func isIdentStart(c byte) bool { return charClass[c]&identStart != 0 }

func isIdentChar(c byte) bool { return charClass[c]&identChar != 0 }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Next returns the next token; at the end of the line it returns EOL forever.
func (l *Lexer) Next() Token {
	s, pos := l.line, l.pos // a local position: the loops below run per byte
	for pos < len(s) {
		c := s[pos]
		if c == ' ' { // runs of blanks pad every listing line: four at a time
			pos++
			for pos+4 <= len(s) && s[pos] == ' ' && s[pos+1] == ' ' && s[pos+2] == ' ' && s[pos+3] == ' ' {
				pos += 4
			}
			continue
		}
		switch {
		case c == '\t' || c == '\r' || c == '\n':
			pos++
			continue
		case c == '/' && pos+1 < len(s) && s[pos+1] == '*':
			end := commentEnd(s, pos+2)
			if end < 0 {
				l.Unterminated = true
				pos = len(s)
			} else {
				pos = end + 2
			}
			continue
		case c == '/' && pos+1 < len(s) && s[pos+1] == '/', c == '#':
			pos = len(s)
			continue
		}
		start := pos
		col := start + 1
		switch {
		case isDigit(c):
			l.pos = scanNumber(s, pos)
			return Token{Number, s[start:l.pos], col}
		case isIdentStart(c):
			pos++
			for pos < len(s) && isIdentChar(s[pos]) {
				pos++
			}
			l.pos = pos
			return Token{Ident, s[start:pos], col}
		case c == '"':
			end := indexFrom(s, "\"", pos+1)
			if end < 0 {
				l.Unterminated = true
				l.pos = len(s)
				return Token{Bad, s[start:], col}
			}
			l.pos = end + 1
			return Token{String, s[start+1 : end], col}
		}
		l.pos = pos + 1
		switch c {
		case '[', ']', '(', ')', ',', '|', '-', '+', '~', '!', '@', '{', '}', ':', ';', '=', '*':
			return Token{Punct, s[start:l.pos], col}
		}
		return Token{Bad, s[start:l.pos], col}
	}
	l.pos = pos
	return Token{EOL, "", len(s) + 1}
}

// scanNumber scans a hex (0x...), decimal or floating-point literal.
func scanNumber(s string, i int) int {
	if s[i] == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') {
		i += 2
		for i < len(s) && isHex(s[i]) {
			i++
		}
		return i
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '.' && i+1 < len(s) && isDigit(s[i+1]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			i = j
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
	}
	return i
}

func isHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// commentEnd returns the index of the "*/" at or after from, or -1. A byte
// loop: the comments of listings are a few bytes long, shorter than a
// general search takes to set up.
func commentEnd(s string, from int) int {
	for i := from; i+1 < len(s); i++ {
		if s[i] == '*' && s[i+1] == '/' {
			return i
		}
	}
	return -1
}

func indexFrom(s, sub string, from int) int {
	if from > len(s) {
		return -1
	}
	i := strings.Index(s[from:], sub)
	if i < 0 {
		return -1
	}
	return from + i
}

// ParseUint parses a Number token's text: 0x hex or decimal. ok is false on
// overflow of 64 bits or a malformed literal.
func ParseUint(text string) (v uint64, ok bool) {
	if len(text) > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') {
		if len(text) > 18 {
			return 0, false
		}
		for i := 2; i < len(text); i++ {
			c := text[i]
			var d uint64
			switch {
			case isDigit(c):
				d = uint64(c - '0')
			case c >= 'a' && c <= 'f':
				d = uint64(c-'a') + 10
			case c >= 'A' && c <= 'F':
				d = uint64(c-'A') + 10
			default:
				return 0, false
			}
			v = v<<4 | d
		}
		return v, true
	}
	if text == "" {
		return 0, false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !isDigit(c) {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}
