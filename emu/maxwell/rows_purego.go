//go:build !amd64 || purego

package maxwell

// Without the assembly of rows_amd64.s, the lane loops are the Go ones of
// rows_go.go.

func add64Rows(a1, b1, d1, a2, b2, d2 *lanes) { add64RowsGo(a1, b1, d1, a2, b2, d2) }

func wordsDiffer(a, b *uint32, n int) bool { return wordsDifferGo(a, b, n) }

func runDiffers(lo, hi *lanes, first *[4]uint32, step, h uint32) bool {
	return runDiffersGo(lo, hi, first, step, h)
}

func ffmaRows(d, a, b, c *lanes) (careful uint32) { return ffmaRowsGo(d, a, b, c) }

func rowRun32(row, lo, hi *lanes, mem *byte, n, off uint64, store bool) (start uint64, ok bool) {
	return rowRun32Go(row, lo, hi, mem, n, off, store)
}

func cmpRows(a, b *lanes, flip uint32) (lt, eq uint32) { return cmpRowsGo(a, b, flip) }

func addRowsNeg(d, a, b *lanes, na, nb uint32) { addRowsNegGo(d, a, b, na, nb) }

func shlAddRows(d, a, b *lanes, sh uint32) { shlAddRowsGo(d, a, b, sh) }
