package tesla

import (
	"bytes"
	"encoding/binary"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/asm"
)

// encState is the instruction value being built and the bits assigned so far,
// so that two pieces setting the same bits must agree.
type encState struct {
	v, set uint64
}

func (s encState) put(f isa.Field, x uint64) (encState, bool) {
	if x > f.Max() {
		return s, false
	}
	m := f.Mask()
	if (s.v^x<<f.Pos)&m&s.set != 0 {
		return s, false
	}
	s.v = s.v&^m | x<<f.Pos
	s.set |= m
	return s, true
}

// fixup asks pass 2 to put a label's address into a branch target.
type fixup struct {
	label string
	pos   asm.Pos
}

// classBits are the bits that give each class (word0 bits 0-1, word1 bits 0-1
// for the immediate class); classMask the bits they occupy.
var (
	classBits = [5]uint64{ClassShort: 0, ClassImm: 1 | 3<<32, ClassLong: 1, ClassFlow: 3}
	classMask = [5]uint64{ClassShort: 3, ClassImm: 3 | 3<<32, ClassLong: 3, ClassFlow: 3 | 3<<32}
)

// matchErr is the furthest point a failed match reached, for the error
// message, which is built only when the whole statement fails.
type matchErr struct {
	col   int
	want  string   // what was expected
	quote string   // a token to quote after want, e.g. the one found
	opts  []string // or: one of these options
}

func (m matchErr) message() string {
	switch {
	case m.opts != nil:
		return "one of " + strings.Join(m.opts, " ")
	case m.quote != "":
		return m.want + "'" + m.quote + "'"
	}
	return m.want
}

type parser struct {
	toks   []asm.Token
	label  string // label named by a branch target, resolved in pass 2
	best   matchErr
	mcache map[string][]mnemParse
	fixups []fixup // branch targets naming labels, for pass 2
}

func (p *parser) fail(col int, want string) {
	if col > p.best.col {
		p.best = matchErr{col: col, want: want}
	}
}

func (p *parser) failQuote(col int, want, quote string) {
	if col > p.best.col {
		p.best = matchErr{col: col, want: want, quote: quote}
	}
}

func (p *parser) failOpts(col int, opts []string) {
	if col > p.best.col {
		p.best = matchErr{col: col, opts: opts}
	}
}

// mnemParse is one way to read a mnemonic: a form and the fields it sets.
type mnemParse struct {
	form uint16
	st   encState
}

// mnemParses returns every way to read the mnemonic as one of the candidate
// forms, in spec order, caching the answer: real code repeats mnemonics.
func (p *parser) mnemParses(cands []uint16, mnem asm.Token) []mnemParse {
	if r, ok := p.mcache[mnem.Text]; ok {
		return r
	}
	var out []mnemParse
	for _, fi := range cands {
		f := &forms[fi]
		st := encState{v: f.value | f.fill | classBits[f.class], set: f.mask | classMask[f.class]}
		p.matchMnem(f, f.mnem, mnem.Text, st, mnem.Col, func(st encState) {
			out = append(out, mnemParse{fi, st})
		})
	}
	if p.mcache == nil {
		p.mcache = map[string][]mnemParse{}
	}
	p.mcache[mnem.Text] = out
	return out
}

// matchMnem matches the mnemonic string s against pieces, backtracking over
// optional and enumerated pieces, and reports every complete reading.
func (p *parser) matchMnem(f *form, ps []piece, s string, st encState, col int, found func(encState)) {
	if len(ps) == 0 {
		if s != "" {
			p.failQuote(col, "end of mnemonic, found ", s)
			return
		}
		found(st)
		return
	}
	pc := &ps[0]
	next := func(text string, fld isa.Field, x uint64, set bool) {
		if !strings.HasPrefix(s, text) {
			return
		}
		n := st
		if set {
			var ok bool
			if n, ok = n.put(fld, x); !ok {
				return
			}
		}
		p.matchMnem(f, ps[1:], s[len(text):], n, col+len(text), found)
	}
	switch pc.kind {
	case pieceLit:
		if !strings.HasPrefix(s, pc.text) {
			p.fail(col, pc.text)
			return
		}
		p.matchMnem(f, ps[1:], s[len(pc.text):], st, col+len(pc.text), found)
	case pieceJoin:
		if f.class == ClassLong {
			next(".S", f_mark, 2, true)
		}
		next("", f_mark, 0, false)
	case pieceCC:
		if len(s) >= 3 && s[0] == '.' && s[1] == 'C' && s[2] >= '0' && s[2] <= '3' {
			if n, ok := st.put(f_ccw, 1); ok {
				if n, ok = n.put(f_ccr, uint64(s[2]-'0')); ok {
					p.matchMnem(f, ps[1:], s[3:], n, col+3, found)
				}
			}
		}
		next("", f_ccw, 0, true)
	case pieceEnum:
		// longest options first so ".U16.BEXT" is preferred to ".U16"
		for _, i := range pc.asm.order {
			next(pc.opts[i], pc.field, uint64(i), true)
		}
		p.failOpts(col, pc.opts)
	case pieceFlag:
		if pc.text != "" {
			next(pc.text, pc.field, 1, true)
		}
		next("", pc.field, 0, true)
	case pieceNotFlag:
		next(pc.text, pc.field, 0, true)
		next("", pc.field, 1, true)
	}
}

func (p *parser) tok(i int) asm.Token {
	if i < len(p.toks) {
		return p.toks[i]
	}
	col := 1
	if len(p.toks) > 0 {
		last := p.toks[len(p.toks)-1]
		col = last.Col + len(last.Text)
	}
	return asm.Token{Kind: asm.EOL, Col: col}
}

// matchText matches literal template tokens at token i.
func (p *parser) matchText(toks []string, i int) (int, bool) {
	for _, t := range toks {
		got := p.tok(i)
		if got.Text != t || got.Kind == asm.EOL {
			p.failQuote(got.Col, "", t)
			return i, false
		}
		i++
	}
	return i, true
}

// matchOpnds matches operand pieces against tokens from i.
func (p *parser) matchOpnds(f *form, ps []piece, i int, st encState) (encState, bool) {
	if len(ps) == 0 {
		if t := p.tok(i); t.Kind != asm.EOL {
			p.failQuote(t.Col, "end of instruction, found ", t.Text)
			return st, false
		}
		return st, true
	}
	pc := &ps[0]
	switch pc.kind {
	case pieceLit:
		j, ok := p.matchText(pc.asm.toks, i)
		if !ok {
			return st, false
		}
		return p.matchOpnds(f, ps[1:], j, st)
	case pieceEnum:
		for _, k := range pc.asm.order {
			if j, ok := p.matchText(pc.asm.optToks[k], i); ok {
				if n, ok := st.put(pc.field, uint64(k)); ok {
					if r, ok := p.matchOpnds(f, ps[1:], j, n); ok {
						return r, true
					}
				}
			}
		}
		return st, false
	case pieceFlag, pieceNotFlag:
		on, off := uint64(1), uint64(0)
		if pc.kind == pieceNotFlag {
			on, off = 0, 1
		}
		if j, ok := p.matchText(pc.asm.toks, i); ok && pc.text != "" {
			if n, ok := st.put(pc.field, on); ok {
				if r, ok := p.matchOpnds(f, ps[1:], j, n); ok {
					return r, true
				}
			}
		}
		n, ok := st.put(pc.field, off)
		if !ok {
			return st, false
		}
		return p.matchOpnds(f, ps[1:], i, n)
	case pieceOperand:
		j, n, ok := p.parseOperand(f.class, pc, i, st)
		if !ok {
			return st, false
		}
		return p.matchOpnds(f, ps[1:], j, n)
	}
	return st, false
}

// Function: the exit marker. cuobjdump does not print it; ptxas sets it on the
// last instruction of a kernel, so the assembler does the same for the last
// instruction of each function when it is a long (non-flow, non-immediate) one.

// asmInst holds no pointers: the garbage collector need not scan the
// instructions of a large program.
type asmInst struct {
	v     uint64
	addr  uint64
	fix   int32 // 1 + index of its fixup in parser.fixups, 0 for none
	n     uint8 // bytes
	fnEnd bool  // last instruction of its function
	raw   bool  // a .word directive, never given the exit marker
}

// Assemble turns Tesla assembler source into machine code. It accepts our
// listings and cuobjdump's (address and hex columns are comments), labels
// ("name:"), and the cuobjdump frame lines (code for, Function :,
// .headerflags, dot lines, and the .cubin facts of gpuisa dis -facts), which it skips; "Function :" starts a new function.
func Assemble(filename string, src []byte) ([]byte, error) {
	var errs asm.ErrorList
	insts := make([]asmInst, 0, bytes.Count(src, []byte{'\n'})+1)
	labels := map[string]uint64{}
	var addr uint64
	var p parser
	var lx asm.Lexer
	var lineToks []asm.Token // reused line after line (p.toks is cut from it)
	endFunction := func() {
		if len(insts) > 0 {
			insts[len(insts)-1].fnEnd = true
		}
	}
	asm.Lines(src, func(line string, ln int) {
		k := 0
		for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
			k++
		}
		if k == len(line) {
			return
		}
		trimmed := line[k:]
		if trimmed[0] != '/' {
			trimmed = strings.TrimSpace(trimmed)
		}
		switch {
		case trimmed == "":
			return
		case trimmed[0] == '/':
			// an instruction line with its address column
		case strings.HasPrefix(trimmed, "Function :") || strings.HasPrefix(trimmed, "Function:"):
			endFunction()
			return
		case strings.HasPrefix(trimmed, "code for"), strings.HasPrefix(trimmed, ".headerflags"),
			strings.HasPrefix(trimmed, ".cubin "), // gpuisa dis -facts: cubin facts, not code
			strings.HasPrefix(trimmed, "....."), strings.HasPrefix(trimmed, "Fatbin"),
			strings.HasPrefix(trimmed, "====="), strings.HasPrefix(trimmed, "arch ="),
			strings.HasPrefix(trimmed, "code version"), strings.HasPrefix(trimmed, "producer"),
			strings.HasPrefix(trimmed, "host ="), strings.HasPrefix(trimmed, "compile_size"),
			strings.HasPrefix(trimmed, "identifier"):
			return
		}
		lx.Reset(line)
		toks := lineToks[:0] // a local while lexing: lineToks lives in the closure
		for {
			t := lx.Next()
			if t.Kind == asm.EOL {
				break
			}
			if t.Kind == asm.Bad {
				errs.Add(asm.Pos{File: filename, Line: ln, Col: t.Col}, "unexpected character %q", t.Text)
				return
			}
			toks = append(toks, t)
		}
		lineToks = toks
		if lx.Unterminated {
			errs.Add(asm.Pos{File: filename, Line: ln, Col: len(line) + 1}, "unterminated comment or string")
			return
		}
		for len(toks) > 0 {
			// labels
			if len(toks) >= 2 && toks[0].Kind == asm.Ident && toks[1].Text == ":" {
				name := toks[0].Text
				if _, dup := labels[name]; dup {
					errs.Add(asm.Pos{File: filename, Line: ln, Col: toks[0].Col}, "label %s defined twice", name)
				}
				labels[name] = addr
				toks = toks[2:]
				continue
			}
			// one statement up to ';'
			end := 0
			for end < len(toks) && toks[end].Text != ";" {
				end++
			}
			stmt := toks[:end]
			if end < len(toks) {
				toks = toks[end+1:]
			} else {
				toks = nil
			}
			if len(stmt) == 0 {
				continue
			}
			pos := asm.Pos{File: filename, Line: ln, Col: stmt[0].Col}
			ai, err := p.assembleStatement(stmt, pos)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			ai.addr = addr
			if err := checkEncoded(ai); err != nil {
				errs.Add(pos, "%v", err)
				continue
			}
			addr += uint64(ai.n)
			insts = append(insts, ai)
		}
	})
	endFunction()
	// pass 2: branch targets, then exit markers
	for i := range insts {
		in := &insts[i]
		if in.fix == 0 {
			continue
		}
		fix := &p.fixups[in.fix-1]
		a, ok := labels[fix.label]
		switch {
		case !ok:
			errs.Add(fix.pos, "undefined label %s", fix.label)
		case a >= 1<<25 || in.n == 4 && a > f_tgt.Max():
			errs.Add(fix.pos, "label %s at %#x is out of branch range", fix.label, a)
		default:
			in.v = f_tgt.Set(in.v, a)
			in.v = f_tgthi.Set(in.v, a>>19)
		}
	}
	for start := 0; start < len(insts); {
		end := start
		for !insts[end].fnEnd {
			end++
		}
		markExit(insts[start : end+1])
		start = end + 1
	}
	out := make([]byte, 0, addr)
	for i := range insts {
		in := &insts[i]
		if in.n == 4 {
			out = binary.LittleEndian.AppendUint32(out, uint32(in.v))
		} else {
			out = binary.LittleEndian.AppendUint64(out, in.v)
		}
	}
	if err := errs.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// AssembleInst assembles one instruction's text (no label) into its value
// and length; the exit marker is not set.
func AssembleInst(text string) (uint64, int, error) {
	var p parser
	var lx asm.Lexer
	lx.Reset(text)
	for {
		t := lx.Next()
		if t.Kind == asm.EOL {
			break
		}
		if t.Text == ";" {
			break
		}
		p.toks = append(p.toks, t)
	}
	ai, err := p.assembleStatement(p.toks, asm.Pos{Line: 1, Col: 1})
	if err != nil {
		return 0, 0, asm.ErrorList{err}
	}
	if ai.fix != 0 {
		fix := &p.fixups[ai.fix-1]
		return 0, 0, asm.ErrorList{{Pos: fix.pos, Msg: "label " + fix.label + " needs a whole program"}}
	}
	return ai.v, int(ai.n), nil
}

// markExit sets the end-of-program marker the way ptxas places it, since
// cuobjdump does not print it: on the last instruction of the function, and
// on the last instruction before its first subroutine (the lowest CAL
// target), when that instruction is a long non-flow one. Code that ends with
// RET (older ptxas) has none there.
func markExit(fn []asmInst) {
	lowest := uint64(1 << 63)
	for _, in := range fn {
		if in.n == 8 && in.v&3 == 3 && in.v>>28&0xf == 2 { // CAL
			if t := f_tgt.Get(in.v) | f_tgthi.Get(in.v)<<19; t > fn[0].addr && t < lowest {
				lowest = t
			}
		}
	}
	mark := func(in *asmInst) {
		if !in.raw && in.n == 8 && in.v&3 == 1 && f_mark.Get(in.v) == 0 {
			in.v = f_mark.Set(in.v, 1)
		}
	}
	mark(&fn[len(fn)-1])
	for k := 1; k < len(fn); k++ {
		if fn[k].addr == lowest {
			mark(&fn[k-1])
			break
		}
	}
}

func (p *parser) assembleStatement(stmt []asm.Token, pos asm.Pos) (asmInst, *asm.Error) {
	mn := stmt[0]
	if mn.Text == ".word" {
		if len(stmt) != 2 || stmt[1].Kind != asm.Number {
			return asmInst{}, &asm.Error{Pos: pos, Msg: ".word: expected one 32-bit number"}
		}
		x, ok := asm.ParseUint(stmt[1].Text)
		if !ok || x > 0xffffffff {
			return asmInst{}, &asm.Error{Pos: pos, Msg: ".word: expected one 32-bit number"}
		}
		return asmInst{v: x, n: 4, raw: true}, nil
	}
	if mn.Kind != asm.Ident {
		return asmInst{}, &asm.Error{Pos: pos, Msg: "expected an instruction mnemonic, found '" + mn.Text + "'"}
	}
	base := mn.Text
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	p.toks = stmt[1:]
	p.best = matchErr{}
	// a mnemonic seen before needs no look-up of its candidate forms
	parses, seen := p.mcache[mn.Text]
	var cands []uint16
	if !seen {
		var ok bool
		if cands, ok = formsByName()[base]; !ok {
			return asmInst{}, &asm.Error{Pos: pos, Msg: "unknown instruction " + base + asm.Closest(base, mnemonics())}
		}
		parses = p.mnemParses(cands, mn)
	}
	if len(parses) == 0 {
		if cands == nil {
			cands = formsByName()[base]
		}
		// explain the mnemonic failure (the cache kept no messages)
		delete(p.mcache, mn.Text)
		p.best = matchErr{}
		p.mnemParses(cands, mn)
	}
	for _, mp := range parses {
		p.label = ""
		f := &forms[mp.form]
		st, ok := p.matchOpnds(f, f.opnds, 0, mp.st)
		if !ok {
			continue
		}
		ai := asmInst{v: st.v, n: 8}
		if f.class == ClassShort || f.class == ClassFlow32 {
			ai.n = 4
		}
		if p.label != "" {
			p.fixups = append(p.fixups, fixup{label: p.label, pos: pos})
			ai.fix = int32(len(p.fixups))
		}
		return ai, nil
	}
	epos := pos
	if p.best.col > 0 {
		epos.Col = p.best.col
	}
	return asmInst{}, &asm.Error{Pos: epos, Msg: base + ": expected " + p.best.message()}
}

// formsByName maps a mnemonic's base name to its forms in spec order,
// made when the assembler first looks one up (not when a program starts).
var formsByName = sync.OnceValue(buildFormsByName)

// mnemonics are formsByName's keys, listed once (not per unknown mnemonic).
var mnemonics = sync.OnceValue(func() []string { return slices.Collect(maps.Keys(formsByName())) })
