//go:build ignore

// gen writes the inputs and expected outputs of the Tesla examples from
// plain Go arithmetic (not from the emulator): go run gen.go
package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
)

func main() {
	vecadd()
	scale()
}

func floats(name string, n int, f func(i int) float32) {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f(i)))
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		panic(err)
	}
}

// vecadd: c = a + b for the first 250 of 256 elements; the last 6 keep the
// buffer's fill (0xff bytes: NaN).
func vecadd() {
	const n, size = 250, 256
	floats("vecadd_a.bin", size, func(i int) float32 { return float32(i) })
	floats("vecadd_b.bin", size, func(i int) float32 { return float32(i) * 0.5 })
	c := func(i int) float32 {
		if i >= n {
			return math.Float32frombits(0xffffffff)
		}
		return float32(i) + float32(i)*0.5
	}
	floats("vecadd_c_expected.bin", size, c)
	// the same as words at c's address: buffers a, b, c of 1 KiB each are
	// placed in name order from 0x100
	var tsv strings.Builder
	tsv.WriteString("addr\texp\n")
	for i := range size {
		fmt.Fprintf(&tsv, "%#x\t%#08x\n", 0x900+4*i, math.Float32bits(c(i)))
	}
	if err := os.WriteFile("vecadd_c_expected.tsv", []byte(tsv.String()), 0o644); err != nil {
		panic(err)
	}
}

// scale: out[i] = in[i] * 2 + 0.5 + s, with in[i] = i, the constant 2 in
// bank 1 and s the shared word 0x3f3f3f3f (a fill of 0x3f bytes).
func scale() {
	const n = 256
	floats("scale_in.bin", n, func(i int) float32 { return float32(i) })
	floats("scale_c1.bin", 1, func(int) float32 { return 2 })
	s := math.Float32frombits(0x3f3f3f3f)
	var tsv strings.Builder
	tsv.WriteString("addr\texp\n")
	for i := range n {
		v := float32(i)*2 + 0.5
		v += s
		fmt.Fprintf(&tsv, "%#x\t%#08x\n", 0x2000+4*i, math.Float32bits(v))
	}
	if err := os.WriteFile("scale_expected.tsv", []byte(tsv.String()), 0o644); err != nil {
		panic(err)
	}
}
