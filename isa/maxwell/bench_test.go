package maxwell

import (
	"encoding/binary"
	"io"
	"testing"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// benchWords are the golden words nvdisasm accepts, so every benchmark
// iteration exercises the printer, not the error path.
func benchWords(tb testing.TB) []uint64 {
	rows := readGolden(tb, "testdata/nvdisasm_sm52.tsv.gz")
	var ws []uint64
	for _, r := range rows {
		if r.text != "INVALID" && r.ctrl == NeutralCtrl {
			if _, err := Decode(r.word, NeutralCtrl, 52, 0); err == nil {
				ws = append(ws, r.word)
			}
		}
	}
	return ws
}

func benchCode(ws []uint64, n int) []byte {
	code := make([]byte, 0, (n+2)/3*BundleSize)
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			code = binary.LittleEndian.AppendUint64(code, 0x001fc400fe2007f1)
		}
		code = binary.LittleEndian.AppendUint64(code, ws[i%len(ws)])
	}
	for len(code)%BundleSize != 0 {
		code = binary.LittleEndian.AppendUint64(code, nopWord)
	}
	return code
}

func BenchmarkDecode(b *testing.B) {
	ws := benchWords(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(ws[i%len(ws)], NeutralCtrl, 52, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPrint(b *testing.B) {
	ws := benchWords(b)
	insts := make([]Inst, len(ws))
	for i, w := range ws {
		insts[i], _ = Decode(w, NeutralCtrl, 52, 0)
	}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = AppendText(buf[:0], insts[i%len(insts)], 0x100)
	}
}

// BenchmarkDisassemble reports per instruction: the whole listing of a
// 300,000-instruction raw file.
func BenchmarkDisassemble(b *testing.B) {
	code := benchCode(benchWords(b), 300000)
	var out []byte
	b.ReportAllocs()
	b.SetBytes(int64(len(code)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, _ = Disassemble(out[:0], code, 0, 52)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/300000, "ns/insn")
}

func BenchmarkAssemble(b *testing.B) {
	ws := benchWords(b)[:2000]
	texts := make([]string, len(ws))
	for i, w := range ws {
		inst, _ := Decode(w, NeutralCtrl, 52, 0)
		texts[i] = Print(inst, 0x100)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := EncodeText(texts[i%len(texts)], 0x100, 52, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeAllocs: decoding and printing allocate nothing per instruction.
func TestDecodeAllocs(t *testing.T) {
	ws := benchWords(t)
	buf := make([]byte, 0, 256)
	n := testing.AllocsPerRun(1000, func() {
		for _, w := range ws[:100] {
			inst, _ := Decode(w, NeutralCtrl, 52, 0)
			buf = AppendText(buf[:0], inst, 0)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per 100 decode+print", n)
	}
}

// randomValidWords returns n distinct random words Decode accepts (splitmix64
// from a fixed seed).
func randomValidWords(n int) []uint64 {
	var ws []uint64
	x := uint64(1)
	for len(ws) < n {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
		if _, err := Decode(z, NeutralCtrl, 52, 0); err == nil {
			ws = append(ws, z)
		}
	}
	return ws
}

// BenchmarkDisassembleRandom lists 1,000,002 random words Decode accepts
// (30,000 distinct ones, repeated), with a fresh output buffer each time, the
// way mxdiff -bench does.
func BenchmarkDisassembleRandom(b *testing.B) {
	code := benchCode(randomValidWords(30000), 1000002)
	b.ReportAllocs()
	b.SetBytes(int64(len(code)))
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		Disassemble(nil, code, 0, 52)
	}
	cpu.Report(1000002, "insn")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000002, "ns/insn")
}

// BenchmarkWriteListingRandom streams the listing of the same 1,000,002
// random words to io.Discard, as `gpuisa dis -arch sm_52 f > /dev/null` does.
func BenchmarkWriteListingRandom(b *testing.B) {
	code := benchCode(randomValidWords(30000), 1000002)
	b.ReportAllocs()
	b.SetBytes(int64(len(code)))
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		if _, err := WriteListing(io.Discard, code, 0, 52); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(1000002, "insn")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000002, "ns/insn")
}
