package maxwell

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// regs parses "4-7 9" into a register set.
func regs(s string) RegSet {
	var set RegSet
	for _, f := range strings.Fields(s) {
		var lo, hi int
		if n, _ := fmt.Sscanf(f, "%d-%d", &lo, &hi); n == 2 {
			set.Add(lo, hi-lo+1)
		} else if _, err := fmt.Sscanf(f, "%d", &lo); err == nil {
			set.Add(lo, 1)
		}
	}
	return set
}

// TestAccessExamples: what instructions read and write, with the widths
// and roles the brief for the roles names (predicate destinations, CC,
// atomics' old values, texture and memory widths, pairs, conversions).
func TestAccessExamples(t *testing.T) {
	for _, c := range []struct {
		text          string
		written, read string
		pw, pr        uint8
		cc            Role
	}{
		{"ISETP.GE.AND P0, P1, R2, R3, !P2 ;", "", "2 3", 0x3, 0x4, RoleNone},
		{"@P3 IADD R4.CC, R2, R3 ;", "4", "2 3", 0, 0x8, RoleWrite},
		{"IADD.X R5, R2, R3 ;", "5", "2 3", 0, 0, RoleRead},
		{"IADD.X R5.CC, R2, R3 ;", "5", "2 3", 0, 0, RoleReadWrite},
		{"ISETP.GE.U32.X.AND P0, PT, R3, R5, PT ;", "", "3 5", 0x1, 0, RoleRead},
		{"DFMA R4, R6, R8, R10 ;", "4-5", "6-11", 0, 0, RoleNone},
		{"DSETP.LT.AND P0, PT, R6, R8, PT ;", "", "6-9", 0x1, 0, RoleNone},
		{"F2F.F64.F32 R4, R6 ;", "4-5", "6", 0, 0, RoleNone},
		{"F2I.S64.F64.TRUNC R4, R6 ;", "4-5", "6-7", 0, 0, RoleNone},
		{"I2F.F64.S64 R4, R6 ;", "4-5", "6-7", 0, 0, RoleNone},
		{"MUFU.RCP64H R5, R7 ;", "5", "7", 0, 0, RoleNone},
		{"LDG.E.64 R4, [R2] ;", "4-5", "2-3", 0, 0, RoleNone},
		{"LDG.E.128 R4, [R2+0x10] ;", "4-7", "2-3", 0, 0, RoleNone},
		{"LDG.128 R4, [R2] ;", "4-7", "2", 0, 0, RoleNone},
		{"LDS.U.128 R4, [R2] ;", "4-7", "2", 0, 0, RoleNone},
		{"LDL.S8 R4, [R2] ;", "4", "2", 0, 0, RoleNone},
		{"LDC.64 R4, c[0x3][R2+0x8] ;", "4-5", "2", 0, 0, RoleNone},
		{"ST.E.128 [R2], R4 ;", "", "2-7", 0, 0, RoleNone},
		{"STS.64 [R2], R4 ;", "", "2 4 5", 0, 0, RoleNone},
		{"ATOM.E.ADD R4, [R2], R6 ;", "4", "2 3 6", 0, 0, RoleNone},
		{"ATOM.E.ADD.U64 R4, [R2], R6 ;", "4-5", "2 3 6 7", 0, 0, RoleNone},
		{"ATOM.E.CAS.64 R4, [R2], R6, R8 ;", "4-5", "2 3 6-9", 0, 0, RoleNone},
		{"ATOM.E.CAS R4, [R2], R6, R7 ;", "4", "2 3 6 7", 0, 0, RoleNone},
		{"ATOMS.ADD R4, [R2], R6 ;", "4", "2 6", 0, 0, RoleNone},
		{"RED.E.ADD [R2], R4 ;", "", "2 3 4", 0, 0, RoleNone},
		{"TEX R0, R4, R8, 0x52, 2D, 0x7 ;", "0-2", "4 5", 0, 0, RoleNone},
		{"TEX.LL R0, R4, R8, 0x52, ARRAY_2D, 0xf ;", "0-3", "4-6 8", 0, 0, RoleNone},
		{"TEX.B.DC R0, R4, R8, 0x0, 3D, 0x9 ;", "0-1", "4-6 8 9", 0, 0, RoleNone},
		{"TEXS R2, R0, R4, R5, 0x52, 2D, RGB ;", "0-2", "4 5", 0, 0, RoleNone},
		{"TEXS.LL RZ, R0, R4, R6, 0x52, 2D, RA ;", "0-1", "4 5 6", 0, 0, RoleNone},
		{"TLDS.LZ R2, R0, R4, R6, 0x52, ARRAY_2D, RGBA ;", "0-3", "4 6 7", 0, 0, RoleNone},
		{"TLD4S.R R2, R0, R4, R5, 0x52 ;", "0-3", "4 5", 0, 0, RoleNone},
		{"TXQ.B R4, R6, TEX_HEADER_DIMENSION, 0x0, 0x3 ;", "4-5", "6-7", 0, 0, RoleNone},
		{"TXD R4, R8, R12, 0x52, 2D, 0xf ;", "4-7", "8 9 12-15", 0, 0, RoleNone},
		{"SULD.P.2D.TRAP R0, [R4], 0x5 ;", "0-3", "4 5", 0, 0, RoleNone},
		{"SULD.D.BA.3D.64.TRAP R0, [R4], 0x5 ;", "0-1", "4-6", 0, 0, RoleNone},
		{"SUST.P.1D.RG.TRAP [R4], R0, 0x5 ;", "", "0 1 4", 0, 0, RoleNone},
		{"R2P PR, R2, 0x7f ;", "", "2", 0x7f, 0, RoleNone},
		{"R2P CC, R2, 0xf ;", "", "2", 0, 0, RoleWrite},
		{"P2R R2, PR, R3, 0x7f ;", "2", "3", 0, 0x7f, RoleNone},
		{"P2R R2, CC, RZ, 0xf ;", "2", "", 0, 0, RoleRead},
		{"HADD2.MRG_H0 R2, R3, R4 ;", "2", "2 3 4", 0, 0, RoleNone},
		{"SHFL.IDX P0, R2, R3, R4, 0x1f ;", "2", "3 4", 0x1, 0, RoleNone},
		{"VOTE.ALL R2, P1, P0 ;", "2", "", 0x2, 0x1, RoleNone},
		{"LOP.AND.NZ P0, R2, R3, R4 ;", "2", "3 4", 0x1, 0, RoleNone},
		{"CSETP.EQ.AND P0, PT, CC, PT ;", "", "", 0x1, 0, RoleRead},
		{"FFMA32I R2, R3, 0.5, R2 ;", "2", "2 3", 0, 0, RoleNone},
		{"PSETP.AND.AND P0, P1, P2, !P3, PT ;", "", "", 0x3, 0xc, RoleNone},
		{"BAR.SYNC 0x0 ;", "", "", 0, 0, RoleNone},
		{"@!P1 EXIT ;", "", "", 0, 0x2, RoleNone},
		{"SULD.D.BA.2D.TRAP R5, [R56], R5 ;", "5", "5 56 57", 0, 0, RoleNone},
	} {
		w, _, err := EncodeText(c.text, 0x8, 52, nil)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		inst, err := Decode(w, NeutralCtrl, 52, 0x8)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		o := inst.Operands(0x8)
		x := o.Access()
		if x.Written != regs(c.written) || x.Read != regs(c.read) || x.PredWritten != c.pw || x.PredRead != c.pr || x.CC != c.cc {
			t.Errorf("%s: writes %s P%02x, reads %s P%02x, CC %v; want writes %s P%02x, reads %s P%02x, CC %v", c.text,
				regList(x.Written, false), x.PredWritten, regList(x.Read, false), x.PredRead, x.CC,
				regList(regs(c.written), false), c.pw, regList(regs(c.read), false), c.pr, c.cc)
		}
	}
}

// TestRolesEveryForm: on random words of every form, every register,
// predicate, address, index and special-register operand has a role,
// immediates and names have none, a written operand is a register, a
// predicate or R2P's PR/CC, and the register ranges stay below RZ.
func TestRolesEveryForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	writers := 0
	for fi := range forms {
		randomInsts(rng, fi, 30, func(inst Inst) {
			o := inst.Operands(0x1000)
			wrote := false
			for k, a := range o.Args[:o.NArgs()] {
				switch a.Kind {
				case ArgReg, ArgPred, ArgMem, ArgCC, ArgSpecial:
					if a.Role == RoleNone {
						t.Fatalf("%s: operand %d (%v) without a role", forms[fi].name, k, a.Kind)
					}
				case ArgImm, ArgFloat, ArgTarget:
					if a.Role != RoleNone {
						t.Fatalf("%s: operand %d (%v) is %v", forms[fi].name, k, a.Kind, a.Role)
					}
				}
				if a.Role.Writes() {
					wrote = true
					if a.Kind != ArgReg && a.Kind != ArgPred && a.Kind != ArgEnum {
						t.Fatalf("%s: writes a %v operand", forms[fi].name, a.Kind)
					}
				}
				if first, n := a.Registers(); n > 0 && (first+n > 255 || n > 8) {
					t.Fatalf("%s: operand %d spans R%d..R%d", forms[fi].name, k, first, first+n-1)
				}
			}
			if wrote {
				writers++
			}
			_ = o.Access()
		})
	}
	if writers == 0 {
		t.Fatal("no form writes")
	}
}
