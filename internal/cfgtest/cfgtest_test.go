package cfgtest

import (
	"testing"

	"github.com/gpuisa/gpuisa/isa/cfg"
)

// Check finds a graph that disagrees with the text: a branch whose block
// does not jump to the target the text names, and a subroutine with no
// graph.
func TestCheck(t *testing.T) {
	rows := []Row{{0, "SSY 0x20;"}, {8, "@P0 BRA 0x18;"}, {0x10, "CAL 0x28;"}, {0x18, "NOP.S;"}, {0x20, "EXIT;"}, {0x28, "RET;"}}
	insts := []cfg.Inst{
		{Addr: 0, Push: cfg.Sync, PushTarget: 0x20},
		{Addr: 8, Kind: cfg.Jump, Cond: true, Targets: []uint64{0x18}},
		{Addr: 0x10, Kind: cfg.Call, Targets: []uint64{0x28}},
		{Addr: 0x18},
		{Addr: 0x20, Kind: cfg.Exit},
		{Addr: 0x28, Kind: cfg.Exit, PopTo: cfg.Return},
	}
	st, bad := Check(cfg.Program("k", insts, make([]string, len(insts)), 0), rows)
	if len(bad) != 0 || st.Jumps != 1 || st.JumpsOK != 1 || st.Pushes != 1 || st.CallsOK != 1 || st.EndsOK != 1 {
		t.Fatalf("right graph: %v %v", st, bad)
	}
	insts[1].Targets = []uint64{0x10} // not where the text says
	insts[2].Kind = cfg.Next          // no subroutine graph
	st, bad = Check(cfg.Program("k", insts, make([]string, len(insts)), 0), rows)
	if len(bad) != 2 || st.JumpsOK != 0 || st.CallsOK != 0 {
		t.Fatalf("wrong graph: %v %v", st, bad)
	}
	// Facts compares one instruction's facts with its text
	if ok, err := Facts(cfg.Inst{Kind: cfg.Jump, Cond: true, Targets: []uint64{0x18}}, "BRA C0.NE, 0x18;"); !ok || err != nil {
		t.Errorf("facts: %v %v", ok, err)
	}
	if _, err := Facts(cfg.Inst{Kind: cfg.Jump, Targets: []uint64{0x18}}, "@P1 BRA 0x18;"); err == nil {
		t.Error("an unconditional jump passed for a guarded BRA")
	}
	if ok, _ := Facts(cfg.Inst{}, "IADD R0, R1, R2;"); ok {
		t.Error("IADD taken for a control instruction")
	}
}
