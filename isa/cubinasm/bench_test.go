package cubinasm

import (
	"bytes"
	"testing"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// BenchmarkAssembleCubinListings rebuilds the 110 oracle cubins from
// NVIDIA's nvdisasm -hex listings; the rate is per listing line (code and
// data).
func BenchmarkAssembleCubinListings(b *testing.B) {
	listings := nvdisasmListings(b)
	lines := 0
	for _, l := range listings {
		lines += bytes.Count(l, []byte{'\n'})
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		for k, l := range listings {
			if _, err := Assemble(k, l); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.Report(float64(lines), "line")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lines), "ns/line")
}

// BenchmarkAssembleCodeLines assembles the code sections of the sm_52
// oracle cubins as gpuisa dis lists them (control words and hex columns
// included), as Assemble does for a whole-cubin listing: the instruction
// lines alone. The rate is per line.
func BenchmarkAssembleCodeLines(b *testing.B) {
	var secs [][]maxwell.CodeLine
	cubins := oracleCubins(b)
	lines := 0
	for _, k := range sortedKeys(cubins) {
		if k[:5] != "sm_52" {
			continue
		}
		l, err := Parse(k, list(b, cubins[k], maxwell.ListOptions{}))
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range l.Sections {
			if s.isCode {
				secs = append(secs, s.code)
				lines += len(s.code)
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		for _, c := range secs {
			if _, err := maxwell.AssembleCode("code.s", c, 52); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.Report(float64(lines), "line")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lines), "ns/line")
}

// BenchmarkAssembleCubinListingsText rebuilds the 110 oracle cubins from
// their listings in nvdisasm's default layout without -hex (VLIW pairs, no
// hex column, no control-word lines): every instruction is encoded from
// its text. The rate is per listing line (code and data).
func BenchmarkAssembleCubinListingsText(b *testing.B) {
	cubins := oracleCubins(b)
	keys := sortedKeys(cubins)
	listings := make([][]byte, len(keys))
	lines := 0
	for i, k := range keys {
		listings[i] = list(b, cubins[k], maxwell.ListOptions{VLIW: true, NoHex: true})
		lines += bytes.Count(listings[i], []byte{'\n'})
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		for k, l := range listings {
			if _, err := Assemble(keys[k], l); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.Report(float64(lines), "line")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lines), "ns/line")
}
