package fermi

import (
	"testing"

	"github.com/gpuisa/gpuisa/internal/cfgtest"
)

// An SSY region with a predicated branch, a loop with PBK/BRK, a call and
// EXIT: blocks and edges, BRK and .S resolved through the stack.
func TestGraphsRegions(t *testing.T) {
	src := `
	SSY 0x30;
	@P0 BRA 0x20;
	MOV R0, R1;
	NOP.S;
	MOV R0, R2;
	NOP.S;
	PBK 0x60;
	IADD R0, R0, 0x1;
	ISETP.GT.AND P1, pt, R0, 0x9, pt;
	@P1 BRK;
	CAL 0x70;
	BRA 0x38;
	EXIT;
	RET;
	MOV R3, R4;
	RET;
`
	code, err := Assemble("regions.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fns, errs := Graphs(code, 0, "k")
	if len(errs) != 0 || len(fns) != 2 || fns[1].Name != "k@70" {
		t.Fatalf("errors %v, functions %+v", errs, fns)
	}
	want := "0x0-0x8: j0x20 f0x10\n0x10-0x18: j0x30\n0x20-0x28: j0x30\n0x30-0x30: f0x38\n0x38-0x48: j0x60 f0x50\n0x50-0x58: j0x38\n0x60-0x60:\n"
	if got := fns[0].Graph.String(); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	if got := fns[1].Graph.String(); got != "0x70-0x78:\n" {
		t.Errorf("subroutine:\n%s", got)
	}
}

// The branch facts of every control instruction of the oracle's sm_20
// rows (cuobjdump listings) are what NVIDIA's text at the row's address
// shows: kind, condition, target, stack entry.
func TestBranchFactsOracle(t *testing.T) {
	control, bad := 0, 0
	for _, r := range readOracle(t) {
		inst, err := DecodeWord(r.raw)
		if err != nil {
			continue // counted by the listing tests
		}
		ok, err := cfgtest.Facts(BranchFacts(inst, r.addr, 0), r.text)
		if !ok {
			continue
		}
		control++
		if err != nil {
			if bad++; bad <= 20 {
				t.Errorf("%#x %#016x %s: %v", r.addr, r.raw, r.text, err)
			}
		}
	}
	t.Logf("%d/%d control instructions right", control-bad, control)
	if control < 1000 {
		t.Errorf("only %d control instructions", control)
	}
}
