package tesla

import (
	"io"
	"os"
	"testing"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
	"github.com/gpuisa/gpuisa/internal/listtest"
)

// benchStream builds a stream of about n instructions: the golden corpus
// (random encodings of every form, operand-heavy) by default, or real ptxas
// code (decuda's kernels, from the shared oracle) with GPUISA_BENCH=kernels.
func benchStream(b *testing.B, n int) ([]byte, int) {
	var units [][]byte
	if os.Getenv("GPUISA_BENCH") == "kernels" {
		for _, k := range decudaKernels(b) {
			for pc := 0; pc < len(k.code); {
				inst, _ := Decode(k.code[pc:], 0)
				units = append(units, k.code[pc:pc+int(inst.Len)])
				pc += int(inst.Len)
			}
		}
	} else {
		units = goldenCode(b)
	}
	var code []byte
	count := 0
	for count < n {
		for _, c := range units {
			code = append(code, c...)
			count++
		}
	}
	return code, count
}

func BenchmarkDecode(b *testing.B) {
	code, n := benchStream(b, 1<<20)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		for pc := 0; pc < len(code); {
			inst, _ := Decode(code[pc:], uint64(pc))
			pc += int(inst.Len)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minsn/s")
	cpu.Report(float64(n)/1e6, "Minsn")
}

func BenchmarkPrint(b *testing.B) {
	code, n := benchStream(b, 1<<20)
	insts := make([]Inst, 0, n)
	for pc := 0; pc < len(code); {
		inst, _ := Decode(code[pc:], uint64(pc))
		insts = append(insts, inst)
		pc += int(inst.Len)
	}
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		for _, inst := range insts {
			buf = AppendText(buf[:0], inst, 0)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minsn/s")
	cpu.Report(float64(n)/1e6, "Minsn")
}

// BenchmarkDisassemble is the whole listing: decode, print, format lines.
func BenchmarkDisassemble(b *testing.B) {
	code, n := benchStream(b, 1<<20)
	// one listing before timing: the buffer's pages are touched once, so
	// every timed iteration writes the same warm buffer
	out, _ := Disassemble(make([]byte, 0, 160*n), code, 0)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		out, _ = Disassemble(out[:0], code, 0)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minsn/s")
	cpu.Report(float64(n)/1e6, "Minsn")
	b.SetBytes(int64(len(code)))
}

func BenchmarkAssemble(b *testing.B) {
	code, n := benchStream(b, 1<<18)
	lst, _ := Disassemble(nil, code, 0)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		if _, err := Assemble("bench.s", lst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mlines/s")
	cpu.Report(float64(n)/1e6, "Mlines")
}

// BenchmarkWriteListing is the streamed listing (dis -arch sm_1x) of the
// same code, to io.Discard, on every core.
func BenchmarkWriteListing(b *testing.B) {
	code, n := benchStream(b, 1<<20)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		if _, err := WriteListing(io.Discard, code, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minsn/s")
	cpu.Report(float64(n)/1e6, "Minsn")
	b.SetBytes(int64(len(code)))
}

// BenchmarkWriteListingFrom is BenchmarkWriteListing reading the code from
// an io.Reader a window at a time (dis -arch sm_1x of a file).
func BenchmarkWriteListingFrom(b *testing.B) {
	code, n := benchStream(b, 1<<20)
	listtest.BenchWrite(b, code, n, writeListing)
}

// BenchmarkWriteListingSmall is WriteListing of 1 KiB of code (FuzzRoundTrip's
// largest input): mostly what one listing costs to set up, which dis pays
// per file and per cubin function.
func BenchmarkWriteListingSmall(b *testing.B) {
	code, _ := benchStream(b, 256)
	code = code[:1024]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WriteListing(io.Discard, code, 0); err != nil {
			b.Fatal(err)
		}
	}
}
