package cubinasm

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// TestPatchIdentity: patching any function of any oracle or committed cubin
// with its own listing gives the cubin back byte for byte: everything Patch
// recomputes (sizes, registers, barriers, relocations, EXIT and SR_CTAID
// offsets) comes out as ptxas made it, and nothing else moves.
func TestPatchIdentity(t *testing.T) {
	cubins := oracleCubins(t)
	for k, v := range ownCubins(t) {
		cubins[k] = v
	}
	n := 0
	for _, k := range sortedKeys(cubins) {
		orig := cubins[k]
		f, err := cubin.Parse(orig)
		if err != nil {
			t.Fatal(err)
		}
		listing := list(t, orig, maxwell.ListOptions{})
		for _, fn := range f.Functions {
			n++
			out, warnings, err := Patch(orig, fn.Name, k+".s", listing)
			if err != nil {
				t.Errorf("%s %s: %v", k, fn.Name, err)
				continue
			}
			if len(warnings) > 0 {
				t.Errorf("%s %s: warnings %v", k, fn.Name, warnings)
			}
			if !bytes.Equal(out, orig) {
				t.Errorf("%s %s: %s", k, fn.Name, strings.Join(Compare(out, orig), "; "))
			}
		}
	}
	t.Logf("%d functions patched with their own code", n)
}
