package maxwell

import (
	"testing"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// BenchmarkAssembleListingText is BenchmarkAssembleListing with the hex
// column of the instruction lines dropped (the control-word lines stay):
// every line is encoded from its text by the matcher, none is taken from
// a listed word that prints as it.
func BenchmarkAssembleListingText(b *testing.B) {
	code := benchCode(randomValidWords(assembleBenchLines), assembleBenchLines)
	listing, errs := Disassemble(nil, code, 0, 52)
	if len(errs) > 0 {
		b.Fatal(errs[0])
	}
	text := withoutHex(listing)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		if _, err := Assemble("bench.s", text, 52); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(assembleBenchLines, "line")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/assembleBenchLines, "ns/line")
}
