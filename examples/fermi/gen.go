//go:build ignore

// gen writes the inputs and expected outputs of the Fermi examples from
// plain Go arithmetic (not from the emulator): go run gen.go
package main

import (
	"encoding/binary"
	"math"
	"os"
)

func write(name string, words []uint32) {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		panic(err)
	}
}

func main() {
	// histogram of 10000 pseudo-random words (a fixed LCG) into 256 bins
	const n = 10000
	in := make([]uint32, n)
	hist := make([]uint32, 256)
	x := uint32(12345)
	for i := range in {
		x = x*1664525 + 1013904223
		in[i] = x
		hist[x&0xff]++
	}
	write("histogram_in.bin", in)
	write("histogram_expected.bin", hist)

	// saxpy with a = 0.5 on 1000 elements: x[i] = i, y[i] = 2i + 1
	// (every result is exact in single precision)
	const m = 1000
	xs, ys, want := make([]uint32, m), make([]uint32, m), make([]uint32, m)
	for i := range xs {
		xs[i] = math.Float32bits(float32(i))
		ys[i] = math.Float32bits(float32(2*i + 1))
		want[i] = math.Float32bits(0.5*float32(i) + float32(2*i+1))
	}
	write("saxpy64_x.bin", xs)
	write("saxpy64_y.bin", ys)
	write("saxpy64_expected.bin", want)
}
