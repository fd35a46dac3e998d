package maxwell

import (
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

func collatz(n uint32) uint32 {
	k := uint32(0)
	for n > 1 {
		k++
		if n&1 == 0 {
			n >>= 1
		} else {
			n = n*3 + 1
		}
	}
	return k
}

func fibRef(n uint32) uint32 {
	if n < 2 {
		return n
	}
	return fibRef(n-1) + fibRef(n-2)
}

func branchesRef(t int, a, b, c int32) [4]uint32 {
	var acc int32
	if t&1 != 0 {
		acc = a * b
	} else {
		acc = a + c
	}
	for i := int32(0); i < a; i++ {
		for j := int32(0); j < b; j++ {
			if j&3 == 1 {
				continue
			}
			acc ^= j
			acc += i
			if acc > c {
				break
			}
		}
	}
	switch c & 3 {
	case 0:
		acc += 100
	case 1:
		acc <<= 1
	case 2:
		acc ^= 0x5555
	case 3:
		acc = ^acc
	}
	var r7 uint32
	for r8 := uint32(0); r8 < 32; r8++ {
		if r8 < uint32(t) {
			r7 += r8
		}
	}
	return [4]uint32{uint32(acc), collatz(uint32(a)), fibRef(uint32(b) & 15), r7}
}

func TestOracleBranches(t *testing.T) {
	forVariants(t, "09_branches", func(t *testing.T, prog []byte, arch string) {
		const n = 96
		rng := rand.New(rand.NewPCG(19, 20))
		in := make([]uint32, 4*n)
		for i := 0; i < n; i++ {
			a, b, c := int32(rng.IntN(25)), int32(rng.IntN(25)), int32(rng.IntN(260)-60)
			r0 := int32(0)
			if rng.IntN(7) == 0 {
				r0 = -1
			}
			copy(in[4*i:], []uint32{uint32(a), uint32(b), uint32(c), uint32(r0)})
		}
		r := run{program: prog, arch: arch, kernel: "branches", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{fromU32(in), make([]byte, 16*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		got := u32s(res.bufs[1])
		for i := 0; i < n; i++ {
			v := in[4*i:]
			want := [4]uint32{}
			if int32(v[3]) != -1 {
				want = branchesRef(i, int32(v[0]), int32(v[1]), int32(v[2]))
			}
			for j := range want {
				if got[4*i+j] != want[j] {
					t.Errorf("thread %d (a=%d b=%d c=%d exit=%v) word %d: got %#x, want %#x", i, int32(v[0]), int32(v[1]), int32(v[2]), int32(v[3]) == -1, j, got[4*i+j], want[j])
				}
			}
		}
		if res.stats.Divergent == 0 {
			t.Error("no divergent branches counted")
		}
	})
}
