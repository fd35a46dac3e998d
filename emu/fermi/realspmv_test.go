package fermi

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestRealSpMVFinalize runs the Finalize kernel of mgpu's sparse
// matrix-vector product (sparse/src/isa/spmxv_float.isa, source
// sparse/src/kernels/finalize.cu): each thread sums its row's products
// (the stretch rowIndices[row]..rowIndices[row+1] of tempOutput) and
// writes y = alpha*sum (+ beta*y with useBeta). Parameters as its
// signature orders them (tempOutput, rowIndices, numRows, yVec, alpha,
// beta, useBeta); 256 threads a block (the listing's BLOCK_SIZE, SHL 8)
// and DivUp(numRows, 256) blocks. The products come from a CSR matrix and
// a vector, so the result is y = alpha*A*x + beta*y; the reference does the
// same float32 operations in the same order (the sum from the first
// product, the multiply, one fused multiply-add), so it is held exact.
func TestRealSpMVFinalize(t *testing.T) {
	code := realKernel(t, "SpMxVFinalize")
	rng := rand.New(rand.NewSource(11))
	for _, c := range []struct {
		rows    int
		useBeta uint32
	}{{1000, 0}, {1000, 1}, {256, 1}, {3, 0}} {
		const width = 300
		x := make([]float32, width)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		// CSR rows of 0 to 12 entries; products as the multiply pass leaves them
		rowIndices := make([]uint32, c.rows+1)
		var products []float32
		for r := range c.rows {
			rowIndices[r] = uint32(len(products))
			for range rng.Intn(13) {
				products = append(products, float32(rng.NormFloat64())*x[rng.Intn(width)])
			}
		}
		rowIndices[c.rows] = uint32(len(products))
		y := make([]float32, c.rows)
		for i := range y {
			y[i] = float32(rng.NormFloat64())
		}
		alpha, beta := float32(1.5), float32(-0.75)

		d := newDevice()
		d.alloc("temp", fromF32(append(products, 0)))
		d.alloc("rows", fromU32(rowIndices))
		d.alloc("y", fromF32(y))
		grid := (c.rows + 255) / 256
		if _, err := d.run(t, launch{program: code, grid: emu.Dim3{uint32(grid), 1, 1}, block: emu.Dim3{256, 1, 1},
			params: []any{buf("temp"), buf("rows"), uint32(c.rows), buf("y"), alpha, beta, c.useBeta}}); err != nil {
			t.Fatal(err)
		}
		want := make([]uint32, c.rows)
		for r := range c.rows {
			var sum float32
			for _, p := range products[rowIndices[r]:rowIndices[r+1]] {
				sum = p + sum
			}
			sum = float32(alpha * sum)
			want[r] = math.Float32bits(sum)
			if c.useBeta != 0 {
				want[r] = refFloat(2, math.Float32bits(y[r]), math.Float32bits(beta), want[r], 0, false, false)
			}
		}
		if err := sameWords(u32s(d.bytes("y")), want); err != nil {
			t.Errorf("%d rows, useBeta %d: %v", c.rows, c.useBeta, err)
		}
	}
}
