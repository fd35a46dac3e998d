package fermi

// The fast paths' lane functions against the lane-by-lane semantics they
// stand for, on random rows and the edge cases each one singles out.

import (
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// TestPrmtLanesWindows: PRMT's byte windows (every lane forward, every
// lane backward, mixed, with signs) give prmt's bytes.
func TestPrmtLanesWindows(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var a, s, b, r lanes
	for it := 0; it < 20000; it++ {
		for l := range a {
			a[l], b[l] = rng.Uint32(), rng.Uint32()
			k := rng.Intn(4)
			if it%3 < 2 {
				k = it % 3
			}
			if it%7 == 0 {
				k = rng.Intn(2)
			}
			switch k {
			case 0:
				s[l] = uint32(rng.Intn(5+3*(it&1)))*0x1111 + 0x3210
			case 1:
				s[l] = uint32(rng.Intn(5+3*(it&1)))*0x1111 + 0x0123
			case 2:
				s[l] = rng.Uint32() & 0xffff
			default:
				s[l] = rng.Uint32()
			}
		}
		back := prmtLanes(&r, &a, &s, &b)
		for l := range r {
			if want := prmt(a[l], s[l], b[l], 0); r[l] != want {
				t.Fatalf("sel %#x: got %#x want %#x", s[l], r[l], want)
			}
		}
		if back {
			var shift, r2 lanes
			for l := range s {
				shift[l] = s[l] >> 9 & 0x38
			}
			prmtBackward(&r2, &a, &shift, &b)
			if r2 != r {
				t.Fatalf("prmtBackward differs from prmtLanes")
			}
		}
	}
}

// TestFfmaRN: FFMA through one double sum equals ffma32, halfway sums,
// zeros, denormals and infinities included.
func TestFfmaRN(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var a, b, c, r lanes
	pick := func() uint32 {
		switch rng.Intn(6) {
		case 0:
			return rng.Uint32() & 0x807fffff // zeros, denormals
		case 1:
			return uint32(rng.Intn(16))<<20 | 0x3f800000 // few bits
		case 2:
			return 0x7f800000 | rng.Uint32()&0x80000000
		case 3:
			return rng.Uint32()&0x80ffffff | 0x3f000000
		}
		return rng.Uint32()
	}
	for it := 0; it < 40000; it++ {
		for l := range a {
			a[l], b[l], c[l] = pick(), pick(), pick()
		}
		np, nc := signMask(it&1 != 0), signMask(it&2 != 0)
		ffmaRN(&r, &a, &b, &c, np, nc)
		for l := range r {
			x, y, z := math.Float32frombits(a[l]^np), math.Float32frombits(b[l]), math.Float32frombits(c[l]^nc)
			if want := fout(ffma32(x, y, z, 0), 0); r[l] != want {
				t.Fatalf("%#x %#x %#x: got %#x want %#x", a[l], b[l], c[l], r[l], want)
			}
		}
	}
}

// TestPrmtScalarBfeUniform: PRMT with one selector, BFE.U32 with one
// field, and the uniform-row test they rely on.
func TestPrmtScalarBfeUniform(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var a, c, r, b lanes
	for it := 0; it < 20000; it++ {
		for l := range a {
			a[l], c[l] = rng.Uint32(), rng.Uint32()
		}
		sel := rng.Uint32() &^ 0x8888
		prmtScalar(&r, &a, sel, &c)
		for l := range r {
			if want := prmt(a[l], sel, c[l], 0); r[l] != want {
				t.Fatalf("prmt sel %#x: got %#x want %#x", sel, r[l], want)
			}
		}
		v := rng.Uint32()
		if it&1 == 0 {
			v &= 0x3f3f
		}
		for l := range b {
			b[l] = v
		}
		if !uniform(&b) {
			t.Fatal("not uniform")
		}
		pos, n := v&0xff, min(v>>8&0xff, 32)
		bfeUniform(&r, &a, min(pos, 63), uint64(1)<<n-1)
		for l := range r {
			if want := bfe(a[l], v, fU32); r[l] != want {
				t.Fatalf("bfe %#x of %#x: got %#x want %#x", v, a[l], r[l], want)
			}
		}
		b[rng.Intn(32)] ^= 1 << rng.Intn(32)
		if uniform(&b) {
			t.Fatal("uniform")
		}
	}
}

// TestFaddFmulRN: whole-row FADD and FMUL make NaNs canonical.
func TestFaddFmulRN(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	var a, b, r lanes
	for it := 0; it < 20000; it++ {
		randomRows(rng, &a, &b)
		for l := range a {
			if rng.Intn(8) == 0 {
				a[l] = 0x7f800000 | rng.Uint32()&0x807fffff
			}
			if rng.Intn(8) == 0 {
				b[l] = 0x7f800000 | rng.Uint32()&0x80000000
			}
		}
		for _, c := range []struct {
			name string
			row  func(r, a, b *lanes)
			op   func(x, y float32) float32
		}{
			{"fadd", faddRN, func(x, y float32) float32 { return x + y }},
			{"fmul", fmulRN, func(x, y float32) float32 { return x * y }},
		} {
			c.row(&r, &a, &b)
			for l := range r {
				if want := fnan(c.op(math.Float32frombits(a[l]), math.Float32frombits(b[l]))); r[l] != want {
					t.Fatalf("%s %#x %#x: got %#x want %#x", c.name, a[l], b[l], r[l], want)
				}
			}
		}
	}
}

// TestMinMaxLanes: IMNMX with one choice for the warp.
func TestMinMaxLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var a, b, r lanes
	for it := 0; it < 5000; it++ {
		randomRows(rng, &a, &b)
		for l := range a {
			if rng.Intn(4) == 0 {
				b[l] = a[l]
			}
		}
		for _, mn := range []bool{false, true} {
			for _, u := range []bool{false, true} {
				minMaxLanes(&r, &a, &b, mn, u)
				for l := range r {
					lt := a[l] < b[l]
					if !u {
						lt = int32(a[l]) < int32(b[l])
					}
					want := b[l]
					if lt == mn {
						want = a[l]
					}
					if r[l] != want {
						t.Fatalf("min %v unsigned %v %#x %#x: got %#x want %#x", mn, u, a[l], b[l], r[l], want)
					}
				}
			}
		}
	}
}

// TestVshlAccBfiLanes: VSHL.ACC of whole words (amounts past 32) and BFI
// with a constant field (positions and lengths past the word).
func TestVshlAccBfiLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	var a, b, c, r lanes
	for it := 0; it < 5000; it++ {
		for l := range a {
			a[l], b[l], c[l] = rng.Uint32(), rng.Uint32()%40, rng.Uint32()
			if rng.Intn(4) == 0 {
				b[l] = rng.Uint32()
			}
		}
		vshlAccLanes(&r, &a, &b, &c)
		for l := range r {
			if want := uint32(uint64(a[l])<<min(b[l], 32)) + c[l]; r[l] != want {
				t.Fatalf("got %#x want %#x", r[l], want)
			}
		}
		var pos, n uint32 = uint32(rng.Intn(34)), uint32(rng.Intn(40))
		bfiLanes(&r, &a, pos|n<<8, &c)
		for l := range r {
			if want := bfi(a[l], pos|n<<8, c[l]); r[l] != want {
				t.Fatalf("bfi %d %d: got %#x want %#x", pos, n, r[l], want)
			}
		}
	}
}

// randomRows fills rows with random words.
func randomRows(rng *rand.Rand, rows ...*lanes) {
	for _, x := range rows {
		for l := range x {
			x[l] = rng.Uint32()
		}
	}
}

// TestTldLanes: a whole warp's texel fetch gives each lane its texel, and
// 0 for an index past the end (the largest indices included), in place
// over the index row as well.
func TestTldLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	texels := make([]uint32, 37)
	for i := range texels {
		texels[i] = rng.Uint32() | 1
	}
	p := unsafe.Pointer(unsafe.SliceData(texels))
	for it := 0; it < 2000; it++ {
		var idx, r lanes
		for l := range idx {
			switch rng.Intn(4) {
			case 0:
				idx[l] = uint32(len(texels)) + uint32(rng.Intn(3))
			case 1:
				idx[l] = math.MaxUint32 - uint32(rng.Intn(3))
			default:
				idx[l] = uint32(rng.Intn(len(texels)))
			}
		}
		var want lanes
		for l, i := range idx {
			if int(i) < len(texels) {
				want[l] = texels[i]
			}
		}
		tldLanes(&r, &idx, p, uint64(len(texels)))
		if r != want {
			t.Fatalf("indices %v: got %v, want %v", idx, r, want)
		}
		tldLanes(&idx, &idx, p, uint64(len(texels)))
		if idx != want {
			t.Fatalf("in place: got %v, want %v", idx, want)
		}
	}
}
