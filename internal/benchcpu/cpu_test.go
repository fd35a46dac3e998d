package benchcpu

import "testing"

func TestNowAdvances(t *testing.T) {
	a := Now()
	if a == 0 {
		t.Skip("this system does not say the process's CPU time")
	}
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i ^ x
	}
	if b := Now(); b <= a {
		t.Fatalf("CPU time did not advance: %v -> %v (%d)", a, b, x)
	}
}
