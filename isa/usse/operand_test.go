package usse

import (
	"fmt"
	"strings"
	"testing"
)

// TestOperands: the typed operands of known words (the listing text beside
// each is what the printer makes of the same fields).
func TestOperands(t *testing.T) {
	for _, c := range []struct {
		word uint64
		want string
	}{
		// mad.f16 pa0.x-z, pa6.xyz, sa0.xyz, sa8.xyz
		{0x04a09286f0003004, "pa0 | pa6.xyzw | sa0.xyzw | sa8.xyzw"},
		// mad.f32.nosched i1.xyzw, sa0.xyzw, i0.xxxx, i1.xyzw
		{0x18b18f80cf411100, "i1 | sa0.xyzw | i0.xxxx | i1.xyzw"},
		// mul.f32 o0.xy, pa0.xy, {1, 1}: constant c1 read through .yyyy (bank 1: 1.0)
		{0x08a5118590040001, "o0 | pa0.xyzw | c1.yyyy"},
		// mad.f32 pa4.x, pa2.y, -i0.x, pa2.y
		{0x008020a620841f01, "pa4 | pa2.yyyy | -i0.xxxx | pa2.yyyy"},
		// pack.f32.f16 o6.xy, pa0.zwzw, 0x1: both sources, the immediate too
		{0x40810b8da0db8082, "o6 | pa0 | imm1"},
		// mov.f32 r6.xy, r[index1 * 2 + 4].xy
		{0x38820520030c0080, "r6 | r[idx1+4].xyzw"},
		// add.f32 pa28.x, |pa32.yyyy|, |pa32.x|
		{0x088408d2a3a49410, "pa28 | |pa32.yyyy| | |pa32.xxxx|"},
	} {
		in, err := DecodeWord(c.word, 0)
		if err != nil {
			t.Fatalf("%016x: %v", c.word, err)
		}
		var parts []string
		for _, o := range in.Operands(nil) {
			var s string
			switch o.Bank {
			case BankIndexed:
				s = fmt.Sprintf("%v[idx%d+%d]", o.Base, o.IndexReg, o.Num)
			case BankImm:
				s = fmt.Sprintf("imm%d", o.Num)
			default:
				s = fmt.Sprintf("%v%d", o.Bank, o.Num)
			}
			if o.Swizzle != "" {
				s += "." + o.Swizzle
			}
			if o.Abs {
				s = "|" + s + "|"
			}
			if o.Neg {
				s = "-" + s
			}
			parts = append(parts, s)
		}
		if got := strings.Join(parts, " | "); got != c.want {
			t.Errorf("%016x %s: operands %q, want %q", c.word, Print(in, 0), got, c.want)
		}
	}
}

// TestEnum: fields read through their enum spelling.
func TestEnum(t *testing.T) {
	in, _ := DecodeWord(0x30800a0280000001, 0) // rsq.f32.nosched pa0.x, pa0.x
	if s, ok := in.Enum("op"); !ok || s != "rsq" {
		t.Errorf("op = %q, %v", s, ok)
	}
	if s, ok := in.Enum("dfmt"); !ok || s != "f32" {
		t.Errorf("dfmt = %q, %v", s, ok)
	}
	if _, ok := in.Enum("nosched"); ok {
		t.Error("nosched is not printed through an enum")
	}
}

// TestRegField: registers resolved from fields the syntax does not print
// read as the printer reads the same fields where it prints them.
func TestRegField(t *testing.T) {
	for name, want := range map[string][]string{
		"dst": {"r", "o", "pa", "idx1", "sa", "special", "index", "idx2"},
		"src": {"r", "o", "pa", "sa", "idx1", "special", "imm", "idx2"}, "src0": {"r", "pa", "o", "sa"}, "rpa": {"r", "pa"},
	} {
		if got := bankTables[bankListIndex[name]]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("bank list %s is %v in the tables, want %v", name, got, want)
		}
	}
	// isub16.testtaz.chan0 r2, p0, r2, #1 (IMG's SGX540 text): the write-back
	// destination r2 is in fields dbank/dext/dnum.
	in, err := DecodeWord(0x480111802055c101, 0)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := in.RegField("dst", "dbank", "dext", "dnum", 1)
	if !ok || o.Bank != BankTemp || o.Num != 2 {
		t.Errorf("write-back destination %+v %v, want r2", o, ok)
	}
	// the same word with the destination bank special (IMG prints !c0)
	in, _ = DecodeWord(0x48081181000c0000, 0)
	if o, ok := in.RegField("dst", "dbank", "dext", "dnum", 1); !ok || o.Bank != BankConst {
		t.Errorf("!c0 destination %+v %v, want a constant", o, ok)
	}
	if _, ok := in.RegField("dst", "nosuch", "", "dnum", 1); ok {
		t.Error("a missing field resolved")
	}
	// agrees with Operands for a printed register: vmad2's destination
	in, _ = DecodeWord(0x04a09286f0003004, 0)
	if o, _ := in.RegField("dst", "dbank", "", "dnum", 2); o != in.Operands(nil)[0] {
		t.Errorf("RegField %+v, Operands %+v", o, in.Operands(nil)[0])
	}
}
