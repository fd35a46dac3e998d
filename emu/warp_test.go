package emu

import "testing"

// The divergence stack, driven directly: these are the operations the ISA
// packages call (Tesla SSY/.S, BRA, CAL/RET; Fermi/Maxwell PBK/BRK, PCNT/CONT).

func newWarp(active uint32) *Warp { return &Warp{Active: active, Exited: ^active} }

func TestBranchAndJoin(t *testing.T) {
	w := newWarp(0xffffffff)
	w.PC = 1
	w.Push(StackSync, 10) // SSY 10
	w.Branch(0x0000ffff, 5, 2)
	if w.Active != 0x0000ffff || w.PC != 5 || w.Divergent != 1 {
		t.Fatalf("after branch: %+v", w)
	}
	// the taken path reaches the join at 10: switch to the waiting path
	w.PC = 10
	if w.Join() {
		t.Fatal("join ran the instruction before every path arrived")
	}
	if w.Active != 0xffff0000 || w.PC != 2 {
		t.Fatalf("after first join: active %#x pc %d", w.Active, w.PC)
	}
	w.PC = 10
	if w.Join() {
		t.Fatal("second arrival should pop the SSY entry first")
	}
	if w.Active != 0xffffffff || w.PC != 10 || !w.Rejoined {
		t.Fatalf("after rejoin: active %#x pc %d", w.Active, w.PC)
	}
	if !w.Join() || len(w.Stack) != 0 {
		t.Fatal("the rejoined warp must run the join instruction")
	}
}

func TestUniformBranch(t *testing.T) {
	w := newWarp(0xff)
	w.Branch(0xff, 7, 3)
	if w.PC != 7 || len(w.Stack) != 0 || w.Divergent != 0 {
		t.Fatalf("taken: %+v", w)
	}
	w.Branch(0, 9, 8)
	if w.PC != 8 || len(w.Stack) != 0 {
		t.Fatalf("not taken: %+v", w)
	}
}

func TestExitUnwinds(t *testing.T) {
	w := newWarp(0xf)
	w.Push(StackSync, 20)
	w.Branch(0x3, 5, 2)
	w.Exit(0x3) // the taken path ends
	if w.Active != 0xc || w.PC != 2 {
		t.Fatalf("after exit: active %#x pc %d", w.Active, w.PC)
	}
	w.PC = 20
	w.Join() // last path arrives: only the live lanes rejoin
	if w.Active != 0xc || w.PC != 20 {
		t.Fatalf("rejoin after exit: active %#x pc %d", w.Active, w.PC)
	}
	w.Exit(0xc)
	if !w.Done {
		t.Fatal("warp not done")
	}
}

func TestCallRet(t *testing.T) {
	w := newWarp(0xf)
	w.Call(50, 3)
	w.Ret(0x5) // two lanes return early, they wait at 3
	if w.Active != 0xa || w.Done {
		t.Fatalf("partial ret: active %#x", w.Active)
	}
	w.Ret(0xa)
	if w.Active != 0xf || w.PC != 3 || len(w.Stack) != 0 {
		t.Fatalf("after ret: active %#x pc %d", w.Active, w.PC)
	}
	w.Ret(0x1) // a return at top level ends the lanes
	if w.Exited&1 == 0 || w.Active != 0xe {
		t.Fatalf("top-level ret: active %#x exited %#x", w.Active, w.Exited)
	}
}

func TestBreakClearsInnerEntries(t *testing.T) {
	w := newWarp(0xf)
	w.Push(StackBreak, 100) // PBK 100
	w.Push(StackSync, 40)   // SSY 40 inside the loop
	w.Branch(0x3, 30, 11)
	w.Break(0x1) // lane 0 breaks inside the if
	if w.Stack[len(w.Stack)-1].Mask&1 != 0 || w.Stack[1].Mask&1 != 0 {
		t.Fatalf("break left lane 0 in inner entries: %+v", w.Stack)
	}
	w.PC = 40
	w.Join() // lane 1 reaches the join: switch to lanes 2,3
	if w.Active != 0xc || w.PC != 11 {
		t.Fatalf("active %#x pc %d", w.Active, w.PC)
	}
	w.PC = 40
	w.Join()
	if w.Active != 0xe {
		t.Fatalf("rejoin must not revive the lane that broke: %#x", w.Active)
	}
	w.Break(0xe)
	if w.Active != 0xf || w.PC != 100 {
		t.Fatalf("after the loop: active %#x pc %d", w.Active, w.PC)
	}
}

func TestContinue(t *testing.T) {
	w := newWarp(0x3)
	w.Push(StackCont, 7)
	w.Cont(0x1)
	w.Cont(0x2)
	if w.Active != 0x3 || w.PC != 7 {
		t.Fatalf("continue: active %#x pc %d", w.Active, w.PC)
	}
}

func TestStackOverflow(t *testing.T) {
	w := newWarp(1)
	for range MaxStackDepth + 1 {
		w.Call(0, 0)
	}
	if w.Fault == nil {
		t.Fatal("no overflow fault")
	}
}
