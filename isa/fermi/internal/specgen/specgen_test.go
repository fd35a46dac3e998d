package specgen

import (
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"FOO 0:3=0 : FOO | R14, R14", "overlaps"},
		{"FOO 0:3=9 : FOO |", "bad value"},
		{"FOO 0:3=0 : BAR |", "must start with the mnemonic"},
		{"FOO 0:3=0 : FOO nosuch@5:2 |", "unknown table"},
		{"table t .A .B\nFOO 0:3=0 : FOO t@5:2 |", "entries"},
		{"FOO 0:3=0 : FOO | Z7", "unknown operand"},
		{"FOO 0:3=0 : FOO | Q7", "bad short source"},
		{"FOO short 0:4=8 : FOO | R32", "above 31"},
		{"FOO 0:4=8 : FOO |", "bit 3"},
		{"FOO 0:3=0 : FOO .X@5 | R5", "overlaps"},
	} {
		_, err := Parse("class X\n" + ccTable + c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want error containing %q", c.src, err, c.want)
		}
	}
}

func TestMaskCoversUndescribedBits(t *testing.T) {
	s, err := Parse("class X\n" + ccTable + "FOO 0:3=3 59:5=1 : FOO .X@6 | R14")
	if err != nil {
		t.Fatal(err)
	}
	f := s.Forms[0]
	// described: 0-2 fixed, 4 (.S), 6, 10-13 (guard), 14-19, 59-63 fixed
	free := uint64(1)<<4 | 1<<6 | 0xf<<10 | 0x3f<<14
	if f.Mask != ^free {
		t.Errorf("mask %#x, want %#x", f.Mask, ^free)
	}
	if f.Value != 3|1<<59 {
		t.Errorf("value %#x", f.Value)
	}
}

const ccTable = "table cc" + " F F F F F F F F F F F F F F F F F F F F F F F F F F F F F F F F\n"

func TestUnusedTable(t *testing.T) {
	if _, err := Parse("class X\n" + ccTable + "table t .A .B\nFOO 0:3=0 : FOO |"); err == nil || !strings.Contains(err.Error(), "never used") {
		t.Errorf("unused table: %v", err)
	}
}

func TestClassRequired(t *testing.T) {
	if _, err := Parse("FOO 0:3=0 : FOO |"); err == nil || !strings.Contains(err.Error(), "class") {
		t.Errorf("form without class: %v", err)
	}
}

func TestOperandOptions(t *testing.T) {
	s, err := Parse("class X\n" + ccTable +
		"FOO 0:3=5 59:5=1 : FOO | M28:14*4, R14 bsel55 hsel57\n" +
		"BAR 0:3=5 59:5=2 : BAR | CN42:5, MR\n" +
		"QUX 0:3=5 59:5=3 : QUX | J26:24\n" +
		"BAZ 0:3=5 59:5=4 : BAZ | R32, M43:10 pair1, R14, M5:5+38:5 base26 pair2\n")
	if err != nil {
		t.Fatal(err)
	}
	foo, bar, qux, baz := s.Forms[0], s.Forms[1], s.Forms[2], s.Forms[3]
	if o := foo.Ops[0]; o.Kind != "opMem" || o.Shift != 2 || o.F != (Field{28, 14}) {
		t.Errorf("scaled memory operand: %+v", o)
	}
	if o := foo.Ops[1]; o.BSel != 55 || o.HSel != 57 {
		t.Errorf("selectors: %+v", o)
	}
	if o := bar.Ops[0]; o.Kind != "opConstNR" || o.F != (Field{42, 5}) {
		t.Errorf("constant without register: %+v", o)
	}
	if o := bar.Ops[1]; o.Kind != "opMem" || o.F.Width != 0 {
		t.Errorf("MR: %+v", o)
	}
	if o := qux.Ops[0]; o.Kind != "opRegOff" || o.F != (Field{26, 24}) {
		t.Errorf("J: %+v", o)
	}
	if o := baz.Ops[3]; o.Base != 26 || o.Pair != 2 || o.F2 != (Field{38, 5}) {
		t.Errorf("base26 pair2: %+v", o)
	}
	// bits 4-52 are described (.S, offsets, registers, guard); 3 and 53-58 must be zero
	if free := ^baz.Mask; free != (1<<53-1)&^0xf {
		t.Errorf("BAZ free bits %#x", free)
	}
	if _, err := Parse("class X\n" + ccTable + "FOO 0:3=5 : FOO | R14 base26\n"); err == nil {
		t.Errorf("base26 on a register operand accepted")
	}
}
