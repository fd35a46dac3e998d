package fermi

import (
	"fmt"
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

// spmvEncoded is a CSR matrix in the layout mgpu's SpMxV kernels read
// (sparse/src/kernels/spmxv.cu): warps of 32 threads of vt consecutive
// nonzeros each, stored transposed (value i of lane l of warp g at
// 32*vt*g + 32*i + l). A column index carries, above its 25 column bits,
// STORE_FLAG (bit 25: the last nonzero of its row), and the first four of
// each lane carry the lane's part of the warp's segmented scan: its first
// slot (bits 26-31 of the first), whether it writes an output and the
// distance from slot lane to its segment's first slot (bit 26 and bits
// 27-31 of the second), that distance for slot 32+lane (bits 26-31 of the
// third) and the slot of its output (bits 26-31 of the fourth). Each lane
// stores one slot per row end and one at its last value, so a warp with at
// most 31 row ends uses at most 63 of its 64 slots and 32 outputs; the
// encoder (ours, not mgpu's) closes a warp there and pads it with zeros.
type spmvEncoded struct {
	vt            int
	cols          []uint32
	vals          []float32
	warpOutputs   []uint32 // the kernel's rowIndices: each warp's first output
	outputIndices []uint32 // Finalize's rowIndices: each row's first output, and the end
	numOutputs    int
}

func encodeSpMV(rowPtr []uint32, colIdx []uint32, vals []float32, vt int) spmvEncoded {
	const storeFlag = 1 << 25
	e := spmvEncoded{vt: vt, outputIndices: make([]uint32, len(rowPtr))}
	type entry struct {
		col    uint32
		val    float32
		row    int
		rowEnd bool
	}
	var entries []entry
	for r := 0; r+1 < len(rowPtr); r++ {
		for k := rowPtr[r]; k < rowPtr[r+1]; k++ {
			entries = append(entries, entry{colIdx[k], vals[k], r, k+1 == rowPtr[r+1]})
		}
	}
	firstOutput := make([]int, len(rowPtr)-1)
	for i := range firstOutput {
		firstOutput[i] = -1
	}
	per := 32 * vt
	for p := 0; p < len(entries); {
		// the warp's entries: up to 32*vt, closed after its 31st row end
		n, ends := 0, 0
		for n < per && p+n < len(entries) && ends < 31 {
			if entries[p+n].rowEnd {
				ends++
			}
			n++
		}
		warp := make([]entry, per)
		copy(warp, entries[p:p+n])
		p += n
		// slots, and the segments they make
		var slotRowEnd []bool
		scanOffset := make([]int, 32)
		for l := range 32 {
			scanOffset[l] = len(slotRowEnd)
			for i := range vt {
				en := warp[l*vt+i]
				if i == vt-1 || (l*vt+i < n && en.rowEnd) {
					slotRowEnd = append(slotRowEnd, l*vt+i < n && en.rowEnd)
				}
			}
		}
		delta := make([]int, 64)
		var segLast []int // last slot of each segment holding real values
		start := 0
		for s, end := range slotRowEnd {
			delta[s] = s - start
			if end {
				segLast = append(segLast, s)
				start = s + 1
			}
		}
		if n == per && !warp[n-1].rowEnd {
			segLast = append(segLast, len(slotRowEnd)-1) // a row continuing in the next warp
		}
		base := e.numOutputs
		e.warpOutputs = append(e.warpOutputs, uint32(base))
		for k, s := range segLast {
			// the segment's row: that of the last real value before its end
			row := -1
			for l, pos := 0, 0; l < 32 && row < 0; l++ {
				for i := range vt {
					if i == vt-1 || (l*vt+i < n && warp[l*vt+i].rowEnd) {
						if pos == s {
							row = warp[min(l*vt+i, n-1)].row
						}
						pos++
					}
				}
			}
			if firstOutput[row] < 0 {
				firstOutput[row] = base + k
			}
		}
		e.numOutputs += len(segLast)
		cols := make([]uint32, per)
		vals := make([]float32, per)
		for l := range 32 {
			for i := range vt {
				en := warp[l*vt+i]
				c := en.col
				if l*vt+i < n && en.rowEnd {
					c |= storeFlag
				}
				switch i {
				case 0:
					c |= uint32(scanOffset[l]) << 26
				case 1:
					if l < len(segLast) {
						c |= 1 << 26
					}
					c |= uint32(delta[l]) << 27
				case 2:
					c |= uint32(delta[32+l]) << 26
				case 3:
					if l < len(segLast) {
						c |= uint32(segLast[l]) << 26
					}
				}
				cols[i*32+l] = c
				vals[i*32+l] = en.val
			}
		}
		e.cols = append(e.cols, cols...)
		e.vals = append(e.vals, vals...)
	}
	next := e.numOutputs
	e.outputIndices[len(rowPtr)-1] = uint32(next)
	for r := len(rowPtr) - 2; r >= 0; r-- {
		if firstOutput[r] >= 0 {
			next = firstOutput[r]
		}
		e.outputIndices[r] = uint32(next)
	}
	return e
}

// spmxvRef is what SpMxV computes, in the kernel's float32 operations and
// their order: each lane's fused multiply-adds from zero, a partial sum per
// slot, the warp's segmented Hillis-Steele scan over its 64 slots, then
// each output lane's slot.
func spmxvRef(e spmvEncoded, x []float32) []uint32 {
	out := make([]uint32, e.numOutputs)
	per := 32 * e.vt
	for g := range len(e.cols) / per {
		cols, vals := e.cols[g*per:(g+1)*per], e.vals[g*per:(g+1)*per]
		var slots [64]uint32
		var deltaX, deltaY, rowSum [32]int
		var store [32]bool
		for l := range 32 {
			off := int(cols[l] >> 26)
			deltaX[l] = int(cols[32+l] >> 27)
			store[l] = cols[32+l]>>26&1 != 0
			deltaY[l] = int(cols[64+l] >> 26)
			rowSum[l] = int(cols[96+l] >> 26)
			var sum uint32
			for i := range e.vt {
				c := cols[i*32+l]
				sum = refFloat(2, math.Float32bits(vals[i*32+l]), math.Float32bits(x[c&0x1ffffff]), sum, 0, false, false)
				if i == e.vt-1 || c&(1<<25) != 0 {
					slots[off] = sum
					off++
					sum = 0
				}
			}
		}
		for step := range 5 {
			offset := 1 << step
			next := slots
			for l := range 32 {
				if offset <= deltaX[l] {
					next[l] = refFloat(0, slots[l], slots[l-offset], 0, 0, false, false)
				}
				if offset <= deltaY[l] {
					next[32+l] = refFloat(0, slots[32+l], slots[32+l-offset], 0, 0, false, false)
				}
			}
			slots = next
		}
		// a segment holds at most one slot a lane besides its row end, so
		// no distance reaches 32 and this step never adds (kept as written)
		for l := range 32 {
			if deltaY[l] >= 32 {
				slots[32+l] = refFloat(0, slots[l], slots[32+l], 0, 0, false, false)
			}
		}
		for l := range 32 {
			if store[l] {
				out[int(e.warpOutputs[g])+l] = slots[rowSum[l]]
			}
		}
	}
	return out
}

// TestRealSpMxV runs mgpu's sparse matrix-vector product, SpMxV_4 (four
// nonzeros a thread; sparse/src/isa/spmxv_float.isa, source
// sparse/src/kernels/spmxv.cu), then its Finalize, as
// sparseEngine_d::Multiply (sparse/src/mgpusparse/engine.cpp) launches
// them: SpMxV with 256 threads (8 warps) a block, DivUp(numWarps, 8)
// blocks, parameters (each warp's first output, column indices, values,
// temporary outputs, numWarps) and the x vector bound to texture slot 0
// as one float channel (xVec_texture; TLD.LZ.T reads it, the float4 format
// of the engine's PrecTerms[float]). tempOutput is held bit-exact to the
// kernel's operations (spmxvRef); y = A*x after Finalize within 1e-5 of
// the magnitudes summed, in float64.
func TestRealSpMxV(t *testing.T) {
	spmxv := realKernel(t, "SpMxV_4")
	finalize := realKernel(t, "SpMxVFinalize")
	rng := rand.New(rand.NewSource(21))
	for _, c := range []struct {
		rows, width, maxRow, longRows int
	}{{3000, 500, 9, 5}, {700, 5000, 40, 2}, {64, 64, 1, 0}, {5, 100, 3, 1}} {
		rowPtr := []uint32{0}
		var colIdx []uint32
		var vals []float32
		long := map[int]bool{}
		for range c.longRows {
			long[rng.Intn(c.rows)] = true
		}
		for r := range c.rows {
			n := rng.Intn(c.maxRow + 1)
			if long[r] {
				n = 200 + rng.Intn(400) // rows spanning warps
			}
			for range n {
				colIdx = append(colIdx, uint32(rng.Intn(c.width)))
				vals = append(vals, float32(rng.NormFloat64()))
			}
			rowPtr = append(rowPtr, uint32(len(colIdx)))
		}
		x := make([]float32, c.width)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		e := encodeSpMV(rowPtr, colIdx, vals, 4)
		d := newDevice()
		ls := spmvLaunches(d, spmxv, finalize, e, x, c.rows)
		if _, err := d.run(t, ls[0]); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%d rows, %d nonzeros, %d warps", c.rows, len(vals), len(e.warpOutputs))
		if err := sameWords(u32s(d.bytes("spmvTemp"))[:e.numOutputs], spmxvRef(e, x)); err != nil {
			t.Errorf("%s: temporary outputs: %v", name, err)
			continue
		}
		if _, err := d.run(t, ls[1]); err != nil {
			t.Fatal(err)
		}
		y := f32s(d.bytes("spmvY"))
		for r := range c.rows {
			var want, mag float64
			for k := rowPtr[r]; k < rowPtr[r+1]; k++ {
				p := float64(vals[k]) * float64(x[colIdx[k]])
				want += p
				mag += math.Abs(p)
			}
			if math.Abs(float64(y[r])-want) > 1e-5*mag {
				t.Errorf("%s: y[%d] = %g, want %g (within %g)", name, r, y[r], want, 1e-5*mag)
				break
			}
		}
	}
}

// spmvLaunches places an encoded matrix, its x vector and y (rows words)
// on d, and returns SpMxV's launch as the engine makes it (8 warps a
// block, x as texture slot 0) and Finalize's (y = A*x: alpha 1, no beta).
func spmvLaunches(d *device, spmxv, finalize []byte, e spmvEncoded, x []float32, rows int) [2]launch {
	numWarps := len(e.warpOutputs)
	d.alloc("spmvWarps", fromU32(e.warpOutputs))
	d.alloc("spmvCols", fromU32(e.cols))
	d.alloc("spmvVals", fromF32(e.vals))
	d.alloc("spmvTemp", make([]byte, 4*e.numOutputs+4))
	d.alloc("spmvX", fromF32(x))
	d.alloc("spmvRows", fromU32(e.outputIndices))
	d.alloc("spmvY", make([]byte, 4*rows))
	return [2]launch{
		{program: spmxv, grid: emu.Dim3{uint32((numWarps + 7) / 8), 1, 1}, block: emu.Dim3{256, 1, 1},
			params:   []any{buf("spmvWarps"), buf("spmvCols"), buf("spmvVals"), buf("spmvTemp"), uint32(numWarps)},
			textures: []emu.TexImage{{Name: "xVec_texture", Buffer: "spmvX", Format: "r32f", Size: []int{len(x)}}}},
		{program: finalize, grid: emu.Dim3{uint32((rows + 255) / 256), 1, 1}, block: emu.Dim3{256, 1, 1},
			params: []any{buf("spmvTemp"), buf("spmvRows"), uint32(rows), buf("spmvY"), float32(1), float32(0), uint32(0)}},
	}
}
