// Command specgen reads the Tesla instruction spec (spec.txt) and writes
// tables.go: the bit fields as constants, one form per spec row with its
// mask/value, the bits it cares about, its compiled syntax template, and the
// opcode-indexed lookup tables the decoder and assembler use.
//
// Usage (from isa/tesla): go run ./internal/specgen spec.txt tables.go
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/format"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/asm"
)

type field struct {
	name       string
	pos, width int
	comment    string
}

type piece struct {
	kind  string // "lit", "enum", "flag", "nflag", "join", "cc", "opnd"
	text  string // literal text, flag text, operand kind name
	field string // field consulted
	opts  []string
	arg   string // operand argument (width field or "h")
}

type form struct {
	line     int
	class    string
	name     string // mnemonic base (up to the first '.' or '{')
	match    []string
	mask     uint64
	value    uint64
	care     uint64
	fill     uint64 // don't-care bits: what the assembler writes
	ignore   uint64 // don't-care bits
	mnem     []piece
	opnds    []piece
	template string
	sem      string
}

// classes are the encoding classes; flow32 is a 32-bit control-flow word
// (bits 0-1 are matched by each form, see spec.txt).
var classes = map[string]int{"short": 0, "imm": 1, "long": 2, "flow": 3, "flow32": 4}

// operandFields lists, for every operand kind, the fields it reads in each
// class. A form cares about its match fields plus these; any other bit set in
// an instruction makes it invalid.
var operandFields = map[string]map[string][]string{
	"dst":     {"short": {"sdst"}, "imm": {"sdst"}, "long": {"dst", "odst"}},
	"s1":      {"short": {"ss1", "ssh", "sainc", "salo"}, "imm": {"ss1", "ssh", "sainc", "salo"}, "long": {"s1", "sh", "ainc", "alo", "ahi"}},
	"s2":      {"short": {"ss2", "sc2"}, "imm": {"immlo", "immhi"}, "long": {"s2", "c2", "bank"}},
	"s3":      {"short": {}, "long": {"s3", "c3", "bank"}},
	"s2c":     {"long": {"s2", "bank"}},
	"imm":     {"imm": {"immlo", "immhi"}},
	"imms":    {"imm": {"immlo", "immhi"}},
	"shc":     {"long": {"s2"}},
	"cguard":  {"short": {}, "imm": {}, "long": {"cond", "pr"}},
	"guard":   {"short": {}, "imm": {}, "long": {"cond", "pr"}, "flow": {"cond", "pr"}},
	"fcond":   {"long": {"cond", "pr"}, "flow": {"cond", "pr"}},
	"fcond0":  {"long": {"cond", "pr"}, "flow": {"cond", "pr"}},
	"tgt":     {"flow": {"tgt", "tgthi"}, "flow32": {"tgt"}},
	"gmem":    {"long": {"s1", "s2", "alo", "ahi"}},
	"gdst":    {"long": {"s1", "alo", "ahi"}},
	"lmem":    {"long": {"saddr", "alo", "ahi", "ainc"}},
	"hex":     {"short": {}, "imm": {}, "long": {}, "flow": {}},
	"smemw":   {"long": {"saddr", "alo", "ahi", "ainc"}},
	"smemr":   {"long": {"saddr", "alo", "ahi"}},
	"cmem":    {"long": {"saddr", "bank", "alo", "ahi", "ainc", "ctype"}},
	"adst":    {"long": {"dst"}},
	"asrc":    {"long": {"alo", "ahi"}},
	"adaimm":  {"long": {"adaimm"}},
	"r2ash":   {"long": {"s2"}},
	"sreg":    {"long": {"sreg"}},
	"creg":    {"long": {"ccr"}},
	"bar":     {"flow": {"barid"}, "flow32": {"barid"}},
	"barcnt":  {"flow": {"barcnt"}, "flow32": {"barcnt"}},
	"cdst":    {"long": {"ccr"}},
	"csrc":    {"long": {"pr"}},
	"rro":     {"long": {}},
	"s3r":     {"long": {"s3"}},
	"s1r":     {"long": {"s1"}},
	"s2r":     {"long": {"s2"}},
	"rdst":    {"long": {"dst"}},
	"texmask": {"long": {"tmlo", "tmhi"}},
	"amem":    {"long": {"s1", "alo", "ahi"}},
	"omem":    {"long": {"saddr", "alo", "ahi"}},
	"bxmem":   {"flow": {"bxoff", "bank", "alo", "ahi"}},
	"vmem":    {"long": {"vidx", "alo", "ahi"}},
	"gred":    {"long": {"s1", "gseg"}},
	"gatom":   {"long": {"s1", "gseg2"}},
	"texdim":  {"long": {}},
	"u16":     {"flow": {"u16"}},
}

// kindsWithClassFree are operand kinds that have the same fields in all classes.
var specFields map[string]field

func fieldWidth(name string) int { return specFields[name].width }

// fieldLit is field name as a literal: the forms' pieces spell their
// fields out rather than name the f_ variables, or the compiler copies
// each from its variable when the program starts (writing into the forms
// table, whose pages the system then copies: 0.3 ms of every gpuisa
// command).
func fieldLit(name string) string {
	f := specFields[name]
	return fmt.Sprintf("isa.Field{Pos: %d, Width: %d}", f.pos, f.width)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: specgen spec.txt tables.go")
		os.Exit(2)
	}
	fields, forms, err := parse(os.Args[1])
	specFields = fields
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	src, err := generate(fields, forms)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[2], src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func parse(path string) (map[string]field, []*form, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fields := map[string]field{}
	var forms []*form
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(line, "|") {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "field ") {
			parts := strings.Fields(line)
			if len(parts) < 4 {
				return nil, nil, fmt.Errorf("%s:%d: field NAME POS WIDTH", path, n)
			}
			pos, e1 := strconv.Atoi(parts[2])
			w, e2 := strconv.Atoi(parts[3])
			if e1 != nil || e2 != nil || pos+w > 64 || w < 1 {
				return nil, nil, fmt.Errorf("%s:%d: bad field", path, n)
			}
			fields[parts[1]] = field{name: parts[1], pos: pos, width: w}
			continue
		}
		bar := strings.Index(line, "|")
		if bar < 0 {
			return nil, nil, fmt.Errorf("%s:%d: form needs 'class matches | template [; semantics]'", path, n)
		}
		head := strings.Fields(line[:bar])
		tmpl := strings.TrimSpace(line[bar+1:])
		sem := ""
		if i := strings.LastIndex(tmpl, ";;"); i >= 0 {
			sem = strings.TrimSpace(tmpl[i+2:])
			tmpl = strings.TrimSpace(tmpl[:i])
		}
		if len(head) == 0 {
			return nil, nil, fmt.Errorf("%s:%d: missing class", path, n)
		}
		fm := &form{line: n, class: head[0], match: head[1:], template: tmpl, sem: sem}
		if _, ok := classes[fm.class]; !ok {
			return nil, nil, fmt.Errorf("%s:%d: unknown class %q", path, n, fm.class)
		}
		forms = append(forms, fm)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	for _, fm := range forms {
		if err := compile(fm, fields); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", path, fm.line, err)
		}
	}
	return fields, forms, nil
}

func compile(fm *form, fields map[string]field) error {
	seen := map[string]bool{}
	use := func(name string) (field, error) {
		f, ok := fields[name]
		if !ok {
			return f, fmt.Errorf("unknown field %q", name)
		}
		fm.care |= (uint64(1)<<f.width - 1) << f.pos
		return f, nil
	}
	for _, m := range fm.match {
		if strings.HasPrefix(m, "~") {
			// a bit field the hardware ignores: any value decodes, the
			// assembler fills the given one (what NVIDIA's tools write)
			k, v, ok := strings.Cut(m[1:], "=")
			if !ok {
				return fmt.Errorf("bad don't-care %q", m)
			}
			f, err := use(k)
			if err != nil {
				return err
			}
			x, err := strconv.ParseUint(v, 0, 64)
			if err != nil || x >= 1<<f.width {
				return fmt.Errorf("value %q does not fit field %s", v, k)
			}
			fm.fill |= x << f.pos
			fm.ignore |= (uint64(1)<<f.width - 1) << f.pos
			continue
		}
		k, v, ok := strings.Cut(m, "=")
		if !ok {
			return fmt.Errorf("bad match %q", m)
		}
		f, err := use(k)
		if err != nil {
			return err
		}
		x, err := strconv.ParseUint(v, 0, 64)
		if err != nil || x >= 1<<f.width {
			return fmt.Errorf("value %q does not fit field %s", v, k)
		}
		mk := (uint64(1)<<f.width - 1) << f.pos
		if fm.mask&mk != 0 {
			return fmt.Errorf("field %s overlaps another match", k)
		}
		fm.mask |= mk
		fm.value |= x << f.pos
		seen[k] = true
	}
	if fm.class == "flow32" && !seen["cls"] {
		return fmt.Errorf("a flow32 form must match cls (bits 0-1)")
	}
	if !seen["op"] {
		return fmt.Errorf("form must match op")
	}
	if fm.class == "long" && !seen["op2"] {
		return fmt.Errorf("long form must match op2")
	}
	// class-defining bits are always cared about
	fm.care |= 3
	if fm.class == "imm" || fm.class == "long" {
		fm.care |= 3 << 32 // the immediate marker / the exit and join markers
	}
	// split the template into mnemonic and operands at the first blank
	t := fm.template
	mn, ops, _ := strings.Cut(t, " ")
	var err error
	if fm.mnem, err = compileTemplate(mn, fm, fields, use, true); err != nil {
		return err
	}
	if fm.opnds, err = compileTemplate(ops, fm, fields, use, false); err != nil {
		return err
	}
	name := mn
	if i := strings.IndexAny(name, ".{"); i >= 0 {
		name = name[:i]
	}
	fm.name = name
	return nil
}

func compileTemplate(t string, fm *form, fields map[string]field, use func(string) (field, error), mnem bool) ([]piece, error) {
	var out []piece
	for len(t) > 0 {
		i := strings.IndexByte(t, '{')
		if i != 0 {
			if i < 0 {
				i = len(t)
			}
			out = append(out, piece{kind: "lit", text: t[:i]})
			t = t[i:]
			continue
		}
		j := strings.IndexByte(t, '}')
		if j < 0 {
			return nil, fmt.Errorf("unclosed { in template")
		}
		body := t[1:j]
		t = t[j+1:]
		term := strings.IndexAny(body, "|?!:")
		sep := byte(0)
		if term >= 0 {
			sep = body[term]
		}
		switch {
		case body == "join":
			out = append(out, piece{kind: "join"})
			use("mark")
		case body == "cc":
			out = append(out, piece{kind: "cc"})
			use("ccw")
			use("ccr")
		case sep == '|':
			parts := strings.Split(body, "|")
			f, err := use(parts[0])
			if err != nil {
				return nil, err
			}
			if len(parts)-1 > 1<<f.width {
				return nil, fmt.Errorf("enum %s has more options than values", parts[0])
			}
			out = append(out, piece{kind: "enum", field: parts[0], opts: parts[1:]})
		case sep == '?':
			k, txt, _ := strings.Cut(body, "?")
			if _, err := use(k); err != nil {
				return nil, err
			}
			out = append(out, piece{kind: "flag", field: k, text: txt})
		case sep == '!':
			k, txt, _ := strings.Cut(body, "!")
			if _, err := use(k); err != nil {
				return nil, err
			}
			out = append(out, piece{kind: "nflag", field: k, text: txt})
		default:
			kind, arg, _ := strings.Cut(body, ":")
			fl, ok := operandFields[kind]
			if !ok {
				return nil, fmt.Errorf("unknown operand kind %q", kind)
			}
			names, ok := fl[fm.class]
			if !ok {
				return nil, fmt.Errorf("operand kind %q not available in class %s", kind, fm.class)
			}
			for _, n := range names {
				if _, err := use(n); err != nil {
					return nil, err
				}
			}
			if kind == "hex" {
				if _, err := use(arg); err != nil {
					return nil, err
				}
				out = append(out, piece{kind: "opnd", text: kind, arg: "=" + arg})
				continue
			}
			if arg != "" && arg != "h" {
				if _, err := use(arg); err != nil {
					return nil, err
				}
			}
			out = append(out, piece{kind: "opnd", text: kind, arg: arg})
		}
	}
	return out, nil
}

func generate(fields map[string]field, forms []*form) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by specgen from spec.txt; DO NOT EDIT.\n\npackage tesla\n\n")
	// fields
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	b.WriteString("// Bit fields of the 64-bit instruction value (word1<<32 | word0).\nvar (\n")
	for _, n := range names {
		f := fields[n]
		fmt.Fprintf(&b, "\tf_%s = isa.Field{Pos: %d, Width: %d}\n", n, f.pos, f.width)
	}
	b.WriteString(")\n\n")
	// operand kinds
	kinds := map[string]bool{}
	for _, fm := range forms {
		for _, p := range append(append([]piece{}, fm.mnem...), fm.opnds...) {
			if p.kind == "opnd" {
				kinds[p.text] = true
			}
		}
	}
	kn := make([]string, 0, len(kinds))
	for k := range kinds {
		kn = append(kn, k)
	}
	sort.Strings(kn)
	b.WriteString("// Operand kinds used by the templates.\nconst (\n\topndNone opndKind = iota\n")
	for _, k := range kn {
		fmt.Fprintf(&b, "\topnd_%s\n", k)
	}
	b.WriteString(")\n\nvar opndKindNames = [...]string{\"\"")
	for _, k := range kn {
		fmt.Fprintf(&b, ", %q", k)
	}
	b.WriteString("}\n\n")
	// forms
	b.WriteString("// forms holds one entry per spec row, in spec order.\nvar forms = [...]form{\n")
	for i, fm := range forms {
		fmt.Fprintf(&b, "\t{ // %d: spec line %d: %s\n", i, fm.line, fm.template)
		fmt.Fprintf(&b, "\t\tname: %q, class: Class%s, mask: %#x, value: %#x, care: %#x, fill: %#x, ignore: %#x, sem: %q,\n",
			fm.name, strings.Title(fm.class), fm.mask, fm.value, fm.care, fm.fill, fm.ignore, fm.sem)
		fmt.Fprintf(&b, "\t\tmnemMask: %#x,\n", mnemMask(fm))
		writePieces(&b, "mnem", fm.mnem)
		writePieces(&b, "opnds", fm.opnds)
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n\n")
	// the decoder's hot loop reads only these, kept apart for the cache
	b.WriteString("// formMatch holds each form's fixed bits and the bits it reads, for the decoder's hot loop.\nvar formMatch = [...]struct{ mask, value, care uint64 }{\n")
	for _, fm := range forms {
		fmt.Fprintf(&b, "\t{%#x, %#x, %#x},\n", fm.mask, fm.value, fm.care)
	}
	b.WriteString("}\n\n")
	b.WriteString("// formValidity holds what the decoder tests of each form's fields beyond its fixed bits.\nvar formValidity = [...]validity{\n")
	for i, fm := range forms {
		fmt.Fprintf(&b, "\t%s, // %d: %s\n", validityOf(fm), i, fm.name)
	}
	b.WriteString("}\n\n")
	// index by class/op/op2: candidates in spec order, most specific (largest mask) first
	type key struct{ class, op, op2 int }
	idx := map[key][]int{}
	opf, op2f := fields["op"], fields["op2"]
	for i, fm := range forms {
		op := int(fm.value >> opf.pos & 0xf)
		c := classes[fm.class]
		if fm.class == "long" {
			op2 := int(fm.value >> op2f.pos & 7)
			idx[key{c, op, op2}] = append(idx[key{c, op, op2}], i)
		} else {
			idx[key{c, op, 0}] = append(idx[key{c, op, 0}], i)
		}
	}
	pop := func(x uint64) int {
		n := 0
		for ; x != 0; x &= x - 1 {
			n++
		}
		return n
	}
	for k, v := range idx {
		sort.SliceStable(v, func(a, b int) bool { return pop(forms[v[a]].mask) > pop(forms[v[b]].mask) })
		idx[k] = v
	}
	fmt.Fprintf(&b, "// formIndex[class][op<<3|op2] lists the candidate forms, most specific first.\nvar formIndex = [%d][128][]uint16{\n", len(classes))
	for c := 0; c < len(classes); c++ {
		fmt.Fprintf(&b, "\t{ // class %d\n", c)
		for o := 0; o < 128; o++ {
			op, op2 := o>>3, o&7
			if c != 2 && op2 != 0 {
				continue
			}
			if v := idx[key{c, op, op2}]; len(v) > 0 {
				fmt.Fprintf(&b, "\t\t%d: {", o)
				for i, x := range v {
					if i > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "%d", x)
				}
				b.WriteString("},\n")
			}
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n\n")
	// mnemonic index for the assembler
	byName := map[string][]int{}
	for i, fm := range forms {
		byName[fm.name] = append(byName[fm.name], i)
	}
	mn := make([]string, 0, len(byName))
	for n := range byName {
		mn = append(mn, n)
	}
	sort.Strings(mn)
	// a function, not a variable: a map is built when the program starts
	b.WriteString("// buildFormsByName maps a mnemonic's base name to its forms in spec order (formsByName).\nfunc buildFormsByName() map[string][]uint16 {\n\treturn map[string][]uint16{\n")
	for _, n := range mn {
		fmt.Fprintf(&b, "\t\t%q: {", n)
		for i, x := range byName[n] {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d", x)
		}
		b.WriteString("},\n")
	}
	b.WriteString("\t}\n}\n")
	out := b.Bytes()
	// imports
	out = bytes.Replace(out, []byte("package tesla\n"), []byte("package tesla\n\nimport \"github.com/gpuisa/gpuisa/isa\"\n"), 1)
	return format.Source(out)
}

// mnemMask is the set of bits the form's mnemonic depends on.
func mnemMask(fm *form) uint64 {
	m := uint64(3 | 3<<32)
	mask := func(name string) {
		f := specFields[name]
		m |= (uint64(1)<<f.width - 1) << f.pos
	}
	for _, p := range fm.mnem {
		switch p.kind {
		case "join":
			mask("mark")
		case "cc":
			mask("ccw")
			mask("ccr")
		case "enum", "flag", "nflag":
			mask(p.field)
		case "opnd":
			for _, names := range operandFields[p.text] {
				for _, n := range names {
					mask(n)
				}
			}
			if p.arg != "" && p.arg != "h" {
				mask(strings.TrimPrefix(p.arg, "="))
			}
		}
	}
	return m
}

// validatedKinds are operand kinds whose bits can contradict each other;
// the memory-operand kinds share one check.
var validatedKinds = map[string]string{
	"s1": "opnd_s1", "s2": "opnd_s1", "s3": "opnd_s1",
	"cmem": "opnd_cmem", "lmem": "opnd_lmem", "smemw": "opnd_smemw", "gmem": "opnd_gmem", "adst": "opnd_adst",
}

// validityOf is the validity (decode.go) of fm's fields beyond its fixed
// bits, as a Go literal: the enumeration with invalid options (a form has
// one at most), a condition write, and the operands whose bits can
// conflict.
func validityOf(fm *form) string {
	var parts, tests []string
	seen := map[string]bool{}
	test := func(name string) {
		if !seen[name] {
			seen[name] = true
			tests = append(tests, name)
		}
	}
	for _, p := range append(append([]piece{}, fm.mnem...), fm.opnds...) {
		switch p.kind {
		case "enum":
			// bit x of bad: field value x names no option or a "*" one
			if fieldWidth(p.field) > 6 {
				fmt.Fprintf(os.Stderr, "specgen: enumeration field %s is wider than 6 bits\n", p.field)
				os.Exit(1)
			}
			var bad uint64
			for x := range 1 << fieldWidth(p.field) {
				if x >= len(p.opts) || p.opts[x] == "*" {
					bad |= 1 << x
				}
			}
			if bad == 0 {
				continue
			}
			if len(parts) > 0 {
				fmt.Fprintf(os.Stderr, "specgen: %s: more than one enumeration with invalid options\n", fm.template)
				os.Exit(1)
			}
			parts = append(parts, fmt.Sprintf("enumBad: %#x, enum: %s", bad, fieldLit(p.field)))
		case "cc":
			test("validCC")
		case "opnd":
			switch validatedKinds[p.text] {
			case "opnd_s1":
				switch fm.class {
				case "long":
					test("validS1Long")
					if bank := specFields["bank"]; fm.care>>bank.pos&(1<<bank.width-1) == 1<<bank.width-1 {
						test("validBank")
					}
				case "short", "imm":
					test("validS1Short")
				}
			case "opnd_cmem", "opnd_lmem", "opnd_smemw":
				test("validMemAreg")
			case "opnd_gmem":
				test("validGmem")
			case "opnd_adst":
				test("validAdst")
			}
		}
	}
	if len(tests) > 0 {
		parts = append(parts, "tests: "+strings.Join(tests, " | "))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// tokens splits template text the way the assembler's lexer does.
func tokens(text string) []string {
	var lx asm.Lexer
	lx.Reset(text)
	var out []string
	for {
		t := lx.Next()
		if t.Kind == asm.EOL {
			return out
		}
		out = append(out, t.Text)
	}
}

// longestFirst orders the valid options of an enumeration, longest text first.
func longestFirst(opts []string) []uint8 {
	var order []uint8
	for i, o := range opts {
		if o != "*" {
			order = append(order, uint8(i))
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return len(opts[order[a]]) > len(opts[order[b]]) })
	return order
}

func writePieces(b *bytes.Buffer, name string, ps []piece) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(b, "\t\t%s: []piece{", name)
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		switch p.kind {
		case "lit":
			fmt.Fprintf(b, "{kind: pieceLit, text: %q, word: %#x, asm: &pieceAsm{toks: %#v}}", p.text, isa.TextWord(p.text), tokens(p.text))
		case "join":
			b.WriteString("{kind: pieceJoin}")
		case "cc":
			b.WriteString("{kind: pieceCC}")
		case "enum":
			var ot [][]string
			for _, o := range p.opts {
				ot = append(ot, tokens(o))
			}
			var ws []string
			for _, o := range p.opts {
				ws = append(ws, fmt.Sprintf("%#x", isa.TextWord(o)))
			}
			fmt.Fprintf(b, "{kind: pieceEnum, field: %s, opts: %#v, words: []uint64{%s}, asm: &pieceAsm{optToks: %#v, order: %#v}}", fieldLit(p.field), p.opts, strings.Join(ws, ", "), ot, longestFirst(p.opts))
		case "flag":
			fmt.Fprintf(b, "{kind: pieceFlag, field: %s, text: %q, word: %#x, asm: &pieceAsm{toks: %#v}}", fieldLit(p.field), p.text, isa.TextWord(p.text), tokens(p.text))
		case "nflag":
			fmt.Fprintf(b, "{kind: pieceNotFlag, field: %s, text: %q, word: %#x, asm: &pieceAsm{toks: %#v}}", fieldLit(p.field), p.text, isa.TextWord(p.text), tokens(p.text))
		case "opnd":
			fmt.Fprintf(b, "{kind: pieceOperand, opnd: opnd_%s", p.text)
			switch p.arg {
			case "":
			case "h":
				b.WriteString(", half: true")
			case "=" + p.arg[min(1, len(p.arg)):]:
				fmt.Fprintf(b, ", field: %s", fieldLit(p.arg[1:]))
			default:
				fmt.Fprintf(b, ", field: %s, wide: true", fieldLit(p.arg))
			}
			b.WriteString("}")
		}
	}
	b.WriteString("},\n")
}
