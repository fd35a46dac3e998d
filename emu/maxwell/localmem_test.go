package maxwell

import (
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

func localmemRef(k, s uint32) (out [10]uint32) {
	var arr [64]uint32
	for i := range arr {
		arr[i] = uint32(i) * k
	}
	r0 := s & 63
	r1 := arr[r0]
	r2 := r0 ^ 17
	r3 := arr[r2]
	r4 := r2 // bytes[i] = i, read as s8
	r5 := (s & 0x30) / 4
	r6, r7, r8, r9 := arr[r5], arr[r5+1], arr[r5+2], arr[r5+3]
	arr[r5+2], arr[r5+3] = r1, r3
	lo, hi := arr[6], arr[7]
	var sum uint32
	for i := uint32(0); i < r0; i++ {
		sum += arr[i]
	}
	return [10]uint32{r1, r3, r4, sum, r6, r7, r8, r9, lo, hi}
}

func TestOracleLocalmem(t *testing.T) {
	forVariants(t, "13_localmem", func(t *testing.T, prog []byte, arch string) {
		const n = 64
		rng := rand.New(rand.NewPCG(25, 26))
		in := make([]uint32, 2*n)
		for i := range in {
			in[i] = rng.Uint32()
		}
		r := run{program: prog, arch: arch, kernel: "localmem", grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{fromU32(in), make([]byte, 48*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		got := u32s(res.bufs[1])
		for i := 0; i < n; i++ {
			want := localmemRef(in[2*i], in[2*i+1])
			for j, w := range want {
				if g := got[12*i+j]; g != w {
					t.Errorf("thread %d (k=%#x s=%#x) word %d: got %#x, want %#x", i, in[2*i], in[2*i+1], j, g, w)
				}
			}
		}
	})
}
