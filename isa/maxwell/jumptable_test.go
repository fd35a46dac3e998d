package maxwell

import (
	"slices"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// nvdisasm warns at a jump table's BRX only without its dataflow analysis,
// never at a BRX the cubin marks as an indirect call, and always at a BRX
// the cubin does not list (see TestNvdisasmLive for the whole listings).
func TestUnresolvedBranches(t *testing.T) {
	call := parseCubinFile(t, "testdata/nvtools/cubin/switch.sm_52.li.cubin")
	fn := call.Function("jump")
	for _, ndf := range []bool{false, true} {
		if got := UnresolvedBranches(fn, 52, ndf); len(got) != 0 {
			t.Errorf("indirect call, -ndf %v: warnings at %#x", ndf, got)
		}
	}
	table := parseCubinFile(t, oracle.Path(t, "oracle/maxwell/cubin/sm_52/09_branches.O3.cubin"))
	fn = &table.Functions[0]
	if got := UnresolvedBranches(fn, 52, false); len(got) != 0 {
		t.Errorf("listed jump table: warnings at %#x", got)
	}
	if got := UnresolvedBranches(fn, 52, true); !slices.Equal(got, []uint64{0x1f0}) {
		t.Errorf("listed jump table, -ndf: warnings at %#x, want [0x1f0]", got)
	}
	fn.Info = nil // the table no longer listed
	if got := UnresolvedBranches(fn, 52, false); !slices.Equal(got, []uint64{0x1f0}) {
		t.Errorf("unlisted jump table: warnings at %#x, want [0x1f0]", got)
	}
}
