package fermi

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

// randomValidCode is n random valid instructions (a fixed seed): every
// form with random operands, the mix listing speed is measured on.
func randomValidCode(n int) []byte {
	r := rand.New(rand.NewPCG(13, 5))
	var code []byte
	var b [8]byte
	for k := 0; k < n; {
		binary.LittleEndian.PutUint64(b[:], r.Uint64())
		if inst, err := Decode(b[:]); err == nil {
			code = append(code, b[:inst.Len()]...)
			k++
		}
	}
	return code
}

// TestListingUnchanged: the listing of random valid instructions is byte
// for byte what the printer printed before its hot paths were rewritten
// (the oracle tests check real code against cuobjdump; both dialects are listed). If the text of an
// instruction changes on purpose, put the new hash here.
func TestListingUnchanged(t *testing.T) {
	code := randomValidCode(1 << 17)
	out, errs := Disassemble(nil, code, 0x1000)
	if len(errs) > 0 {
		t.Fatalf("%d decode errors, first %v", len(errs), errs[0])
	}
	var streamed bytes.Buffer
	if err := WriteListingFrom(&streamed, bytes.NewReader(code), 0x1000, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), out) {
		t.Errorf("WriteListingFrom differs from Disassemble")
	}
	sum := sha256.Sum256(out)
	if got, want := hex.EncodeToString(sum[:]), "e0698aea39689ce15cc7d344edb94f34c97ed4335de0f9e10685ddb70d36af49"; got != want {
		t.Errorf("listing of %d random instructions (%d bytes): sha256 %s, want %s", 1<<17, len(out), got, want)
	}
	old, _ := DisassembleDialect(nil, code, 0x1000, Old)
	sum = sha256.Sum256(old)
	if got, want := hex.EncodeToString(sum[:]), "206d77b7322a989ef30b8b8a319de0d3c39519017f9b52af9d7e930ff28be11d"; got != want {
		t.Errorf("old-dialect listing of %d random instructions (%d bytes): sha256 %s, want %s", 1<<17, len(old), got, want)
	}
}

// BenchmarkWriteListingRandom is the streamed listing (dis -arch of a raw
// file) of 1M random valid instructions, to io.Discard, on every core.
func BenchmarkWriteListingRandom(b *testing.B) {
	const n = 1 << 20
	code := randomValidCode(n)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		if err := WriteListingFrom(io.Discard, bytes.NewReader(code), 0, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minsn/s")
	cpu.Report(n/1e6, "Minsn")
}
