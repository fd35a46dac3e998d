package maxwell

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// pair applies f to both halves of packed x and y.
func pair(x, y uint32, f func(a, b float64) uint16) uint32 {
	lo := f(halfValue(uint16(x)), halfValue(uint16(y)))
	hi := f(halfValue(uint16(x>>16)), halfValue(uint16(y>>16)))
	return uint32(lo) | uint32(hi)<<16
}

func ftz16(h uint16) uint16 {
	if h&0x7c00 == 0 {
		return h & 0x8000
	}
	return h
}

func sat16(x float64) float64 { return max(0, min(1, x)) }

func halfRef(a, b, c uint32) (r [16]uint32) {
	rn := func(x float64) uint16 { return half16(x, 0) }
	r[0] = pair(a, b, func(x, y float64) uint16 { return rn(x + y) })
	r[1] = pair(a, c, func(x, y float64) uint16 { return rn(x - y) })
	r[2] = pair(a, b, func(x, y float64) uint16 { return rn(x * y) })
	fma3 := func(x, y, z uint32, post func(float64) float64) uint32 {
		var out uint32
		for s := 0; s < 32; s += 16 {
			v := halfValue(uint16(x>>s))*halfValue(uint16(y>>s)) + halfValue(uint16(z>>s)) // exact for these inputs
			out |= uint32(rn(post(v))) << s
		}
		return out
	}
	id := func(x float64) float64 { return x }
	r[3] = fma3(a, b, c, id)
	r[4] = fma3(b, c, a, sat16)
	r[5] = pair(b, c, func(x, y float64) uint16 {
		x, y = halfValue(ftz16(half16(x, 0))), halfValue(ftz16(half16(y, 0)))
		return ftz16(rn(x + y))
	})
	r[6] = a ^ 0x80008000
	r[7] = b &^ 0x80008000
	r[8] = fma3(a, 0x3c003c00, c, id)
	var p0, p1 bool
	p0 = halfValue(uint16(a)) < halfValue(uint16(b))
	p1 = halfValue(uint16(a>>16)) < halfValue(uint16(b>>16))
	r[9], r[10] = b01(p0), 2*b01(p1)
	r[11] = pair(a, c, func(x, y float64) uint16 {
		if x > y || x != x || y != y {
			return 0xffff
		}
		return 0
	})
	r[12] = pair(b, c, func(x, y float64) uint16 {
		if x == y {
			return 0x3c00
		}
		return 0
	})
	ha, hb, hc, h0 := halfValue(uint16(a)), halfValue(uint16(a>>16)), halfValue(uint16(b)), uint16(b>>16)
	h1, h2, h3 := rn(ha+hb), rn(ha*hc), rn(ha*hb+hc)
	h4 := h2
	if ha >= hc {
		h4 = h1
	}
	r14 := uint32(h3) | uint32(h4)<<16
	h5 := rn(float64(float32(ha) + float32(hb)))
	r15 := uint32(h5) | uint32(h0)<<16
	r[13], r[14], r[15] = r14, r15, 0
	gtu := func(x, y float64) bool { return x > y || x != x || y != y }
	if gtu(halfValue(uint16(r15)), halfValue(uint16(r14))) {
		r[15] = r15
	} else {
		r[15] = r14
	}
	return
}

func TestOracleHalf(t *testing.T) {
	for _, opt := range []string{"O3", "O0"} {
		t.Run(opt, func(t *testing.T) {
			prog := oracleCubin(t, "sm_53", "18_half_sm53."+opt+".cubin")
			const n = 64
			rng := rand.New(rand.NewPCG(23, 24))
			randHalf := func() uint32 {
				// 6 fraction bits and small exponents keep a*b+c exact in float64
				v := float64(rng.IntN(128)-64) / 16 * math.Exp2(float64(rng.IntN(6)-3))
				return uint32(half16(v, 0))
			}
			in := make([]uint32, 4*n)
			for i := 0; i < n; i++ {
				for j := 0; j < 3; j++ {
					in[4*i+j] = randHalf() | randHalf()<<16
				}
			}
			in[4*1+1] = 0x00030001 // denormals for .FTZ
			in[4*1+2] = 0x80020004
			in[4*2+1] = in[4*2] // equal pairs
			r := run{program: prog, arch: "sm_53", kernel: "half2ops", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
				args: []arg{fromU32(in), make([]byte, 80*n)}}
			res, err := r.exec(t)
			if err != nil {
				t.Fatal(err)
			}
			got := u32s(res.bufs[1])
			for i := 0; i < n; i++ {
				want := halfRef(in[4*i], in[4*i+1], in[4*i+2])
				for j, w := range want {
					if g := got[20*i+j]; g != w {
						t.Errorf("thread %d (a=%#x b=%#x c=%#x) word %d: got %#x, want %#x", i, in[4*i], in[4*i+1], in[4*i+2], j, g, w)
					}
				}
			}
		})
	}
}
