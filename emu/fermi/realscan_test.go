package fermi

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// mgpuScan runs mgpu's global scan as scan/src/mgpuscan/mgpuscan.cpp's
// scanArray launches it: GlobalScanUpsweep (a reduction of each block's
// range of whole 2048-value bricks) on up to 4 blocks per SM, then
// GlobalScanReduction (an exclusive scan of the block totals, one block),
// then GlobalScanDownsweep (the scan of each range plus its block's
// offset), 256 threads each. numSMs is the device's multiprocessor count
// (15 on a GTX 480).
func mgpuScan(t *testing.T, values []uint32, inclusive bool, numSMs int) (scan []uint32, blockTotals []uint32, total uint32) {
	t.Helper()
	up := realKernel(t, "GlobalScanUpsweep")
	red := realKernel(t, "GlobalScanReduction")
	down := realKernel(t, "GlobalScanDownsweep@51c35d7391")
	count := len(values)
	engineBlocks := 4 * numSMs
	numBricks := (count + 2047) / 2048
	numBlocks := min(numBricks, engineBlocks)
	ranges := make([]uint32, 2*numBlocks)
	quot, rem := numBricks/numBlocks, numBricks%numBlocks
	for i := range numBlocks {
		x := uint32(0)
		if i > 0 {
			x = ranges[2*i-1]
		}
		bricks := quot
		if i < rem {
			bricks++
		}
		ranges[2*i], ranges[2*i+1] = x, min(x+uint32(bricks*2048), uint32(count))
	}
	d := newDevice()
	d.alloc("values", fromU32(values))
	d.alloc("scan", make([]byte, 4*count))
	d.alloc("blockScan", make([]byte, 4*(engineBlocks+1)))
	d.alloc("ranges", fromU32(ranges))
	block := emu.Dim3{256, 1, 1}
	for _, l := range []launch{
		{program: up, grid: emu.Dim3{uint32(numBlocks), 1, 1}, block: block,
			params: []any{buf("values"), buf("ranges"), buf("blockScan")}},
		{program: red, block: block, params: []any{buf("blockScan"), numBlocks}},
		{program: down, grid: emu.Dim3{uint32(numBlocks), 1, 1}, block: block,
			params: []any{buf("values"), buf("scan"), buf("blockScan"), buf("ranges"), count, uint32(0), b2u(inclusive)}},
	} {
		if _, err := d.run(t, l); err != nil {
			t.Fatal(err)
		}
	}
	bs := u32s(d.bytes("blockScan"))
	return u32s(d.bytes("scan")), bs[:numBlocks], bs[numBlocks]
}

func TestRealGlobalScan(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, c := range []struct {
		count     int
		inclusive bool
	}{{100_000, false}, {300_001, true}, {2048, false}, {1000, true}} {
		values := make([]uint32, c.count)
		for i := range values {
			values[i] = rng.Uint32() >> uint(rng.Intn(32))
		}
		scan, _, total := mgpuScan(t, values, c.inclusive, 15)
		want := make([]uint32, c.count)
		var sum uint32
		for i, v := range values {
			if c.inclusive {
				sum += v
				want[i] = sum
			} else {
				want[i] = sum
				sum += v
			}
		}
		if err := sameWords(scan, want); err != nil {
			t.Errorf("count %d inclusive %v: %v", c.count, c.inclusive, err)
		}
		if total != sum {
			t.Errorf("count %d: total %d, want %d", c.count, total, sum)
		}
	}
}

// TestRealSegScanWarp runs mgpu's one-warp segmented scan
// (support/src/segscan/segscan.isa, SegScanWarp; source segscan.cu): each
// of 32 lanes holds a value with its segment's head flag in bit 31; the
// distance to its segment's head comes from VOTE.ANY, a BFI mask and FLO,
// and a Hillis-Steele scan guarded by that distance leaves the exclusive
// scan of each segment. One block of one warp, parameters (in, out), as
// the demonstration's host code launches it. Lane 0 must start a segment:
// without a head at or below it the distance (FLO of nothing is -1) is 1
// and lane 0 reads the word below the shared array, which the emulator
// faults as out of bounds (a test of that is below). Trial 0 is one
// segment.
func TestRealSegScanWarp(t *testing.T) {
	code := realKernel(t, "SegScanWarp")
	rng := rand.New(rand.NewSource(23))
	for trial := range 20 {
		in := make([]uint32, 32)
		for i := range in {
			in[i] = rng.Uint32() >> 8
			if i == 0 || (trial > 0 && rng.Intn(5) == 0) {
				in[i] |= 1 << 31
			}
		}
		d := newDevice()
		d.alloc("in", fromU32(in))
		d.alloc("out", make([]byte, 4*32))
		if _, err := d.run(t, launch{program: code, block: emu.Dim3{32, 1, 1}, params: []any{buf("in"), buf("out")}}); err != nil {
			t.Fatal(err)
		}
		want := make([]uint32, 32)
		var sum uint32
		for i, v := range in {
			if v>>31 != 0 {
				sum = 0
			}
			want[i] = sum
			sum += v &^ (1 << 31)
		}
		if err := sameWords(u32s(d.bytes("out")), want); err != nil {
			t.Errorf("trial %d: %v", trial, err)
		}
	}
	d := newDevice()
	d.alloc("in", make([]byte, 4*32))
	d.alloc("out", make([]byte, 4*32))
	_, err := d.run(t, launch{program: code, block: emu.Dim3{32, 1, 1}, params: []any{buf("in"), buf("out")}})
	if err == nil || !strings.Contains(err.Error(), "out of bounds") || !strings.Contains(err.Error(), "pc 0x0098") {
		t.Errorf("no head at lane 0: %v, want the read below shared memory at 0x98 to fault", err)
	}
}
