package isa

import (
	"fmt"
	"strconv"
	"testing"
)

func TestAppendLine(t *testing.T) {
	got := string(CuobjdumpStyle.AppendLine(nil, 0x68, []byte("MOV32 R0, R1;"), 0x10008200, 8))
	want := "        /*0068*/        MOV32 R0, R1;                                  /* 0x10008200         */\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := string(AppendAddr(nil, 0x12345)); got != "/*12345*/" {
		t.Fatalf("AppendAddr = %q", got)
	}
	if got := string(AppendHexNum(nil, 0)); got != "0x0" {
		t.Fatalf("AppendHexNum(0) = %q", got)
	}
	if got := string(AppendHexNum(nil, 0xdeadbeef)); got != "0xdeadbeef" {
		t.Fatalf("AppendHexNum = %q", got)
	}
}

func TestFields(t *testing.T) {
	f := Field{Pos: 4, Width: 3}
	if v := f.Set(0xffff, 2); v != 0xffaf || f.Get(v) != 2 {
		t.Fatalf("Set/Get: %#x", v)
	}
	s := SplitField{{Pos: 0, Width: 4}, {Pos: 8, Width: 4}}
	if v := s.Set(0, 0xab); v != 0xa0b || s.Get(v) != 0xab || s.Width() != 8 {
		t.Fatalf("SplitField: %#x", v)
	}
	if SignExtend(0x80, 8) != -128 || SignExtend(0x7f, 8) != 127 {
		t.Fatal("SignExtend")
	}
}

func TestAppendHexWidths(t *testing.T) {
	for _, c := range []struct {
		x    uint64
		n    int
		want string
	}{{0, 1, "0"}, {0xabc, 8, "00000abc"}, {0xffffffffffffffff, 16, "ffffffffffffffff"}, {0x1234, 2, "34"}, {5, 18, "000000000000000005"}} {
		if got := string(AppendHex([]byte("x"), c.x, c.n)); got != "x"+c.want {
			t.Errorf("AppendHex(%#x, %d) = %q, want %q", c.x, c.n, got, "x"+c.want)
		}
	}
}

func TestAppendSuffixDigits(t *testing.T) {
	for _, raw := range []uint64{0, 1, 0x0123456789abcdef, 0xfedcba9876543210, 0xa0b0c0d09f8f7f6f, ^uint64(0)} {
		for _, digits := range []int{8, 16} {
			got := string(CuobjdumpStyle.AppendSuffix(nil, 46, raw, digits))
			x := raw
			if digits == 8 {
				x &= 0xffffffff
			}
			want := fmt.Sprintf(" /* 0x%0*x%*s */\n", digits, x, 16-digits, "")
			if got != want {
				t.Errorf("AppendSuffix(%#x, %d) = %q, want %q", raw, digits, got, want)
			}
		}
	}
}

func TestAppendPrefixAddrs(t *testing.T) {
	for _, st := range []LineStyle{CuobjdumpStyle, NvdisasmStyle, {Indent: 0, Gap: 0, TextCol: 3, HexWidth: 16}} {
		for _, addr := range []uint64{0, 8, 0xfff8, 0x10000, 0xabcdef, 0x12345678, 0x123456789, ^uint64(0)} {
			got := string(st.AppendPrefix([]byte("x"), addr))
			want := "x" + string(appendBlanks(nil, st.Indent)) + string(AppendAddr(nil, addr)) + string(appendBlanks(nil, st.Gap))
			if got != want {
				t.Errorf("%+v AppendPrefix(%#x) = %q, want %q", st, addr, got, want)
			}
		}
	}
}

// AppendHexNum is "0x%x" for every digit count and the values around each
// boundary.
func TestAppendHexNum(t *testing.T) {
	check := func(x uint64) {
		if got, want := string(AppendHexNum([]byte("ab"), x)), fmt.Sprintf("ab0x%x", x); got != want {
			t.Fatalf("%#x: got %s want %s", x, got, want)
		}
	}
	for sh := 0; sh < 64; sh++ {
		for _, d := range []uint64{0, 1, 2, 0xa} {
			check(uint64(1)<<sh - d)
			check(uint64(1)<<sh + d)
		}
	}
	x := uint64(1)
	for range 100000 {
		x = x*6364136223846793005 + 1442695040888963407
		check(x >> (x & 63))
	}
	check(^uint64(0))
}

func TestAppendDec(t *testing.T) {
	for _, x := range []uint64{0, 1, 9, 10, 99, 100, 999, 1000, 1001, 65535, 1<<32 + 7, 1<<64 - 1} {
		if got, want := string(AppendDec([]byte("r"), x)), "r"+strconv.FormatUint(x, 10); got != want {
			t.Errorf("AppendDec(%d) = %q, want %q", x, got, want)
		}
	}
	for x := uint64(0); x < 20000; x++ {
		if got, want := string(AppendDec(nil, x)), strconv.FormatUint(x, 10); got != want {
			t.Fatalf("AppendDec(%d) = %q, want %q", x, got, want)
		}
	}
}

// AppendSuffix's in-place path is the plain one for every digit count,
// hex width and text length, also past the padding's 64 blanks.
func TestAppendSuffixLayouts(t *testing.T) {
	for _, st := range []LineStyle{CuobjdumpStyle, NvdisasmStyle, {Indent: 8, Gap: 8, TextCol: 64, HexWidth: 16}, {TextCol: 46, HexWidth: 8}, {TextCol: 70, HexWidth: 16}} {
		for _, digits := range []int{1, 4, 8, 12, 16} {
			if digits > st.HexWidth {
				continue
			}
			for _, textLen := range []int{0, 1, 7, 8, 45, 46, 47, 63, 64, 65, 100} {
				raw := uint64(0xfedcba9876543210)
				got := string(st.AppendSuffix([]byte("x"), textLen, raw, digits))
				want := "x" + string(appendBlanks(nil, max(st.TextCol-textLen, 0))) + " /* 0x" +
					string(AppendHex(nil, raw, digits)) + string(appendBlanks(nil, st.HexWidth-digits)) + " */\n"
				if got != want {
					t.Errorf("%+v AppendSuffix(%d, %d) = %q, want %q", st, textLen, digits, got, want)
				}
			}
		}
	}
}
