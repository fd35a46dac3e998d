package emu

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// PosError is an error in a launch file at a line and column (1-based):
// JSON syntax, a value of the wrong type, or a check of the launch that
// names what it is about (grid[1], memory[2].addr, buffer "x", ...).
type PosError struct {
	Line, Col int
	Err       error
}

func (e *PosError) Error() string { return fmt.Sprintf("%d:%d: %v", e.Line, e.Col, e.Err) }
func (e *PosError) Unwrap() error { return e.Err }

// WithPos returns err located in the launch file data: a *PosError when a
// position can be found, else err.
func WithPos(data []byte, err error) error {
	if err == nil {
		return nil
	}
	var pe *PosError
	if errors.As(err, &pe) {
		return err
	}
	off := -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		off = len(data)
	case errors.As(err, &se):
		off = int(se.Offset) - 1
	case errors.As(err, &te):
		off = int(te.Offset) - 1
		if p, ok := locatePath(data, pathOfField(te.Field)); ok {
			off = p
		}
	case strings.Contains(err.Error(), unknownField):
		msg := err.Error()
		if m := messageREs().unknownField.FindStringSubmatch(msg[strings.Index(msg, unknownField):]); m != nil {
			if name, uerr := strconv.Unquote(m[1]); uerr == nil {
				off = locateKey(data, name)
			}
		}
	default:
		if path := pathOfMessage(err.Error()); path != nil {
			off = locateMessagePath(data, path)
		}
	}
	if off < 0 {
		return err
	}
	line, col := lineCol(data, off)
	return &PosError{line, col, err}
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int) (int, int) {
	off = min(max(off, 0), len(data))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off + 1
	if i := bytes.LastIndexByte(data[:off], '\n'); i >= 0 {
		col = off - i
	}
	return line, col
}

// pathOfField turns encoding/json's field path ("memory.0.addr" or
// "grid.1") into path elements.
func pathOfField(f string) []string {
	if f == "" {
		return nil
	}
	return splitDots(f)
}

func splitDots(s string) []string {
	var out []string
	for len(s) > 0 {
		i := bytes.IndexByte([]byte(s), '.')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
	return out
}

const unknownField = "json: unknown field "

// locateKey is the offset of the first object key (or string) name in
// data, or -1.
func locateKey(data []byte, name string) int {
	dec := tokenDecoder(data)
	for {
		at := skipSpace(data, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		if k, ok := tok.(string); ok && k == name {
			return at
		}
	}
}

// tokenDecoder reads data's tokens for a position search: numbers stay
// text (as a float64, a number past 1e308, which a launch file's fields may
// hold, would end the search with an error).
func tokenDecoder(data []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec
}

// messageREs are the regular expressions that find a problem's place in
// a launch file, compiled when a problem is first placed: compiled at
// start-up, they cost every command 0.15 ms.
var messageREs = sync.OnceValue(func() *messageRegexps {
	return &messageRegexps{
		unknownField: regexp.MustCompile(`^json: unknown field ("(?:[^"\\]|\\.)*")`),
		indexed:      regexp.MustCompile(`^(grid|block|memory|params|outputs|expect|experiments)\[(\d+)\](?:\.([a-z_]+)|: ([a-z_0-9]+) )?`),
		keyed:        regexp.MustCompile(`^(buffer|texture|surface) "((?:[^"\\]|\\.)*)"(?: ([a-z_]+))?`),
		field:        regexp.MustCompile(`^(grid|block|shared_bytes|local_bytes|global_bytes|max_steps|program|textures|link|hang_factor|injections)\b`),
		step:         regexp.MustCompile(`^step (\d+)(?: \(repetition \d+\))?: `),
	}
})

// messageRegexps are messageREs.
type messageRegexps struct {
	// unknownField is encoding/json's message for a field the launch file
	// format does not have, from its start (found by the plain text
	// first: the regular expression alone, unanchored, took a tenth of a
	// failing run).
	unknownField *regexp.Regexp
	// The launch checks name what they are about at the start of their
	// messages; these turn those names into paths.
	indexed, keyed, field *regexp.Regexp
	// step is the prefix of a step's problem: checkSteps' ("step 2: "; a
	// group's step: "step 2: step 0: ") or a running sequence's, which
	// names the repetition ("step 1 (repetition 3): step 0: ").
	step *regexp.Regexp
}

// elementFields are the fields of memory images, parameters, outputs and
// expectations a message may name after the element.
var elementFields = map[string]bool{"space": true, "bank": true, "addr": true, "file": true, "bytes": true, "fill": true,
	"buffer": true, "words": true, "output": true, "type": true, "u32": true, "s32": true, "u64": true, "f32": true, "f64": true,
	"ptr": true, "tex": true, "surf": true}

func pathOfMessage(msg string) []string {
	msg = strings.TrimPrefix(msg, "launch file: ")
	msg = strings.TrimPrefix(msg, "campaign file: ") // emu/inject's, the same JSON conventions
	re := messageREs()
	rest, ok := strings.CutPrefix(msg, "launches: ")
	if !ok && re.step.MatchString(msg) {
		rest, ok = msg, true // a running sequence's
	}
	if ok {
		// a step's problem is at the step (or its field), inside groups
		var steps []string
		for m := re.step.FindStringSubmatch(rest); m != nil; m = re.step.FindStringSubmatch(rest) {
			steps = append(steps, "launches", m[1])
			rest = rest[len(m[0]):]
		}
		if steps != nil {
			return append(steps, pathOfMessage(rest)...)
		}
	}
	if m := re.indexed.FindStringSubmatch(msg); m != nil {
		p := []string{m[1], m[2]}
		switch {
		case m[3] != "":
			p = append(p, m[3])
		case elementFields[m[4]]:
			p = append(p, m[4]) // "outputs[0]: file ..." is about the file
		}
		return p
	}
	if m := re.keyed.FindStringSubmatch(msg); m != nil {
		name, err := strconv.Unquote(`"` + m[2] + `"`)
		if err != nil {
			name = m[2]
		}
		group := map[string]string{"buffer": "buffers", "texture": "textures", "surface": "surfaces"}[m[1]]
		p := []string{group, name}
		if m[3] == "bytes" || m[3] == "fill" {
			p = append(p, m[3])
		}
		return p
	}
	if m := re.field.FindStringSubmatch(msg); m != nil {
		return []string{m[1]}
	}
	if msg == "no program" {
		return []string{}
	}
	return nil
}

// locateMessagePath is the offset of a message's path in data, or -1. A
// step's problem may be about a field the step leaves to the launch file
// (a buffer, the parameters): when the step does not have it and the
// launch file does, the launch file's is meant.
func locateMessagePath(data []byte, path []string) int {
	off, depth := locatePathDepth(data, path)
	if depth == len(path) {
		return off
	}
	inner := path
	for len(inner) > 2 && inner[0] == "launches" {
		inner = inner[2:]
	}
	if len(inner) < len(path) {
		if o, d := locatePathDepth(data, inner); d == len(inner) {
			return o
		}
	}
	return off
}

// locatePath returns the offset of the value at path (object keys and
// array indices as text) in the JSON document data: the deepest prefix of
// path that exists, so a missing field points at its object.
func locatePath(data []byte, path []string) (int, bool) {
	off, _ := locatePathDepth(data, path)
	return off, off >= 0
}

// locatePathDepth is locatePath with the length of the prefix found (-1
// with the offset -1 when not even the document is there).
func locatePathDepth(data []byte, path []string) (int, int) {
	dec := tokenDecoder(data)
	type frame struct {
		path    []string // of the container
		array   bool
		index   int
		key     string
		wantKey bool
	}
	var stack []*frame
	best, bestDepth := -1, -1
	for {
		start := skipSpace(data, int(dec.InputOffset()))
		var vpath []string // the path of the next value, when a value comes next
		isValue := true
		if n := len(stack); n > 0 {
			top := stack[n-1]
			switch {
			case top.array:
				vpath = append(append([]string(nil), top.path...), strconv.Itoa(top.index))
			case top.wantKey:
				isValue = false
			default:
				vpath = append(append([]string(nil), top.path...), top.key)
			}
		}
		if isValue && matchPrefix(vpath, path) == len(vpath) && len(vpath) > bestDepth {
			best, bestDepth = start, len(vpath)
			if len(vpath) == len(path) {
				return best, bestDepth
			}
		}
		tok, err := dec.Token()
		if err != nil {
			return best, bestDepth
		}
		if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			stack = append(stack, &frame{path: vpath, array: d == '[', wantKey: d == '{'})
			continue
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
		} else if k, ok := tok.(string); ok && !isValue {
			top := stack[len(stack)-1]
			top.key, top.wantKey = k, false
			continue
		}
		// a value ended: its container wants the next index or key
		if n := len(stack); n > 0 {
			if top := stack[n-1]; top.array {
				top.index++
			} else {
				top.wantKey = true
			}
		}
	}
}

// matchPrefix is how many leading elements of cur match path.
func matchPrefix(cur, path []string) int {
	n := 0
	for n < len(cur) && n < len(path) && cur[n] == path[n] {
		n++
	}
	return n
}

// skipSpace skips white space, ':' and ',' from off.
func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

// LocateError prefixes err with the launch file's name and, when it can be
// found, the line and column it is about: "name:3:15: ...".
func LocateError(name string, data []byte, err error) error {
	return LocateErrorOr(name, data, err, nil)
}

// LocateErrorOr is LocateError that places an error it cannot otherwise
// place at the value of the field path fallback (e.g. "program" for the
// program's problems: its contents, its architecture, its kernels).
func LocateErrorOr(name string, data []byte, err error, fallback []string) error {
	var pe *PosError
	if errors.As(WithPos(data, err), &pe) {
		return fmt.Errorf("%s:%w", name, pe)
	}
	if fallback != nil {
		if off, ok := locatePath(data, fallback); ok {
			line, col := lineCol(data, off)
			return fmt.Errorf("%s:%w", name, &PosError{line, col, err})
		}
	}
	return fmt.Errorf("%s: %w", name, err)
}
