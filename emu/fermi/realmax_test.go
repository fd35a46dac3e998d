package fermi

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestRealMaxIndex runs mgpu's argmax (mailbag/src/maxindex): each block
// of FindMaxIndexLoop scans its range of floats for the largest and its
// index (a sequential loop per thread, then a max-scan over the block),
// and FindMaxIndexReduce (one block) reduces the blocks' winners; 256
// threads each, the ranges split as mgpu's scan splits them.
func TestRealMaxIndex(t *testing.T) {
	loop := realKernel(t, "FindMaxIndexLoop")
	reduce := realKernel(t, "FindMaxIndexReduce")
	rng := rand.New(rand.NewSource(4))
	for _, c := range []struct{ count, blocks int }{{1 << 20, 60}, {100_003, 37}, {5000, 60}, {300, 2}} {
		// distinct values, so that the winner and its index are unique
		data := make([]float32, c.count)
		for i, p := range rng.Perm(c.count) {
			data[i] = float32(p-c.count/2) * 0.75
		}
		ranges := make([]uint32, 2*c.blocks)
		per, rem := c.count/c.blocks, c.count%c.blocks
		x := uint32(0)
		for i := range c.blocks {
			n := per
			if i < rem {
				n++
			}
			ranges[2*i], ranges[2*i+1] = x, x+uint32(n)
			x += uint32(n)
		}
		d := newDevice()
		d.alloc("data", fromF32(data))
		d.alloc("max", make([]byte, 4*c.blocks))
		d.alloc("index", make([]byte, 4*c.blocks))
		d.alloc("ranges", fromU32(ranges))
		block := emu.Dim3{256, 1, 1}
		for _, l := range []launch{
			{program: loop, grid: emu.Dim3{uint32(c.blocks), 1, 1}, block: block, params: []any{buf("data"), buf("max"), buf("index"), buf("ranges")}},
			{program: reduce, block: block, params: []any{buf("max"), buf("index"), uint32(c.blocks)}},
		} {
			if _, err := d.run(t, l); err != nil {
				t.Fatal(err)
			}
		}
		best := 0
		for i, v := range data {
			if v > data[best] {
				best = i
			}
		}
		gotMax := math.Float32frombits(u32s(d.bytes("max"))[0])
		gotIndex := u32s(d.bytes("index"))[0]
		if gotMax != data[best] || gotIndex != uint32(best) {
			t.Errorf("%d values in %d blocks: max %g at %d, want %g at %d", c.count, c.blocks, gotMax, gotIndex, data[best], best)
		}
	}
}

// TestRealBlockScan runs mgpu's snippets/multiscan.isa WarpScan2: one block
// of 256 threads scans one value each (a scan within each warp, then of
// the 8 warp totals), writing the inclusive and the exclusive scan.
func TestRealBlockScan(t *testing.T) {
	checkRealScan(t, "MultiScan256", 256, 6)
}

// TestRealWarpScan runs mgpu's snippets/warpscan1.isa and warpscan2.isa:
// one warp scans 32 values in shared memory (guarded adds; VADD.ACC with a
// zeroed slot below each lane), writing the inclusive and exclusive scans.
func TestRealWarpScan(t *testing.T) {
	for _, name := range []string{"WarpScan1", "WarpScan2"} {
		checkRealScan(t, name, 32, 8)
	}
}

// checkRealScan launches the snippet kernel name (parameters: values,
// inclusive, exclusive) as one block of n threads on random words and
// compares both scans with the running sums.
func checkRealScan(t *testing.T, name string, n int, seed int64) {
	t.Helper()
	code := realKernel(t, name)
	rng := rand.New(rand.NewSource(seed))
	values := make([]uint32, n)
	for i := range values {
		values[i] = rng.Uint32()
	}
	d := newDevice()
	d.alloc("values", fromU32(values))
	d.alloc("inclusive", make([]byte, 4*n))
	d.alloc("exclusive", make([]byte, 4*n))
	if _, err := d.run(t, launch{program: code, block: emu.Dim3{uint32(n), 1, 1},
		params: []any{buf("values"), buf("inclusive"), buf("exclusive")}}); err != nil {
		t.Fatal(err)
	}
	inc, exc := make([]uint32, n), make([]uint32, n)
	var sum uint32
	for i, v := range values {
		exc[i] = sum
		sum += v
		inc[i] = sum
	}
	if err := sameWords(u32s(d.bytes("inclusive")), inc); err != nil {
		t.Errorf("%s inclusive: %v", name, err)
	}
	if err := sameWords(u32s(d.bytes("exclusive")), exc); err != nil {
		t.Errorf("%s exclusive: %v", name, err)
	}
}
