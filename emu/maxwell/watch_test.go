package maxwell

import (
	"bytes"
	"strings"
	"testing"
)

// TestTraceWrites: the trace shows, after each instruction, the registers
// it wrote (also when the value stays), its predicate, and each lane's
// store with the device address and value.
func TestTraceWrites(t *testing.T) {
	var out bytes.Buffer
	d := newDevice(t, ownCubin(t, "sm_52"), "sm_52")
	d.trace = &out
	x := []float32{1, 2, 3}
	y := []float32{10, 20, 30}
	d.alloc("x", fromF32(x))
	d.alloc("y", fromF32(y))
	d.launch("saxpy", dim(1, 1), dim(3, 1), 0, uint32(3), float32(2), buf("x"), buf("y"))
	tr := out.String()
	for _, w := range []string{
		"S2R R", "wrote R", "(lanes 00000007)", // a register the 3 lanes wrote alike
		"wrote P0=",                                                         // ISETP's predicate, unchanged or not
		"=0x41400000(lane 0)", "=0x41c00000(lane 1)", "=0x42100000(lane 2)", // y = 2x + y stored
	} {
		if !strings.Contains(tr, w) {
			t.Errorf("trace lacks %q", w)
		}
	}
	if !strings.Contains(tr, "[0x1000") {
		t.Errorf("stores do not show device addresses:\n%s", tr)
	}
}
