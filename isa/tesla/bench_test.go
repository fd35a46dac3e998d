package tesla

import (
	"testing"
)

// benchStream builds a stream of about n instructions from the golden corpus.
func benchStream(b *testing.B, n int) ([]byte, int) {
	insts := goldenCode(b)
	var code []byte
	count := 0
	for count < n {
		for _, c := range insts {
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
	for i := 0; i < b.N; i++ {
		for pc := 0; pc < len(code); {
			inst, _ := Decode(code[pc:], uint64(pc))
			pc += int(inst.Len)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minsn/s")
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
	for i := 0; i < b.N; i++ {
		for _, inst := range insts {
			buf = AppendText(buf[:0], inst, 0)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minsn/s")
}

// BenchmarkDisassemble is the whole listing: decode, print, format lines.
func BenchmarkDisassemble(b *testing.B) {
	code, n := benchStream(b, 1<<20)
	out := make([]byte, 0, 100*n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, _ = Disassemble(out[:0], code, 0)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minsn/s")
	b.SetBytes(int64(len(code)))
}

func BenchmarkAssemble(b *testing.B) {
	code, n := benchStream(b, 1<<18)
	lst, _ := Disassemble(nil, code, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Assemble("bench.s", lst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mlines/s")
}
