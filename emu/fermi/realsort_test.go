package fermi

import (
	"math/rand"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestRealSortDownsweep runs mgpu's radix sort downsweep
// (sort/src/isa/sortdownsweep.isa, SortDownsweep_1 and SortDownsweep_5):
// from each sort block's packed local digit scan and each task's starting
// digit offsets it writes the block's global scatter offsets, less the
// local scan. Launched as sort/src/sorttest launches it: 128 threads,
// DivUp(numTasks, 128/min(digits, 32)) blocks, parameters (task offsets,
// numBlocks/numTasks, numBlocks%numTasks, numBlocks, values per block,
// local scans, global scans), 150 sort blocks of 64*24 values. The check
// is the stable radix sort itself: adding back the local scan gives 4 times
// the position of the block's first key with that digit in the sorted
// output.
func TestRealSortDownsweep(t *testing.T) {
	for _, c := range []struct {
		name     string
		bits     int
		numTasks int
	}{{"SortDownsweep1", 1, 97}, {"SortDownsweep5", 5, 32}, {"SortDownsweep5", 5, 150}} {
		code := realKernel(t, c.name)
		const numBlocks, valuesPerBlock = 150, 64 * 24
		digits := 1 << c.bits
		channels := digits / 2
		rng := rand.New(rand.NewSource(int64(c.bits*1000 + c.numTasks)))

		// digit counts per sort block, from random keys
		counts := make([]uint32, numBlocks*digits)
		for i := range numBlocks * valuesPerBlock {
			counts[(i/valuesPerBlock)*digits+rng.Intn(digits)]++
		}
		// each block's exclusive scan of its counts, scaled by 4 and packed
		// two digits (d, d+channels) to a word as the count kernel packs them
		local := make([]uint32, numBlocks*channels)
		localScan := make([]uint32, numBlocks*digits)
		for b := range numBlocks {
			var sum uint32
			for d := range digits {
				localScan[b*digits+d] = 4 * sum
				sum += counts[b*digits+d]
			}
			for ch := range channels {
				local[b*channels+ch] = localScan[b*digits+ch] | localScan[b*digits+ch+channels]<<16
			}
		}
		// stable radix order: digit by digit, block by block; start[b][d] is
		// where block b's first key with digit d lands
		start := make([]uint32, numBlocks*digits)
		var pos uint32
		for d := range digits {
			for b := range numBlocks {
				start[b*digits+d] = pos
				pos += counts[b*digits+d]
			}
		}
		// each task starts at its first block's positions (scaled by 4)
		quot, rem := numBlocks/c.numTasks, numBlocks%c.numTasks
		taskOffsets := make([]uint32, c.numTasks*digits)
		for task := range c.numTasks {
			first := task*quot + min(task, rem)
			for d := range digits {
				taskOffsets[task*digits+d] = 4 * start[first*digits+d]
			}
		}

		d := newDevice()
		d.alloc("tasks", fromU32(taskOffsets))
		d.alloc("local", fromU32(local))
		d.alloc("global", make([]byte, 4*numBlocks*digits))
		columns := 128 / min(digits, 32)
		grid := (c.numTasks + columns - 1) / columns
		if _, err := d.run(t, launch{program: code, grid: emu.Dim3{uint32(grid), 1, 1}, block: emu.Dim3{128, 1, 1},
			params: []any{buf("tasks"), uint32(quot), uint32(rem), uint32(numBlocks), uint32(valuesPerBlock), buf("local"), buf("global")}}); err != nil {
			t.Fatal(err)
		}
		got := u32s(d.bytes("global"))
		want := make([]uint32, len(got))
		for i := range want {
			want[i] = 4*start[i] - localScan[i]
		}
		if err := sameWords(got, want); err != nil {
			t.Errorf("%s, %d tasks: %v", c.name, c.numTasks, err)
		}
	}
}
