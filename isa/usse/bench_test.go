package usse

import (
	"encoding/binary"
	"testing"

	"gpuisa/internal/benchcpu"
	"gpuisa/internal/oracle"
)

// benchSources are the instruction mixes the benchmarks run on: our golden
// cases (every form, operand-heavy) and the oracle's GXP programs (compiler
// output), the latter only when the shared directory is present.
var benchSources = []struct {
	name  string
	words func(b *testing.B) []uint64
}{
	{"golden", func(b *testing.B) []uint64 {
		var ws []uint64
		for _, g := range readGolden(b) {
			if _, err := DecodeWord(g.word, 0); err == nil {
				ws = append(ws, g.word)
			}
		}
		return ws
	}},
	{"oracle", func(b *testing.B) []uint64 {
		if oracle.SharedDir() == "" {
			b.Skip("no shared oracle")
		}
		var ws []uint64
		for _, w := range allOracleWords(b) {
			if _, err := DecodeWord(w.word, 0); err == nil {
				ws = append(ws, w.word)
			}
		}
		return ws
	}},
}

// benchStream repeats the source's valid words up to at least n
// instructions (little-endian code) and returns the count.
func benchStream(b *testing.B, words []uint64, n int) ([]byte, int) {
	var code []byte
	count := 0
	for count < n {
		for _, w := range words {
			code = binary.LittleEndian.AppendUint64(code, w)
			count++
		}
	}
	return code, count
}

func runBench(b *testing.B, n int, fn func(b *testing.B, code []byte, n int)) {
	for _, src := range benchSources {
		b.Run(src.name, func(b *testing.B) {
			code, count := benchStream(b, src.words(b), n)
			fn(b, code, count)
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	runBench(b, 1<<20, func(b *testing.B, code []byte, n int) {
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			for pc := 0; pc+Len <= len(code); pc += Len {
				if _, err := Decode(code[pc:], uint64(pc)); err != nil {
					b.Fatal(err)
				}
			}
		}
		cpu.Report(float64(n)/1e6, "Minsn")
	})
}

func BenchmarkPrint(b *testing.B) {
	runBench(b, 1<<20, func(b *testing.B, code []byte, n int) {
		insts := make([]Inst, 0, n)
		for pc := 0; pc < len(code); pc += Len {
			in, _ := Decode(code[pc:], 0)
			insts = append(insts, in)
		}
		buf := make([]byte, 0, 256)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			for j := range insts {
				buf = AppendText(buf[:0], insts[j], 0)
			}
		}
		cpu.Report(float64(n)/1e6, "Minsn")
	})
}

// BenchmarkDisassemble is the whole listing: decode, print, format lines.
func BenchmarkDisassemble(b *testing.B) {
	runBench(b, 1<<20, func(b *testing.B, code []byte, n int) {
		out := make([]byte, 0, 128*n)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			out, _ = Disassemble(out[:0], code, 0)
		}
		cpu.Report(float64(n)/1e6, "Minsn")
		b.SetBytes(int64(len(code)))
	})
}

func BenchmarkAssemble(b *testing.B) {
	runBench(b, 1<<18, func(b *testing.B, code []byte, n int) {
		lst, _ := Disassemble(nil, code, 0)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			if _, err := Assemble("bench.s", lst); err != nil {
				b.Fatal(err)
			}
		}
		cpu.Report(float64(n)/1e6, "Mlines")
	})
}
