package fermi

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"go/format"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
	"github.com/gpuisa/gpuisa/isa"
)

// The generator of printgen.go: each form's print program (compileForm)
// written out as straight-line Go, with the program's interpreter
// (interpretText) as the reference the generated printers must agree with.

var updatePrinters = flag.Bool("printgen", false, "rewrite printgen.go from the forms' print programs")

// stepKind says what one step of a print program does.
type stepKind uint8

const (
	// modifiers
	stFlag stepKind = iota // text when bit pos is 1 (stLit: always; stFlagInv: when 0)
	stEnum                 // entry of table by the field f (and f2)
	stMod                  // any other: appendMod
	// operands
	stReg       // register at pos, .CC when bit cc
	stPred      // predicate
	stComposite // opReg/opB/opB3/opC with -, ~, |..| and .CC decorations
	stMem       // [Rx+offset]
	stShortSrc  // register or c[bank][offset] of a 4-byte form
	stShortImm  // signed 8-bit immediate of a 4-byte form
	stConstMem  // c[bank][Rx+offset] of a 4-byte form
	stOperand   // any other: appendOperand
)

// modStep prints one modifier.
type modStep struct {
	text  words16
	kind  stepKind
	pos   uint8 // stFlag: the bit
	inv   uint8 // stFlag: 1 when printed on a 0 bit
	on    uint8 // stFlag: 1 when always printed (a modLit)
	table uint8 // stEnum
	f, f2 isa.Field
	m     *mod // stMod
}

// opStep prints one operand.
type opStep struct {
	o      *operand
	kind   stepKind
	pos    uint8 // stReg: the field's position
	cc     int8  // stReg: the .CC bit, -1 if none
	skip15 bool  // left out when its field is 15 (branch condition codes)
}

// program prints one form in one dialect.
type program struct {
	name   words16
	noPred bool
	mods   []modStep
	ops    []opStep
}

// programs is indexed by dialect and form.
var programs = func() (p [2][len(forms)]program) {
	for d := range p {
		for fi := range forms {
			p[d][fi] = compileForm(&forms[fi], Dialect(d))
		}
	}
	return p
}()

func compileForm(f *form, d Dialect) program {
	pg := program{name: pack16(f.name), noPred: f.noPred}
	if len(f.name) > 16 {
		panic("fermi: mnemonic longer than 16 bytes: " + f.name) // the tables are fixed: caught by every test
	}
	for k := range f.mods {
		m := &f.mods[k]
		s := modStep{kind: stMod, m: m}
		switch {
		case (m.kind == modFlag || m.kind == modFlagInv) && m.f.Width == 1 && len(m.text) <= 16:
			s.kind, s.pos, s.text = stFlag, m.f.Pos, pack16(m.text)
			if m.kind == modFlagInv {
				s.inv = 1
			}
		case m.kind == modLit && len(m.text) <= 16:
			s.kind, s.on, s.text = stFlag, 1, pack16(m.text)
		case m.kind == modEnum && shortEntries(m.table):
			s.kind, s.table, s.f, s.f2 = stEnum, m.table, m.f, m.f2
		}
		pg.mods = append(pg.mods, s)
	}
	for k := range f.ops {
		o := &f.ops[k]
		s := opStep{kind: stOperand, o: o, cc: o.cc}
		s.skip15 = o.kind == opCC || o.kind == opNopCC && d == New
		plain := o.neg < 0 && o.not < 0 && o.abs < 0
		switch {
		case o.bsel != 0 || o.hsel != 0:
		case o.kind == opReg && plain && o.f.Width == 6:
			s.kind, s.pos = stReg, o.f.Pos
		case o.kind == opReg || o.kind == opB || o.kind == opB3 || o.kind == opC:
			s.kind = stComposite
		case o.kind == opPred && o.f.Width+o.f2.Width == 3:
			s.kind = stPred
		case o.kind == opMem:
			s.kind = stMem
		case o.kind == opShortSrc:
			s.kind = stShortSrc
		case o.kind == opShortImm:
			s.kind = stShortImm
		case o.kind == opConstMem:
			s.kind = stConstMem
		}
		pg.ops = append(pg.ops, s)
	}
	return pg
}

func shortEntries(t uint8) bool {
	for _, w := range tableWords[t] {
		if w.n > 16 {
			return false
		}
	}
	return true
}

// interpretText is putText by running form fi's program in dialect d.
func interpretText(b []byte, p int, fi uint16, raw, pc uint64, d Dialect) int {
	pg := &programs[d&1][fi]
	if !pg.noPred {
		p = putGuard(b, p, raw, d)
	}
	p = pg.name.put(b, p)
	for k := range pg.mods {
		m := &pg.mods[k]
		switch m.kind {
		case stFlag:
			st64(b, p, m.text.lo)
			st64(b, p+8, m.text.hi)
			p += int(m.text.n) & -int((raw>>(m.pos&63)^uint64(m.inv))&1|uint64(m.on))
		case stEnum:
			v := field(raw, m.f) | field(raw, m.f2)<<(m.f.Width&63)
			p = tableWords[m.table][v].put(b, p)
		default:
			p = putAnyMod(b, p, m.m, raw)
		}
	}
	sep, sepLen := uint64(' '), 1
	for _, s := range pg.ops {
		if s.skip15 && field(raw, s.o.f) == 15 {
			continue
		}
		st64(b, p, sep)
		p += sepLen
		sep, sepLen = ','|' '<<8, 2
		switch s.kind {
		case stReg:
			p = putWord(b, p, regWords[raw>>(s.pos&63)&63])
			if s.cc >= 0 {
				st64(b, p, '.'|'C'<<8|'C'<<16)
				p += 3 & -int(raw>>(uint8(s.cc)&63)&1)
			}
		case stComposite:
			p = putComposite(b, p, s.o, raw, d)
		case stPred:
			p = putPredOp(b, p, s.o, raw, d)
		case stMem:
			p = putMemOp(b, p, s.o, raw, d)
		case stShortSrc:
			p = putShortSrc(b, p, s.o, raw, d)
		case stShortImm:
			p = putShortImm(b, p, s.o, raw)
		case stConstMem:
			p = putConstMemOp(b, p, s.o, raw, d)
		default:
			p = putAnyOperand(b, p, s.o, raw, pc, d)
		}
	}
	b[p] = ';'
	return p + 1
}

// generatePrinters returns printgen.go: a function for each program
// (forms whose programs are the same in both dialects share one; a
// printer reads the operands and modifiers of the form it is given), and
// formPrinters.
func generatePrinters() ([]byte, error) {
	bodies := make([]string, len(forms))
	first := map[string]int{}  // a body's first form
	sharers := map[int][]int{} // a first form's forms
	for fi := range forms {
		var body bytes.Buffer
		if err := writeFormBody(&body, fi); err != nil {
			return nil, err
		}
		bodies[fi] = body.String()
		if _, ok := first[bodies[fi]]; !ok {
			first[bodies[fi]] = fi
		}
		sharers[first[bodies[fi]]] = append(sharers[first[bodies[fi]]], fi)
	}
	var w bytes.Buffer
	w.WriteString("// Code generated by go test -run TestPrintGen -printgen (printgen_test.go) from the forms' print programs. DO NOT EDIT.\n\n")
	w.WriteString("package fermi\n\n")
	gentest.FuncTable(&w, "formPrinters are putText's printers, by form.", "formPrinters = [len(forms)]func(b []byte, p int, raw, pc uint64, d Dialect, f *form) int",
		len(forms), func(fi int) string { return fmt.Sprintf("putForm%03d", first[bodies[fi]]) })
	for fi := range forms {
		if first[bodies[fi]] != fi {
			continue
		}
		which := "form"
		if len(sharers[fi]) > 1 {
			which = "forms"
		}
		fmt.Fprintf(&w, "\n// putForm%03d prints %s (%s %s).\nfunc putForm%03d(b []byte, p int, raw, pc uint64, d Dialect, f *form) int {\n%s}\n",
			fi, forms[fi].name, which, strings.ReplaceAll(strings.Trim(fmt.Sprint(sharers[fi]), "[]"), " ", ", "), fi, bodies[fi])
	}
	return format.Source(w.Bytes())
}

// textWriter writes a printer's code, keeping the constant text that
// comes next until a step that is not constant needs p: consecutive
// constant texts (mnemonic, literal modifiers, separators) become one run
// of word stores.
type textWriter struct {
	w       *bytes.Buffer
	pending string
}

func (t *textWriter) code(format string, args ...any) {
	t.flush()
	fmt.Fprintf(t.w, format+"\n", args...)
}

func (t *textWriter) flush() {
	if t.pending == "" {
		return
	}
	t.stores(t.pending)
	fmt.Fprintf(t.w, "p += %d\n", len(t.pending))
	t.pending = ""
}

// stores writes the word stores of text s at p.
func (t *textWriter) stores(s string) {
	for i := 0; i < len(s); i += 8 {
		var word [8]byte
		copy(word[:], s[i:])
		at := "p"
		if i > 0 {
			at = fmt.Sprintf("p+%d", i)
		}
		fmt.Fprintf(t.w, "st64(b, %s, %#x) // %q\n", at, binary.LittleEndian.Uint64(word[:]), s[i:min(i+8, len(s))])
	}
}

// writeFormBody writes the body of form fi's printer: its programs in the
// two dialects differ at most in which operands are left out when their
// field is 15 (skip15), which the printer tests with d.
func writeFormBody(w *bytes.Buffer, fi int) error {
	f := &forms[fi]
	pn, po := &programs[New][fi], &programs[Old][fi]
	if pn.noPred != po.noPred || len(pn.mods) != len(po.mods) || len(pn.ops) != len(po.ops) {
		return fmt.Errorf("form %d (%s): the dialects' programs differ", fi, f.name)
	}
	for k := range pn.mods {
		if pn.mods[k] != po.mods[k] {
			return fmt.Errorf("form %d (%s): the dialects' modifier %d differs", fi, f.name, k)
		}
	}
	t := &textWriter{w: w}
	if !pn.noPred {
		t.code("p = putGuard(b, p, raw, d)")
	}
	t.pending = f.name
	for k := range pn.mods {
		m := &pn.mods[k]
		switch {
		case m.kind == stFlag && m.on != 0:
			t.pending += f.mods[k].text
		case m.kind == stFlag:
			t.flush()
			text := f.mods[k].text
			t.stores(text)
			not := ""
			if m.inv != 0 {
				not = "^"
			}
			t.code("p += %d & -int(%sraw>>%d&1)", len(text), not, m.pos)
		case m.kind == stEnum:
			v := fieldExpr(m.f)
			if m.f2.Width > 0 {
				v += fmt.Sprintf(" | %s<<%d", fieldExpr(m.f2), m.f.Width)
			}
			t.code("p = tableWords[%d][%s].put(b, p)", m.table, v)
		default:
			t.code("p = putAnyMod(b, p, &f.mods[%d], raw)", k)
		}
	}
	dynamic := false // a separator depends on an operand left out before it
	for k := range pn.ops {
		sn, so := pn.ops[k], po.ops[k]
		if sn.kind != so.kind || sn.pos != so.pos || sn.cc != so.cc || sn.o != so.o {
			return fmt.Errorf("form %d (%s): the dialects' operand %d differs", fi, f.name, k)
		}
		skip := ""
		switch {
		case sn.skip15 && so.skip15:
			skip = fmt.Sprintf("%s != 15", fieldExpr(sn.o.f))
		case sn.skip15:
			skip = fmt.Sprintf("d != New || %s != 15", fieldExpr(sn.o.f))
		case so.skip15:
			skip = fmt.Sprintf("d != Old || %s != 15", fieldExpr(sn.o.f))
		}
		if skip != "" && !dynamic {
			dynamic = true
			first := "' '"
			if k > 0 {
				first = "','|' '<<8"
			}
			t.code("sep, sepLen := uint64(%s), %d", first, min(k+1, 2))
		}
		if skip != "" {
			t.code("if %s {", skip)
		}
		switch {
		case dynamic:
			t.code("st64(b, p, sep)\np += sepLen\nsep, sepLen = ','|' '<<8, 2")
		case k == 0:
			t.pending += " "
		default:
			t.pending += ", "
		}
		o := fmt.Sprintf("&f.ops[%d]", k)
		switch sn.kind {
		case stReg:
			t.code("p = putWord(b, p, regWords[raw>>%d&63])", sn.pos)
			if sn.cc >= 0 {
				t.code("st64(b, p, '.'|'C'<<8|'C'<<16)\np += 3 & -int(raw>>%d&1)", sn.cc)
			}
		case stComposite:
			writeComposite(t, sn.o, o)
		case stPred:
			t.code("p = putPredOp(b, p, %s, raw, d)", o)
		case stMem:
			t.code("p = putMemOp(b, p, %s, raw, d)", o)
		case stShortSrc:
			t.code("p = putShortSrc(b, p, %s, raw, d)", o)
		case stShortImm:
			t.code("p = putShortImm(b, p, %s, raw)", o)
		case stConstMem:
			t.code("p = putConstMemOp(b, p, %s, raw, d)", o)
		default:
			t.code("p = putAnyOperand(b, p, %s, raw, pc, d)", o)
		}
		if skip != "" {
			t.code("}")
		}
	}
	t.pending += ";"
	t.flush()
	w.WriteString("return p\n")
	return nil
}

// writeComposite writes putComposite for operand o (named ref) with its
// decoration bits and kind as constants.
func writeComposite(t *textWriter, o *operand, ref string) {
	if o.neg >= 0 || o.abs >= 0 {
		t.code("{") // neg and abs are the operand's own
		defer t.code("}")
	}
	neg := "false"
	if o.neg >= 0 {
		neg = "neg"
		t.code("neg := raw>>%d&1 != 0\nif neg {\nb[p] = '-'\np++\n}", o.neg)
	}
	if o.not >= 0 {
		t.code("if raw>>%d&1 != 0 {\nb[p] = '~'\np++\n}", o.not)
	}
	if o.abs >= 0 {
		t.code("abs := raw>>%d&1 != 0\nif abs {\nb[p] = '|'\np++\n}", o.abs)
	}
	if o.kind == opReg {
		t.code("p = putWord(b, p, regWords[%s&63])", fieldExpr(o.f))
	} else {
		t.code("p = putSelected(b, p, %s, raw, d, %s)", ref, neg)
	}
	if o.abs >= 0 {
		t.code("if abs {\nb[p] = '|'\np++\n}")
	}
	if o.cc >= 0 {
		t.code("st64(b, p, '.'|'C'<<8|'C'<<16)\np += 3 & -int(raw>>%d&1)", o.cc)
	}
}

// fieldExpr is field(raw, f) with f's position and width as constants.
func fieldExpr(f isa.Field) string {
	return fmt.Sprintf("raw>>%d&%#x", f.Pos&63, uint64(1)<<(f.Width&63)-1)
}

// printgen.go is what the forms' programs generate (-printgen rewrites
// it, and so does go generate).
func TestPrintGen(t *testing.T) {
	src, err := generatePrinters()
	if *updatePrinters && err == nil {
		if err := os.WriteFile("printgen.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	gentest.Current(t, "printgen.go", src, err, "./isa/fermi")
}

// The generated printers print what the programs' interpreter prints, for
// random words of every form that decode, in both dialects.
func TestPrintersAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var want, have [textRoom]byte
	tried := 0
	for fi := range forms {
		f := &forms[fi]
		for range 4000 {
			raw := f.value | r.Uint64()&^f.mask
			if raw&8 != 0 {
				raw &= 0xffffffff
			}
			if _, ok := decodeWord(raw); !ok {
				continue
			}
			tried++
			for _, d := range []Dialect{New, Old} {
				n := interpretText(want[:], 0, uint16(fi), raw, 0x1230, d)
				m := putText(have[:], 0, uint16(fi), raw, 0x1230, d)
				if string(want[:n]) != string(have[:m]) {
					t.Fatalf("form %d (%s), %#016x, %v: generated %q, program %q", fi, f.name, raw, d, have[:m], want[:n])
				}
			}
		}
	}
	if tried < len(forms)*1000 {
		t.Errorf("only %d words of %d forms decoded", tried, len(forms))
	}
}
