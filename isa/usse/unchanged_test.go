package usse

import (
	"encoding/binary"
	"io"
	"testing"

	"github.com/gpuisa/gpuisa/internal/listtest"
)

// randomValidCode is n random valid instructions (a fixed seed): every
// form with random operands, the mix listing speed is measured on.
func randomValidCode(n int) []byte {
	return listtest.RandomCode(n, func(w []byte) int {
		if _, err := Decode(w, 0); err == nil {
			return 8
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
	listtest.CheckUnchanged(t, code, out, writeListing, "29da3de5d59a93feeaffa38d3fe95562fc4ad24712e311f3070e8825a0b35c77")
}

// TestOracleListingUnchanged is TestListingUnchanged for the code of the
// oracle's listings (shaders compiled by Sony's tools).
func TestOracleListingUnchanged(t *testing.T) {
	var code []byte
	for _, w := range allOracleWords(t) {
		code = binary.LittleEndian.AppendUint64(code, w.word)
	}
	out, _ := Disassemble(nil, code, 0)
	listtest.CheckHash(t, "listing of the oracle's words", out, "bf78dd0f5afd6fbaecb752f29279676c99161f084cf94c00c017b9c6937134e6")
}

// BenchmarkWriteListingRandom is the streamed listing (dis -arch of a raw
// file) of 1M random valid instructions, to io.Discard.
func BenchmarkWriteListingRandom(b *testing.B) {
	const n = 1 << 20
	listtest.BenchWrite(b, randomValidCode(n), n, writeListing)
}

// randomBytes is n random 64-bit words (a fixed seed), valid or not: about
// a third do not decode and list as .quad lines.
func randomBytes(n int) []byte {
	return listtest.RandomCode(n, func([]byte) int { return 8 })
}

// BenchmarkWriteListingRandomBytes is BenchmarkWriteListingRandom of 1M
// random words (dis -arch sgx543 of 8 MiB of random bytes).
func BenchmarkWriteListingRandomBytes(b *testing.B) {
	const n = 1 << 20
	listtest.BenchWrite(b, randomBytes(n), n, writeListing)
}
