package tesla

import (
	"bufio"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Resolve gives the emulator each operand as a plain value.
func TestResolve(t *testing.T) {
	cases := []struct {
		text string
		mn   string
		ops  []Operand
		pred uint8
		cond uint8
	}{
		{"IMAD.U16 R1, g [0x6].U16, R0H, R1;", "IMAD.U16", []Operand{
			{Kind: OpReg, Reg: 1}, {Kind: OpShared, Size: 2, Offset: 0xc}, {Kind: OpReg, Reg: 1, Half: true}, {Kind: OpReg, Reg: 1}}, 0, 0xf},
		{"IADD.U16 R1L, R2L, c[0x1][0x2];", "IADD.U16", []Operand{
			{Kind: OpReg, Reg: 2, Half: true}, {Kind: OpReg, Reg: 4, Half: true}, {Kind: OpConst, Bank: 1, Size: 2, Offset: 4}}, 0, 0xf},
		{"LOP.AND R6, R6, c[0x1][0x2];", "LOP.AND", []Operand{
			{Kind: OpReg, Reg: 6}, {Kind: OpReg, Reg: 6}, {Kind: OpConst, Bank: 1, Size: 4, Offset: 8}}, 0, 0xf},
		{"IADD R0 (C0.EQU), R4, -R1;", "IADD", []Operand{
			{Kind: OpReg, Reg: 0}, {Kind: OpReg, Reg: 4}, {Kind: OpReg, Reg: 1, Neg: true}}, 0, 10},
		{"I2I.U32.S32 R8, |R3|;", "I2I.U32.S32", []Operand{{Kind: OpReg, Reg: 8}, {Kind: OpReg, Reg: 3, Abs: true}}, 0, 0xf},
		{"ISET.S32.C0 o[0x7f], g [0x6], R124, LE;", "ISET.S32", []Operand{
			{Kind: OpOut, Reg: 0x7f}, {Kind: OpShared, Size: 4, Offset: 0x18}, {Kind: OpReg, Reg: 124}, {Kind: OpEnum, Text: "LE"}}, 0, 0xf},
		{"MOV R0, g [A4+0x0];", "MOV", []Operand{{Kind: OpReg, Reg: 0}, {Kind: OpShared, Areg: 4, Size: 4}}, 0, 0xf},
		{"R2G.U32.U32 g[A1+0x40c], R0;", "R2G.U32.U32", []Operand{{Kind: OpShared, Areg: 1, Size: 4, Offset: 0x1030}, {Kind: OpReg, Reg: 0}}, 0, 0xf},
		{"GLD.U32 R7, global14[R5];", "GLD.U32", []Operand{{Kind: OpReg, Reg: 7}, {Kind: OpGlobal, Reg: 5, Bank: 14, Size: 4}}, 0, 0xf},
		{"BRA C0.NE, 0xd0;", "BRA", []Operand{{Kind: OpTarget, Imm: 0xd0}}, 0, 5},
		{"IMUL32I.S16.S16 R1, R1L, 0xfffffffc;", "IMUL32I.S16.S16", []Operand{
			{Kind: OpReg, Reg: 1}, {Kind: OpReg, Reg: 2, Half: true}, {Kind: OpImm, Imm: 0xfffffffc}}, 0, 0xf},
	}
	for _, c := range cases {
		v, n, err := AssembleInst(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		inst, err := DecodeValue(v, 0)
		if err != nil || int(inst.Len) != n {
			t.Fatalf("%s: decode: %v", c.text, err)
		}
		e := inst.Resolve()
		if e.Mnemonic != c.mn || !reflect.DeepEqual(e.Operands, c.ops) || e.Pred != c.pred || e.Cond != c.cond {
			t.Errorf("%s:\n got %s %+v pred %d cond %d\nwant %s %+v", c.text, e.Mnemonic, e.Operands, e.Pred, e.Cond, c.mn, c.ops)
		}
	}
}

func TestResolveCarryAndMarkers(t *testing.T) {
	v, _, err := AssembleInst("IADD R1 (C1), -R4, R5;")
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := DecodeValue(v, 0)
	if e := inst.Resolve(); !e.Carry || e.CarryReg != 0 {
		t.Errorf("carry %v from C%d, want from C0 (printed pr+1)", e.Carry, e.CarryReg)
	}
	v, _, _ = AssembleInst("IADD32 R0 (C0), -R1, R2;")
	inst, _ = DecodeValue(v, 0)
	if e := inst.Resolve(); !e.Carry || e.CarryReg != 0 { // the printed "-" stays on the operand
		t.Errorf("short addc: %+v", e)
	}
	v, _, _ = AssembleInst("NOP.S;")
	inst, _ = DecodeValue(v, 0)
	if e := inst.Resolve(); !e.Join || e.Exit {
		t.Errorf("NOP.S: join %v exit %v", e.Join, e.Exit)
	}
}

// TestResolveMatchesPrinter: for an encoding of every spec form (the golden
// corpus), the registers and memory operands Resolve gives are the ones the
// printer shows, in order: the emulator and the listing agree on what an
// instruction reads and writes.
func TestResolveMatchesPrinter(t *testing.T) {
	f, err := os.Open("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tokenRE := regexp.MustCompile(`\bR\d+[LH]?\b|o\[0x[0-9a-f]+\]|g ?\[(A\d\+\+?\+?)?0x[0-9a-f]+\]|c\[0x[0-9a-f]+\]\[(A\d\+\+?\+?)?0x[0-9a-f]+\]|global\d+\[R\d+\]|local ?\[(A\d\+\+?\+?)?0x[0-9a-f]+\]`)
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		hex, text, _ := strings.Cut(line, "\t")
		if strings.HasPrefix(text, "error") {
			continue
		}
		v, err := strconv.ParseUint(hex, 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := DecodeValue(v, 0)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(inst.Name(), "BRX") {
			continue // its c[] offset is in bytes, printed as is
		}
		printed := strings.ReplaceAll(strings.Join(tokenRE.FindAllString(Print(inst, 0), -1), " "), " [", "[")
		var mine []string
		for _, o := range inst.Resolve().Operands {
			if s := renderOperand(o); s != "" {
				mine = append(mine, s)
			}
		}
		if got := strings.Join(mine, " "); got != printed {
			t.Errorf("%s (%#x):\n resolved %s\n  printed %s", Print(inst, 0), v, got, printed)
		}
		n++
	}
	if n < 500 {
		t.Fatalf("only %d instructions checked", n)
	}
}

func renderOperand(o Operand) string {
	addr := func(prefix string, size uint8) string {
		a := ""
		if o.Areg != 0 {
			a = fmt.Sprintf("A%d+", o.Areg)
			if o.Inc {
				a += "++"
			}
		}
		return fmt.Sprintf("%s[%s%#x]", prefix, a, o.Offset/uint32(max(size, 1)))
	}
	switch o.Kind {
	case OpReg:
		if o.Half {
			return fmt.Sprintf("R%d%c", o.Reg>>1, "LH"[o.Reg&1])
		}
		return fmt.Sprintf("R%d", o.Reg)
	case OpOut:
		return fmt.Sprintf("o[%#x]", o.Reg)
	case OpShared:
		return addr("g", o.Size)
	case OpConst:
		return addr(fmt.Sprintf("c[%#x]", o.Bank), o.Size)
	case OpGlobal:
		return fmt.Sprintf("global%d[R%d]", o.Bank, o.Reg)
	case OpLocal:
		return addr("local", o.Size)
	}
	return ""
}
