package fermi

import "testing"

func TestMods(t *testing.T) {
	for _, c := range []struct {
		text string
		want map[string]uint32
	}{
		{"ISETP.LT.U32.X.AND P1, PT, R7, R5, PT;", map[string]uint32{"icmp": 1, ".U32": 1, ".X": 1, "bop": 0, ".S": 0}},
		{"ISETP.GE.AND.S P1, PT, R7, R5, PT;", map[string]uint32{"icmp": 6, ".U32": 0, ".X": 0, ".S": 1}},
		{"FFMA.FTZ.RP.SAT R1, R2, R3, R4;", map[string]uint32{".FTZ": 1, ".FMZ": 0, "rnd": 2, ".SAT": 1}},
		{"RED.E.ADD.U64 [R2], R4;", map[string]uint32{".E": 1, ".ADD.U64": 1}},
		{"VADD.UD.U32.U8.B2.ACC R1, R2, R3, R4;", map[string]uint32{".UD": 1, "vtype": 6 | 0<<3 | 2<<4 | 0<<7, "vred": 4}},
		{"LD.E.CV.64 R2, [R4+0x8];", map[string]uint32{".E": 1, "ldc": 3, "ldt": 5}},
	} {
		inst, err := AssembleLine(c.text, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		for name, want := range c.want {
			got, ok := inst.Mod(name)
			if !ok || got != want {
				t.Errorf("%s: Mod(%q) = %d, %v; want %d", c.text, name, got, ok, want)
			}
		}
		if _, ok := inst.Mod(".NOPE"); ok {
			t.Errorf("%s: has .NOPE", c.text)
		}
	}
	for i := range forms {
		if len(forms[i].mods) > MaxMods {
			t.Errorf("form %s has %d modifiers > MaxMods", forms[i].name, len(forms[i].mods))
		}
	}
}
