package fermi

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// mgpu's sorted search (search/src) first builds a b-tree over the sorted
// data: each level holds the last key of every 128-byte node (32 uints) of
// the level below, rounded up to whole nodes. searchBuildTree
// (search/src/mgpusearch/mgpusearch.cpp) launches BuildTree4 once per
// level, from the data up: parameters (the level below, its count, the
// level built), 256 threads a block (the function's configured block,
// __launch_bounds__(256, 6)) and DivUp(level size, 256) blocks. Its code
// is in the TSV whole (search/src/isa/search.isa; the same code in every
// version of that file in the oracle).

const treeSegLanes = 128 / 4 // uints per node

// treeLevelSizes is DeriveLevelSizes of mgpusearch.cpp for 4-byte keys:
// the sizes of the tree's levels from the root down, the data last.
func treeLevelSizes(count int) []int { return treeLevelSizesOf(count, treeSegLanes) }

// treeLevelSizesOf is DeriveLevelSizes for nodes of lanes keys (32 of 4
// bytes, 16 of 8).
func treeLevelSizesOf(count, lanes int) []int {
	roundUp := func(x, y int) int { return (x + y - 1) / y * y }
	sizes := []int{roundUp(count, lanes)}
	for n := count; ; {
		n = roundUp((n+lanes-1)/lanes, lanes)
		sizes = append(sizes, n)
		if n <= lanes {
			break
		}
	}
	slices.Reverse(sizes)
	return sizes
}

// buildTreeRef is what a BuildTree kernel computes for one level: entry g
// is the last key of node g (of lanes keys) of the level below (the
// level's last key past its end).
func buildTreeRef[T uint32 | uint64](below []T, size, lanes int) []T {
	out := make([]T, size)
	for g := range out {
		out[g] = below[min(lanes*g+lanes-1, len(below)-1)]
	}
	return out
}

func TestRealBuildTree(t *testing.T) {
	code := realKernel(t, "BuildTree4")
	rng := rand.New(rand.NewSource(7))
	for _, count := range []int{1_000_000, 100_003, 32*256 + 1, 1025, 33, 5} {
		data := make([]uint32, count)
		for i := range data {
			data[i] = rng.Uint32() >> 2
		}
		checkBuildTree(t, code, data, treeSegLanes, fromU32)
	}
}

// TestRealBuildTree8 runs BuildTree8, the same pass for 8-byte keys (nodes
// of 16 keys; LD.64/ST.64), launched as searchBuildTree launches it.
func TestRealBuildTree8(t *testing.T) {
	code := realKernel(t, "BuildTree8")
	rng := rand.New(rand.NewSource(8))
	for _, count := range []int{300_001, 16*256 + 1, 17, 3} {
		data := make([]uint64, count)
		for i := range data {
			data[i] = rng.Uint64() >> 2
		}
		checkBuildTree(t, code, data, 16, fromU64)
	}
}

// checkBuildTree sorts data, builds its tree level by level from the data
// up with a BuildTree kernel of nodes of lanes keys, and checks each level.
func checkBuildTree[T uint32 | uint64](t *testing.T, code []byte, data []T, lanes int, bytesOf func([]T) []byte) {
	t.Helper()
	count := len(data)
	slices.Sort(data)
	sizes := treeLevelSizesOf(count, lanes)
	levels := len(sizes)
	sizes[levels-1] = count
	// the host program puts the levels one after another in one
	// allocation; the kernel sees only each level's address, so each
	// is a buffer of its own here
	d := newDevice()
	d.alloc("data", bytesOf(data))
	name := func(i int) string {
		if i == levels-1 {
			return "data"
		}
		return fmt.Sprintf("level%d", i)
	}
	for i := range levels - 1 {
		d.alloc(name(i), make([]byte, len(bytesOf(data[:1]))*sizes[i]))
	}
	for i := levels - 2; i >= 0; i-- {
		l := launch{program: code, grid: emu.Dim3{uint32((sizes[i] + 255) / 256), 1, 1}, block: emu.Dim3{256, 1, 1},
			params: []any{buf(name(i + 1)), uint32(sizes[i+1]), buf(name(i))}}
		if _, err := d.run(t, l); err != nil {
			t.Fatalf("count %d, level %d: %v", count, i, err)
		}
	}
	below := data
	for i := levels - 2; i >= 0; i-- {
		want := buildTreeRef(below, sizes[i], lanes)
		if err := sameWords(u32s(d.bytes(name(i))), u32s(bytesOf(want))); err != nil {
			t.Errorf("count %d, level %d of %d (%d entries): %v", count, i, levels-1, sizes[i], err)
		}
		below = want
	}
	if len(below) != lanes {
		t.Errorf("count %d: root level has %d entries, want one node (%d)", count, len(below), lanes)
	}
}
