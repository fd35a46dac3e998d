package maxwell

import (
	"strings"
	"testing"
)

// The decoder lists an all-zero word as NOP (as nvdisasm does), but the
// emulator does not run it: a kernel reaching one faults at it.
func TestZeroWordFaults(t *testing.T) {
	p, err := Lower(make([]byte, 32), 52)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range p.errs {
		if e == nil || !strings.Contains(e.Error(), "all-zero instruction word") || p.ops[i].kind != kInvalid {
			t.Errorf("slot %d: %v, kind %d", i, e, p.ops[i].kind)
		}
	}
}
