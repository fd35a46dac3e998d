package maxwell

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// TestFactsOracle: Facts gives ptxas's register and barrier counts and its
// EXIT and S2R SR_CTAID offsets for every function of the oracle cubins.
func TestFactsOracle(t *testing.T) {
	n := 0
	oracleFunctions(t, func(name string, f *cubin.File, fn *cubin.Function) {
		n++
		{
			got := Facts(fn.Code, f.SM())
			if got.Registers != fn.Registers {
				t.Errorf("%s: %d registers, ptxas says %d", name, got.Registers, fn.Registers)
			}
			if got.Barriers != fn.Barriers {
				t.Errorf("%s: %d barriers, ptxas says %d", name, got.Barriers, fn.Barriers)
			}
			offsets := func(id uint8) []uint32 {
				var out []uint32
				for _, a := range fn.Info {
					if a.ID == id {
						for i := 0; i+4 <= len(a.Data); i += 4 {
							out = append(out, binary.LittleEndian.Uint32(a.Data[i:]))
						}
					}
				}
				return out
			}
			if want := offsets(cubin.AttrExitInstrOffsets); !slices.Equal(got.Exits, want) {
				t.Errorf("%s: exits at %x, ptxas says %x", name, got.Exits, want)
			}
			if want := offsets(cubin.AttrS2RCTAIDInstrOffsets); !slices.Equal(got.CTAIDReads, want) {
				t.Errorf("%s: SR_CTAID reads at %x, ptxas says %x", name, got.CTAIDReads, want)
			}
		}
	})
	t.Logf("%d functions checked", n)
}
