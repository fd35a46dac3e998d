package fermi

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestRealSortHist runs the histogram pass of mgpu's radix sort
// (sort/src/isa/sorthist.isa, SortHist_1 and SortHist_5; source
// sort/src/kernels/sorthist.cu): from the digit histogram of every sort
// task (counts[task*digits+digit], as the count pass leaves them) it
// writes, in place, where each task's keys of each digit start in the
// sorted output (digit-major, task-minor exclusive scan), and the
// exclusive scan of the digit totals to a second array. Launched as
// sort/src/sorttest launches it: one block of 1024 threads, parameters
// (task counts, numTasks, totals scan). SortHist_1 takes the path of
// StridedMultiScan for fewer digits than a warp (parallel scans of
// repeated digits, then of 33-word strided columns), SortHist_5 the
// sequential one (32 columns of 32 digits); task counts below, equal to
// and above the kernel's columns (512 and 32) leave columns empty, exact
// and uneven.
func TestRealSortHist(t *testing.T) {
	for _, c := range []struct {
		name     string
		bits     int
		numTasks int
	}{
		{"SortHist_1", 1, 150}, {"SortHist_1", 1, 512}, {"SortHist_1", 1, 1500},
		{"SortHist_5", 5, 20}, {"SortHist_5", 5, 32}, {"SortHist_5", 5, 150}, {"SortHist_5", 5, 1000},
	} {
		t.Run(fmt.Sprintf("%s/%d", c.name, c.numTasks), func(t *testing.T) {
			code := realKernel(t, c.name)
			digits := 1 << c.bits
			rng := rand.New(rand.NewSource(int64(c.bits*10000 + c.numTasks)))
			counts := make([]uint32, c.numTasks*digits)
			for task := range c.numTasks {
				// each task counts a few sort blocks' worth of keys
				for range 64 * 24 * (1 + rng.Intn(3)) {
					counts[task*digits+rng.Intn(digits)]++
				}
			}
			offsets, totals := sortHistRef(counts, digits)

			d := newDevice()
			d.alloc("counts", fromU32(counts))
			d.alloc("totals", make([]byte, 4*digits))
			if _, err := d.run(t, launch{program: code, grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{1024, 1, 1},
				params: []any{buf("counts"), uint32(c.numTasks), buf("totals")}}); err != nil {
				t.Fatal(err)
			}
			if err := sameWords(u32s(d.bytes("counts")), offsets); err != nil {
				t.Errorf("task offsets: %v", err)
			}
			if err := sameWords(u32s(d.bytes("totals")), totals); err != nil {
				t.Errorf("digit totals scan: %v", err)
			}
		})
	}
}

// sortHistRef is the stable radix order of the counts: offsets[t*D+d] is
// where task t's first key of digit d goes, totals[d] where digit d
// starts.
func sortHistRef(counts []uint32, digits int) (offsets, totals []uint32) {
	tasks := len(counts) / digits
	offsets = make([]uint32, len(counts))
	totals = make([]uint32, digits)
	var pos uint32
	for d := range digits {
		totals[d] = pos
		for task := range tasks {
			offsets[task*digits+d] = pos
			pos += counts[task*digits+d]
		}
	}
	return offsets, totals
}

// TestRealCountBuckets runs the digit histogram of mgpu's radix sort,
// CountBucketsLoop_5 (sort/src/isa/count.isa; source
// sort/src/kernels/count.cu, CountFuncLoop), and feeds its task totals to
// SortHist_5 as sort/src/sorttest does. Each CTA is a task of sort blocks
// (ComputeTaskRange of taskQuot/taskRem), its 4 warps split them; a warp
// counts the 5-bit digit at bit of each of a sort block's 32*vt keys
// (BFE, VSHL.ACC into packed byte counters in shared memory, 16 keys a
// loop), then writes the block's packed exclusive digit scan (digits d and
// d+16 in the low and high halves of word d, times 4: what SortDownsweep
// reads) and finally each task's digit totals. 128 threads, numTasks
// CTAs, parameters (keys, bit, vt, taskQuot, taskRem, counts, totals).
func TestRealCountBuckets(t *testing.T) {
	count := realKernel(t, "CountBucketsLoop_5")
	hist := realKernel(t, "SortHist_5")
	const digits, channels, vt = 32, 16, 48 // sort blocks of 64 threads * 24 values
	for _, c := range []struct {
		numBlocks, numTasks int
		bit                 uint32
	}{{150, 32, 0}, {150, 7, 27}, {61, 61, 13}, {40, 64, 5}} {
		name := fmt.Sprintf("%d blocks, %d tasks, bit %d", c.numBlocks, c.numTasks, c.bit)
		rng := rand.New(rand.NewSource(int64(c.numBlocks*100 + c.numTasks)))
		keys := make([]uint32, c.numBlocks*32*vt)
		for i := range keys {
			keys[i] = rng.Uint32()
			if i%7 == 0 {
				keys[i] &^= 0x1f << c.bit // uneven digits
			}
		}
		blockCounts := make([]uint32, c.numBlocks*digits)
		for i, k := range keys {
			blockCounts[i/(32*vt)*digits+int(k>>c.bit&0x1f)]++
		}
		wantCounts := make([]uint32, c.numBlocks*channels)
		for b := range c.numBlocks {
			var scan [digits]uint32
			var sum uint32
			for d := range digits {
				scan[d] = 4 * sum
				sum += blockCounts[b*digits+d]
			}
			for ch := range channels {
				wantCounts[b*channels+ch] = scan[ch] | scan[ch+channels]<<16
			}
		}
		quot, rem := c.numBlocks/c.numTasks, c.numBlocks%c.numTasks
		wantTotals := make([]uint32, c.numTasks*digits)
		for task := range c.numTasks {
			first := task*quot + min(task, rem)
			last := first + quot
			if task < rem {
				last++
			}
			for b := first; b < last; b++ {
				for d := range digits {
					wantTotals[task*digits+d] += blockCounts[b*digits+d]
				}
			}
		}

		d := newDevice()
		d.alloc("keys", fromU32(keys))
		d.alloc("counts", make([]byte, 4*len(wantCounts)))
		d.alloc("totals", make([]byte, 4*len(wantTotals)))
		if _, err := d.run(t, launch{program: count, grid: emu.Dim3{uint32(c.numTasks), 1, 1}, block: emu.Dim3{128, 1, 1},
			params: []any{buf("keys"), c.bit, uint32(vt), uint32(quot), uint32(rem), buf("counts"), buf("totals")}}); err != nil {
			t.Fatal(err)
		}
		if err := sameWords(u32s(d.bytes("counts")), wantCounts); err != nil {
			t.Errorf("%s: packed block scans: %v", name, err)
		}
		if err := sameWords(u32s(d.bytes("totals")), wantTotals); err != nil {
			t.Errorf("%s: task totals: %v", name, err)
			continue
		}

		// the histogram pass over the task totals, in place
		d.alloc("digitScan", make([]byte, 4*digits))
		if _, err := d.run(t, launch{program: hist, grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{1024, 1, 1},
			params: []any{buf("totals"), uint32(c.numTasks), buf("digitScan")}}); err != nil {
			t.Fatal(err)
		}
		offsets, scan := sortHistRef(wantTotals, digits)
		if err := sameWords(u32s(d.bytes("totals")), offsets); err != nil {
			t.Errorf("%s: task offsets after SortHist_5: %v", name, err)
		}
		if err := sameWords(u32s(d.bytes("digitScan")), scan); err != nil {
			t.Errorf("%s: digit scan after SortHist_5: %v", name, err)
		}
	}
}
