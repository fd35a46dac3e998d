package maxwell

import (
	"math/rand/v2"
	"testing"
)

// TestRowsGoSameAsInUse: the Go lane loops of rows_go.go give what the
// loops in use give (on amd64 the assembly, which rows_test.go checks
// against lane-by-lane references), so a host without the assembly
// computes the same.
func TestRowsGoSameAsInUse(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	edges := []uint32{0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x3f800000, 0x7f800000, 0xff800000, 0x7fc00000, 0x00000001, 0x80000000 | 0x00400000, 0x4b000000}
	row := func() (r lanes) {
		for l := range r {
			if rng.IntN(3) == 0 {
				r[l] = edges[rng.IntN(len(edges))]
			} else {
				r[l] = rng.Uint32()
			}
		}
		return r
	}
	mem := make([]byte, 1024)
	for i := range mem {
		mem[i] = byte(rng.Uint32())
	}
	for i := range 3000 {
		a, b, c := row(), row(), row()
		sh, flip := rng.Uint32(), uint32(rng.IntN(2))<<31
		na, nb := -uint32(rng.IntN(2)), -uint32(rng.IntN(2))

		d1, d2, e1, e2 := c, b, c, b
		add64Rows(&a, &b, &d1, &a, &d1, &d2)
		add64RowsGo(&a, &b, &e1, &a, &e1, &e2)
		if d1 != e1 || d2 != e2 {
			t.Fatalf("%d: add64Rows differs", i)
		}
		if x, y := wordsDiffer(&a[0], &b[0], 32), wordsDifferGo(&a[0], &b[0], 32); x != y {
			t.Fatalf("%d: wordsDiffer %v, Go %v", i, x, y)
		}
		if x, y := wordsDiffer(&a[0], &a[0], 32), wordsDifferGo(&a[0], &a[0], 32); x || y {
			t.Fatalf("%d: wordsDiffer of a row with itself: %v, Go %v", i, x, y)
		}
		first, step, h := [4]uint32{a[0], a[0] + sh&7, a[0] + 8, a[0] + 12}, sh&15, b[0]
		lo, hi := a, b
		for l := range lo { // a run, sometimes broken in one lane
			lo[l], hi[l] = first[l%4]+uint32(l/4)*4*step, h
		}
		if rng.IntN(3) == 0 {
			lo[rng.IntN(32)] ^= 1 << rng.IntN(32)
		}
		if x, y := runDiffers(&lo, &hi, &first, step, h), runDiffersGo(&lo, &hi, &first, step, h); x != y {
			t.Fatalf("%d: runDiffers %v, Go %v", i, x, y)
		}
		fd, fe := c, c
		if x, y := ffmaRows(&fd, &a, &b, &c), ffmaRowsGo(&fe, &a, &b, &c); x != y || fd != fe {
			t.Fatalf("%d: ffmaRows careful %#x, Go %#x (rows equal: %v)", i, x, y, fd == fe)
		}
		lt1, eq1 := cmpRows(&a, &b, flip)
		lt2, eq2 := cmpRowsGo(&a, &b, flip)
		if lt1 != lt2 || eq1 != eq2 {
			t.Fatalf("%d: cmpRows differs", i)
		}
		n1, n2 := c, c
		addRowsNeg(&n1, &a, &b, na, nb)
		addRowsNegGo(&n2, &a, &b, na, nb)
		if n1 != n2 {
			t.Fatalf("%d: addRowsNeg differs", i)
		}
		s1, s2 := c, c
		shlAddRows(&s1, &a, &b, sh)
		shlAddRowsGo(&s2, &a, &b, sh)
		if s1 != s2 {
			t.Fatalf("%d: shlAddRows differs", i)
		}
		if !hostLE {
			continue
		}
		// rowRun32 over a 1 KiB memory at 1<<32: runs inside, across its end, misaligned
		addr := uint64(1)<<32 + uint64(rng.IntN(len(mem)+64)) - 32
		if rng.IntN(2) == 0 {
			addr &^= 3
		}
		for l := range lo {
			lo[l], hi[l] = uint32(addr)+4*uint32(l), uint32(addr>>32)
		}
		store := rng.IntN(2) == 0
		mem1, mem2 := append([]byte(nil), mem...), append([]byte(nil), mem...)
		r1, r2 := c, c
		base := uint64(1) << 32
		off := -base // mem[0] is at 1<<32
		st1, ok1 := rowRun32(&r1, &lo, &hi, &mem1[0], uint64(len(mem)), off, store)
		st2, ok2 := rowRun32Go(&r2, &lo, &hi, &mem2[0], uint64(len(mem)), off, store)
		if st1 != st2 || ok1 != ok2 || r1 != r2 || string(mem1) != string(mem2) {
			t.Fatalf("%d: rowRun32 at %#x: %#x %v, Go %#x %v", i, addr, st1, ok1, st2, ok2)
		}
	}
}
