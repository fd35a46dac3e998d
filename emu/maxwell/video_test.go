package maxwell

import (
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

func clampS32(v int64) uint32 { return uint32(max(-1<<31, min(v, 1<<31-1))) }

// videoRef computes the scalar video results of 16_video (PTX semantics):
// words 0..14, 25 and 29..31.
func videoRef(a, b, c, d uint32) map[int]uint32 {
	h := func(v uint32, i int) int64 { return int64(int16(v >> (16 * i))) }
	bu := func(v uint32, i int) int64 { return int64(v >> (8 * i) & 0xff) }
	bs := func(v uint32, i int) int64 { return int64(int8(v >> (8 * i))) }
	abs := func(v int64) int64 { return max(v, -v) }
	r := map[int]uint32{}
	r[0] = a + b
	r[1] = clampS32(h(a, 0) + h(b, 1))
	r[2] = uint32(bu(a, 0)+bu(b, 2)) + c
	r[3] = clampS32(int64(int32(a)) - int64(b))
	r[4] = uint32(abs(int64(a) - int64(b)))
	r[5] = uint32(abs(bs(a, 1)-bs(b, 3))) + c
	r[6] = min(a, b)
	r[7] = uint32(max(h(a, 1), h(b, 0), int64(int32(c))))
	if b < 32 {
		r[8] = a << b
	}
	r[9] = a >> (b & 31)
	r[10] = uint32(int32(a)>>min(b, 31)) + c
	r[11] = uint32(h(a, 0)*h(b, 0) + int64(int32(c)))
	r[12] = uint32((bu(a, 0)*bu(b, 0) + int64(c)) >> 7)
	r[13] = b01(a < b)
	r[14] = b01(h(a, 1) >= h(b, 1)) + c
	var sad uint32
	for i := range 4 {
		sad += uint32(abs(bu(a, i) - bu(b, i)))
	}
	r[25] = sad + c
	if a > b {
		r[29] = a - b + d
	} else {
		r[29] = b - a + d
	}
	r[30] = prmtRef(2, a, b, c)
	r[31] = prmtRef(3, a, b, d)
	return r
}

// TestOracleVideo checks the scalar video instructions against PTX
// semantics. ptxas expands the SIMD forms (vadd2, vavrg4, ...) into other
// instructions; their results must agree between all six builds (-O3 and
// -O0 code differ), and the -O3 sm_52 build is the reference for them.
func TestOracleVideo(t *testing.T) {
	const n = 64
	rng := rand.New(rand.NewPCG(27, 28))
	in := make([]uint32, 4*n)
	for i := range in {
		in[i] = rng.Uint32()
		if i%8 == 1 {
			in[i] = uint32(rng.IntN(40)) // small b: shifts below and above 32
		}
	}
	var first []uint32
	for _, v := range variants {
		prog := oracleCubin(t, v.arch, "16_video."+v.opt+".cubin")
		r := run{program: prog, arch: v.arch, kernel: "video", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{fromU32(in), make([]byte, 128*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatalf("%s %s: %v", v.arch, v.opt, err)
		}
		got := u32s(res.bufs[1])
		for i := 0; i < n; i++ {
			for j, w := range videoRef(in[4*i], in[4*i+1], in[4*i+2], in[4*i+3]) {
				if g := got[32*i+j]; g != w {
					t.Errorf("%s %s thread %d (%#x %#x %#x %#x) word %d: got %#x, want %#x", v.arch, v.opt, i, in[4*i], in[4*i+1], in[4*i+2], in[4*i+3], j, g, w)
				}
			}
		}
		if first == nil {
			first = got
			continue
		}
		if err := sameWords(got, first); err != nil {
			t.Errorf("%s %s differs from sm_50 O3: %v", v.arch, v.opt, err)
		}
	}
}
