package fermi

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
)

// benchCode is the golden testdata's 8-byte instructions (ordinary
// compiler-like code: every form, realistic operands) repeated to 8 KiB.
func benchCode(tb testing.TB) []byte {
	var b []byte
	for len(b) < 8192 {
		for _, c := range readGolden(tb) {
			if c.dialect == "new" && c.raw&8 == 0 {
				b = binary.LittleEndian.AppendUint64(b, c.raw)
			}
		}
	}
	return b
}

func BenchmarkDecode(b *testing.B) {
	code := benchCode(b)
	n := len(code) / 8
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for off := 0; off < len(code); off += 8 {
			if _, err := Decode(code[off:]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "inst/s")
}

func BenchmarkPrint(b *testing.B) {
	code := benchCode(b)
	var insts []Inst
	for off := 0; off < len(code); off += 8 {
		inst, _ := Decode(code[off:])
		insts = append(insts, inst)
	}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, inst := range insts {
			buf = AppendText(buf[:0], inst, uint64(k)*8)
		}
	}
	b.ReportMetric(float64(b.N*len(insts))/b.Elapsed().Seconds(), "inst/s")
}

func BenchmarkDisassemble(b *testing.B) { benchDisassemble(b, benchCode(b)) }

func BenchmarkAssemble(b *testing.B) { benchAssemble(b, benchCode(b)) }

// benchDisassemble lists code b.N times and reports instructions per second.
func benchDisassemble(b *testing.B, code []byte) {
	buf := make([]byte, 0, len(code)*16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf, _ = Disassemble(buf[:0], code, 0)
	}
	b.ReportMetric(float64(b.N*len(code)/8)/b.Elapsed().Seconds(), "inst/s")
}

// benchAssemble assembles code's listing b.N times and reports instructions
// per second.
func benchAssemble(b *testing.B, code []byte) {
	src, _ := Disassemble(nil, code, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Assemble("b.s", src); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(code)/8)/b.Elapsed().Seconds(), "inst/s")
}

// TestAssembleAllocsPerLine checks that the assembler's allocations do not
// grow with the number of lines (a handful per file: output, label map).
func TestAssembleAllocsPerLine(t *testing.T) {
	code := benchCode(t)
	one, _ := Disassemble(nil, code, 0)
	two, _ := Disassemble(nil, append(append([]byte{}, code...), code...), 0)
	count := func(src []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			if _, err := Assemble("a.s", src); err != nil {
				t.Fatal(err)
			}
		})
	}
	a1, a2 := count(one), count(two)
	t.Logf("%d lines: %v allocations, %d lines: %v", len(code)/8, a1, 2*len(code)/8, a2)
	if a2 > a1 {
		t.Errorf("%d lines: %v allocations, %d lines: %v", len(code)/8, a1, 2*len(code)/8, a2)
	}
}

// oracleCode is the real sm_20 code of the oracle (94k words of compiler
// output) in memory order; benchmarks on it skip when ../shared is absent.
func oracleCode(b *testing.B) []byte {
	var code []byte
	for _, r := range readOracle(b) {
		code = binary.LittleEndian.AppendUint64(code, r.raw)
	}
	return code
}

func BenchmarkDisassembleOracle(b *testing.B) { benchDisassemble(b, oracleCode(b)) }

func BenchmarkAssembleOracle(b *testing.B) { benchAssemble(b, oracleCode(b)) }

func BenchmarkDecodeOracle(b *testing.B) {
	code := oracleCode(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for off := 0; off < len(code); off += 8 {
			if _, err := Decode(code[off:]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(code)/8)/b.Elapsed().Seconds(), "inst/s")
}

// TestAssembleLineAllocs: encoding one statement allocates nothing.
func TestAssembleLineAllocs(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		if _, err := AssembleLineDialect("@P0 IADD R1, R2, c [0x0] [0x20];", 0, Old); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("AssembleLineDialect: %v allocations", n)
	}
}

// BenchmarkWriteListing is the streamed listing (dis -arch sm_2x) of the
// golden code, repeated to 1M instructions, to io.Discard, on every core.
func BenchmarkWriteListing(b *testing.B) {
	code := benchCode(b)
	for len(code) < 8<<20 {
		code = append(code, code...)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := WriteListing(io.Discard, code, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(code)/8)/b.Elapsed().Seconds(), "inst/s")
}

// randomBytes is n bytes of a fixed pseudo-random stream: mostly words
// that do not decode, as in a damaged or misnamed file.
func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(13, 5))
	b := make([]byte, 0, n)
	for len(b) < n {
		b = binary.LittleEndian.AppendUint64(b, r.Uint64())
	}
	return b
}

// BenchmarkWriteListingRandomBytes lists 8 MiB of random bytes as the
// command line does (WriteListingFrom): about two lines a word.
func BenchmarkWriteListingRandomBytes(b *testing.B) {
	code := randomBytes(8 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bad := 0
		if err := WriteListingFrom(io.Discard, bytes.NewReader(code), 0, func(*isa.DecodeError) { bad++ }); err != nil || bad == 0 {
			b.Fatal(err, bad)
		}
	}
	b.ReportMetric(float64(b.N*len(code)/8)/b.Elapsed().Seconds(), "words/s")
}

// TestInvalidWordsAllocs: a word that does not decode costs no allocation
// (its error's detail is made only when it is shown). Building each
// error's text took three quarters of a random-bytes listing's time.
func TestInvalidWordsAllocs(t *testing.T) {
	code := randomBytes(64 << 10)
	step := New.stepFunc()
	var dst []byte
	bad := 0
	allocs := testing.AllocsPerRun(5, func() {
		dst, bad = dst[:0], 0
		for off := 0; off < len(code); {
			var n int
			var de *isa.DecodeError
			dst, n, de = step(dst, code, off, 0)
			if de != nil {
				bad++
			}
			off += n
		}
	})
	if bad < 1000 || allocs > 1 {
		t.Errorf("%d words that do not decode took %.0f allocations, want none", bad, allocs)
	}
	// the error shown is the one DecodeAt gives
	for off, checked := 0, 0; off < len(code) && checked < 100; {
		_, n, de := step(nil, code, off, 0x100)
		if de != nil {
			_, err := DecodeAt(code[off:], 0x100+uint64(off))
			if err == nil || de.Error() != err.Error() || de.Len != n {
				t.Fatalf("/*%04x*/: lazy error %q (%d bytes), DecodeAt's %v", off, de.Error(), n, err)
			}
			checked++
		}
		off += n
	}
}
