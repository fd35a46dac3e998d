package maxwell

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// The lane loops of rows_*.go (assembly on amd64, Go elsewhere and with
// the purego tag) against lane-by-lane references.

// TestAdd64Rows: every carry case, and the rows aliased as instructions
// may alias them (IADD.X reading what IADD.CC wrote, a destination that is
// also a source).
func TestAdd64Rows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	edges := []uint32{0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe}
	word := func() uint32 {
		if rng.IntN(3) == 0 {
			return edges[rng.IntN(len(edges))]
		}
		return rng.Uint32()
	}
	for range 2000 {
		var rows [6]lanes
		for r := range rows {
			for l := range 32 {
				rows[r][l] = word()
			}
		}
		// a1, b1, d1, a2, b2, d2 as indices into rows: some the same row
		var at [6]int
		for i := range at {
			at[i] = rng.IntN(6)
		}
		want := rows
		for l := range 32 { // lane by lane, as the instructions one after the other
			s := uint64(want[at[0]][l]) + uint64(want[at[1]][l])
			want[at[2]][l] = uint32(s)
			want[at[5]][l] = want[at[3]][l] + want[at[4]][l] + uint32(s>>32)
		}
		got := rows
		add64Rows(&got[at[0]], &got[at[1]], &got[at[2]], &got[at[3]], &got[at[4]], &got[at[5]])
		if got != want {
			t.Fatalf("rows %v: got %x, want %x", at, got, want)
		}
	}
}

// TestFfmaRows: ffmaLanes on every lane (ffmaRows, then fma32 for the lanes
// it leaves) gives fma32's result, NaN canonical, on random values, edge
// values and products whose sum is a float32 tie, also when the
// destination is a source.
func TestFfmaRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	edges := []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.SmallestNonzeroFloat32, 0x1p-127, 0x1p-126,
		math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1 + 0x1p-12, 1 + 0x1p-23}
	value := func() float32 {
		switch rng.IntN(4) {
		case 0:
			return edges[rng.IntN(len(edges))]
		case 1:
			return math.Float32frombits(rng.Uint32()) // any bits: NaNs, subnormals
		}
		return (rng.Float32() - 0.5) * float32(math.Ldexp(1, rng.IntN(60)-30))
	}
	viaSum := 0
	for range 3000 {
		var a, b, c lanes
		for l := range 32 {
			x, y, z := value(), value(), value()
			if rng.IntN(4) == 0 { // (1+2^-12)^2 + z: a tie when z is 0 or a small power of two
				x, y, z = 1+0x1p-12, 1+0x1p-12, []float32{0, 0x1p-24, -0x1p-24, 1}[rng.IntN(4)]
			}
			a[l], b[l], c[l] = math.Float32bits(x), math.Float32bits(y), math.Float32bits(z)
		}
		var want lanes
		for l := range 32 {
			want[l] = ffmaCareful(math.Float32frombits(a[l]), math.Float32frombits(b[l]), math.Float32frombits(c[l]))
		}
		viaSum += 32 - bits.OnesCount32(ffmaRowsCount(&a, &b, &c))
		var d lanes
		ffmaLanes(&d, &a, &b, &c, 0, 32)
		if d != want {
			t.Fatalf("got %x, want %x (a %x b %x c %x)", d, want, a, b, c)
		}
		in := a // d is a
		ffmaLanes(&in, &in, &b, &c, 0, 32)
		if in != want {
			t.Fatalf("d = a: got %x, want %x", in, want)
		}
		in = c // d is c (an accumulator)
		ffmaLanes(&in, &a, &b, &in, 0, 32)
		if in != want {
			t.Fatalf("d = c: got %x, want %x", in, want)
		}
	}
	t.Logf("%d lanes of %d by the float64 sum", viaSum, 3000*32)
}

// ffmaRowsCount is the lanes ffmaRows leaves to the careful path (on a
// copy: it writes the others).
func ffmaRowsCount(a, b, c *lanes) uint32 {
	var d lanes
	return ffmaRows(&d, a, b, c)
}

// TestRowRun32: rowRun32 takes exactly the accesses of every lane to
// consecutive words that lie inside memory, aligned, without a wrap of
// the low words, and copies the right 128 bytes either way.
func TestRowRun32(t *testing.T) {
	if !hostLE {
		t.Skip("little-endian hosts only")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	mem := make([]byte, 4096)
	for i := range mem {
		mem[i] = byte(rng.Uint32())
	}
	for range 20000 {
		// the address of mem[0] (the offset is -base): half of the time
		// memory goes on past a low-word wrap
		base := uint64(1) << 32
		if rng.IntN(2) == 0 {
			base = 2<<32 - uint64(len(mem))/2
		}
		// lane 0's address: near the ends of memory
		addr := base + uint64(rng.IntN(len(mem)+256)) - 128
		switch rng.IntN(4) {
		case 0:
			addr &^= 3
		case 1:
			addr = 2<<32 - uint64(rng.IntN(256))&^3 // lanes across the wrap
		}
		var lo, hi lanes
		for l := range 32 {
			a := addr&^0xffffffff | uint64(uint32(addr)+4*uint32(l)) // the low word wraps alone
			if rng.IntN(8) == 0 {
				a = addr + 4*uint64(l) // a 64-bit run: the high word changes at a wrap
			}
			lo[l], hi[l] = uint32(a), uint32(a>>32)
		}
		if rng.IntN(6) == 0 { // one lane off
			l := rng.IntN(32)
			if rng.IntN(2) == 0 {
				lo[l] ^= 1 << rng.IntN(32)
			} else {
				hi[l] ^= 1 << rng.IntN(32)
			}
		}
		// the reference: every lane's own address
		want := true
		start := uint64(hi[0])<<32 | uint64(lo[0]) - base
		for l := range 32 {
			a := uint64(hi[l])<<32 | uint64(lo[l])
			// (a run across a wrap of the low words is left to the general path)
			if a != uint64(hi[0])<<32|uint64(lo[0])+4*uint64(l) || hi[l] != hi[0] || a-base >= uint64(len(mem)) || a&3 != 0 {
				want = false
			}
		}
		if want && len(mem)-int(start) < 128 {
			want = false
		}
		store := rng.IntN(2) == 0
		var row lanes
		for l := range row {
			row[l] = rng.Uint32()
		}
		before, saved := row, append([]byte(nil), mem...)
		got, ok := rowRun32(&row, &lo, &hi, &mem[0], uint64(len(mem)), -base, store)
		if ok != want || ok && got != start {
			t.Fatalf("lane 0 at %#x (lo %x hi %x): got %#x %v, want %#x %v", addr, lo, hi, got, ok, start, want)
		}
		switch {
		case !ok && (row != before || string(mem) != string(saved)):
			t.Fatal("a refused access changed something")
		case ok && store && (row != before || *rowBytes(mem[start:]) != row):
			t.Fatal("store: wrong bytes")
		case ok && !store && row != *rowBytes(mem[start:]):
			t.Fatal("load: wrong words")
		}
		copy(mem, saved)
	}
}

// TestIntRows: ISETP's comparisons, IADD with negations and ISCADD on
// whole rows against lane-by-lane references, edge values included, also
// with the destination a source.
func TestIntRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	edges := []uint32{0, 1, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff}
	for range 3000 {
		var a, b lanes
		for l := range 32 {
			a[l], b[l] = rng.Uint32(), rng.Uint32()
			switch rng.IntN(4) {
			case 0:
				a[l], b[l] = edges[rng.IntN(len(edges))], edges[rng.IntN(len(edges))]
			case 1:
				b[l] = a[l]
			}
		}
		for _, flip := range []uint32{0, 1 << 31} {
			var wantLt, wantEq uint32
			for l := range 32 {
				if a[l]^flip < b[l]^flip {
					wantLt |= 1 << l
				}
				if a[l] == b[l] {
					wantEq |= 1 << l
				}
			}
			if lt, eq := cmpRows(&a, &b, flip); lt != wantLt || eq != wantEq {
				t.Fatalf("flip %#x: lt %#x eq %#x, want %#x %#x", flip, lt, eq, wantLt, wantEq)
			}
		}
		na, nb, sh := -uint32(rng.IntN(2)), -uint32(rng.IntN(2)), rng.Uint32()
		var want, got lanes
		for l := range 32 {
			x, y := a[l], b[l]
			if na != 0 {
				x = -x
			}
			if nb != 0 {
				y = -y
			}
			want[l] = x + y
		}
		addRowsNeg(&got, &a, &b, na, nb)
		if got != want {
			t.Fatalf("IADD (neg %v %v): got %x, want %x", na != 0, nb != 0, got, want)
		}
		got = a
		addRowsNeg(&got, &got, &b, na, nb)
		if got != want {
			t.Fatal("IADD into a: differs")
		}
		for l := range 32 {
			want[l] = a[l]<<(sh%32) + b[l]
		}
		got = b
		shlAddRows(&got, &a, &got, sh)
		if got != want {
			t.Fatalf("ISCADD by %d into b: got %x, want %x", sh%32, got, want)
		}
	}
}
