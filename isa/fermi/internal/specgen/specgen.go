// Package specgen reads fermi.spec, the one description of the Fermi
// instruction forms, and writes the Go tables the fermi package runs on.
package specgen

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
	"strconv"
	"strings"
)

// Field is a bit field of the 64-bit instruction word.
type Field struct{ Pos, Width int }

func (f Field) mask() uint64 {
	if f.Width == 0 {
		return 0
	}
	return (1<<uint(f.Width) - 1) << uint(f.Pos)
}

// Mod is a modifier of the mnemonic.
type Mod struct {
	Kind  string // "modLit", "modFlag", "modFlagInv", "modEnum"
	F, F2 Field
	Text  string
	Table int
}

// Operand is one operand.
type Operand struct {
	Kind              string
	F, F2             Field // F2: high part of a split memory offset
	Neg, Abs, Not, CC int
	Flavor            string
	Table             int
	Text              string
	Same              bool  // repeats a field another operand owns
	BSel, HSel        int   // byte (2 bits) / half (1 bit) source selector position, 0 if none
	Shift             int   // opMem: the offset field counts units of 1<<Shift bytes
	Base              int   // opMem: the address register's position when not 20
	Pair              int   // opMem: offset scaled by the size of part 1 or 2 of the lduld pair
	Bank              Field // opConstMem: the constant bank field
	covered           uint64
}

// Form is one spec row.
type Form struct {
	Name        string
	Mask, Value uint64
	NoPred      bool
	Short       bool // a 4-byte form: every field in bits 0-31
	NewOnly     bool // a CUDA 5+ spelling of another form's words
	Class       string
	Alias       int // the next NewOnly spelling of the same words, 0 if none
	Mods        []Mod
	Ops         []Operand
	Line        int
}

// Spec is the parsed file.
type Spec struct {
	Tables     [][]string
	TableNames []string
	Forms      []Form
	SRegs      [256][2]string // old and new names by value
	Classes    []string
	class      string
}

func (s *Spec) table(name string) (int, bool) {
	for i, n := range s.TableNames {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

// Parse reads the spec text.
func Parse(src string) (*Spec, error) {
	s := &Spec{}
	for n, line := range strings.Split(src, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var err error
		if strings.HasPrefix(line, "class ") {
			f := strings.Fields(line)
			if len(f) != 2 {
				err = fmt.Errorf("class wants one name")
			} else {
				s.class = f[1]
				found := false
				for _, c := range s.Classes {
					found = found || c == f[1]
				}
				if !found {
					s.Classes = append(s.Classes, f[1])
				}
			}
		} else if strings.HasPrefix(line, "sreg ") {
			f := strings.Fields(line)
			v, perr := strconv.ParseUint(f[1], 0, 8)
			if len(f) != 4 || perr != nil {
				err = fmt.Errorf("sreg wants VALUE OLDNAME NEWNAME")
			} else if s.SRegs[v][0] != "" {
				err = fmt.Errorf("sreg %#x defined twice", v)
			} else {
				s.SRegs[v] = [2]string{f[2], f[3]}
			}
		} else if strings.HasPrefix(line, "table ") {
			f := strings.Fields(line)
			if len(f) < 3 {
				err = fmt.Errorf("table needs a name and entries")
			} else if _, dup := s.table(f[1]); dup {
				err = fmt.Errorf("table %s defined twice", f[1])
			} else {
				ent := make([]string, len(f)-2)
				for i, e := range f[2:] {
					switch e {
					case "-":
						ent[i] = ""
					case "?":
						ent[i] = "?"
					default:
						ent[i] = e
					}
				}
				s.TableNames = append(s.TableNames, f[1])
				s.Tables = append(s.Tables, ent)
			}
		} else {
			err = s.parseForm(line, n+1)
		}
		if err != nil {
			return nil, fmt.Errorf("fermi.spec:%d: %v", n+1, err)
		}
	}
	used := make([]bool, len(s.Tables))
	cc, ok := s.table("cc") // the condition-code operands print its names
	if !ok || len(s.Tables[cc]) != 32 {
		return nil, fmt.Errorf("fermi.spec: the 32-entry table cc is missing")
	}
	used[cc] = true
	for _, f := range s.Forms {
		for _, m := range f.Mods {
			if m.Kind == "modEnum" {
				used[m.Table] = true
			}
		}
		for _, o := range f.Ops {
			if o.Kind == "opEnum" {
				used[o.Table] = true
			}
		}
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("fermi.spec: table %s is never used", s.TableNames[i])
		}
	}
	return s, nil
}

func parseField(s string) (Field, error) {
	p, w, ok := strings.Cut(s, ":")
	if !ok {
		return Field{}, fmt.Errorf("bad field %q (want pos:width)", s)
	}
	pi, err1 := strconv.Atoi(p)
	wi, err2 := strconv.Atoi(w)
	if err1 != nil || err2 != nil || pi < 0 || wi <= 0 || pi+wi > 64 {
		return Field{}, fmt.Errorf("bad field %q", s)
	}
	return Field{pi, wi}, nil
}

func (s *Spec) parseForm(line string, n int) error {
	head, rest, ok := strings.Cut(line, " : ")
	if !ok {
		return fmt.Errorf("form needs ': modifiers | operands'")
	}
	modsText, opsText, _ := strings.Cut(rest, "|")
	hf := strings.Fields(head)
	if len(hf) == 0 {
		return fmt.Errorf("missing mnemonic")
	}
	if s.class == "" {
		return fmt.Errorf("form before any class line")
	}
	f := Form{Name: hf[0], Line: n, Class: s.class}
	var fixed uint64
	for _, t := range hf[1:] {
		if t == "nopred" {
			f.NoPred = true
			continue
		}
		if t == "new" {
			f.NewOnly = true
			continue
		}
		if t == "short" {
			f.Short = true
			continue
		}
		fs, vs, ok := strings.Cut(t, "=")
		if !ok {
			return fmt.Errorf("bad fixed bits %q", t)
		}
		fld, err := parseField(fs)
		if err != nil {
			return err
		}
		v, err := strconv.ParseUint(vs, 0, 64)
		if err != nil || v > fld.mask()>>uint(fld.Pos) {
			return fmt.Errorf("bad value in %q", t)
		}
		if fixed&fld.mask() != 0 {
			return fmt.Errorf("fixed bits %q overlap", t)
		}
		fixed |= fld.mask()
		f.Value |= v << uint(fld.Pos)
	}
	covered := uint64(0)
	claim := func(m uint64, what string) error {
		if covered&m != 0 || fixed&m&^selBits != 0 {
			return fmt.Errorf("%s overlaps another field (bits %#x)", what, covered&m|fixed&m)
		}
		covered |= m
		return nil
	}
	if !f.NoPred {
		if err := claim(Field{10, 4}.mask(), "predicate"); err != nil {
			return err
		}
	}
	mt := strings.Fields(modsText)
	if len(mt) == 0 || strings.SplitN(mt[0], ".", 2)[0] != f.Name {
		return fmt.Errorf("modifiers must start with the mnemonic %s", f.Name)
	}
	f.Name = mt[0]
	if f.Value&7 != 7 && !f.Short { // every long non-control form can be a join point
		mt = append(mt, ".S@4")
	}
	for _, t := range mt[1:] {
		m, err := s.parseMod(t)
		if err != nil {
			return err
		}
		if err := claim(m.F.mask()|m.F2.mask(), t); err != nil {
			return err
		}
		f.Mods = append(f.Mods, m)
	}
	if strings.TrimSpace(opsText) != "" {
		for _, t := range strings.Split(opsText, ",") {
			o, err := s.parseOperand(strings.TrimSpace(t))
			if err != nil {
				return err
			}
			if fixed&o.covered&selBits != 0 && o.Kind != "opB" && o.Kind != "opB3" {
				return fmt.Errorf("fixed bits in 46:2 only restrict a composite operand")
			}
			if err := claim(o.covered, t); err != nil {
				return err
			}
			f.Ops = append(f.Ops, o)
		}
	}
	if f.Short && (fixed|covered)>>32 != 0 {
		return fmt.Errorf("a short form describes bits above 31")
	}
	if f.Short && (fixed&8 == 0 || f.Value&8 == 0) || !f.Short && (f.Value|covered)&8 != 0 {
		return fmt.Errorf("bit 3 says the length: fixed 1 in short forms, 0 in long ones")
	}
	// Every bit neither fixed nor described must be zero: a decodable word
	// then always reassembles to itself.
	f.Mask = fixed | ^covered
	if f.Value&^f.Mask != 0 {
		return fmt.Errorf("fixed value outside mask")
	}
	s.Forms = append(s.Forms, f)
	return nil
}

func (s *Spec) parseMod(t string) (Mod, error) {
	if t == "vtype" {
		// reads the selectors at 44:3 and 32:3; claims only its own bits
		return Mod{Kind: "modVType", F: Field{44, 3}, F2: Field{5, 2}}, nil
	}
	if name, fs, ok := strings.Cut(t, "@"); ok {
		if strings.HasPrefix(name, ".") { // flag
			inv := strings.HasPrefix(fs, "!")
			fs = strings.TrimPrefix(fs, "!")
			b, err := strconv.Atoi(fs)
			if err != nil || b < 0 || b > 63 {
				return Mod{}, fmt.Errorf("bad flag bit in %q", t)
			}
			k := "modFlag"
			if inv {
				k = "modFlagInv"
			}
			return Mod{Kind: k, F: Field{b, 1}, Text: name}, nil
		}
		ti, ok := s.table(name)
		if !ok {
			return Mod{}, fmt.Errorf("unknown table %q", name)
		}
		m := Mod{Kind: "modEnum", Table: ti}
		a, b, two := strings.Cut(fs, ",")
		var err error
		if m.F, err = parseField(a); err != nil {
			return Mod{}, err
		}
		if two {
			if m.F2, err = parseField(b); err != nil {
				return Mod{}, err
			}
		}
		if len(s.Tables[ti]) != 1<<uint(m.F.Width+m.F2.Width) {
			return Mod{}, fmt.Errorf("table %s has %d entries, field needs %d", name, len(s.Tables[ti]), 1<<uint(m.F.Width+m.F2.Width))
		}
		return m, nil
	}
	if strings.HasPrefix(t, ".") {
		return Mod{Kind: "modLit", Text: t}, nil
	}
	return Mod{}, fmt.Errorf("bad modifier %q", t)
}

var flavors = map[string]string{"int": "immInt", "uint": "immUint", "float": "immF32", "double": "immF64"}

func (s *Spec) parseOperand(t string) (Operand, error) {
	fs := strings.Fields(t)
	if len(fs) == 0 {
		return Operand{}, fmt.Errorf("empty operand")
	}
	o := Operand{Neg: -1, Abs: -1, Not: -1, CC: -1, Flavor: "immInt"}
	for _, opt := range fs[1:] {
		if opt == "same" {
			o.Same = true
			continue
		}
		if opt == "base26" {
			o.Base = 26
			continue
		}
		if opt == "pair1" || opt == "pair2" {
			o.Pair = int(opt[4] - '0')
			continue
		}
		if strings.HasPrefix(opt, "bsel") || strings.HasPrefix(opt, "hsel") {
			b, err := strconv.Atoi(opt[4:])
			if err != nil || b < 1 || b > 62 {
				return o, fmt.Errorf("bad bit in %q", opt)
			}
			if opt[0] == 'b' {
				o.BSel = b
				o.covered |= Field{b, 2}.mask()
			} else {
				o.HSel = b
				o.covered |= Field{b, 1}.mask()
			}
			continue
		}
		var p *int
		var num string
		switch {
		case strings.HasPrefix(opt, "neg"):
			p, num = &o.Neg, opt[3:]
		case strings.HasPrefix(opt, "abs"):
			p, num = &o.Abs, opt[3:]
		case strings.HasPrefix(opt, "not"):
			p, num = &o.Not, opt[3:]
		case strings.HasPrefix(opt, "cc"):
			p, num = &o.CC, opt[2:]
		default:
			return o, fmt.Errorf("bad operand option %q", opt)
		}
		b, err := strconv.Atoi(num)
		if err != nil || b < 0 || b > 63 {
			return o, fmt.Errorf("bad bit in %q", opt)
		}
		*p = b
		o.covered |= 1 << uint(b)
	}
	k := fs[0]
	kindArg := func(prefix string) (string, bool) {
		if strings.HasPrefix(k, prefix) {
			return k[len(prefix):], true
		}
		return "", false
	}
	var err error
	switch {
	case k == "T":
		o.Kind, o.F = "opTarget", Field{26, 24}
	case strings.HasPrefix(k, "K"):
		// a 4-byte form's c[bank K][R20 + 8-bit signed words at 8:2|26:6]
		o.Kind, o.F, o.F2, o.Shift = "opConstMem", Field{8, 2}, Field{26, 6}, 2
		var err error
		if o.Bank, err = parseField(k[1:]); err != nil {
			return o, err
		}
		o.covered |= o.Bank.mask() | o.F2.mask() | Field{20, 6}.mask()
	case k == "IS":
		// a 4-byte form's signed 8-bit immediate: low 6 bits at 26, high 2 at 8
		o.Kind, o.F, o.F2 = "opShortImm", Field{26, 6}, Field{8, 2}
		o.covered |= o.F2.mask()
	case k == "TS":
		// a 4-byte form's target: 14 bits of words from the next instruction
		o.Kind, o.F = "opShortTarget", Field{14, 14}
	case strings.HasPrefix(k, "Q"):
		// a 4-byte form's source: register, or c[0x0/0x1/0x10][field*4]
		// when the selector (2 bits at @pos) is 1/2/3
		reg, sel, ok := strings.Cut(k[1:], "@")
		r, err1 := strconv.Atoi(reg)
		p, err2 := strconv.Atoi(sel)
		if !ok || err1 != nil || err2 != nil || r < 0 || r > 26 || p < 0 || p > 30 {
			return o, fmt.Errorf("bad short source %q", k)
		}
		o.Kind, o.F, o.F2 = "opShortSrc", Field{r, 6}, Field{p, 2}
		o.covered |= o.F2.mask()
	case k == "SR":
		o.Kind, o.F = "opSReg", Field{26, 8}
	case k == "CC":
		o.Kind, o.F = "opCC", Field{5, 5}
	case k == "NOPCC":
		o.Kind, o.F = "opNopCC", Field{5, 5}
	case k == "V":
		o.Kind, o.F = "opV", Field{26, 16}
		o.covered |= 1 << 47
	case k == "C":
		o.Kind, o.F = "opC", Field{49, 6}
	case strings.HasPrefix(k, "B3:") || strings.HasPrefix(k, "B:") || strings.HasPrefix(k, "I32:"):
		kind, fl, _ := strings.Cut(k, ":")
		fv, ok := flavors[fl]
		if !ok {
			return o, fmt.Errorf("bad immediate flavour %q", fl)
		}
		o.Flavor = fv
		switch kind {
		case "B":
			o.Kind, o.F = "opB", Field{26, 22}
		case "B3":
			o.Kind, o.F = "opB3", Field{26, 22}
		default:
			o.Kind, o.F = "opImm32", Field{26, 32}
		}
	case k == "MR":
		// [Rx] without an offset
		o.Kind = "opMem"
		o.covered |= Field{20, 6}.mask()
	case strings.HasPrefix(k, "CN"):
		// c[bank][offset]: bank field, signed offset at 26:16, no register
		o.Kind = "opConstNR"
		if o.F, err = parseField(k[2:]); err != nil {
			return o, err
		}
		o.covered |= Field{26, 16}.mask()
	case strings.HasPrefix(k, "J"):
		// register at 20 and a signed offset field
		o.Kind = "opRegOff"
		if o.F, err = parseField(k[1:]); err != nil {
			return o, err
		}
		o.covered |= Field{20, 6}.mask()
	case strings.HasPrefix(k, "CMX"):
		o.Kind = "opConstX"
		if o.F, err = parseField(k[3:]); err != nil {
			return o, err
		}
		o.covered |= Field{20, 6}.mask() | Field{26, 16}.mask()
	case strings.HasPrefix(k, "CM"):
		o.Kind = "opConst"
		if o.F, err = parseField(k[2:]); err != nil {
			return o, err
		}
		o.covered |= Field{20, 6}.mask() | Field{26, 16}.mask()
	case strings.HasPrefix(k, "M"):
		o.Kind = "opMem"
		spec, scale, scaled := strings.Cut(k[1:], "*")
		if scaled {
			switch scale {
			case "2":
				o.Shift = 1
			case "4":
				o.Shift = 2
			case "8":
				o.Shift = 3
			default:
				return o, fmt.Errorf("bad offset scale in %q", k)
			}
		}
		lo, hi, split := strings.Cut(spec, "+")
		if o.F, err = parseField(lo); err != nil {
			return o, err
		}
		if split {
			if o.F2, err = parseField(hi); err != nil {
				return o, err
			}
			if o.F.Width+o.F2.Width+o.Shift > 32 {
				return o, fmt.Errorf("offset wider than 32 bits")
			}
		}
		o.covered |= o.F2.mask()
		if o.Base == 0 {
			o.covered |= Field{20, 6}.mask()
		}
	case strings.HasPrefix(k, "H"):
		o.Kind = "opHex"
		if o.F, err = parseField(k[1:]); err != nil {
			return o, err
		}
	case strings.HasPrefix(k, "E:"):
		name, fld, ok := strings.Cut(k[2:], "@")
		if !ok {
			return o, fmt.Errorf("bad enum operand %q", k)
		}
		ti, ok := s.table(name)
		if !ok {
			return o, fmt.Errorf("unknown table %q", name)
		}
		o.Kind, o.Table = "opEnum", ti
		if o.F, err = parseField(fld); err != nil {
			return o, err
		}
		if len(s.Tables[ti]) != 1<<uint(o.F.Width) {
			return o, fmt.Errorf("table %s size does not fit %q", name, k)
		}
	case strings.HasPrefix(k, "L:"):
		o.Kind, o.Text = "opLit", k[2:]
	default:
		if a, ok := kindArg("R"); ok {
			o.Kind = "opReg"
			p, err := strconv.Atoi(a)
			if err != nil {
				return o, fmt.Errorf("bad register operand %q", k)
			}
			o.F = Field{p, 6}
		} else if a, ok := kindArg("P"); ok {
			o.Kind = "opPred"
			if lo, hi, split := strings.Cut(a, "+"); split {
				// a predicate split in two fields, low part first
				var err1, err2 error
				o.F, err1 = parseField(lo)
				o.F2, err2 = parseField(hi)
				if err1 != nil || err2 != nil || o.F.Width+o.F2.Width != 3 {
					return o, fmt.Errorf("bad split predicate %q", k)
				}
				o.covered |= o.F2.mask()
			} else {
				p, err := strconv.Atoi(a)
				if err != nil {
					return o, fmt.Errorf("bad predicate operand %q", k)
				}
				o.F = Field{p, 3}
			}
		} else {
			return o, fmt.Errorf("unknown operand %q", k)
		}
	}
	if (o.Base != 0 || o.Pair != 0) && o.Kind != "opMem" {
		return o, fmt.Errorf("base26 and pairN are memory operand options")
	}
	if o.Base != 0 {
		o.covered |= Field{o.Base, 6}.mask()
	}
	if o.Same {
		if o.Kind != "opReg" {
			return o, fmt.Errorf("only registers can repeat a field")
		}
		o.covered &^= o.F.mask()
	} else {
		o.covered |= o.F.mask()
	}
	return o, nil
}

// selBits is the composite operand's selector; fixing it in a form restricts
// the operand to some of its variants.
const selBits = 3 << 46

// Key is the decoder's index of a word: the type bits 0-2 and the opcode bits
// 58-63.
func Key(raw uint64) int { return int(raw&7 | raw>>58<<3) }

const keyMask = 7 | 0x3f<<58

// Generate writes tables.go.
func Generate(s *Spec) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/specgen/gentables from fermi.spec; DO NOT EDIT.\n\npackage fermi\n\nimport \"github.com/gpuisa/gpuisa/isa\"\n\n")
	b.WriteString("var tables = [...][]string{\n")
	for i, t := range s.Tables {
		fmt.Fprintf(&b, "\t%d: {", i)
		for j, e := range t {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(e))
		}
		fmt.Fprintf(&b, "}, // %s\n", s.TableNames[i])
	}
	b.WriteString("}\n\n")
	for i, n := range s.TableNames {
		fmt.Fprintf(&b, "const tbl%s = %d\n", exportName(n), i)
	}
	b.WriteString("\n// tableNames are the tables' names in fermi.spec (Inst.Mods reports enum modifiers by them).\nvar tableNames = [...]string{")
	for i, n := range s.TableNames {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	b.WriteString("}\n")
	b.WriteString("\n// Semantic classes of the forms.\nconst (\n")
	for i, c := range s.Classes {
		if i == 0 {
			fmt.Fprintf(&b, "\tClass%s Class = iota\n", c)
		} else {
			fmt.Fprintf(&b, "\tClass%s\n", c)
		}
	}
	b.WriteString(")\n\nvar classNames = [...]string{")
	for i, c := range s.Classes {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", c)
	}
	b.WriteString("}\n")
	b.WriteString("\n// sregNames holds the old (CUDA 3.x/4.0) and new (CUDA 5+) special register names.\nvar sregNames = [256][2]string{\n")
	for v, n := range s.SRegs {
		if n[0] != "" {
			fmt.Fprintf(&b, "\t%#02x: {%q, %q},\n", v, n[0], n[1])
		}
	}
	b.WriteString("}\n")
	// The index: for every value of the opcode bits, the forms that can match.
	for i := range s.Forms {
		s.Forms[i].Alias = 0
	}
	buckets := make([][]int, 512)
	for k := 0; k < 512; k++ {
		raw := uint64(k&7) | uint64(k>>3)<<58
		for i, f := range s.Forms {
			if !f.NewOnly && (raw^f.Value)&f.Mask&keyMask == 0 {
				buckets[k] = append(buckets[k], i)
			}
		}
		// more specific forms first
		sort.SliceStable(buckets[k], func(a, c int) bool {
			return popcount(s.Forms[buckets[k][a]].Mask) > popcount(s.Forms[buckets[k][c]].Mask)
		})
	}
	// Each NewOnly form is the CUDA 5+ spelling of the words of the form the
	// decoder picks for its fixed bits.
	for i, f := range s.Forms {
		if !f.NewOnly {
			continue
		}
		base := -1
		for _, j := range buckets[Key(f.Value)] {
			if f.Value&s.Forms[j].Mask == s.Forms[j].Value {
				base = j
				break
			}
		}
		if base < 0 {
			return nil, fmt.Errorf("fermi.spec:%d: new-dialect form matches no form", f.Line)
		}
		// chain several spellings: base -> first -> second ...
		for s.Forms[base].Alias != 0 {
			base = s.Forms[base].Alias
		}
		s.Forms[base].Alias = i
	}
	b.WriteString("\nvar forms = [...]form{\n")
	fld := func(f Field) string { return fmt.Sprintf("isa.Field{Pos: %d, Width: %d}", f.Pos, f.Width) }
	// literal writes a composite literal with only the fields that are not zero.
	literal := func(kv ...string) string {
		var parts []string
		for i := 0; i+1 < len(kv); i += 2 {
			v := kv[i+1]
			switch v {
			case "", `""`, "0", "false", "isa.Field{Pos: 0, Width: 0}":
				continue
			}
			parts = append(parts, kv[i]+": "+v)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	tblName := func(o Operand) string {
		if o.Kind == "opEnum" {
			return "tbl" + exportName(s.TableNames[o.Table])
		}
		return ""
	}
	bit := func(b int) string {
		if b < 0 {
			return "-1"
		}
		return strconv.Itoa(b)
	}
	for i, f := range s.Forms {
		fmt.Fprintf(&b, "\t%d: {name: %q, mask: %#016x, value: %#016x, noPred: %v, newOnly: %v, short: %v, alias: %d, class: Class%s, // fermi.spec:%d\n", i, f.Name, f.Mask, f.Value, f.NoPred, f.NewOnly, f.Short, f.Alias, f.Class, f.Line)
		b.WriteString("\t\tmods: []mod{")
		for _, m := range f.Mods {
			tbl := ""
			if m.Kind == "modEnum" {
				tbl = "tbl" + exportName(s.TableNames[m.Table])
			}
			b.WriteString(literal("kind", m.Kind, "f", fld(m.F), "f2", fld(m.F2), "text", strconv.Quote(m.Text), "table", tbl) + ", ")
		}
		b.WriteString("},\n\t\tops: []operand{")
		for _, o := range f.Ops {
			fl := o.Flavor
			if fl == "immInt" {
				fl = "" // the zero value
			}
			b.WriteString(literal("kind", o.Kind, "f", fld(o.F), "f2", fld(o.F2), "neg", bit(o.Neg), "abs", bit(o.Abs), "not", bit(o.Not), "cc", bit(o.CC),
				"flavor", fl, "table", tblName(o), "text", strconv.Quote(o.Text), "same", strconv.FormatBool(o.Same),
				"bsel", strconv.Itoa(o.BSel), "hsel", strconv.Itoa(o.HSel), "shift", strconv.Itoa(o.Shift),
				"base", strconv.Itoa(o.Base), "pair", strconv.Itoa(o.Pair), "bank", fld(o.Bank)) + ", ")
		}
		b.WriteString("}},\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// formIndex lists, per value of bits 0-2 and 58-63, the forms to try in order.\nvar formIndex = [512][]uint16{\n")
	for k, l := range buckets {
		if len(l) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\t%#x: {", k)
		for j, x := range l {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d", x)
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting tables: %v", err)
	}
	return out, nil
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func exportName(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
