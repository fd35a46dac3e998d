//go:build ignore

// gen writes the inputs and expected outputs of the sm_5x fault-injection
// examples from plain Go arithmetic (not from the emulator): go run gen.go.
// Inputs are small integers held in floats, so that every sum is exact in
// any order and the expected outputs do not depend on rounding.
package main

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
)

func main() {
	rng := rand.New(rand.NewPCG(2026, 17))
	small := func() float32 { return float32(rng.IntN(17) - 8) }

	// vecadd_f32 (oracle 01_vecadd): c = a + b, n = 1000
	const n = 1000
	a, b, c := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = small(), small()
		c[i] = a[i] + b[i]
	}
	f32s("vecadd_a.bin", a)
	f32s("vecadd_b.bin", b)
	f32s("vecadd_c_expected.bin", c)

	// saxpy (oracle 02_saxpy): y = 3 x + y, n = 1000
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = small(), small()
	}
	f32s("saxpy_x.bin", x)
	f32s("saxpy_y.bin", y)
	for i := range y {
		y[i] = 3*x[i] + y[i]
	}
	f32s("saxpy_y_expected.bin", y)

	// reduce_sum (oracle 10_reduce_shared): the sum of each block's 256
	// elements of 2000
	const rn, bdim, blocks = 2000, 256, 8
	in := make([]float32, rn)
	sums := make([]float32, blocks)
	for i := range in {
		in[i] = small()
		sums[i/bdim] += in[i]
	}
	f32s("reduce_in.bin", in)
	f32s("reduce_out_expected.bin", sums)

	// branches (oracle 09_branches): four words in and out per thread
	const bn = 96
	var bin, bout []uint32
	for t := range bn {
		va, vb, vc := int32(rng.IntN(25)), int32(rng.IntN(25)), int32(rng.IntN(260)-60)
		r0 := int32(0)
		if rng.IntN(7) == 0 {
			r0 = -1 // the thread leaves early: its outputs stay zero
		}
		bin = append(bin, uint32(va), uint32(vb), uint32(vc), uint32(r0))
		want := [4]uint32{}
		if r0 != -1 {
			want = branches(t, va, vb, vc)
		}
		bout = append(bout, want[:]...)
	}
	u32s("branches_in.bin", bin)
	u32s("branches_out_expected.bin", bout)

	// matmul (ours): C = A B, 80 x 80
	const mn = 80
	ma, mb, mc := make([]float32, mn*mn), make([]float32, mn*mn), make([]float32, mn*mn)
	for i := range ma {
		ma[i], mb[i] = small(), small()
	}
	for r := range mn {
		for col := range mn {
			var s float32
			for k := range mn {
				s += ma[r*mn+k] * mb[k*mn+col]
			}
			mc[r*mn+col] = s
		}
	}
	f32s("matmul_a.bin", ma)
	f32s("matmul_b.bin", mb)
	f32s("matmul_c_expected.bin", mc)
}

// branches is the oracle kernel's arithmetic (09_branches.ptx): a
// divergent if/else, nested loops with break and continue, a jump table,
// the collatz steps of a, fib(b & 15) (recursive), the sum of r8 < t.
func branches(t int, a, b, c int32) [4]uint32 {
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
	return [4]uint32{uint32(acc), collatz(uint32(a)), fib(uint32(b) & 15), r7}
}

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

func fib(n uint32) uint32 {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func f32s(name string, v []float32) {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	write(name, b)
}

func u32s(name string, v []uint32) {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	write(name, b)
}

func write(name string, b []byte) {
	if err := os.WriteFile(name, b, 0o644); err != nil {
		panic(err)
	}
}
