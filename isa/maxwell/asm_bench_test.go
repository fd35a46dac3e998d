package maxwell

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// assembleBenchLines is the size of the listing BenchmarkAssembleListing
// assembles.
const assembleBenchLines = 100000

// BenchmarkAssembleListing assembles the listing of 100,000 distinct random
// valid words (plus two NOPs padding the last bundle) with Assemble,
// control-word lines, address and hex columns included; the rate is per
// instruction line.
func BenchmarkAssembleListing(b *testing.B) {
	code := benchCode(randomValidWords(assembleBenchLines), assembleBenchLines)
	listing, errs := Disassemble(nil, code, 0, 52)
	if len(errs) > 0 {
		b.Fatal(errs[0])
	}
	// random words have bits no field covers, which the assembler writes as
	// zeros: the listing, not the code, must come back
	got, err := Assemble("bench.s", listing, 52)
	if err != nil {
		b.Fatal(err)
	}
	if again, _ := Disassemble(nil, got, 0, 52); !bytes.Equal(withoutHex(again), withoutHex(listing)) {
		b.Fatal("dis(as(listing)) != listing")
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(listing)))
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		if _, err := Assemble("bench.s", listing, 52); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(assembleBenchLines, "line")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/assembleBenchLines, "ns/line")
}

// withoutHex drops the hex column of instruction lines (bare control-word
// lines stay): random words have bits no field covers, which the assembler
// writes as zeros, so only the texts can come back.
func withoutHex(listing []byte) []byte {
	var out []byte
	for _, line := range strings.SplitAfter(string(listing), "\n") {
		if i := strings.LastIndex(line, "/* 0x"); i > 0 && strings.TrimSpace(line[:i]) != "" {
			line = strings.TrimRight(line[:i], " ") + "\n"
		}
		out = append(out, line...)
	}
	return out
}

// BenchmarkEncodeText is BenchmarkAssemble (one EncodeText call per
// instruction text of 2,000 golden words) with the rate per CPU second.
func BenchmarkEncodeText(b *testing.B) {
	ws := benchWords(b)[:2000]
	texts := make([]string, len(ws))
	for i, w := range ws {
		inst, _ := Decode(w, NeutralCtrl, 52, 0)
		texts[i] = Print(inst, 0x100)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		if _, _, err := EncodeText(texts[i%len(texts)], 0x100, 52, nil); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(1, "line")
}
