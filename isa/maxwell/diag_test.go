package maxwell

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa/asm"
)

// TestDiagnostics: each kind of mistake gets its own message, at the column
// of the piece that is wrong.
func TestDiagnostics(t *testing.T) {
	for _, c := range []struct {
		src  string // one or more lines; the error is on the last
		col  int
		want string
	}{
		// unknown mnemonic, with the closest known ones
		{"FADDD R1, R2, R3 ;", 1, "unknown mnemonic FADDD (closest: FADD, DADD, HADD2)"},
		{"        /*0008*/   @P0 IMAD.WIDE R1, R2, R3, R4 ;", 28, "unknown modifier .WIDE for IMAD (it takes .HI .PO"},
		// unknown modifier, listing the ones the mnemonic takes
		{"IADD.FOO R1, R2, R3 ;", 5, "unknown modifier .FOO for IADD (it takes .PO .SAT .X)"},
		{"LDG.E.CS R2, [R4] ;", 6, "unknown modifier .CS for LDG (it takes"},
		// a modifier in the wrong place
		{"IADD.X.SAT R1, R2, R3 ;", 7, "modifier .SAT is misplaced or does not go with the others: IADD takes them in the order .PO .SAT .X"},
		// registers and predicates out of range
		{"MOV R300, R2 ;", 5, "register R300 out of range (R0..R254, or RZ)"},
		{"FFMA R1, R2, R255, R3 ;", 14, "register R255 out of range"},
		{"ISETP.GE.AND P7, PT, R1, R2, PT ;", 14, "predicate P7 out of range (P0..P6, or PT)"},
		{"@P9 MOV R1, R2 ;", 1, "bad guard predicate @P9"},
		// immediates out of range, with the range
		{"IADD R1, R2, 0x12345678 ;", 14, "immediate 0x12345678 out of range: this field takes -0x80000..0x7ffff"},
		{"LDG.E R2, [R4+0x1000000] ;", 15, "immediate 0x1000000 out of range: this field takes -0x800000..0x7fffff"},
		{"MOV32I R1, 0x123456789 ;", 12, "this field takes 0x0..0xffffffff"},
		{"IADD R1, R2, c[0x0][0x3] ;", 21, "0x3 must be a multiple of 4 here"},
		{"FADD R1, R2, 1.1 ;", 14, "float 1.1 is not exact in this form's immediate"},
		// labels
		{"BRA nowhere ;", 5, "undefined label nowhere"},
		{"SSY `(.L_x_9) ;", 5, "undefined label .L_x_9"},
		{"x:\nMOV R1, R2 ;\nx: MOV R1, R3 ;", 1, "label x defined twice (first on line 1)"},
		// control fields written as text
		{"[B------:R-:W-:Y:S16] MOV R1, R2 ;", 1, "control field S16 out of range: stall counts are 0..15"},
		{"[B------:R-:W7:Y:S01] LDG.E R2, [R4] ;", 1, "control field W7 out of range: barriers are 0..5"},
		{"[B0---6-:R-:W-:Y:S01] MOV R1, R2 ;", 1, "control field B0---6- out of range: it waits on barrier 6"},
		{"[B------:R-:W-:Y] MOV R1, R2 ;", 1, "bad control fields"},
		{"        /* 0x1234567890abcdef12 */", 1, "control word 0x1234567890abcdef12 is wider than 64 bits"},
		// nothing more precise to say: the operand shapes each form takes
		{"FADD R1, R2, R3, R4 ;", 6, "no form of FADD takes these operands; its forms: R, R, R | R, R, c[imm][imm] | R, R, float"},
	} {
		_, err := Assemble("t.s", []byte(c.src), 52)
		var el asm.ErrorList
		if !errors.As(err, &el) || len(el) == 0 {
			t.Errorf("%q: no error (%v)", c.src, err)
			continue
		}
		e := el[len(el)-1]
		line := strings.Count(c.src, "\n") + 1
		if !strings.Contains(e.Msg, c.want) || e.Pos.Line != line || e.Pos.Col != c.col {
			t.Errorf("%q:\n got %d:%d: %s\nwant %d:%d: %s", c.src, e.Pos.Line, e.Pos.Col, e.Msg, line, c.col, c.want)
		}
	}
}

// TestControlFields: control fields written as text set the bundle's
// control word, with the reuse bits the text implies.
func TestControlFields(t *testing.T) {
	src := "[B01----:R-:W2:Y:S04] LDG.E R2, [R4] ;\n[B--2---:R3:W-:-:S06] STG.E [R6], R2 ;\nMOV R1, R2 ;\n" +
		"[B------:R-:W-:Y:S01] FADD R1, R2.reuse, R3 ;\n"
	code, err := Assemble("t.s", []byte(src), 52)
	if err != nil {
		t.Fatal(err)
	}
	cw := binary.LittleEndian.Uint64(code)
	if got, want := CtrlField(cw, 0), MakeCtrl(4, true, 2, 7, 3, 0); got != want {
		t.Errorf("LDG control field %#x, want %#x", got, want)
	}
	if got, want := CtrlField(cw, 1), MakeCtrl(6, false, 7, 3, 4, 0); got != want {
		t.Errorf("STG control field %#x, want %#x", got, want)
	}
	if got := CtrlField(cw, 2); got != NeutralCtrl {
		t.Errorf("MOV control field %#x, want the neutral %#x", got, NeutralCtrl)
	}
	cw = binary.LittleEndian.Uint64(code[32:])
	if got, want := CtrlField(cw, 0), MakeCtrl(1, true, 7, 7, 0, 1); got != want {
		t.Errorf("FADD control field %#x, want %#x (reuse from the text)", got, want)
	}
}
