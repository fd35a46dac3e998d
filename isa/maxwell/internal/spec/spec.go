// Package spec reads isa/maxwell/spec.txt, the one description of every Maxwell
// instruction form, and writes the Go tables the maxwell package runs on.
//
// The format, line by line ('#' starts a comment):
//
//	table ID[=NVNAME][/Q] e0 e1 ...   enumeration; entry i is the text for value i:
//	                                  "-" empty, "?" out of range, "!" rejected.
//	                                  Out-of-range values print INVALID<NVNAME><hex>,
//	                                  or ???<decimal> with /Q.
//	form ENC... [attr...] : TEMPLATE  one instruction form per encoding ENC.
//
// ENC is KIND:VALUE[/MASK] in hex. Four or fewer digits are the top 16 bits of
// the word, sixteen digits are the whole word. KIND says what {B} and {C} mean
// in the template: R register (b at bit 20), C constant bank, I immediate,
// K register b at bit 39 and constant c, X none.
//
// TEMPLATE is text with fields in braces:
//
//	{R@p}      register R0..R254/RZ at bit p (8 bits); .reuse from the control word
//	{P@p}      predicate P0..P6/PT (3 bits)      {!P@p} with negation at bit p+3
//	{?txt@p}   txt when bit p is set
//	{ID@p}     table ID at bit p (width from the table size)
//	{X@p:w[,p:w...][<<s]}  unsigned hex     {SX@...} signed hex
//	{XS@...}   printed as the raw field, like X, but signed to the hardware
//	           (IADD3's 20-bit immediate: nvdisasm prints 0xffff0, the adder sees -16)
//	{F32@...} {F64@...} {F16@...} float of the top bits
//	{A@p,q:w}  address [Rp+offset]: register at p, signed offset at q (UA: unsigned;
//	           CA/CA0: constant-bank addresses, signed with RZ too, CA0 prints RZ+0 as 0x0)
//	{REL@p:w}  PC-relative target       {B:k} {C}  operand b and c by KIND
//	<...>      optional group: printed only when one of its fields is not its
//	           default (RZ, PT, 0, flag clear)
//	{?!txt@p}  txt when bit p is clear
//	{R@p*N} {R@p*T}  register operand N bits wide (64: a pair, 128: a quad), or
//	           as wide as the entry of table T (a table of the same form) says:
//	           the first number in the entry's text is its width in bits
//	           (".U8" 8, ".64" 64, ".F16x2" 32), an entry without one is 32 bits.
//	           The first such register of a form with a memory operand gives
//	           the access size. Registers without a width are 32 bits.
//	space S MNEMONIC...  the memory space of the [..] operands of these
//	           mnemonics (generic, global, local, shared, surface, ...);
//	           a[..] is the attribute space and c[..] a constant bank
//
// Operand facts the printer does not need (XS, widths, spaces) feed the
// typed operand view (operands_gen.go, maxwell.Inst.Operands).
package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// Token kinds.
const (
	Lit = iota
	Reg
	Pred
	NPred
	Flag
	Enum
	Hex
	SHex
	F32
	F64
	F16
	Rel
	Phase
	BitSet  // {5,4,0}: the set bits, highest first
	RegPair // {RP@p+k}: a register of a compare-and-swap pair; RZ or past R254 prints ???255
	Addr    // memory address: register part, then signed offset parts: R1+0x10, R1+-0x10, -0x10 (RZ), RZ
	UAddr   // as Addr with an unsigned offset
	Group   // Arg = number of following tokens printed only if one of their fields is not its default
)

// Part is one piece of a split field.
type Part struct{ Pos, Width uint8 }

// Token is one piece of a template.
type Token struct {
	Kind  int
	Text  string // literal or flag text
	Parts []Part
	Shift uint8  // value is shifted left by this much (constant offsets)
	Def   uint64 // the value an omitted optional field stands for
	Arg   int    // reuse slot (0..2, -1 none), table index, group length, 1 for an inverted flag
	// Signed: a Hex field ({XS}) whose value the hardware sign-extends.
	Signed bool
	// WidthBits and WidthTable: a register operand's width ({R@p*64}, or
	// the entry of table WidthTable, -1 none).
	WidthBits  uint8
	WidthTable int
}

// Table is one enumeration.
type Table struct {
	ID, NVName string
	Quest      bool // out-of-range values print ???N
	NoNum      bool // INVALID<NAME> without the value
	Hex        bool // INVALID<NAME><n> prints n in hex (else decimal)
	Dot        bool // entries are modifiers (".X"), so out-of-range ones get a dot too
	Entries    []string
	Kinds      []int // per entry: 0 text, 1 out of range, 2 rejected, 3 out of range printed ???N
}

// Form is one encoding with its template.
type Form struct {
	Name        string // mnemonic (first word of the template)
	Kind        byte
	Value, Mask uint64
	Attrs       []string
	Tokens      []Token
	Line        int
}

// Spec is the parsed file.
type Spec struct {
	Tables  []*Table
	TableID map[string]int
	Forms   []*Form
	Spaces  map[string]string // mnemonic -> memory space of its [..] operands
}

// Parse reads spec text.
func Parse(src string) (*Spec, error) {
	s := &Spec{TableID: map[string]int{}, Spaces: map[string]string{}}
	for n, line := range strings.Split(src, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var err error
		switch {
		case strings.HasPrefix(line, "table "):
			err = s.table(line[6:])
		case strings.HasPrefix(line, "form "):
			err = s.form(line[5:], n+1)
		case strings.HasPrefix(line, "space "):
			err = s.space(line[6:])
		default:
			err = fmt.Errorf("unknown statement")
		}
		if err != nil {
			return nil, fmt.Errorf("spec.txt:%d: %v", n+1, err)
		}
	}
	return s, nil
}

func (s *Spec) space(line string) error {
	f := strings.Fields(line)
	if len(f) < 2 {
		return fmt.Errorf("space without mnemonics")
	}
	for _, m := range f[1:] {
		if _, dup := s.Spaces[m]; dup {
			return fmt.Errorf("space of %s given twice", m)
		}
		s.Spaces[m] = f[0]
	}
	return nil
}

func (s *Spec) table(line string) error {
	f := strings.Fields(line)
	t := &Table{}
	id := f[0]
	for {
		if strings.HasSuffix(id, "/Q") {
			t.Quest = true
		} else if strings.HasSuffix(id, "/H") {
			t.Hex = true
		} else if strings.HasSuffix(id, "/N") {
			t.NoNum = true
		} else if strings.HasSuffix(id, "/D") {
			t.Dot = true
		} else {
			break
		}
		id = id[:len(id)-2]
	}
	t.ID, t.NVName = id, id
	if i := strings.Index(id, "="); i >= 0 {
		t.ID, t.NVName = id[:i], id[i+1:]
	}
	for _, e := range f[1:] {
		switch e {
		case "-":
			t.Entries = append(t.Entries, "")
			t.Kinds = append(t.Kinds, 0)
		case "?":
			t.Entries = append(t.Entries, "")
			t.Kinds = append(t.Kinds, 1)
		case "!":
			t.Entries = append(t.Entries, "")
			t.Kinds = append(t.Kinds, 2)
		case "??":
			t.Entries = append(t.Entries, "")
			t.Kinds = append(t.Kinds, 3)
		default:
			t.Entries = append(t.Entries, strings.ReplaceAll(e, "_SP_", " "))
			t.Kinds = append(t.Kinds, 0)
		}
	}
	for _, e := range t.Entries {
		if strings.HasPrefix(e, ".") {
			t.Dot = true
		}
	}
	n := len(t.Entries)
	if n&(n-1) != 0 {
		return fmt.Errorf("table %s: %d entries, want a power of two", t.ID, n)
	}
	if _, dup := s.TableID[t.ID]; dup {
		return fmt.Errorf("table %s defined twice", t.ID)
	}
	s.TableID[t.ID] = len(s.Tables)
	s.Tables = append(s.Tables, t)
	return nil
}

// Width of a table's field.
func (t *Table) Width() uint8 {
	w := uint8(0)
	for 1<<w < len(t.Entries) {
		w++
	}
	return w
}

func (s *Spec) form(line string, n int) error {
	i := strings.Index(line, ":")
	j := strings.Index(line, " : ")
	if i < 0 || j < 0 {
		return fmt.Errorf("form without ' : template'")
	}
	head, tmpl := strings.Fields(line[:j]), strings.TrimSpace(line[j+3:])
	var encs []string
	var attrs []string
	for _, h := range head {
		if len(h) > 2 && h[1] == ':' {
			encs = append(encs, h)
		} else {
			attrs = append(attrs, h)
		}
	}
	if len(encs) == 0 {
		return fmt.Errorf("form without encodings")
	}
	for _, e := range encs {
		f := &Form{Kind: e[0], Attrs: attrs, Line: n}
		v, m, err := parseEnc(e[2:], e[0])
		if err != nil {
			return err
		}
		f.Value, f.Mask = v, m
		if f.Value&^f.Mask != 0 {
			return fmt.Errorf("%s: value has bits outside the mask", e)
		}
		toks, err := s.template(tmpl, f.Kind)
		if err != nil {
			return err
		}
		f.Tokens = toks
		name := tmpl
		if k := strings.IndexAny(name, " .{<"); k >= 0 {
			name = name[:k]
		}
		f.Name = name
		s.Forms = append(s.Forms, f)
	}
	return nil
}

func parseEnc(e string, kind byte) (uint64, uint64, error) {
	vs, ms, hasMask := strings.Cut(e, "/")
	v, err := strconv.ParseUint(vs, 16, 64)
	if err != nil {
		return 0, 0, err
	}
	var m uint64
	if hasMask {
		if m, err = strconv.ParseUint(ms, 16, 64); err != nil {
			return 0, 0, err
		}
		if len(ms) <= 4 {
			m <<= 48
		}
	} else if kind == 'I' {
		m = 0xfef8 << 48
	} else {
		m = 0xfff8 << 48
	}
	if len(vs) <= 4 {
		v <<= 48
	}
	return v, m, nil
}

// template expands {B:k} and {C} by kind and compiles the fields.
func (s *Spec) template(t string, kind byte) ([]Token, error) {
	var out []Token
	var open []int
	barrier := 0 // literals do not merge into a token before this index (a closed group)
	for len(t) > 0 {
		if t[0] == '<' { // optional group
			open = append(open, len(out))
			out = append(out, Token{Kind: Group})
			t = t[1:]
			continue
		}
		if t[0] == '>' && len(open) > 0 {
			g := open[len(open)-1]
			open = open[:len(open)-1]
			out[g].Arg = len(out) - g - 1
			barrier = len(out)
			t = t[1:]
			continue
		}
		i := strings.IndexAny(t, "{<>")
		if i > 0 {
			out = appendLitAfter(out, t[:i], barrier)
			t = t[i:]
			continue
		}
		if i < 0 {
			out = appendLit(out, t)
			break
		}
		if i > 0 {
			out = appendLit(out, t[:i])
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("unclosed {")
		}
		field := t[i+1 : i+j]
		t = t[i+j+1:]
		if k := strings.LastIndexByte(field, '/'); k >= 0 && k > strings.IndexByte(field, '@') {
			// {field/KINDS}: only in forms of these kinds
			if !strings.ContainsRune(field[k+1:], rune(kind)) {
				continue
			}
			field = field[:k]
		}
		exp, ok := expandOperand(field, kind)
		if ok {
			toks, err := s.template(exp, 'X')
			if err != nil {
				return nil, err
			}
			for _, tk := range toks {
				if tk.Kind == Lit {
					out = appendLit(out, tk.Text)
				} else {
					out = append(out, tk)
				}
			}
			continue
		}
		tk, err := s.field(field)
		if err != nil {
			return nil, fmt.Errorf("{%s}: %v", field, err)
		}
		out = append(out, tk)
	}
	return out, nil
}

// appendLitAfter is appendLit that does not merge into tokens before barrier.
func appendLitAfter(out []Token, s string, barrier int) []Token {
	if len(out) <= barrier {
		return append(out, Token{Kind: Lit, Text: s, Arg: -1})
	}
	return appendLit(out, s)
}

func appendLit(out []Token, s string) []Token {
	if n := len(out); n > 0 && out[n-1].Kind == Lit {
		out[n-1].Text += s
		return out
	}
	return append(out, Token{Kind: Lit, Text: s, Arg: -1})
}

// Constant-bank operand of ALU forms: 5-bit bank, 14-bit word offset.
const cbuf = "c[{X@34:5}][{SX@20:14<<2}]"

func expandOperand(f string, kind byte) (string, bool) {
	switch {
	case f == "C" || f == "C:D":
		if kind == 'K' {
			return cbuf, true
		}
		if f == "C:D" { // a double: a register pair
			return "{R@39*64}", true
		}
		return "{R@39}", true
	case strings.HasPrefix(f, "B:"):
		// {B:k[:slot]}: slot overrides the register's reuse slot
		f, slot, hasSlot := strings.Cut(f[2:], ":")
		f = "B:" + f
		wide := ""
		if f == "B:D" { // a double: a register pair
			wide = "*64"
		}
		switch kind {
		case 'R':
			if hasSlot {
				return "{R@20:" + slot + wide + "}", true
			}
			return "{R@20" + wide + "}", true
		case 'C':
			return cbuf, true
		case 'K':
			return "{R@39:1" + wide + "}", true
		case 'I':
			switch f[2:] {
			case "F":
				return "{F32@20:19,56:1}", true
			case "D":
				return "{F64@20:19,56:1}", true
			case "I":
				return "{SX@20:19,56:1}", true
			case "U":
				return "{X@20:19,56:1}", true
			case "XS": // signed, printed as the raw field
				return "{XS@20:19,56:1}", true
			case "U19":
				return "{X@20:19}", true
			case "S6": // shift counts
				return "{X@20:6}", true
			}
		}
		return "{B?}", true
	}
	return "", false
}

func (s *Spec) field(f string) (Token, error) {
	tk := Token{Arg: -1, WidthTable: -1}
	name, loc, ok := strings.Cut(f, "@")
	if !ok {
		if f == "PHASE" {
			tk.Kind = Phase
			return tk, nil
		}
		return tk, fmt.Errorf("no @")
	}
	if strings.HasPrefix(name, "?") {
		// {?txt@p} {?!txt@p} {?txt@p:w,p:w=v}: txt when the field equals v
		tk.Kind = Flag
		tk.Text = name[1:]
		tk.Def = 1
		if strings.HasPrefix(tk.Text, "!") {
			tk.Text = tk.Text[1:]
			tk.Def = 0
		}
		if a, b, ok := strings.Cut(loc, "="); ok {
			d, err := strconv.ParseUint(b, 0, 64)
			if err != nil {
				return tk, err
			}
			tk.Def = d
			loc = a
		}
		for _, pw := range strings.Split(loc, ",") {
			ps, ws, hasW := strings.Cut(pw, ":")
			p, err := strconv.Atoi(ps)
			if err != nil {
				return tk, err
			}
			w := 1
			if hasW {
				if w, err = strconv.Atoi(ws); err != nil {
					return tk, err
				}
			}
			tk.Parts = append(tk.Parts, Part{uint8(p), uint8(w)})
		}
		return tk, nil
	}
	// {R@p*64}, {R@p*T}: the register's width, in bits or by a table
	if name == "R" || name == "RP" {
		if a, b, ok := strings.Cut(loc, "*"); ok {
			if n, err := strconv.Atoi(b); err == nil {
				if n <= 0 || n > 128 || n%32 != 0 {
					return tk, fmt.Errorf("register width %d", n)
				}
				tk.WidthBits = uint8(n)
			} else if ti, ok := s.TableID[b]; ok {
				tk.WidthTable = ti
			} else {
				return tk, fmt.Errorf("register width %q: not a number or a table", b)
			}
			loc = a
		}
	}
	// {R@p+k}: the register k above the one encoded (CAS's second operand)
	if name == "R" || name == "RP" {
		if a, b, ok := strings.Cut(loc, "+"); ok {
			k, err := strconv.Atoi(b)
			if err != nil {
				return tk, err
			}
			tk.Shift = uint8(k)
			loc = a
		}
	}
	// location: p[:w][,p:w][<<s][=default]
	hasDef := false
	if a, b, ok := strings.Cut(loc, "="); ok {
		d, err := strconv.ParseUint(b, 0, 64)
		if err != nil {
			return tk, err
		}
		tk.Def, hasDef = d, true
		loc = a
	}
	if a, b, ok := strings.Cut(loc, "<<"); ok {
		sh, err := strconv.Atoi(b)
		if err != nil {
			return tk, err
		}
		tk.Shift = uint8(sh)
		loc = a
	}
	for _, pw := range strings.Split(loc, ",") {
		ps, ws, hasW := strings.Cut(pw, ":")
		p, err := strconv.Atoi(ps)
		if err != nil {
			return tk, err
		}
		w := 0
		if hasW {
			// for R the suffix is the reuse slot
			if name == "R" && ws == "n" {
				tk.Arg = -2 // no reuse flag
				w = 8
			} else if name == "R" {
				tk.Arg, err = strconv.Atoi(ws)
				w = 8
			} else {
				w, err = strconv.Atoi(ws)
			}
			if err != nil {
				return tk, err
			}
		}
		tk.Parts = append(tk.Parts, Part{uint8(p), uint8(w)})
	}
	p0 := &tk.Parts[0]
	switch name {
	case "R":
		tk.Kind = Reg
		p0.Width = 8
		if tk.Arg == -2 {
			tk.Arg = -1
		} else if tk.Arg < 0 {
			switch p0.Pos {
			case 8:
				tk.Arg = 0
			case 20:
				tk.Arg = 1
			case 39:
				tk.Arg = 2
			}
		}
	case "RP":
		tk.Kind = RegPair
		p0.Width = 8
		tk.Def = 255
	case "P":
		tk.Kind = Pred
		p0.Width = 3
	case "IP": // predicate stored inverted (7-p)
		tk.Kind = Pred
		tk.Arg = 7
		p0.Width = 3
	case "!P":
		tk.Kind = NPred
		p0.Width = 4
	case "X":
		tk.Kind = Hex
	case "SX":
		tk.Kind = SHex
	case "XS":
		tk.Kind = Hex
		tk.Signed = true
	case "F32":
		tk.Kind = F32
	case "F64":
		tk.Kind = F64
	case "F16":
		tk.Kind = F16
	case "REL":
		tk.Kind = Rel
	case "SET":
		tk.Kind = BitSet
	case "A", "UA", "CA", "CA0":
		tk.Kind = Addr
		switch name {
		case "UA":
			tk.Kind = UAddr
		case "CA": // constant-bank address: signed offset even with RZ
			tk.Arg = 1
		case "CA0": // as CA, and RZ+0 prints 0x0
			tk.Arg = 2
		}
		p0.Width = 8
	default:
		ti, ok := s.TableID[name]
		if !ok {
			return tk, fmt.Errorf("unknown table %s", name)
		}
		tk.Kind = Enum
		tk.Arg = ti
		if p0.Width == 0 {
			p0.Width = s.Tables[ti].Width()
		}
		var w uint8
		for _, p := range tk.Parts {
			w += p.Width
		}
		if w != s.Tables[ti].Width() {
			return tk, fmt.Errorf("field width %d, table %s needs %d", w, name, s.Tables[ti].Width())
		}
	}
	if !hasDef {
		switch tk.Kind {
		case Reg:
			tk.Def = 255
		case Pred, NPred:
			tk.Def = 7
			if name == "IP" {
				tk.Def = 0 // PT, stored inverted
			}
		}
	}
	for _, p := range tk.Parts {
		if p.Width == 0 || int(p.Pos)+int(p.Width) > 64 {
			return tk, fmt.Errorf("bad field %d:%d", p.Pos, p.Width)
		}
	}
	return tk, nil
}
