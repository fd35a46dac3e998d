package maxwell

import (
	"fmt"
	"testing"
)

// TestAssembleCodeAllocsPerLine: assembling code lines allocates per
// section (the code, its labels and relocations, grown by doubling), never
// per line, also for lines the assembler rewrites before encoding (symbol
// operands, nvdisasm's annotations) and branches to labels. Ten times the
// lines may cost a few more growth steps only.
func TestAssembleCodeAllocsPerLine(t *testing.T) {
	section := func(n int) []CodeLine {
		var lines []CodeLine
		for i := 0; len(lines) < n; i++ {
			r := i % 200 // distinct texts: the encoder's cache does not hide the work
			for _, text := range []string{
				fmt.Sprintf(".L_x_%d:", i),
				fmt.Sprintf("MOV32I R%d, 32@lo(gcount) ;", r),
				fmt.Sprintf("MOV R%d, c[`(cbank)] ;", r),
				fmt.Sprintf("@P0 SYNC (*\"BRANCH_TARGETS .L_x_%d\"*);", i),
				fmt.Sprintf("IADD R%d, R%d, 0x%x ;", r, r+1, i),
				fmt.Sprintf("BRA `(.L_x_%d) ;", i),
			} {
				lines = append(lines, CodeLine{Text: text, Line: len(lines) + 1})
			}
		}
		return lines
	}
	allocs := func(lines []CodeLine) float64 {
		if _, err := AssembleCode("code.s", lines, 52); err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(3, func() { AssembleCode("code.s", lines, 52) })
	}
	small, large := section(600), section(6000)
	a, b := allocs(small), allocs(large)
	t.Logf("%d lines: %.0f allocations, %d lines: %.0f", len(small), a, len(large), b)
	if perLine := (b - a) / float64(len(large)-len(small)); perLine > 0.01 {
		t.Errorf("%.3f allocations per added line, want none (growth steps only)", perLine)
	}
}
