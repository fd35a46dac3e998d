//go:build amd64 && !purego

package maxwell

// The lane loops that run most often, in assembly (rows_amd64.s): the Go
// compiler does not vectorize, and these are a few SSE2 instructions per
// four lanes instead of several per lane. rows_go.go has the same in
// Go (other hosts, and the purego tag); rows_test.go checks both against
// lane-by-lane references.

// add64Rows is IADD.CC d1 = a1 + b1, IADD.X d2 = a2 + b2 + carry in every
// lane, lane by lane (a2 and b2 may be d1: they read what the first wrote).
//
//go:noescape
func add64Rows(a1, b1, d1, a2, b2, d2 *lanes)

// wordsDiffer reports whether the n words at a and b (n a multiple of 4)
// differ anywhere.
//
//go:noescape
func wordsDiffer(a, b *uint32, n int) bool

// runDiffers reports whether some lane l of lo is not first[l%4] +
// (l/4)*4*step, or some lane of hi not h.
//
//go:noescape
func runDiffers(lo, hi *lanes, first *[4]uint32, step, h uint32) bool

// ffmaRows is FFMA d = a*b + c in every lane (round to nearest, no
// negations) where the float64 sum, rounded once (a*b is exact in
// float64), rounds to the float32 result; it returns the other lanes
// (possible float32 ties, infinities, NaNs, zeros: the sum's low 28 bits
// clear), which it leaves as they were for fma32.
//
//go:noescape
func ffmaRows(d, a, b, c *lanes) (careful uint32)

// rowRun32 is a 32-bit access of every lane to consecutive words (lane l's
// address, low words lo and high words hi, plus off: start + 4*l) of the
// n bytes at mem, if it is one: aligned, inside, no wrap. It copies the
// 128 bytes from the row (store) or to it, and returns start.
//
//go:noescape
func rowRun32(row, lo, hi *lanes, mem *byte, n, off uint64, store bool) (start uint64, ok bool)

// cmpRows compares a and b lane by lane, as unsigned numbers after both
// are xored with flip (1<<31: signed): the lanes where a < b, and a == b.
//
//go:noescape
func cmpRows(a, b *lanes, flip uint32) (lt, eq uint32)

// addRowsNeg is IADD d = a + b, a negated when na is all ones, b when nb
// is, in every lane.
//
//go:noescape
func addRowsNeg(d, a, b *lanes, na, nb uint32)

// shlAddRows is ISCADD d = a<<(sh&31) + b in every lane.
//
//go:noescape
func shlAddRows(d, a, b *lanes, sh uint32)
