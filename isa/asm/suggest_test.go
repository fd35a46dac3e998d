package asm

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"FADD", "DADD", "FMUL", "IADD", "MOV"}
	if got := Closest("FADDD", known); got != " (closest: FADD, DADD, IADD)" {
		t.Errorf("Closest(FADDD) = %q", got)
	}
	if got := Closest("XYZZYQ", known); got != "" {
		t.Errorf("Closest(XYZZYQ) = %q, want none", got)
	}
	if d := EditDistance("kitten", "sitting"); d != 3 {
		t.Errorf("EditDistance = %d, want 3", d)
	}
}
