package benchcpu

import "testing"

func TestNowAdvances(t *testing.T) {
	a := Now()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i ^ x
	}
	if b := Now(); b <= a {
		t.Fatalf("CPU time did not advance: %v -> %v (%d)", a, b, x)
	}
}
