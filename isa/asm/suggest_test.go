package asm

import (
	"sort"
	"strings"
	"testing"
)

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

// TestClosestSkipsFar: skipping names whose length alone puts them past
// the limit changes no suggestion.
func TestClosestSkipsFar(t *testing.T) {
	known := []string{"FADD", "DADD", "FMUL", "IADD", "MOV", "S2R", "BRA", "EXIT", "IADD32I", "LDG.E.CI", "ISETP.GE.U32.AND", "X"}
	all := func(name string) string { // every name compared, as before
		var out []string
		for d := 0; d <= max(2, len(name)/2) && len(out) < 3; d++ {
			var at []string
			for _, k := range known {
				if EditDistance(name, k) == d {
					at = append(at, k)
				}
			}
			sort.Strings(at)
			out = append(out, at[:min(len(at), 3-len(out))]...)
		}
		if len(out) == 0 {
			return ""
		}
		return " (closest: " + strings.Join(out, ", ") + ")"
	}
	names := []string{"", "F", "FAD", "FADDD", "IADD32", "ISETP.GE", "LDG.E", "ISETP.GE.U32.ANDX", "EXITEXITEXIT", "MOVV", "XX", "S2RR2S",
		"a mistyped token longer than thirty-two bytes, with ISETP in it"}
	// and every name with one or two bytes changed, dropped or doubled
	for _, k := range known {
		for i := range k {
			names = append(names, k[:i]+"Q"+k[i+1:], k[:i]+k[i+1:], k[:i+1]+k[i:], k[:i]+"ZZ"+k[min(i+2, len(k)):])
		}
	}
	for _, name := range names {
		if got, want := Closest(name, known), all(name); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}
