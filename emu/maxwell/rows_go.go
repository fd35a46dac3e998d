package maxwell

import (
	"math"
	"unsafe"
)

// The lane loops of rows_amd64.s in Go (see rows_amd64.go): what other
// hosts and the purego tag run (rows_purego.go), compiled everywhere so
// that rows_go_test.go checks them against the assembly on amd64 too.

// add64RowsGo is IADD.CC d1 = a1 + b1, IADD.X d2 = a2 + b2 + carry in every
// lane, lane by lane (a2 and b2 may be d1: they read what the first wrote).
func add64RowsGo(a1, b1, d1, a2, b2, d2 *lanes) {
	for l := 0; l <= 28; l += 4 { // 4 at a time (no loop test per lane)
		s0 := uint64(a1[l]) + uint64(b1[l])
		d1[l] = uint32(s0)
		d2[l] = a2[l] + b2[l] + uint32(s0>>32)
		s1 := uint64(a1[l+1]) + uint64(b1[l+1])
		d1[l+1] = uint32(s1)
		d2[l+1] = a2[l+1] + b2[l+1] + uint32(s1>>32)
		s2 := uint64(a1[l+2]) + uint64(b1[l+2])
		d1[l+2] = uint32(s2)
		d2[l+2] = a2[l+2] + b2[l+2] + uint32(s2>>32)
		s3 := uint64(a1[l+3]) + uint64(b1[l+3])
		d1[l+3] = uint32(s3)
		d2[l+3] = a2[l+3] + b2[l+3] + uint32(s3>>32)
	}
}

// wordsDifferGo reports whether the n words at a and b (n a multiple of 4)
// differ anywhere, two words at a time.
func wordsDifferGo(a, b *uint32, n int) bool {
	pa := unsafe.Slice((*[2]uint64)(unsafe.Pointer(a)), n/4)
	pb := unsafe.Slice((*[2]uint64)(unsafe.Pointer(b)), n/4)
	var d uint64
	for g := range pa {
		x, y := &pa[g], &pb[g]
		d |= (x[0] ^ y[0]) | (x[1] ^ y[1])
	}
	return d != 0
}

// runDiffersGo reports whether some lane l of lo is not first[l%4] +
// (l/4)*4*step, or some lane of hi not h.
func runDiffersGo(lo, hi *lanes, first *[4]uint32, step, h uint32) bool {
	var dev uint32
	w := *first
	for l := 0; l < 32; l += 4 {
		dev |= (lo[l] ^ w[0]) | (lo[l+1] ^ w[1]) | (lo[l+2] ^ w[2]) | (lo[l+3] ^ w[3])
		dev |= (hi[l] ^ h) | (hi[l+1] ^ h) | (hi[l+2] ^ h) | (hi[l+3] ^ h)
		for i := range w {
			w[i] += 4 * step
		}
	}
	return dev != 0
}

// ffmaRowsGo is FFMA d = a*b + c in every lane (round to nearest, no
// negations) where the float64 sum, rounded once (a*b is exact in
// float64), rounds to the float32 result; it returns the other lanes
// (possible float32 ties, infinities, NaNs, zeros: the sum's low 28 bits
// clear), which it leaves as they were for fma32.
func ffmaRowsGo(d, a, b, c *lanes) (careful uint32) {
	as, bs, cs := rowF32(a), rowF32(b), rowF32(c)
	for l := range d {
		s := float64(as[l])*float64(bs[l]) + float64(cs[l])
		if math.Float64bits(s)&(1<<28-1) == 0 {
			careful |= 1 << l
			continue
		}
		d[l] = math.Float32bits(float32(s))
	}
	return careful
}

// rowRun32Go is a 32-bit access of every lane to consecutive words (lane l's
// address, low words lo and high words hi, plus off: start + 4*l) of the
// n bytes at mem, if it is one: aligned, inside, no wrap. It copies the
// 128 bytes from the row (store) or to it, and returns start.
func rowRun32Go(row, lo, hi *lanes, mem *byte, n, off uint64, store bool) (start uint64, ok bool) {
	l0 := lo[0]
	if lo[31]-l0 != 31*4 || l0 > math.MaxUint32-31*4 || !runPairs(lo, hi, l0, 4, hi[0]) {
		return 0, false
	}
	start = uint64(hi[0])<<32 | uint64(l0) + off
	if start&3 != 0 || start >= n || n-start < 128 {
		return 0, false
	}
	p := (*lanes)(unsafe.Add(unsafe.Pointer(mem), start))
	if store {
		*p = *row
	} else {
		*row = *p
	}
	return start, true
}

// cmpRowsGo compares a and b lane by lane, as unsigned numbers after both
// are xored with flip (1<<31: signed): the lanes where a < b, and a == b.
func cmpRowsGo(a, b *lanes, flip uint32) (lt, eq uint32) {
	for l := range 32 {
		x, y := a[l]^flip, b[l]^flip
		lt |= b2u32(x < y) << l
		eq |= b2u32(x == y) << l
	}
	return lt, eq
}

// addRowsNegGo is IADD d = a + b, a negated when na is all ones, b when nb
// is, in every lane (x^n - n negates when n is all ones).
func addRowsNegGo(d, a, b *lanes, na, nb uint32) {
	for l := range 32 {
		d[l] = (a[l] ^ na) - na + (b[l] ^ nb) - nb
	}
}

// shlAddRowsGo is ISCADD d = a<<(sh&31) + b in every lane.
func shlAddRowsGo(d, a, b *lanes, sh uint32) {
	for l := range 32 {
		d[l] = a[l]<<(sh&31) + b[l]
	}
}
