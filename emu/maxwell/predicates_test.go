package maxwell

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

func b01(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func bmask(b bool) uint32 { return -b01(b) }

func predicatesRef(a, b, c, r47 uint32, x, y, z float32) (r [47]uint32) {
	sa, sb, sc := int32(a), int32(b), int32(c)
	un := func(p, q float32) bool { return p != p || q != q }
	p := [33]bool{
		sa == sb, sa != sb, sa < sb, sa <= sb, sa > sb, sa >= sb,
		a < c, a <= c, a > c, a >= c,
		x == y, x != y && !un(x, y), x < y, x <= y, x > y, x >= y,
		x == z || un(x, z), x != z, x < z || un(x, z), x <= z || un(x, z), x > z || un(x, z), x >= z || un(x, z),
		!un(x, z), un(x, z),
	}
	p[24] = sa < sc && p[0]
	p[25] = !(sa < sc) && p[0]
	p[26] = y > z || p[12]
	p[27] = (b != 17) != !p[3]
	p[28] = p[1] && p[2]
	p[29] = p[4] || p[5]
	p[30] = p[6] != p[7]
	p[31] = !p[8]
	p[32] = p[9] && !p[10]
	for i := range 33 {
		r[i] = b01(p[i])
	}
	if p[1] {
		r[1] = a
	} else {
		r[1] = b
	}
	if p[2] {
		r[2] = a
	} else {
		r[2] = 7
	}
	r[33] = bmask(sa < sb)
	r[34] = bmask(a >= c)
	r[35] = bmask(x > y || un(x, y))
	if x == z {
		r[36] = 0x3f800000
	}
	r[37] = bmask(a != c && p[2])
	if sc >= 0 {
		r[38] = a
	} else {
		r[38] = b
	}
	if z >= 0 {
		r[39] = math.Float32bits(x)
	} else {
		r[39] = math.Float32bits(y)
	}
	if x >= 0 {
		r[40] = a
	} else {
		r[40] = b
	}
	if p[12] {
		r[41] = a + b
	} else {
		r[41] = a - b
	}
	if p[26] {
		r[42] = math.Float32bits(x)
	} else {
		r[42] = math.Float32bits(y)
	}
	r[43], r[44], r[45] = b01(sa < 0), b01(b == 0), b01(c != 0)
	r[46] = b01(r47 > 1000)
	return
}

func TestOraclePredicates(t *testing.T) {
	forVariants(t, "08_predicates", func(t *testing.T, prog []byte, arch string) {
		const n = 96
		rng := rand.New(rand.NewPCG(17, 18))
		in := make([]uint32, 8*n)
		nan := float32(math.NaN())
		for i := 0; i < n; i++ {
			a, b, c := rng.Uint32(), rng.Uint32(), rng.Uint32()
			x, y, z := rng.Float32()*4-2, rng.Float32()*4-2, rng.Float32()*4-2
			switch i % 6 {
			case 1:
				b, c, y = a, a, x
			case 2:
				x = nan
			case 3:
				z, y = nan, nan
			case 4:
				a, b, c, z, x = 0, 17, 0, 0, -0.0
			case 5:
				a, b, c = uint32(rng.IntN(5)), uint32(rng.IntN(5)), uint32(rng.IntN(5))
			}
			copy(in[8*i:], []uint32{a, b, c, rng.Uint32N(2000), math.Float32bits(x), math.Float32bits(y), math.Float32bits(z), 0})
		}
		r := run{program: prog, arch: arch, kernel: "predicates", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{fromU32(in), make([]byte, 256*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		got := u32s(res.bufs[1])
		for i := 0; i < n; i++ {
			v := in[8*i:]
			want := predicatesRef(v[0], v[1], v[2], v[3], math.Float32frombits(v[4]), math.Float32frombits(v[5]), math.Float32frombits(v[6]))
			for j, w := range want {
				if g := got[64*i+j]; g != w {
					t.Errorf("thread %d (%#x %#x %#x %d %g %g %g) r%d: got %#x, want %#x", i, v[0], v[1], v[2], v[3],
						math.Float32frombits(v[4]), math.Float32frombits(v[5]), math.Float32frombits(v[6]), j, g, w)
				}
			}
		}
	})
}
