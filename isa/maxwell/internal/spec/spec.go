// Package spec reads isa/maxwell/spec.txt, the one description of every Maxwell
// instruction form, and writes the Go tables the maxwell package runs on.
//
// The format, line by line ('#' starts a comment):
//
//	table ID[=NVNAME][/Q] e0 e1 ...   enumeration; entry i is the text for value i:
//	                                  "-" empty, "?" out of range, "!" rejected
//	                                  (nvdisasm names the table), "!!" rejected as
//	                                  an unknown operation.
//	                                  Out-of-range values print INVALID<NVNAME><hex>,
//	                                  or ???<decimal> with /Q.
//	form ENC... [attr...] : TEMPLATE  one instruction form per encoding ENC;
//	                                  the attribute opclass=NAME gives nvdisasm's
//	                                  name of the form in its rejections (else the
//	                                  template's first word, dots made _).
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
//	{R@p*MASK@q:w}  one 32-bit register per bit set in the field at q (w bits):
//	           texture results by their component mask
//	{R@p*T[a:b]} {R@p*T[a:b,16]}  components a..b-1 of the ones table T's
//	           entry names (letters R, G, B, A), 32 (or 16) bits each: the
//	           scalar texture forms split their results over two registers
//	{R@p*T*2}  twice table T's width (a compare-and-swap's pair of values)
//	{R@p*.F} {A@p,q:w*.F}  64 bits (a pair) when the form's flag .F is set:
//	           .E's 64-bit addresses
//	{R@p*=TERM+TERM...}  as many 32-bit registers as the terms add up to: a
//	           number, .F (1 when flag .F is set) or a count list's entry
//	           for the form's field (a texture's coordinates by dimension)
//	count NAME[=TABLE|=@p:w] N0 N1 ...  a count list: Ni registers for value
//	           i of table TABLE (NAME itself when no =) or of the field at p
//	space S MNEMONIC...  the memory space of the [..] operands of these
//	           mnemonics (generic, global, local, shared, surface, ...);
//	           a[..] is the attribute space and c[..] a constant bank
//
// Operand roles (what an instruction reads and writes):
//
//	writes MNEMONIC... : FIELD...  the operands these mnemonics write, by
//	           field: R@p, P@p, IP@p (the register or predicate field at
//	           bit p; the first such operand when a form names it twice),
//	           PRCC@p (R2P's PR or CC), "-" for none; +FIELD is read and
//	           written. A field a form lacks is skipped. Mnemonics without
//	           a writes line write their R@0 operand. Every other operand is
//	           read (registers, predicates, addresses, indexes, CC).
//	cc read|write TEXT...  modifiers that make an instruction read or write
//	           the condition code: a flag's text (.X), a table entry's
//	           (.XLO), or a table by its ID, without a dot (CC: every entry
//	           that prints something)
//	keeps TEXT...  modifiers whose instruction writes only part of its
//	           destination and keeps the rest: the destination is read too
//
// Operand facts the printer does not need (XS, widths, spaces, roles) feed
// the typed operand view (operands_gen.go, maxwell.Inst.Operands).
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
	// WidthMask: one register per bit set in this field ({R@p*MASK@q:w}).
	WidthMask []Part
	// WidthFrom, WidthTo, WidthElem: components [From, To) of WidthTable's
	// entry, WidthElem bits each ({R@p*T[a:b,16]}); WidthTo 0: not a slice.
	WidthFrom, WidthTo, WidthElem uint8
	// WidthMul multiplies the table's width ({R@p*T*2}); 0 is 1.
	WidthMul uint8
	// WidthFlag: 64 bits when the form's flag of this text is set ({R@p*.E}).
	WidthFlag string
	// WidthSum: registers as the terms add up ({R@p*=TERM+...}).
	WidthSum []Term
}

// Term is one term of a register count: N, a flag (1 when set) or a
// count list's entry for its field.
type Term struct {
	N     int
	Flag  string
	Count string
}

// Count is a count list: registers per value of a table or of a field.
type Count struct {
	Table  int // -1: the field Field
	Field  Part
	Values []int
}

// FieldRef names an operand by its field: kind (R, P, IP, PRCC) and bit.
type FieldRef struct {
	Kind string
	Pos  uint8
	// Both: the operand is read and written.
	Both bool
}

func (r FieldRef) String() string {
	s := fmt.Sprintf("%s@%d", r.Kind, r.Pos)
	if r.Both {
		s = "+" + s
	}
	return s
}

// Table is one enumeration.
type Table struct {
	ID, NVName string
	Quest      bool // out-of-range values print ???N
	NoNum      bool // INVALID<NAME> without the value
	Hex        bool // INVALID<NAME><n> prints n in hex (else decimal)
	Dot        bool // entries are modifiers (".X"), so out-of-range ones get a dot too
	Entries    []string
	Kinds      []int // per entry: 0 text, 1 out of range, 2 rejected, 3 out of range printed ???N, 4 rejected as an unknown operation
}

// Form is one encoding with its template.
type Form struct {
	Name        string // mnemonic (first word of the template)
	Kind        byte
	Value, Mask uint64
	Attrs       []string
	Opclass     string // opclass=NAME: nvdisasm's name of the form in its rejections
	Tokens      []Token
	Line        int
}

// Spec is the parsed file.
type Spec struct {
	Tables  []*Table
	TableID map[string]int
	Forms   []*Form
	Spaces  map[string]string // mnemonic -> memory space of its [..] operands
	// Writes: mnemonic -> the operands it writes (empty: none).
	Writes map[string][]FieldRef
	// CCRead, CCWrite, Keeps: modifier texts and table IDs (cc, keeps lines).
	CCRead, CCWrite, Keeps []string
	Counts                 map[string]*Count
}

// Parse reads spec text.
func Parse(src string) (*Spec, error) {
	s := &Spec{TableID: map[string]int{}, Spaces: map[string]string{}, Writes: map[string][]FieldRef{}, Counts: map[string]*Count{}}
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
		case strings.HasPrefix(line, "writes "):
			err = s.writes(line[7:])
		case strings.HasPrefix(line, "cc "):
			err = s.cc(line[3:])
		case strings.HasPrefix(line, "count "):
			err = s.count(line[6:])
		case strings.HasPrefix(line, "keeps "):
			s.Keeps = append(s.Keeps, strings.Fields(line[6:])...)
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

func (s *Spec) writes(line string) error {
	names, fields, ok := strings.Cut(line, " : ")
	if !ok || len(strings.Fields(names)) == 0 {
		return fmt.Errorf("writes without mnemonics or ' : '")
	}
	refs := []FieldRef{}
	for _, f := range strings.Fields(fields) {
		if f == "-" {
			continue
		}
		var r FieldRef
		if strings.HasPrefix(f, "+") {
			r.Both, f = true, f[1:]
		}
		kind, pos, ok := strings.Cut(f, "@")
		p, err := strconv.Atoi(pos)
		if !ok || err != nil || p < 0 || p > 63 {
			return fmt.Errorf("writes: field %q", f)
		}
		switch kind {
		case "R", "P", "IP", "PRCC":
		default:
			return fmt.Errorf("writes: field kind %q", kind)
		}
		r.Kind, r.Pos = kind, uint8(p)
		refs = append(refs, r)
	}
	for _, m := range strings.Fields(names) {
		if _, dup := s.Writes[m]; dup {
			return fmt.Errorf("writes of %s given twice", m)
		}
		s.Writes[m] = refs
	}
	return nil
}

func (s *Spec) count(line string) error {
	f := strings.Fields(line)
	if len(f) < 2 {
		return fmt.Errorf("count without values")
	}
	name, of, hasOf := strings.Cut(f[0], "=")
	if !hasOf {
		of = name
	}
	c := &Count{Table: -1}
	n := 0
	if at, ok := strings.CutPrefix(of, "@"); ok {
		ps, ws, ok := strings.Cut(at, ":")
		p, err1 := strconv.Atoi(ps)
		w, err2 := strconv.Atoi(ws)
		if !ok || err1 != nil || err2 != nil || w < 1 || w > 6 || p+w > 64 {
			return fmt.Errorf("count %s: field %q", name, of)
		}
		c.Field, n = Part{uint8(p), uint8(w)}, 1<<w
	} else {
		ti, ok := s.TableID[of]
		if !ok {
			return fmt.Errorf("count %s: no table %s", name, of)
		}
		c.Table, n = ti, len(s.Tables[ti].Entries)
	}
	for _, v := range f[1:] {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 || k > 8 {
			return fmt.Errorf("count %s: %q", name, v)
		}
		c.Values = append(c.Values, k)
	}
	if len(c.Values) != n {
		return fmt.Errorf("count %s: %d values for %d", name, len(c.Values), n)
	}
	if _, dup := s.Counts[name]; dup {
		return fmt.Errorf("count %s given twice", name)
	}
	s.Counts[name] = c
	return nil
}

func (s *Spec) cc(line string) error {
	f := strings.Fields(line)
	if len(f) < 2 {
		return fmt.Errorf("cc without modifiers")
	}
	switch f[0] {
	case "read":
		s.CCRead = append(s.CCRead, f[1:]...)
	case "write":
		s.CCWrite = append(s.CCWrite, f[1:]...)
	default:
		return fmt.Errorf("cc %s: want read or write", f[0])
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
		case "!!":
			t.Entries = append(t.Entries, "")
			t.Kinds = append(t.Kinds, 4)
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
	opclass := ""
	for _, h := range head {
		switch {
		case len(h) > 2 && h[1] == ':':
			encs = append(encs, h)
		case strings.HasPrefix(h, "opclass="):
			opclass = strings.TrimPrefix(h, "opclass=")
		default:
			attrs = append(attrs, h)
		}
	}
	if len(encs) == 0 {
		return fmt.Errorf("form without encodings")
	}
	for _, e := range encs {
		f := &Form{Kind: e[0], Attrs: attrs, Opclass: opclass, Line: n}
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

// width reads a register width after '*' (see the format above).
func (s *Spec) width(tk *Token, b string) error {
	if sum, ok := strings.CutPrefix(b, "="); ok {
		for _, term := range strings.Split(sum, "+") {
			var tm Term
			if n, err := strconv.Atoi(term); err == nil && n >= 0 && n <= 8 {
				tm.N = n
			} else if strings.HasPrefix(term, ".") {
				tm.Flag = term
			} else if _, ok := s.Counts[term]; ok {
				tm.Count = term
			} else {
				return fmt.Errorf("register count term %q: not a number, flag or count list", term)
			}
			tk.WidthSum = append(tk.WidthSum, tm)
		}
		return nil
	}
	if n, err := strconv.Atoi(b); err == nil {
		if n <= 0 || n > 128 || n%32 != 0 {
			return fmt.Errorf("register width %d", n)
		}
		tk.WidthBits = uint8(n)
		return nil
	}
	if strings.HasPrefix(b, ".") {
		tk.WidthFlag = b
		return nil
	}
	if m, ok := strings.CutPrefix(b, "MASK@"); ok {
		ps, ws, ok := strings.Cut(m, ":")
		p, err1 := strconv.Atoi(ps)
		w, err2 := strconv.Atoi(ws)
		if !ok || err1 != nil || err2 != nil || w < 1 || w > 8 || p+w > 64 {
			return fmt.Errorf("mask width %q", b)
		}
		tk.WidthMask = []Part{{uint8(p), uint8(w)}}
		return nil
	}
	if t, mul, ok := strings.Cut(b, "*"); ok {
		n, err := strconv.Atoi(mul)
		if err != nil || n < 1 || n > 4 {
			return fmt.Errorf("width multiplier %q", mul)
		}
		tk.WidthMul, b = uint8(n), t
	}
	if t, sl, ok := strings.Cut(b, "["); ok {
		sl, ok := strings.CutSuffix(sl, "]")
		rng, elem, _ := strings.Cut(sl, ",")
		from, to, ok2 := strings.Cut(rng, ":")
		f, err1 := strconv.Atoi(from)
		e, err2 := strconv.Atoi(to)
		if !ok || !ok2 || err1 != nil || err2 != nil || f < 0 || e <= f || e > 4 {
			return fmt.Errorf("component slice %q", b)
		}
		tk.WidthFrom, tk.WidthTo, tk.WidthElem = uint8(f), uint8(e), 32
		if elem != "" {
			n, err := strconv.Atoi(elem)
			if err != nil || n != 16 && n != 32 {
				return fmt.Errorf("component size %q", elem)
			}
			tk.WidthElem = uint8(n)
		}
		b = t
	}
	ti, ok := s.TableID[b]
	if !ok {
		return fmt.Errorf("register width %q: not a number, flag, mask or table", b)
	}
	tk.WidthTable = ti
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
	// {R@p*64}, {R@p*T}, ...: the register's width
	if name == "R" || name == "RP" || name == "A" {
		if a, b, ok := strings.Cut(loc, "*"); ok {
			if err := s.width(&tk, b); err != nil {
				return tk, err
			}
			if name == "A" && tk.WidthFlag == "" && tk.WidthSum == nil {
				return tk, fmt.Errorf("address width %q: only *.FLAG", b)
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
