package maxwell

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// warpRef computes warpops for one full warp of inputs v.
func warpRef(v []uint32) (out [32][21]uint32) {
	var ballot uint32
	for l, x := range v {
		if int32(x) > 0 {
			ballot |= 1 << l
		}
	}
	var f [32]float32
	for l := range f {
		f[l] = float32(int32(v[l]))
	}
	for _, k := range []int{16, 8, 4, 2, 1} {
		var g [32]float32
		for l := range g {
			g[l] = f[l] + f[l^k]
		}
		f = g
	}
	for l := range 32 {
		o := &out[l]
		o[0] = ballot
		o[1] = b01(ballot == 0xffffffff)
		o[2] = b01(ballot != 0)
		o[3] = b01(ballot == 0 || ballot == 0xffffffff)
		o[4], o[10] = v[l], 0 // shfl.up by 1: lane 0 keeps its value, p5 false
		if l >= 1 {
			o[4], o[10] = v[l-1], 1
		}
		o[5], o[11] = v[l], 0 // shfl.down by 2 (p6)
		if l+2 <= 31 {
			o[5], o[11] = v[l+2], 1
		}
		o[6] = v[l^4]
		o[7] = v[ballot&31]
		r8 := v[l] & 31
		o[8] = v[r8] // r9
		o[9] = v[l]  // r10: shfl.down by r8 clamped at this lane: only r8 == 0 is in range, its own value
		o[12] = math.Float32bits(f[l])
		if l&1 == 1 {
			o[13] = ballot & 0xaaaaaaaa
		}
		o[14] = 1<<l - 1
		o[15] = 1<<(l+1) - 1
		o[16] = 1 << l
		o[17] = ^uint32(1<<l - 1)
		o[18] = ^uint32(1<<(l+1) - 1)
		o[19] = uint32(bits.OnesCount32(ballot & (1<<l - 1)))
		o[20] = 0xffffffff
	}
	return
}

func TestOracleWarp(t *testing.T) {
	forVariants(t, "12_warp", func(t *testing.T, prog []byte, arch string) {
		const n = 64
		rng := rand.New(rand.NewPCG(21, 22))
		in := make([]uint32, n)
		for i := range in {
			in[i] = uint32(rng.IntN(200) - 60)
		}
		for i := 32; i < 64; i++ {
			in[i] = uint32(rng.IntN(100) + 1) // the second warp: all positive
		}
		r := run{program: prog, arch: arch, kernel: "warpops", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{fromU32(in), make([]byte, 96*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		got := u32s(res.bufs[1])
		// output order: r0..r7, r9..r12, r15, r17, r18..r22, r24, m
		for w := 0; w < n/32; w++ {
			want := warpRef(in[32*w : 32*w+32])
			for l := range 32 {
				i := 32*w + l
				for j, x := range want[l] {
					if g := got[24*i+j]; g != x {
						t.Errorf("thread %d (v=%d) word %d: got %#x, want %#x", i, int32(in[i]), j, g, x)
					}
				}
			}
		}
	})
}
