package fermi

import (
	"bytes"
	"io"
	"testing"

	"github.com/gpuisa/gpuisa/internal/listtest"
	"github.com/gpuisa/gpuisa/isa"
)

// randomValidCode is n random valid instructions (a fixed seed): every
// form with random operands, the mix listing speed is measured on.
func randomValidCode(n int) []byte {
	return listtest.RandomCode(n, func(w []byte) int {
		if inst, err := Decode(w); err == nil {
			return inst.Len()
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
	listtest.CheckUnchanged(t, code, out, writeListing, "e0698aea39689ce15cc7d344edb94f34c97ed4335de0f9e10685ddb70d36af49")
	old, _ := DisassembleDialect(nil, code, 0x1000, Old)
	listtest.CheckUnchanged(t, code, old, func(w io.Writer, code io.Reader, base uint64) error {
		return WriteListingFromDialect(w, code, base, Old, nil)
	}, "206d77b7322a989ef30b8b8a319de0d3c39519017f9b52af9d7e930ff28be11d")
}

// BenchmarkWriteListingRandom is the streamed listing (dis -arch of a raw
// file) of 1M random valid instructions, to io.Discard.
func BenchmarkWriteListingRandom(b *testing.B) {
	const n = 1 << 20
	listtest.BenchWrite(b, randomValidCode(n), n, writeListing)
}

// TestBytesListingStreamed: random bytes (mostly words that do not decode,
// instructions of both lengths across every part boundary) list the same
// streamed as not, in both dialects, with the same errors in order.
func TestBytesListingStreamed(t *testing.T) {
	code := randomBytes(256 << 10)
	for _, d := range []Dialect{New, Old} {
		want, wantErrs := DisassembleDialect(nil, code, 0x1000, d)
		var got bytes.Buffer
		var errs []string
		err := WriteListingFromDialect(&got, bytes.NewReader(code), 0x1000, d, func(e *isa.DecodeError) { errs = append(errs, e.Error()) })
		if err != nil || !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%v: streamed listing differs (%v)", d, err)
		}
		if len(errs) != len(wantErrs) || len(errs) == 0 {
			t.Fatalf("%v: %d errors streamed, %d listed", d, len(errs), len(wantErrs))
		}
		for i := range errs {
			if errs[i] != wantErrs[i].Error() {
				t.Fatalf("%v: error %d %q, want %q", d, i, errs[i], wantErrs[i])
			}
		}
	}
}
