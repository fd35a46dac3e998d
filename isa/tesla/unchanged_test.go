package tesla

import (
	"io"
	"testing"

	"github.com/gpuisa/gpuisa/internal/listtest"
)

// randomValidCode is n random valid instructions (a fixed seed): every
// form with random operands, the mix listing speed is measured on.
func randomValidCode(n int) []byte {
	return listtest.RandomCode(n, func(w []byte) int {
		if inst, err := Decode(w, 0); err == nil {
			return int(inst.Len)
		}
		return 0
	})
}

// writeListing is the streamed listing dis -arch prints for a raw file.
func writeListing(w io.Writer, code io.Reader, base uint64) error {
	return WriteListingFrom(w, code, base, nil)
}

// TestListingUnchanged: the listing of random valid instructions is byte
// for byte what the printer printed before its hot paths were rewritten
// (the oracle tests check real code against NVIDIA's or Sony's listings). If
// the text of an instruction changes on purpose, put the new hash here.
func TestListingUnchanged(t *testing.T) {
	code := randomValidCode(1 << 17)
	out, errs := Disassemble(nil, code, 0x1000)
	if len(errs) > 0 {
		t.Fatalf("%d decode errors, first %v", len(errs), errs[0])
	}
	listtest.CheckUnchanged(t, code, out, writeListing, "d7566bf62edc07bacaaa01fbc6a0f4cb3c509576289fdd9a9902d0788fd577ad")
}

// BenchmarkWriteListingRandom is the streamed listing (dis -arch of a raw
// file) of 1M random valid instructions, to io.Discard.
func BenchmarkWriteListingRandom(b *testing.B) {
	const n = 1 << 20
	listtest.BenchWrite(b, randomValidCode(n), n, writeListing)
}
