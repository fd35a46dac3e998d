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
		{"FOO 0:3=0 : FOO | Q7", "unknown operand"},
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
