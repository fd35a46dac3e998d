package maxwell

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/maxwell/internal/spec"
)

// specForms parses spec.txt afresh: the tests check the typed operands
// against the spec's own field declarations, not against the generated
// tables they are made from.
func specForms(t testing.TB) *spec.Spec {
	t.Helper()
	src, err := os.ReadFile("spec.txt")
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Forms) != len(forms) {
		t.Fatalf("spec has %d forms, tables %d", len(s.Forms), len(forms))
	}
	return s
}

// fieldOf reads a spec token's (possibly split) field from w.
func fieldOf(tk spec.Token, w uint64) (v uint64, width uint8) {
	for _, p := range tk.Parts {
		v |= (w >> p.Pos & (1<<p.Width - 1)) << width
		width += p.Width
	}
	return v, width
}

// randomInsts yields valid instructions of form fi with random field values.
func randomInsts(rng *rand.Rand, fi, n int, yield func(Inst)) {
	f := &forms[fi]
	sm := 52
	if f.attrs&attrSM50 != 0 {
		sm = 50
	}
	for k := 0; k < n; k++ {
		w := rng.Uint64()&^f.mask | f.value
		inst, err := Decode(w, NeutralCtrl, sm, 0x1000)
		if err != nil || int(inst.form) != fi {
			continue
		}
		yield(inst)
	}
}

// TestOperandValuesMatchSpec walks every spec form with random field values
// and checks each immediate, float, offset and target against its field as
// the spec declares it: the sign (SX and XS fields are two's complement, X
// fields are not), the width, the shift.
func TestOperandValuesMatchSpec(t *testing.T) {
	s := specForms(t)
	rng := rand.New(rand.NewPCG(3, 4))
	checked := map[ArgKind]int{}
	formsSeen := 0
	for fi := range forms {
		sf := s.Forms[fi]
		seen := false
		randomInsts(rng, fi, 200, func(inst Inst) {
			seen = true
			o := inst.Operands(0x1000)
			for k, d := range formOperands[fi].args {
				a := o.Args[k]
				if a.Kind != d.kind {
					t.Fatalf("%s: arg %d kind %v, want %v", sf.Name, k, a.Kind, d.kind)
				}
				if err := checkArg(sf, d, a, inst.Word); err != nil {
					t.Fatalf("spec.txt:%d %#016x %q arg %d: %v", sf.Line, inst.Word, Print(inst, 0x1000), k, err)
				}
				checked[a.Kind]++
			}
		})
		if seen {
			formsSeen++
		}
	}
	t.Logf("%d/%d forms decoded with random fields; operands checked: %v", formsSeen, len(forms), checked)
	if formsSeen < len(forms)*9/10 {
		t.Errorf("only %d of %d forms decoded", formsSeen, len(forms))
	}
}

func checkArg(sf *spec.Form, d argDesc, a Arg, w uint64) error {
	tok := func(i int8) spec.Token { return sf.Tokens[i] }
	value := func(tk spec.Token) (int64, uint8) {
		v, n := fieldOf(tk, w)
		if tk.Kind == spec.SHex || tk.Signed {
			return isa.SignExtend(v, n) << tk.Shift, n
		}
		return int64(v << tk.Shift), n
	}
	switch a.Kind {
	case ArgImm:
		if d.tok < 0 {
			return nil // a literal 0x0
		}
		tk := tok(d.tok)
		want, n := value(tk)
		if tk.Kind == spec.BitSet {
			want, n = int64(must(fieldOf(tk, w))), tk.Parts[0].Width
		}
		signed := tk.Kind == spec.SHex || tk.Signed
		if a.Imm != want || a.Bits != n || a.Signed != signed {
			return fmt.Errorf("imm %#x (%d bits, signed %v), field says %#x (%d, %v)", a.Imm, a.Bits, a.Signed, want, n, signed)
		}
	case ArgFloat:
		tk := tok(d.tok)
		v, n := fieldOf(tk, w)
		var want int64
		switch tk.Kind {
		case spec.F32:
			want = int64(v << (32 - n))
		case spec.F64:
			want = int64(v << (64 - n))
		case spec.F16:
			want = int64(v << (16 - n))
			if d.tok2 >= 0 { // the pair's low half
				lo, ln := fieldOf(tok(d.tok2), w)
				want = want<<16 | int64(lo<<(16-ln))
				n += ln
			}
		}
		if a.Imm != want || a.Bits != n {
			return fmt.Errorf("float bits %#x (%d bits), field says %#x (%d)", a.Imm, a.Bits, want, n)
		}
	case ArgTarget:
		v, n := fieldOf(tok(d.tok), w)
		if want := 0x1000 + 8 + isa.SignExtend(v, n); a.Imm != want {
			return fmt.Errorf("target %#x, want %#x", a.Imm, want)
		}
	case ArgConst:
		bank, _ := fieldOf(tok(d.tok), w)
		off := tok(d.tok2)
		var want int64
		reg := uint8(255)
		if off.Kind == spec.Addr {
			r := spec.Token{Parts: off.Parts[:1]}
			rv, _ := fieldOf(r, w)
			reg = uint8(rv)
			v, n := fieldOf(spec.Token{Parts: off.Parts[1:]}, w)
			want = isa.SignExtend(v, n) << off.Shift
		} else {
			want, _ = value(off)
		}
		if uint64(a.Bank) != bank || a.Imm != want || a.Reg != reg {
			return fmt.Errorf("c[%#x][R%d+%#x], fields say c[%#x][R%d+%#x]", a.Bank, a.Reg, a.Imm, bank, reg, want)
		}
	case ArgMem:
		if d.tok < 0 {
			return nil // a[RZ]
		}
		tk := tok(d.tok)
		switch tk.Kind {
		case spec.Addr, spec.UAddr:
			rv, _ := fieldOf(spec.Token{Parts: tk.Parts[:1]}, w)
			v, n := fieldOf(spec.Token{Parts: tk.Parts[1:]}, w)
			want := int64(v << tk.Shift)
			if tk.Kind == spec.Addr && rv != 255 {
				want = isa.SignExtend(v, n) << tk.Shift
			}
			if uint64(a.Reg) != rv || a.Imm != want {
				return fmt.Errorf("[R%d+%#x], fields say [R%d+%#x]", a.Reg, a.Imm, rv, want)
			}
		}
	}
	return nil
}

func must(v uint64, _ uint8) uint64 { return v }

// TestIADD3Immediate: IADD3's 20-bit immediate is signed to the hardware
// although nvdisasm prints the raw field; .NEG negates it.
func TestIADD3Immediate(t *testing.T) {
	for _, c := range []struct {
		text string
		imm  int64
		neg  bool
	}{
		{"IADD3 R12, R3, 0xffff0, R0 ;", -16, false},
		{"IADD3 R6, R6, 0xfffeb, R3 ;", -21, false},
		{"IADD3 R12, R3, 0x10.NEG, R0 ;", 16, true},
		{"IADD3 R12, R3, 0x7ffff, R0 ;", 0x7ffff, false},
	} {
		w, _, err := EncodeText(c.text, 0, 52, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		inst, err := Decode(w, NeutralCtrl, 52, 0)
		if err != nil {
			t.Fatal(err)
		}
		a := inst.Operands(0).Args[2]
		if a.Kind != ArgImm || a.Imm != c.imm || a.Neg != c.neg || !a.Signed || a.Bits != 20 {
			t.Errorf("%s: %+v, want imm %d neg %v (signed, 20 bits)", c.text, a, c.imm, c.neg)
		}
	}
}

// TestOperandsFollowText: the typed operands of random instructions of
// every form appear, in order, in the text nvdisasm prints (optional
// operands at their default may be left out of the text).
func TestOperandsFollowText(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 0
	for fi := range forms {
		randomInsts(rng, fi, 40, func(inst Inst) {
			text := Print(inst, 0x1000)
			o := inst.Operands(0x1000)
			if o.Op != inst.Op() {
				t.Fatalf("Op %q, want %q", o.Op, inst.Op())
			}
			body := strings.TrimSuffix(strings.TrimSpace(text), ";")
			if g := o.Guard; g.Reg != 7 || g.Not {
				want := "@" + predText(g)
				if !strings.HasPrefix(body, want+" ") {
					t.Fatalf("%q: guard %s", text, want)
				}
				body = body[len(want)+1:]
			}
			mn, rest, _ := strings.Cut(body, " ")
			if i := strings.IndexByte(mn, '['); i >= 0 { // CCTL.QRY1[R2]
				mn, rest = mn[:i], body[i:]
			}
			if !strings.HasPrefix(mn, o.Op) {
				t.Fatalf("%q: op %q", text, o.Op)
			}
			// modifiers print in order inside the mnemonic
			at := len(o.Op)
			for _, m := range o.Mods {
				if m.IsZero() {
					break
				}
				mt := m.Text()
				if m.Name() == "CCE" { // prints after a blank: EXIT CC.LT
					mt = ""
				}
				if i := strings.Index(mn[at:], mt); mt != "" && m.Valid() {
					if i < 0 {
						t.Fatalf("%q: modifier %s %q not in %q", text, m.Name(), mt, mn[at:])
					}
					at += i + len(mt)
				}
			}
			at = 0
			for _, a := range o.Args {
				if a.Kind == ArgNone {
					break
				}
				found := false
				for _, s := range argTexts(a) {
					if i := strings.Index(rest[at:], s); i >= 0 {
						at += i + len(s)
						found = true
						break
					}
				}
				if !found && !isDefault(a) { // an optional operand at its default may be left out
					t.Fatalf("%q: operand %v %q not found after %q", text, a.Kind, argTexts(a), rest[:at])
				}
			}
			n++
		})
	}
	t.Logf("%d instructions", n)
}

func predText(a Arg) string {
	s := "PT"
	if a.Reg != 7 {
		s = fmt.Sprintf("P%d", a.Reg)
	}
	if a.Not {
		s = "!" + s
	}
	return s
}

// argTexts are the spellings an operand may have in the text (any one).
func argTexts(a Arg) []string {
	reg := func(r uint8) string {
		if r == 255 {
			return "RZ"
		}
		return fmt.Sprintf("R%d", r)
	}
	hex := func(v int64, signed bool) string {
		if signed && v < 0 {
			return fmt.Sprintf("-%#x", -v)
		}
		return fmt.Sprintf("%#x", v)
	}
	switch a.Kind {
	case ArgReg:
		if a.Reg == 255 {
			return []string{"RZ", "???255"}
		}
		return []string{reg(a.Reg), "???255"}
	case ArgPred:
		return []string{predText(a)}
	case ArgImm:
		raw := uint64(a.Imm)
		if a.Bits < 64 {
			raw &= 1<<a.Bits - 1
		}
		return []string{hex(a.Imm, a.Signed), fmt.Sprintf("%#x", raw), "{"}
	case ArgConst:
		return []string{fmt.Sprintf("c[%#x]", a.Bank)}
	case ArgMem:
		switch {
		case a.Reg != 255 && a.Imm != 0:
			return []string{reg(a.Reg) + "+" + hex(a.Imm, true)}
		case a.Reg != 255:
			return []string{reg(a.Reg)}
		case a.Imm != 0:
			return []string{fmt.Sprintf("%#x", a.Imm)}
		}
		return []string{"RZ", "[0x0]", "[]"}
	case ArgTarget:
		return []string{hex(a.Imm, true)}
	case ArgSpecial, ArgEnum:
		if t := a.Mod.Text(); t != "" && a.Mod.Valid() {
			return []string{t}
		}
		return []string{""}
	case ArgCC:
		return []string{"CC"}
	}
	return []string{""}
}

// isDefault: the values an optional group leaves out.
func isDefault(a Arg) bool {
	switch a.Kind {
	case ArgReg:
		return a.Reg == 255
	case ArgPred:
		return a.Reg == 7 && !a.Not || a.Reg == 0 && !a.Not // IP fields store PT as 0
	case ArgImm:
		return a.Imm == 0 || a.Imm == 15 // MOV's lane mask 0xf
	}
	return false
}

// TestDecoderDecode: the Decoder reads an instruction's control field from
// its bundle, honours Base, and rejects control-word addresses and
// addresses outside the code.
func TestDecoderDecode(t *testing.T) {
	code := make([]byte, 64)
	binary.LittleEndian.PutUint64(code[32:], 0x001fc400fe2007f1)
	binary.LittleEndian.PutUint64(code[32+16:], 0x5c9807800ff70002) // MOV R2, RZ
	d := Decoder{SM: 52, Base: 0x100}
	inst, err := d.Decode(code, 0x100+32+16)
	if err != nil {
		t.Fatal(err)
	}
	if got := Print(inst, 0x130); got != "MOV R2, RZ ;" {
		t.Errorf("got %q", got)
	}
	if inst.Ctrl != CtrlField(0x001fc400fe2007f1, 1) {
		t.Errorf("control field %#x", inst.Ctrl)
	}
	for _, addr := range []uint64{0x100 + 32, 0x100 + 33, 0x100 + 64, 0x80, 0x100 + 1<<40} {
		_, err := d.Decode(code, addr)
		var de *isa.DecodeError
		if err == nil || !asDecodeError(err, &de) || de.Addr != addr || de.Len <= 0 {
			t.Errorf("%#x: %v", addr, err)
		}
	}
}

func asDecodeError(err error, de **isa.DecodeError) bool {
	e, ok := err.(*isa.DecodeError)
	*de = e
	return ok
}

// FuzzOperands: any word and control field decode to operands without
// panicking, and the operand count fits.
func FuzzOperands(f *testing.F) {
	f.Add(uint64(0x38c2000001f72a2a), uint32(0x7f1), uint64(0x100))
	f.Add(uint64(0xef95000014070202), uint32(0x190f), uint64(0))
	f.Fuzz(func(t *testing.T, w uint64, ctrl uint32, pc uint64) {
		for _, sm := range []int{50, 52} {
			inst, err := Decode(w, Ctrl(ctrl)&0x1fffff, sm, pc)
			if err != nil {
				continue
			}
			o := inst.Operands(pc)
			if o.Op == "" || o.NArgs() > MaxArgs {
				t.Fatalf("%#x: %+v", w, o)
			}
		}
	})
}

func BenchmarkOperands(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	var insts []Inst
	for fi := range forms {
		randomInsts(rng, fi, 4, func(inst Inst) { insts = append(insts, inst) })
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, inst := range insts {
			o := inst.Operands(0)
			n += int(o.Args[0].Kind)
		}
	}
	b.ReportMetric(float64(len(insts)), "insts/op")
}

// FuzzDecoder: any code and address decode or fail with a DecodeError
// naming the address, without panicking.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte("\xf1\x07\x20\xfe\x00\xc4\x1f\x00\x0c\x03\x07\xff\x7f\x00\xc0\x39"), uint64(8), uint64(0))
	f.Add([]byte{1, 2, 3}, uint64(0x108), uint64(0x100))
	f.Fuzz(func(t *testing.T, code []byte, addr, base uint64) {
		inst, err := Decoder{SM: 52, Base: base &^ 31}.Decode(code, addr)
		if err != nil {
			var de *isa.DecodeError
			if !asDecodeError(err, &de) || de.Addr != addr {
				t.Fatalf("%#x: %v", addr, err)
			}
			return
		}
		inst.Operands(addr)
	})
}
