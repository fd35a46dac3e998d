package maxwell

import (
	"math"
	"math/rand/v2"

	"github.com/gpuisa/gpuisa/emu/internal/fp"
	"testing"
)

// Properties the slow paths of ptxas's division and square root rely on
// (found by the corpus, testdata/corpus/arith.cu).

// TestDivFastExact: whenever FCHK.DIVIDE lets x/y take the fast path, the
// fast path (ptxas's sequence: a refined reciprocal, a product, one
// residual correction) gives the correctly rounded quotient, zero signs
// included; everything else goes to the slow path, which is exact.
func TestDivFastExact(t *testing.T) {
	fast := func(x, y float32) float32 {
		r := float32(1 / float64(y))
		e := fma32(y, -r, 1, 0)
		r = fma32(r, e, r, 0)
		q := fma32(x, r, 0, 0)
		res := fma32(y, -q, x, 0)
		return fma32(r, res, q, 0)
	}
	rng := rand.New(rand.NewPCG(7, 15))
	n := 2000000
	if testing.Short() {
		n /= 10
	}
	taken := 0
	for i := range n {
		x, y := math.Float32frombits(rng.Uint32()), math.Float32frombits(rng.Uint32())
		switch i % 3 {
		case 1: // tiny dividends, where the residual underflows
			x = math.Float32frombits(rng.Uint32()&0x807fffff | uint32(rng.IntN(40))<<23)
		case 2: // zeros
			x = math.Float32frombits(rng.Uint32() & 0x80000000)
		}
		if !divFast(x, y) {
			continue
		}
		taken++
		if g, w := fast(x, y), x/y; math.Float32bits(g) != math.Float32bits(w) {
			t.Fatalf("%g/%g (%#x/%#x): fast path %g, quotient %g", x, y, math.Float32bits(x), math.Float32bits(y), g, w)
		}
	}
	if taken < n/10 {
		t.Fatalf("only %d of %d divisions take the fast path", taken, n)
	}
}

// TestDirectedTiny: DFMA/DADD/DMUL in the directed modes round results
// below the smallest subnormal away from zero when the mode says so, and
// give exact zeros IEEE's signs (ptxas's sqrt slow path tests the sign of
// x - s*(s+ulp) computed with DFMA.RP).
func TestDirectedTiny(t *testing.T) {
	const tiny = 0x1p-1074
	neg0 := math.Copysign(0, -1)
	for _, c := range []struct {
		rnd     uint8
		x, y, z float64
		kind    int
		want    float64
	}{
		{2, 0x1p-600, 0x1p-600, 0, 3, tiny},             // RP: up to the smallest subnormal
		{1, 0x1p-600, 0x1p-600, 0, 3, 0},                // RM: down to +0
		{1, -0x1p-600, 0x1p-600, 0, 3, -tiny},           // RM of a negative tiny value
		{3, -0x1p-600, 0x1p-600, 0, 3, neg0},            // RZ keeps the sign
		{2, 0x1p-600, 0x1p-600, 0, 2, tiny},             // DMUL.RP
		{2, 1, 1, -1, 3, 0},                             // exact cancellation: +0
		{1, 1, 1, -1, 3, neg0},                          // ... -0 rounding down
		{1, 1, -1, 0, 1, neg0},                          // DADD.RM x + -x
		{2, 0, 5, neg0, 3, 0},                           // +0 + -0 = +0
		{1, 0, 5, neg0, 3, neg0},                        // ... -0 rounding down
		{2, neg0, 5, neg0, 3, neg0},                     // -0 + -0 = -0
		{1, 0, math.Inf(1), 0, 3, math.NaN()},           // 0*inf
		{2, 0x1p-1000, 0x1p-80, 0x1p-1074, 3, 2 * tiny}, // tiny + product
	} {
		got := fp.Round64([4]int{1: fp.Add, 2: fp.Mul, 3: fp.FMA}[c.kind], c.x, c.y, c.z, c.rnd)
		if math.Float64bits(got) != math.Float64bits(c.want) && !(got != got && c.want != c.want) {
			t.Errorf("mode %d of %g, %g, %g (kind %d) = %g, want %g", c.rnd, c.x, c.y, c.z, c.kind, got, c.want)
		}
	}
}
