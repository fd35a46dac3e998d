package fermi

import (
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// The unrolled lane loops against one-lane-at-a-time statements of the
// same operations, on random words and the edges of the ranges.
func TestLaneLoops(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	edge := []uint32{0, 1, 2, 31, 32, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff}
	word := func() uint32 {
		if rng.Intn(3) == 0 {
			return edge[rng.Intn(len(edge))]
		}
		return rng.Uint32()
	}
	for range 200 {
		var a, b, c lanes
		for l := range a {
			a[l], b[l], c[l] = word(), word(), word()
			if rng.Intn(4) == 0 {
				b[l] = a[l]
			}
		}
		p, na, nb, sh := rng.Uint32(), -uint32(rng.Intn(2)), -uint32(rng.Intn(2)), uint32(rng.Intn(32))
		check := func(name string, f func(r *lanes), want func(l int) uint32) {
			t.Helper()
			var r lanes
			f(&r)
			for l := range r {
				if w := want(l); r[l] != w {
					t.Fatalf("%s: lane %d: %#x, want %#x (a %#x b %#x c %#x)", name, l, r[l], w, a[l], b[l], c[l])
				}
			}
		}
		check("add", func(r *lanes) { addLanes(r, &a, &b) }, func(l int) uint32 { return a[l] + b[l] })
		check("sub", func(r *lanes) { subLanes(r, &a, &b) }, func(l int) uint32 { return a[l] - b[l] })
		check("add3", func(r *lanes) { add3Lanes(r, &a, &b, &c) }, func(l int) uint32 { return a[l] + b[l] + c[l] })
		check("scadd", func(r *lanes) { scaddLanes(r, &a, &b, uint8(sh)) }, func(l int) uint32 { return a[l]<<sh + b[l] })
		check("shl", func(r *lanes) { shlLanes(r, &a, sh) }, func(l int) uint32 { return a[l] << sh })
		check("shr", func(r *lanes) { shrLanes(r, &a, sh) }, func(l int) uint32 { return a[l] >> sh })
		check("sar", func(r *lanes) { sarLanes(r, &a, sh) }, func(l int) uint32 { return uint32(int32(a[l]) >> sh) })
		check("and", func(r *lanes) { andLanes(r, &a, &b, na, nb) }, func(l int) uint32 { return (a[l] ^ na) & (b[l] ^ nb) })
		check("or", func(r *lanes) { orLanes(r, &a, &b, na, nb) }, func(l int) uint32 { return (a[l] ^ na) | (b[l] ^ nb) })
		check("xor", func(r *lanes) { xorLanes(r, &a, &b, na, nb) }, func(l int) uint32 { return a[l] ^ na ^ b[l] ^ nb })
		check("mul", func(r *lanes) { mulLanes(r, &a, &b) }, func(l int) uint32 { return a[l] * b[l] })
		check("mad", func(r *lanes) { madLanes(r, &a, &b, &c) }, func(l int) uint32 { return a[l]*b[l] + c[l] })
		check("sel", func(r *lanes) { selLanes(r, &a, &b, p) }, func(l int) uint32 {
			if p>>l&1 != 0 {
				return a[l]
			}
			return b[l]
		})
		check("blend", func(r *lanes) { *r = c; blendLanes(r, &a, p) }, func(l int) uint32 {
			if p>>l&1 != 0 {
				return a[l]
			}
			return c[l]
		})
		// the aliased form: r is a source
		check("add aliased", func(r *lanes) { *r = a; addLanes(r, r, &b) }, func(l int) uint32 { return a[l] + b[l] })
		for sel := range uint8(16) {
			m := fcmpLanes(&a, &b, sel)
			for l := range a {
				x, y := math.Float32frombits(a[l]), math.Float32frombits(b[l])
				if want := b2u(fcmpRel(float64(x), float64(y))&sel != 0); m>>l&1 != want {
					t.Fatalf("fcmp sel %#x lane %d: %g vs %g: %d", sel, l, x, y, m>>l&1)
				}
			}
		}
		for _, flip := range []uint32{0, 0x80000000} {
			for c := range uint8(8) {
				m := cmpLanes(c, &a, &b, flip)
				for l := range a {
					if want := icmpResult(c, a[l]^flip < b[l]^flip, a[l] == b[l]); m>>l&1 != b2u(want) {
						t.Fatalf("cmp %d flip %#x lane %d: %#x vs %#x: %d", c, flip, l, a[l], b[l], m>>l&1)
					}
				}
			}
		}
	}
}

// TestLaneAddresses checks the bounds and run tests of the fast loads and
// stores against per-lane statements, on runs near the ends of memory and
// of the address space.
func TestLaneAddresses(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	small := make([]byte, 0x10000+4)
	for range 2000 {
		var base lanes
		start := []uint32{0, 4, rng.Uint32() &^ 3, 0xffffffff - 31*4, 0xffffffff - 31*4 + 1, 0xfffffff8, 1000, 0x10000 - 128}[rng.Intn(8)]
		for l := range base {
			base[l] = start + 4*uint32(l)
		}
		switch rng.Intn(4) {
		case 0: // one lane off the run
			base[rng.Intn(32)] += uint32(rng.Intn(9)) - 4
		case 1: // a shuffle
			rng.Shuffle(32, func(i, j int) { base[i], base[j] = base[j], base[i] })
		}
		off := []uint32{0, 4, 0x80, 0xfffffffc, rng.Uint32()}[rng.Intn(5)]
		limit := []uint32{0x10000 - 4, 0xfffffffc, 1020, rng.Uint32()}[rng.Intn(4)]
		wantIn, wantRun := true, true
		first := base[0] + off
		var wantHi uint32
		for l := range base {
			a := base[l] + off
			wantHi = max(wantHi, a)
			if a > limit || a&3 != 0 {
				wantIn = false
			}
			if a != first+4*uint32(l) || first+4*uint32(l) < first {
				wantRun = false
			}
		}
		wantRun = wantRun && wantIn
		if hi, got := inBounds(&base, off, limit, 3); got != wantIn || hi != wantHi {
			t.Fatalf("inBounds(start %#x off %#x limit %#x) = %#x, %v, want %#x, %v", start, off, limit, hi, got, wantHi, wantIn)
		}
		if limit < uint32(len(small)) {
			var r lanes
			if got := gatherChecked(&r, unsafe.Pointer(unsafe.SliceData(small)), &base, off, limit); got != wantIn {
				t.Fatalf("gatherChecked(start %#x off %#x limit %#x) = %v", start, off, limit, got)
			}
		}
		f, run := consecutive(&base, off, limit)
		if run && (!wantRun || f != first) {
			t.Fatalf("consecutive(start %#x off %#x limit %#x) = %#x, true; lanes %x", start, off, limit, f, base)
		}
		if !run && wantRun && uint64(base[0])+31*4 <= 0xffffffff {
			t.Fatalf("consecutive(start %#x off %#x limit %#x) missed a run", start, off, limit)
		}
	}
	// a run whose expected pairs would carry (base[0] near 2^32) with the
	// lanes arranged so that the carry matches: never a run
	var base lanes
	b0 := uint32(0xfffffff8)
	want := uint64(b0) | uint64(b0+4)<<32
	for i := range 16 {
		base[2*i], base[2*i+1] = uint32(want), uint32(want>>32)
		want += 8<<32 | 8
	}
	if _, ok := consecutive(&base, 8, 0xfffffffc); ok {
		t.Error("a carrying run is taken as consecutive")
	}
	// gather and scatter read and write in place
	mem := make([]byte, 4096)
	var idx, v, r lanes
	for l := range idx {
		idx[l] = uint32(4 * rng.Intn(1024))
		v[l] = rng.Uint32()
	}
	p := unsafe.Pointer(unsafe.SliceData(mem))
	scatter(p, &idx, 0, &v)
	if !gatherChecked(&r, p, &idx, 0, uint32(len(mem)-4)) {
		t.Fatal("gatherChecked refuses words in bounds")
	}
	for l := range r {
		last := -1
		for m := range idx {
			if idx[m] == idx[l] {
				last = m
			}
		}
		if r[l] != v[last] {
			t.Fatalf("lane %d reads %#x, want the last store to its word %#x", l, r[l], v[last])
		}
	}
}
