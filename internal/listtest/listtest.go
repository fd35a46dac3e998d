// Package listtest holds what the ISA packages' listing tests share: random
// valid code of a fixed seed, the byte-identity check of a streamed listing
// and the listing-speed benchmark.
package listtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// RandomCode is n random valid instructions (seed 13, 5): valid reports the
// length of the instruction at the start of w (8 bytes), 0 when it does not
// decode.
func RandomCode(n int, valid func(w []byte) int) []byte {
	r := rand.New(rand.NewPCG(13, 5))
	var code []byte
	var b [8]byte
	for k := 0; k < n; {
		binary.LittleEndian.PutUint64(b[:], r.Uint64())
		if l := valid(b[:]); l > 0 {
			code = append(code, b[:l]...)
			k++
		}
	}
	return code
}

// Writer is an ISA's streamed listing (WriteListingFrom with no options).
type Writer func(w io.Writer, code io.Reader, base uint64) error

// CheckUnchanged checks that the streamed listing of code equals out and
// that out's sha256 is want (the hash the printer had before its hot paths
// were rewritten; a deliberate change of text puts the new hash there).
func CheckUnchanged(t *testing.T, code, out []byte, write Writer, want string) {
	t.Helper()
	var streamed bytes.Buffer
	if err := write(&streamed, bytes.NewReader(code), 0x1000); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), out) {
		t.Errorf("WriteListingFrom differs from Disassemble")
	}
	CheckHash(t, "listing", out, want)
}

// CheckHash checks out's sha256 against want.
func CheckHash(t *testing.T, what string, out []byte, want string) {
	t.Helper()
	sum := sha256.Sum256(out)
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("%s (%d bytes): sha256 %s, want %s", what, len(out), got, want)
	}
}

// BenchWrite measures the streamed listing of code (n instructions) to
// io.Discard, reporting instructions per second and per CPU-second.
func BenchWrite(b *testing.B, code []byte, n int, write Writer) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		if err := write(io.Discard, bytes.NewReader(code), 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minsn/s")
	cpu.Report(float64(n)/1e6, "Minsn")
	b.SetBytes(int64(len(code)))
}
