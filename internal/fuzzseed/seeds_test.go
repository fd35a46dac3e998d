package fuzzseed

import (
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// TestAllAttrs: the rewritten cubins parse and carry every attribute
// number in every .nv.info section.
func TestAllAttrs(t *testing.T) {
	n := 0
	for _, s := range Containers() {
		f, err := cubin.Parse(s.Data)
		if err != nil {
			continue
		}
		if len(s.Name) < 6 || s.Name[len(s.Name)-6:] != "+attrs" {
			continue
		}
		n++
		for _, fn := range f.Functions {
			seen := map[uint8]bool{}
			for _, a := range fn.Info {
				seen[a.ID] = true
			}
			if len(seen) < 0x50 && len(fn.Info) > 0 {
				t.Errorf("%s: function %s has %d attribute kinds", s.Name, fn.Name, len(seen))
			}
		}
	}
	if n < 5 {
		t.Errorf("%d rewritten cubins", n)
	}
}
