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
