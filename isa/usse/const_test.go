package usse

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// firstConstSlow is firstConst by plain search over constValueSlow.
func firstConstSlow(t []string, want []uint32, half bool) (uint32, int, bool) {
	match := func(n uint32, chans string) bool {
		for i, w := range want {
			if constValueSlow(n, chans[i], half) != w {
				return false
			}
		}
		return true
	}
	for n := uint32(0); n < 64; n++ {
		if t == nil {
			if match(n, "xyzw") {
				return n, 0, true
			}
			continue
		}
		for idx, ent := range t {
			if ent != "?" && len(ent) >= len(want) && match(n, ent) {
				return n, idx, true
			}
		}
	}
	return 0, 0, false
}

// TestFirstConst: the tabulated search finds what the plain one finds, for
// values the constant registers and selectors actually read.
func TestFirstConst(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tables := append([][]string{nil}, swizzleTables[:]...)
	found := 0
	for i := 0; i < 20000; i++ {
		tab := tables[r.IntN(len(tables))]
		half := r.IntN(2) == 1
		k := 1 + r.IntN(4)
		want := make([]uint32, k)
		for j := range want {
			want[j] = constValueSlow(uint32(r.IntN(64)), swizzleChans[r.IntN(len(swizzleChans))], half)
			if r.IntN(4) == 0 && j > 0 {
				want[j] = want[0]
			}
		}
		if ent := "xyzw"; r.IntN(2) == 0 {
			// values some register and entry read: a match exists
			if tab != nil {
				ent = tab[r.IntN(len(tab))]
			}
			n := uint32(r.IntN(64))
			for j := range want {
				if j < len(ent) && ent != "?" {
					want[j] = constValueSlow(n, ent[j], half)
				}
			}
		}
		n1, i1, ok1 := firstConst(tab, want, half)
		n2, i2, ok2 := firstConstSlow(tab, want, half)
		if n1 != n2 || i1 != i2 || ok1 != ok2 {
			t.Fatalf("table %v half %v want %x: got %d %d %v, plain search %d %d %v", tab, half, want, n1, i1, ok1, n2, i2, ok2)
		}
		if ok1 {
			found++
		}
	}
	if found < 5000 {
		t.Fatalf("only %d searches found a register", found)
	}
}

// TestAppendValuesCommon: the spelled-out common constants are AppendFloat's.
func TestAppendValuesCommon(t *testing.T) {
	for _, x := range []uint32{f32Zero, f32One, f32Two, f32Half, 0x80000000, 0x3e800000} {
		got := string(appendValues(nil, []uint32{x}))
		want := "{" + strconv.FormatFloat(float64(math.Float32frombits(x)), 'g', -1, 32) + "}"
		if got != want {
			t.Errorf("%08x: %s, want %s", x, got, want)
		}
	}
}
