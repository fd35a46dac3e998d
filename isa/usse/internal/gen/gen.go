// Package gen turns the USSE specification (usse.spec) into Go tables. It is
// used by cmd/gentables (go generate) and by the test that checks tables.go
// is current.
package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
	"strconv"
	"strings"
)

// Element kinds, mirrored by the constants the generated file declares.
var kinds = []string{"lit", "pfx", "e", "reg", "gpi", "mask", "swz", "swzf", "neg", "absl", "absr", "modl", "modr", "hex", "shex", "dec", "dec1", "pck", "hexo", "fmt2", "oreg", "nreg", "regx", "hexc", "inv", "sel", "szmark", "gsw", "rsw", "eo", "regm", "imark", "dualm", "dualr", "psrc", "rswh", "bit", "maskr"}

type field struct {
	name  string
	parts []part // least significant first
	def   uint64 // value a flag has when the text leaves it out
}

type part struct{ pos, width int }

func (f *field) width() int {
	w := 0
	for _, p := range f.parts {
		w += p.width
	}
	return w
}

type elem struct {
	kind   string
	text   string
	fields []int
	table  string
	table2 string // rsw: the swizzle table
}

type form struct {
	name        string
	line        int
	op1         int
	mask, value uint64
	fields      []*field
	variants    []*variant
}

// variant is one syntax of a form, used when field cond has one of the
// values in condVals (cond < 0: always; it must come last).
type variant struct {
	cond     int
	condVals uint32
	elems    []elem
	mnemEnd  int
	flags    []int
	preset   int // value of an unprinted condition field, else -1
}

type spec struct {
	enums      map[string][]string
	enumOrder  []string
	banks      map[string][]string
	bankOrder  []string
	swz        map[string][]string
	swzOrder   []string
	consts     map[string][]string
	constOrder []string
	forms      []*form
}

// MaxFields bounds the fields of one form (Inst holds them in an array).
const MaxFields = 32

// Generate parses the spec text and returns the formatted tables.go source.
func Generate(src []byte) ([]byte, error) {
	s, err := parse(string(src))
	if err != nil {
		return nil, err
	}
	return s.emit()
}

func parse(src string) (*spec, error) {
	s := &spec{enums: map[string][]string{}, banks: map[string][]string{}, swz: map[string][]string{}, consts: map[string][]string{}}
	var cur *form
	type pending struct {
		f      *form
		syntax string
		line   int
	}
	var syn []pending
	lines := strings.Split(src, "\n")
	for i, raw := range lines {
		ln := i + 1
		line := raw
		if j := strings.Index(line, "#"); j >= 0 {
			line = line[:j]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		words := strings.Fields(line)
		errf := func(format string, a ...any) error {
			return fmt.Errorf("usse.spec:%d: %s", ln, fmt.Sprintf(format, a...))
		}
		switch words[0] {
		case "consts":
			if len(words) != 2+64 {
				return nil, errf("consts %s: want 64 words", words[1])
			}
			for _, w := range words[2:] {
				if _, err := strconv.ParseUint(w, 0, 32); err != nil {
					return nil, errf("consts %s: %v", words[1], err)
				}
			}
			s.consts[words[1]] = words[2:]
			s.constOrder = append(s.constOrder, words[1])
		case "enum", "banks", "swizzle":
			if len(words) < 3 {
				return nil, errf("%s needs a name and values", words[0])
			}
			var vals []string
			for _, v := range words[2:] {
				if v == "_" {
					v = ""
				}
				vals = append(vals, v)
			}
			switch words[0] {
			case "enum":
				if n := len(vals); n&(n-1) != 0 {
					return nil, errf("enum %s has %d values, want a power of two", words[1], n)
				}
				s.enums[words[1]] = vals
				s.enumOrder = append(s.enumOrder, words[1])
			case "banks":
				s.banks[words[1]] = vals
				s.bankOrder = append(s.bankOrder, words[1])
			default:
				seen := map[string]bool{}
				for _, v := range vals {
					if v != "?" && seen[v] {
						return nil, errf("swizzle %s repeats %q", words[1], v)
					}
					seen[v] = true
				}
				s.swz[words[1]] = vals
				s.swzOrder = append(s.swzOrder, words[1])
			}
		case "form":
			if len(words) != 2 {
				return nil, errf("form needs a name")
			}
			cur = &form{name: words[1], line: ln}
			s.forms = append(s.forms, cur)
		case "defaults":
			if cur == nil || len(cur.fields) == 0 || strings.HasPrefix(cur.fields[0].name, "\x00") {
				return nil, errf("defaults before fields")
			}
			for _, w := range words[1:] {
				name, val, ok := strings.Cut(w, "=")
				v, err := strconv.ParseUint(val, 0, 32)
				if !ok || err != nil {
					return nil, errf("bad default %q", w)
				}
				found := false
				for _, f := range cur.fields {
					if f.name == name {
						if v >= 1<<f.width() {
							return nil, errf("default %q does not fit", w)
						}
						f.def, found = v, true
					}
				}
				if !found {
					return nil, errf("default for unknown field %q", name)
				}
			}
		case "bits", "fields", "syntax":
			if cur == nil {
				return nil, errf("%s outside a form", words[0])
			}
			rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), words[0]))
			switch words[0] {
			case "bits":
				if len(rest) != 64 {
					return nil, errf("bits has %d characters, want 64", len(rest))
				}
				cur.op1 = -1
				for j := 0; j < 64; j++ {
					bit := uint64(1) << (63 - j)
					switch c := rest[j]; c {
					case '0':
						cur.mask |= bit
					case '1':
						cur.mask |= bit
						cur.value |= bit
					}
				}
				cur.op1 = int(cur.value >> 59)
				// fields are attached when "fields" arrives; remember the pattern
				cur.fields = append(cur.fields[:0], &field{name: "\x00" + rest})
			case "fields":
				if len(cur.fields) != 1 {
					return nil, errf("fields before bits")
				}
				pat := cur.fields[0].name[1:]
				cur.fields = nil
				letters := map[byte]string{}
				for _, w := range strings.Fields(rest) {
					eq := strings.IndexByte(w, '=')
					if eq != 1 {
						return nil, errf("bad field %q (want letter=name)", w)
					}
					letters[w[0]] = w[2:]
				}
				byName := map[string]*field{}
				partIdx := map[*field]map[int]part{}
				for j := 0; j < 64; {
					c := pat[j]
					if c == '0' || c == '1' || c == '-' {
						j++
						continue
					}
					k := j
					for k < 64 && pat[k] == c {
						k++
					}
					spec, ok := letters[c]
					if !ok {
						return nil, errf("letter %q has no field", c)
					}
					name, idx := spec, 0
					if colon := strings.IndexByte(spec, ':'); colon >= 0 {
						name = spec[:colon]
						n, err := strconv.Atoi(spec[colon+1:])
						if err != nil {
							return nil, errf("bad part in %q", spec)
						}
						idx = n
					}
					f := byName[name]
					if f == nil {
						f = &field{name: name}
						byName[name] = f
						cur.fields = append(cur.fields, f)
						partIdx[f] = map[int]part{}
					}
					if _, dup := partIdx[f][idx]; dup {
						return nil, errf("field %s part %d appears twice", name, idx)
					}
					partIdx[f][idx] = part{pos: 63 - (k - 1), width: k - j}
					j = k
				}
				for _, f := range cur.fields {
					for i := 0; i < len(partIdx[f]); i++ {
						p, ok := partIdx[f][i]
						if !ok {
							return nil, errf("field %s misses part %d", f.name, i)
						}
						f.parts = append(f.parts, p)
					}
				}
				cur.fields = append(cur.fields, dontCare(pat)...)
				if len(cur.fields) > MaxFields {
					return nil, errf("%d fields, max %d", len(cur.fields), MaxFields)
				}
			case "syntax":
				syn = append(syn, pending{cur, rest, ln})
			}
		default:
			return nil, errf("unknown directive %q", words[0])
		}
	}
	for _, f := range s.forms {
		if len(f.fields) == 1 && strings.HasPrefix(f.fields[0].name, "\x00") {
			// a form with bits but no fields line: only don't-care bits
			f.fields = dontCare(f.fields[0].name[1:])
		}
	}
	for _, p := range syn {
		if err := s.parseSyntax(p.f, p.syntax); err != nil {
			return nil, fmt.Errorf("usse.spec:%d: %v", p.line, err)
		}
	}
	for _, f := range s.forms {
		if len(f.variants) == 0 {
			return nil, fmt.Errorf("usse.spec:%d: form %s has no syntax", f.line, f.name)
		}
		for i, v := range f.variants {
			if v.cond < 0 && i != len(f.variants)-1 {
				return nil, fmt.Errorf("usse.spec:%d: form %s: an unconditional syntax must be the last", f.line, f.name)
			}
		}
	}
	return s, nil
}

// dontCare collects the '-' bits of a pattern into pseudo-fields dc, dcb,
// dcc, ... of at most 32 bits each (field values are uint32), lowest bits
// first, so a word keeps its don't-care bits through print and parse.
func dontCare(pat string) []*field {
	var out []*field
	var cur *field
	for j := 63; j >= 0; j-- {
		if pat[j] != '-' {
			continue
		}
		pos := 63 - j
		if cur == nil || cur.width() == 32 {
			name := "dc"
			if len(out) > 0 {
				name = "dc" + string(rune('a'+len(out)))
			}
			cur = &field{name: name}
			out = append(out, cur)
		}
		if n := len(cur.parts); n > 0 && cur.parts[n-1].pos+cur.parts[n-1].width == pos {
			cur.parts[n-1].width++
		} else {
			cur.parts = append(cur.parts, part{pos: pos, width: 1})
		}
	}
	return out
}

func (s *spec) fieldIndex(f *form, name string) (int, error) {
	if name == "-" {
		return -1, nil
	}
	for i, fd := range f.fields {
		if fd.name == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("form %s: no field %q", f.name, name)
}

// parseSyntax compiles the template and decides where the flag suffixes go:
// at the end of the mnemonic, i.e. before the first blank after the
// (optional) predicate prefix.
func (s *spec) parseSyntax(f *form, t string) error {
	v := &variant{cond: -1}
	if strings.HasPrefix(t, "if ") {
		colon := strings.IndexByte(t, ':')
		eq := strings.IndexByte(t, '=')
		if colon < 0 || eq < 0 || eq > colon {
			return fmt.Errorf("want \"if field=v|v...: template\"")
		}
		fi, err := s.fieldIndex(f, strings.TrimSpace(t[3:eq]))
		if err != nil || fi < 0 {
			return fmt.Errorf("bad condition field in %q", t[:colon])
		}
		v.cond = fi
		for _, x := range strings.Split(strings.TrimSpace(t[eq+1:colon]), "|") {
			n, err := strconv.Atoi(x)
			if err != nil || n < 0 || n >= 32 {
				return fmt.Errorf("bad condition value %q", x)
			}
			v.condVals |= 1 << n
		}
		t = strings.TrimSpace(t[colon+1:])
	}
	f.variants = append(f.variants, v)
	used := map[int]bool{}
	mnemDone := false
	addLit := func(text string) {
		if text == "" {
			return
		}
		if !mnemDone {
			if i := strings.IndexByte(text, ' '); i >= 0 {
				if i > 0 {
					v.elems = append(v.elems, elem{kind: "lit", text: text[:i]})
				}
				v.mnemEnd = len(v.elems)
				mnemDone = true
				v.elems = append(v.elems, elem{kind: "lit", text: text[i:]})
				return
			}
		}
		v.elems = append(v.elems, elem{kind: "lit", text: text})
	}
	for len(t) > 0 {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			addLit(t)
			break
		}
		addLit(t[:i])
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return fmt.Errorf("unclosed {")
		}
		parts := strings.Split(t[i+1:i+j], ":")
		t = t[i+j+1:]
		e := elem{kind: parts[0]}
		known := false
		for _, k := range kinds {
			if k == e.kind {
				known = true
			}
		}
		if !known || e.kind == "lit" {
			return fmt.Errorf("unknown element kind %q", e.kind)
		}
		args := parts[1:]
		var fieldArgs []string
		switch e.kind {
		case "pfx", "e", "eo":
			if len(args) != 2 {
				return fmt.Errorf("%s wants field:enum", e.kind)
			}
			e.table = args[1]
			vals, ok := s.enums[e.table]
			if !ok {
				return fmt.Errorf("no enum %q", e.table)
			}
			fieldArgs = args[:1]
			defer func(fi string, n int) {}(args[0], len(vals))
		case "pck", "fmt2":
			if len(args) != 3 {
				return fmt.Errorf("%s wants dfield:sfield:enum", e.kind)
			}
			e.table = args[2]
			if _, ok := s.enums[e.table]; !ok {
				return fmt.Errorf("no enum %q", e.table)
			}
			fieldArgs = args[:2]
		case "reg", "regx", "oreg", "nreg", "regm":
			if n := len(args); !(n == 4 && e.kind != "regm" || e.kind != "nreg" && n == 5 || e.kind == "nreg" && (n == 7 || n == 9 || n == 10)) {
				return fmt.Errorf("%s wants banks:bank:ext:num[:double-when-zero] (nreg: then the reference register's bank:ext:num[:D:S[:clash-enum]])", e.kind)
			}
			e.table = args[0]
			if _, ok := s.banks[e.table]; !ok {
				return fmt.Errorf("no banks %q", e.table)
			}
			fieldArgs = args[1:]
			if e.kind == "nreg" && len(args) == 10 {
				e.table2 = args[9]
				if _, ok := s.enums[e.table2]; !ok {
					return fmt.Errorf("no enum %q", e.table2)
				}
				fieldArgs = args[1:9]
			}
		case "psrc":
			// VPCK source pair: banks:B1:X1:N1:B2:X2:N2:S0:S1:S2:S3:M:D:S:clash
			if len(args) != 15 {
				return fmt.Errorf("psrc wants banks, 2 registers, 4 selects, mask, formats and a clash enum")
			}
			e.table, e.table2 = args[0], args[14]
			if _, ok := s.banks[e.table]; !ok {
				return fmt.Errorf("no banks %q", e.table)
			}
			if _, ok := s.enums[e.table2]; !ok {
				return fmt.Errorf("no enum %q", e.table2)
			}
			fieldArgs = args[1:14]
		case "bit":
			// TEXT when a 1-bit field is set: bit:F:TEXT
			if len(args) != 2 || args[1] == "" {
				return fmt.Errorf("bit wants field:text")
			}
			e.text = args[1]
			fieldArgs = args[:1]
		case "imark":
			// ".FORM" when two registers (banks:B1:X1:N1:B2:X2:N2) are both
			// internal registers, where another form's text could be the same
			if len(args) != 7 {
				return fmt.Errorf("imark wants banks:bank1:ext1:num1:bank2:ext2:num2")
			}
			e.table = args[0]
			if _, ok := s.banks[e.table]; !ok {
				return fmt.Errorf("no banks %q", e.table)
			}
			e.text = "." + f.name
			fieldArgs = args[1:]
		case "gsw":
			// gpi with swizzle: N:F:X:T:M[:S]
			if len(args) != 5 && len(args) != 6 {
				return fmt.Errorf("gsw wants num:swz:ext:table:mask[:selector]")
			}
			e.table = args[3]
			if _, ok := s.swz[e.table]; !ok && e.table != "v34" {
				return fmt.Errorf("no swizzle table %q", e.table)
			}
			fieldArgs = append([]string{args[0], args[1], args[2], args[4]}, args[5:]...)
		case "rsw", "rswh":
			// register with swizzle: K:B:X:N:F:SX:T:M[:S]; rswh: K:B:X:N:F:SX:T:M:P
			// with P the precision field (set or "-": f16 constants)
			if e.kind == "rsw" && len(args) != 8 && len(args) != 9 || e.kind == "rswh" && len(args) != 9 {
				return fmt.Errorf("rsw wants banks:bank:ext:num:swz:swzext:table:mask[:selector], rswh ...:mask:precision")
			}
			e.table, e.table2 = args[0], args[6]
			if _, ok := s.banks[e.table]; !ok {
				return fmt.Errorf("no banks %q", e.table)
			}
			if _, ok := s.swz[e.table2]; !ok && e.table2 != "v34" && e.table2 != "-" {
				return fmt.Errorf("no swizzle table %q", e.table2)
			}
			fieldArgs = append(append([]string{}, args[1:6]...), args[7:]...)
		case "swz":
			if len(args) != 4 && len(args) != 5 {
				return fmt.Errorf("swz wants field:ext:table:mask[:selector]")
			}
			e.table = args[2]
			if _, ok := s.swz[e.table]; !ok && e.table != "v34" {
				return fmt.Errorf("no swizzle table %q", e.table)
			}
			if (e.table == "v34") != (len(args) == 5) {
				return fmt.Errorf("table v34 needs a selector field, other tables none")
			}
			fieldArgs = append([]string{args[0], args[1], args[3]}, args[4:]...)
		default:
			want := map[string][2]int{"swzf": {1, 3}, "hexc": {2, 3}, "sel": {5, 5}, "szmark": {2, 2}, "dualm": {2, 2}, "dualr": {1, MaxFields}}[e.kind]
			if want[0] == 0 {
				want = [2]int{1, 1}
			}
			if len(args) < want[0] || len(args) > want[1] {
				return fmt.Errorf("%s wants %d..%d fields", e.kind, want[0], want[1])
			}
			fieldArgs = args
		}
		for _, a := range fieldArgs {
			idx, err := s.fieldIndex(f, a)
			if err != nil {
				return err
			}
			e.fields = append(e.fields, idx)
			if idx >= 0 {
				used[idx] = true
			}
		}
		if e.kind == "pfx" || e.kind == "e" || e.kind == "eo" {
			w := f.fields[e.fields[0]].width()
			if len(s.enums[e.table]) != 1<<w {
				return fmt.Errorf("enum %s has %d values for %d-bit field %s", e.table, len(s.enums[e.table]), w, f.fields[e.fields[0]].name)
			}
		}
		if e.kind == "pck" || e.kind == "fmt2" {
			for _, fi := range e.fields {
				if w := f.fields[fi].width(); len(s.enums[e.table]) != 1<<w {
					return fmt.Errorf("enum %s does not fit field %s", e.table, f.fields[fi].name)
				}
			}
		}
		if e.kind == "hexo" && !mnemDone {
			// an optional operand ends the mnemonic: flags go before it
			v.mnemEnd = len(v.elems)
			mnemDone = true
		}
		if e.kind == "pfx" && len(v.elems) != 0 {
			return fmt.Errorf("pfx must come first")
		}
		v.elems = append(v.elems, e)
	}
	if !mnemDone {
		v.mnemEnd = len(v.elems)
	}
	v.preset = -1
	if v.cond >= 0 && !used[v.cond] {
		// the condition field is implied by the syntax: it must name one value
		if v.condVals&(v.condVals-1) != 0 {
			return fmt.Errorf("condition on %s has several values but the syntax does not print it", f.fields[v.cond].name)
		}
		for v.preset = 0; v.condVals>>v.preset != 1; v.preset++ {
		}
		used[v.cond] = true
	}
	for i := range f.fields {
		if !used[i] {
			v.flags = append(v.flags, i)
		}
	}
	return nil
}

func (s *spec) emit() ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("// Code generated by internal/gen/cmd/gentables from usse.spec. DO NOT EDIT.\n\n")
	p("package usse\n\nimport \"github.com/gpuisa/gpuisa/isa\"\n\n")
	p("const (\n")
	for i, k := range kinds {
		p("\tk%s elemKind = %d\n", strings.Title(k), i)
	}
	p(")\n\n")
	tableIdx := func(order []string, name string) int {
		for i, n := range order {
			if n == name {
				return i
			}
		}
		return -1
	}
	emitTables := func(kind string, order []string, m map[string][]string) {
		p("// %s tables, by index.\nvar %sTables = [...][]string{\n", kind, kind)
		for _, n := range order {
			p("\t%s: {", "/*"+n+"*/ "+strconv.Itoa(tableIdx(order, n)))
			for i, v := range m[n] {
				if i > 0 {
					p(", ")
				}
				p("%q", v)
			}
			p("},\n")
		}
		p("}\n\n")
	}
	emitTables("enum", s.enumOrder, s.enums)
	p("// Indices of the enum tables code refers to by name.\nconst (\n")
	for i, n := range s.enumOrder {
		if strings.HasPrefix(n, "dual") || strings.HasPrefix(n, "dl") || strings.HasPrefix(n, "dswz") {
			p("\tenum%s = %d\n", strings.Title(n), i)
		}
	}
	p(")\n\n")
	emitTables("bank", s.bankOrder, s.banks)
	emitTables("swizzle", s.swzOrder, s.swz)
	p("// Hard-wired constant register banks, by index.\nvar constTables = [...][64]uint32{\n")
	for i, n := range s.constOrder {
		p("\t%d: { // %s\n", i, n)
		for j, w := range s.consts[n] {
			if j%8 == 0 {
				p("\t\t")
			}
			p("%s,", w)
			if j%8 == 7 {
				p("\n")
			}
		}
		p("\t},\n")
	}
	p("}\n\n")
	p("const swzV34 = %d // pseudo-table: v4 when the selector field is set, else v3\n\n", len(s.swzOrder))
	for _, n := range []string{"v3", "v4"} {
		if tableIdx(s.swzOrder, n) < 0 {
			return nil, fmt.Errorf("swizzle table %s missing", n)
		}
	}
	p("const (\n\tswzV3 = %d\n\tswzV4 = %d\n)\n\n", tableIdx(s.swzOrder, "v3"), tableIdx(s.swzOrder, "v4"))
	p("// forms lists every instruction form in spec order.\nvar forms = [...]form{\n")
	for fi, f := range s.forms {
		p("\t%d: {name: %q, op1: 0x%02x, mask: 0x%016x, value: 0x%016x,\n", fi, f.name, f.op1, f.mask, f.value)
		p("\t\tfields: []fieldDef{")
		for _, fd := range f.fields {
			p("{name: %q, width: %d, def: %d, parts: []isa.Field{", fd.name, fd.width(), fd.def)
			for i, pt := range fd.parts {
				if i > 0 {
					p(", ")
				}
				p("{Pos: %d, Width: %d}", pt.pos, pt.width)
			}
			p("}}, ")
		}
		p("},\n\t\tvariants: []variant{\n")
		for _, v := range f.variants {
			p("\t\t\t{cond: %d, condVals: 0x%x, preset: %d, mnemEnd: %d, flags: []int8{", v.cond, v.condVals, v.preset, v.mnemEnd)
			for i, x := range v.flags {
				if i > 0 {
					p(", ")
				}
				p("%d", x)
			}
			p("},\n\t\t\t\telems: []elem{\n")
			for _, e := range v.elems {
				fs := [16]int{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
				copy(fs[:], e.fields)
				t := 0
				switch e.kind {
				case "pfx", "e", "eo", "pck", "fmt2":
					t = tableIdx(s.enumOrder, e.table)
				case "reg", "regx", "oreg", "nreg", "regm", "imark", "psrc":
					t = tableIdx(s.bankOrder, e.table)
				case "swz", "gsw":
					if e.table == "v34" {
						t = len(s.swzOrder)
					} else {
						t = tableIdx(s.swzOrder, e.table)
					}
				case "rsw", "rswh":
					t = tableIdx(s.bankOrder, e.table)
				}
				t2 := -1
				switch {
				case e.table2 == "" || e.table2 == "-":
				case e.kind == "nreg" || e.kind == "psrc":
					t2 = tableIdx(s.enumOrder, e.table2)
				case e.table2 == "v34":
					t2 = len(s.swzOrder)
				default:
					t2 = tableIdx(s.swzOrder, e.table2)
				}
				var fl []string
				for _, x := range fs {
					fl = append(fl, strconv.Itoa(x))
				}
				p("\t\t\t\t\t{kind: k%s, text: %q, f: [16]int8{%s}, table: %d, tab2: %d},\n", strings.Title(e.kind), e.text, strings.Join(fl, ", "), t, t2)
			}
			p("\t\t\t\t}},\n")
		}
		p("\t\t}},\n")
	}
	p("}\n\n")
	// group index: op1 -> forms in first-match order
	groups := make([][]int, 32)
	// a form whose pattern leaves op1 bits open (VBW: 01ooo) joins every
	// group it matches, after the forms listed before it
	for i, f := range s.forms {
		for op := uint64(0); op < 32; op++ {
			if (op<<59^f.value)&f.mask>>59<<59 == 0 {
				groups[op] = append(groups[op], i)
			}
		}
	}
	p("// groups maps op1 (bits 63..59) to its forms in first-match order.\nvar groups = [32][]uint8{\n")
	for op, g := range groups {
		if len(g) == 0 {
			continue
		}
		p("\t0x%02x: {", op)
		for i, x := range g {
			if i > 0 {
				p(", ")
			}
			p("%d", x)
		}
		p("},\n")
	}
	p("}\n\n")
	// straight-line field extraction per form: decoding is the hot path
	p("// decodeFields sets a[i] to field i of form fi in word w.\n")
	p("func decodeFields(fi int16, w uint64, a *[MaxFields]uint32) {\n\tswitch fi {\n")
	for fi, f := range s.forms {
		p("\tcase %d: // %s\n", fi, f.name)
		for i, fd := range f.fields {
			var terms []string
			sh := 0
			for _, pt := range fd.parts {
				t := fmt.Sprintf("uint32(w>>%d&0x%x)", pt.pos, uint64(1)<<pt.width-1)
				if pt.pos+pt.width == 64 {
					t = fmt.Sprintf("uint32(w>>%d)", pt.pos)
				}
				if sh > 0 {
					t += fmt.Sprintf("<<%d", sh)
				}
				terms = append(terms, t)
				sh += int(pt.width)
			}
			if len(terms) == 0 {
				terms = []string{"0"}
			}
			p("\t\ta[%d] = %s\n", i, strings.Join(terms, " | "))
		}
	}
	p("\t}\n}\n\n")
	// and the way back, for the assembler
	p("// encodeFieldsGen returns the word of form fi with fields a (its fixed\n")
	p("// bits included) and whether every value fits its field.\n")
	p("func encodeFieldsGen(fi int16, a *[MaxFields]uint32) (uint64, bool) {\n\tswitch fi {\n")
	for fi, f := range s.forms {
		p("\tcase %d: // %s\n", fi, f.name)
		var fits, terms []string
		for i, fd := range f.fields {
			if w := fd.width(); w < 32 {
				fits = append(fits, fmt.Sprintf("a[%d]>>%d", i, w))
			}
			sh := 0
			for _, pt := range fd.parts {
				t := fmt.Sprintf("uint64(a[%d]", i)
				if sh > 0 {
					t += fmt.Sprintf(">>%d", sh)
				}
				t += fmt.Sprintf("&0x%x)", uint64(1)<<pt.width-1)
				if pt.pos > 0 {
					t += fmt.Sprintf("<<%d", pt.pos)
				}
				terms = append(terms, t)
				sh += int(pt.width)
			}
		}
		w := fmt.Sprintf("0x%x", f.value)
		if len(terms) > 0 {
			w += " | " + strings.Join(terms, " | ")
		}
		ok := "true"
		if len(fits) > 0 {
			ok = "(" + strings.Join(fits, " | ") + ") == 0"
		}
		p("\t\treturn %s, %s\n", w, ok)
	}
	p("\t}\n\treturn 0, false\n}\n")
	_ = sort.Strings
	out, err := format.Source(b.Bytes())
	if err != nil {
		return b.Bytes(), err
	}
	return out, nil
}
