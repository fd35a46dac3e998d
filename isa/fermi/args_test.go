package fermi

import (
	"fmt"
	"testing"
)

func TestArgs(t *testing.T) {
	for _, c := range []struct {
		raw  uint64
		pc   uint64
		want []Arg
	}{
		// IMAD.U32.U32 R16.CC, R0, R13, c[0x0][0x20]
		{0x201b800080041c03, 0, []Arg{{Kind: ArgReg, Reg: 16, CC: true}, {Kind: ArgReg, Reg: 0}, {Kind: ArgReg, Reg: 13}, {Kind: ArgConst, Reg: 63, Imm: 0x20}}},
		// ISETP.EQ.AND P1, PT, R11, -0x1, PT
		{0x190efffffcb3dc23, 0, []Arg{{Kind: ArgPred, Reg: 1}, {Kind: ArgPred, Reg: 7}, {Kind: ArgReg, Reg: 11}, {Kind: ArgImm, Imm: -1}, {Kind: ArgPred, Reg: 7}}},
		// FADD R1, R2, 0.5
		{0x5000cfc000205c00, 0, []Arg{{Kind: ArgReg, Reg: 1}, {Kind: ArgReg, Reg: 2}, {Kind: ArgImm, Imm: 0x3f000000, Float: true}}},
		// LD.E R9, [R2+0x80]
		{0x8400000200225c85, 0, []Arg{{Kind: ArgReg, Reg: 9}, {Kind: ArgMem, Reg: 2, Imm: 0x80}}},
		// @P0 BRA.U 0x60 at 0x28
		{0x40000000c00081e7, 0x28, []Arg{{Kind: ArgCC, Reg: 15}, {Kind: ArgTarget, Imm: 0x60}}},
		// FFMA R13, -R13, R11, R24 (new order: product negation on the first factor)
		{0x303000002cd35e00, 0, []Arg{{Kind: ArgReg, Reg: 13}, {Kind: ArgReg, Reg: 13, Neg: true}, {Kind: ArgReg, Reg: 11}, {Kind: ArgReg, Reg: 24}}},
		// I2I.U32.U8 R0, -|R2.B3|
		{0x1d80000008201d44, 0, []Arg{{Kind: ArgReg, Reg: 0}, {Kind: ArgReg, Reg: 2, Neg: true, Abs: true, Sel: 3}}},
		// BRX R6 -0x380; JMP c[0x1][0x10]
		{0x4803fff200601de7, 0, []Arg{{Kind: ArgCC, Reg: 15}, {Kind: ArgMem, Reg: 6, Imm: -0x380}}},
		{0x0000040040005de7, 0, []Arg{{Kind: ArgCC, Reg: 15}, {Kind: ArgConst, Reg: 63, Bank: 1, Imm: 0x10}}},
		// LD_LDU.32.32 R0, [R2+0x4], R1, [R4+0x4]
		{0xb300080010205c25, 0, []Arg{{Kind: ArgReg, Reg: 0}, {Kind: ArgMem, Reg: 2, Imm: 4}, {Kind: ArgReg, Reg: 1}, {Kind: ArgMem, Reg: 4, Imm: 4}}},
	} {
		inst, err := DecodeWord(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		args, n := inst.Args(c.pc)
		if n != len(c.want) {
			t.Errorf("%#x: %d args, want %d", c.raw, n, len(c.want))
			continue
		}
		for k, w := range c.want {
			if args[k] != w {
				t.Errorf("%#x arg %d = %+v, want %+v", c.raw, k, args[k], w)
			}
		}
	}
}

func TestArgsNeverPanics(t *testing.T) {
	for _, raw := range randomWords(50, 9) {
		inst, _ := DecodeWord(raw)
		if _, n := inst.Args(0); n > MaxArgs {
			t.Fatal("too many args")
		}
	}
	for i := range forms {
		if len(forms[i].ops) > MaxArgs {
			t.Errorf("form %s has %d operands > MaxArgs", forms[i].name, len(forms[i].ops))
		}
	}
}

func TestHex16(t *testing.T) {
	for _, x := range []uint64{0, 1, 0x0123456789abcdef, 0xfedcba9876543210, 0xffffffffffffffff, 0xa0a0a0a09f9f9f9f} {
		if got, want := string(appendHex16(nil, x)), fmt.Sprintf("%016x", x); got != want {
			t.Errorf("appendHex16(%#x) = %s, want %s", x, got, want)
		}
		if got, want := string(appendHex8(nil, uint32(x))), fmt.Sprintf("%08x", uint32(x)); got != want {
			t.Errorf("appendHex8(%#x) = %s, want %s", uint32(x), got, want)
		}
	}
}
