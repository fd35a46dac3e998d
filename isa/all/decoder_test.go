package all

import (
	"errors"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/fermi"
	"github.com/gpuisa/gpuisa/isa/maxwell"
	"github.com/gpuisa/gpuisa/isa/tesla"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// TestDecodersOutsideCode: every ISA's Decoder.Decode(code, addr) answers
// an address before Base or past the code with an *isa.DecodeError naming
// it, not a panic.
func TestDecodersOutsideCode(t *testing.T) {
	code := make([]byte, 64)
	const base = 0x100
	decoders := map[string]func(addr uint64) error{
		"tesla":   func(a uint64) error { _, err := tesla.Decoder{Base: base}.Decode(code, a); return err },
		"fermi":   func(a uint64) error { _, err := fermi.Decoder{Base: base}.Decode(code, a); return err },
		"maxwell": func(a uint64) error { _, err := maxwell.Decoder{SM: 52, Base: base}.Decode(code, a); return err },
		"usse":    func(a uint64) error { _, err := usse.Decoder{Base: base}.Decode(code, a); return err },
	}
	for name, decode := range decoders {
		for _, addr := range []uint64{0, base - 1, base + 64, base + 1<<40, 1 << 63} {
			var de *isa.DecodeError
			if err := decode(addr); !errors.As(err, &de) || de.Addr != addr {
				t.Errorf("%s at %#x: %v", name, addr, err)
			}
		}
	}
}
