package cc

import "testing"

// TestCompareAfterSubtraction checks the comparisons against the signed
// order of a and b, the flags being those of a-b (Z: zero, S: sign of the
// 32-bit difference, O: signed overflow); the unordered state (Z and S)
// cannot come from a subtraction, so the U codes equal their ordered twins
// there and NAN never holds.
func TestCompareAfterSubtraction(t *testing.T) {
	vals := []int32{-1 << 31, -5, -1, 0, 1, 7, 1<<31 - 1}
	for _, a := range vals {
		for _, b := range vals {
			d := a - b
			z, s := d == 0, d < 0
			o := (a < 0) != (b < 0) && (d < 0) != (a < 0)
			lt, eq := a < b, a == b
			want := [16]bool{false, lt, eq, lt || eq, !lt && !eq, !eq, !lt, true,
				false, lt, eq, lt || eq, !lt && !eq, !eq, !lt, true}
			for code, w := range want {
				if got := Compare(code, z, s, o); got != w {
					t.Errorf("code %d after %d-%d: %v, want %v", code, a, b, got, w)
				}
			}
		}
	}
	// unordered: only NAN, the U codes and T hold
	for code, w := range [16]bool{false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true} {
		if got := Compare(code, true, true, false); got != w {
			t.Errorf("code %d unordered: %v, want %v", code, got, w)
		}
	}
}
