package inject

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Campaigns on launch files with a sequence of launches (emu/sequence.go):
// the golden run profiles every launch, injections land in any launch,
// the faulty run goes on through the later launches (its host loop
// reading its own memory) and is judged at the end.

// window is the run's warp-instructions of launch k of the golden run.
func window(g *Golden, k int) []int64 {
	lp := g.Launches[k]
	return []int64{lp.Start, lp.Start + lp.WarpInsts}
}

// bothWays runs a campaign with checkpoints and whole, and checks that
// they agree; it returns the checkpointed records.
func bothWays(t *testing.T, ld *Loaded, g *Golden) []Record {
	t.Helper()
	cp := run(t, ld, g, Options{})
	full := run(t, ld, g, Options{Full: true})
	for i := range cp {
		a, b := cp[i], full[i]
		a.Insts, b.Insts, a.Early, b.Early = 0, 0, false, false
		if !bytes.Equal(a.line(), b.line()) {
			t.Errorf("checkpointed and whole runs differ:\n%s%s", a.line(), b.line())
		}
	}
	return cp
}

// A flip of the value launch 1 of 3 stores goes on into launch 2, which
// adds 1 to it: a[i] ends as (2 with the bits flipped) + 1, the only
// element that differs.
func TestSequenceCarriesFault(t *testing.T) {
	c := &Campaign{Launch: "count.json", Seed: 1, Experiments: []Experiment{{Model: ModelRF, Injections: 1}}}
	_, g := campaign(t, c)
	if len(g.Launches) != 3 {
		t.Fatalf("%d launches, want 3", len(g.Launches))
	}
	pc := pcOf(t, g, "GST.U32 global14[R2]")
	c = &Campaign{Launch: "count.json", Seed: 2, Experiments: []Experiment{
		{Model: ModelFlip1, Group: "st-value", PC: []string{pc}, Window: window(g, 1), Injections: 40},
		{Model: ModelFlip2, Group: "st-value", PC: []string{pc}, Window: window(g, 1), Injections: 20}}}
	ld, g := campaign(t, c)
	for _, r := range bothWays(t, ld, g) {
		old, _ := strconv.ParseUint(r.Old, 0, 32)
		nv, _ := strconv.ParseUint(r.New, 0, 32)
		final := int64(uint32(nv) + 1)
		if r.Launch != 1 || old != 2 || r.Outcome != SDC || r.SDC.Elements != 1 || r.SDC.First != fmt.Sprintf("a[%d]", r.Lane) ||
			r.SDC.MaxAbs != fmtFloat(float64(max(final-3, 3-final))) {
			t.Errorf("want launch 1 storing 2, a[%d] = %d at the end: %s", r.Lane, final, r.line())
		}
	}
}

// A flip of the loop counter launch 0 stores changes how many launches
// the host loop runs: n = 2 with bit b flipped gives n more launches, a
// = n + 1 in every element; past the hang budget (10 x 3 launches) a
// Hang, past the loop's 100 repetitions (with a large budget) a Hang
// naming the host loop.
func TestSequenceHostLoop(t *testing.T) {
	c := &Campaign{Launch: "count.json", Seed: 1, Experiments: []Experiment{{Model: ModelRF, Injections: 1}}}
	_, g := campaign(t, c)
	pc := pcOf(t, g, "GST.U32 global14[R4]")
	for b := range 8 {
		bit := b
		c := &Campaign{Launch: "count.json", Seed: 3, Experiments: []Experiment{
			{Model: ModelFlip1, Group: "st-value", PC: []string{pc}, Window: window(g, 0), Bit: &bit, Injections: 2}}}
		if b == 7 {
			c.HangFactor = 1000
		}
		ld, g := campaign(t, c)
		n := 2 ^ 1<<b
		for _, r := range bothWays(t, ld, g) {
			switch {
			case b == 7:
				if r.Outcome != Hang || !strings.Contains(r.Detail, "host loop limit") {
					t.Errorf("bit %d: want a Hang on the host loop's 100 repetitions: %s", b, r.line())
				}
			case n+1 > 30:
				if r.Outcome != Hang || !strings.Contains(r.Detail, "instruction budget") {
					t.Errorf("bit %d: %d launches, want a Hang on the budget: %s", b, n+1, r.line())
				}
			default:
				if r.Outcome != SDC || r.SDC.Elements != 32 || r.SDC.MaxAbs != fmtFloat(float64(max(n+1-3, 3-n-1))) ||
					r.Insts != int64(14*(n+1)) {
					t.Errorf("bit %d: want %d launches and a = %d: %s", b, n+1, n+1, r.line())
				}
			}
		}
	}
}

// A flip of the vertex bfs_level stores into the next frontier, in launch
// 2 of the examples' BFS sequence: the next level expands another vertex.
// A BFS that does the same in Go says which distances end up differing:
// none is Masked, else an SDC of exactly those elements.
func TestSequenceBFSFlip(t *testing.T) {
	const path = "../../../examples/maxwell/bfs.json"
	c := &Campaign{Launch: path, Seed: 1, Experiments: []Experiment{{Model: ModelRF, Injections: 1}}}
	_, g := campaign(t, c)
	// bits 0..6: another vertex of the 100
	c = &Campaign{Launch: path, Seed: 4}
	for b := range 7 {
		bit := b
		c.Experiments = append(c.Experiments, Experiment{Name: fmt.Sprint("bit", b), Model: ModelFlip1, Group: "st-value",
			Kernel: "bfs_level", Window: window(g, 2), Bit: &bit, Injections: 12})
	}
	ld, g := campaign(t, c)
	rowptr, cols, dist0 := readI32(t, "bfs_rowptr.bin"), readI32(t, "bfs_cols.bin"), readI32(t, "bfs_dist0.bin")
	n := len(dist0)
	golden := bfsLevels(rowptr, cols, dist0, -1, 0, 0)
	checked, masked := 0, 0
	for _, r := range bothWays(t, ld, g) {
		if r.Launch != 2 || r.Kernel != "bfs_level" || r.Op != "STG" {
			t.Fatalf("not the frontier store of launch 2: %s", r.line())
		}
		u, _ := strconv.ParseInt(r.Old, 0, 64)
		v, _ := strconv.ParseInt(r.New, 0, 64)
		if v >= int64(n) {
			continue // another vertex's neighbours, read past the graph
		}
		want := bfsLevels(rowptr, cols, dist0, 2, int32(u), int32(v))
		differ, first := 0, -1
		for i := range want {
			if want[i] != golden[i] {
				differ++
				if first < 0 {
					first = i
				}
			}
		}
		checked++
		if differ == 0 {
			masked++
			if r.Outcome != Masked {
				t.Errorf("frontier vertex %d -> %d changes no distance: %s", u, v, r.line())
			}
			continue
		}
		if r.Outcome != SDC || r.SDC.Elements != differ || r.SDC.First != fmt.Sprintf("dist[%d]", first) {
			t.Errorf("frontier vertex %d -> %d: want %d distances differing from dist[%d]: %s", u, v, differ, first, r.line())
		}
	}
	if checked < 30 || masked == 0 || masked == checked {
		t.Errorf("%d injections checked against the reference, %d masked", checked, masked)
	}
}

// bfsLevels is bfs_level's host loop in Go: level after level, the
// frontier's neighbours not reached yet get the next level; after level
// at (>= 0), vertex u of the next frontier is v instead.
func bfsLevels(rowptr, cols, dist0 []int32, at int, u, v int32) []int32 {
	dist := append([]int32(nil), dist0...)
	var front []int32
	for i, d := range dist {
		if d == 0 {
			front = append(front, int32(i))
		}
	}
	for level := 0; len(front) > 0; level++ {
		var next []int32
		for _, x := range front {
			for e := rowptr[x]; e < rowptr[x+1]; e++ {
				if y := cols[e]; dist[y] == -1 {
					dist[y] = int32(level + 1)
					next = append(next, y)
				}
			}
		}
		if level == at {
			for i := range next {
				if next[i] == u {
					next[i] = v
					break
				}
			}
		}
		front = next
	}
	return dist
}

func readI32(t *testing.T, name string) []int32 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../examples/maxwell", name))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// Every model on sequences: the examples' BFS (two kernels looping on a
// flag, one looping on a count), the corpus's PathFinder (the row
// buffers swapped by name) and Rodinia's BFS on a larger graph. With
// checkpoints and early stops each gives what whole runs give.
func TestSequenceAgree(t *testing.T) {
	n := 6
	if testing.Short() {
		n = 2
	}
	dir := t.TempDir()
	for _, path := range []string{"count.json", "../../../examples/maxwell/bfs.json", corpusPathfinder(t, dir), corpusBFSMask(t, dir)} {
		c := mixed(t, 78, n)
		c.Launch = path
		ld, g := campaign(t, c)
		recs := bothWays(t, ld, g)
		early, later := 0, 0
		for _, r := range recs {
			if r.Early {
				early++
			}
			if r.Launch > 0 {
				later++
			}
		}
		t.Logf("%s: %d launches, %d warp-instructions; %d injections, %d past launch 0, %d stopped early",
			filepath.Base(path), len(g.Launches), g.Total, len(recs), later, early)
		if later == 0 {
			t.Errorf("%s: no injection past launch 0", path)
		}
	}
}

// writeLaunch writes a launch file and its data into dir.
func writeLaunch(t *testing.T, dir, name string, launch map[string]any, files map[string][]byte) string {
	t.Helper()
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := json.MarshalIndent(launch, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func corpusCubin(t *testing.T, src string) string {
	p, err := filepath.Abs(filepath.Join("..", "maxwell", "testdata", "corpus", src+".sm_52.O3.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func i32Bytes(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// corpusPathfinder is PathFinder's host loop (emu/maxwell's
// TestSeqPathfinder) on a smaller grid.
func corpusPathfinder(t *testing.T, dir string) string {
	rng := rand.New(rand.NewPCG(311, 2))
	const rows, cols, pyramid = 41, 100, 20
	wall := make([]int32, rows*cols)
	for i := range wall {
		wall[i] = int32(rng.IntN(10))
	}
	param := func(v any) map[string]any {
		if s, ok := v.(string); ok && !strings.HasPrefix(s, "{") {
			return map[string]any{"ptr": s}
		}
		return map[string]any{"s32": v}
	}
	return writeLaunch(t, dir, "pathfinder.json", map[string]any{
		"program": corpusCubin(t, "dp"), "arch": "sm_52", "kernel": "pathfinder_step",
		"buffers": map[string]any{"wall": map[string]any{"file": "wall.bin"}, "r0": map[string]any{"file": "row0.bin"},
			"r1": map[string]any{"bytes": 4 * cols}},
		"launches": []any{map[string]any{
			"repeat": (rows - 1) / pyramid, "grid": []any{1}, "block": []any{256},
			"params": []any{param(pyramid), param("wall"), param("r{$i%2}"), param("r{($i+1)%2}"), param(cols), param("{20*$i}"), param(pyramid)},
		}},
		"outputs": []any{map[string]any{"buffer": "r0", "file": "result.bin"}},
	}, map[string][]byte{"wall.bin": i32Bytes(wall), "row0.bin": i32Bytes(wall[:cols])})
}

// corpusBFSMask is Rodinia's BFS host loop (emu/maxwell's TestSeqBFSMask):
// a group of two kernels repeated while the second sets a flag.
func corpusBFSMask(t *testing.T, dir string) string {
	rng := rand.New(rand.NewPCG(313, 2))
	const n = 300
	rowptr, cols := []int32{0}, []int32{}
	for range n {
		for range rng.IntN(4) {
			cols = append(cols, int32(rng.IntN(n)))
		}
		rowptr = append(rowptr, int32(len(cols)))
	}
	mask, visited, cost := make([]byte, n), make([]byte, n), make([]int32, n)
	for i := range cost {
		cost[i] = 1 << 30
	}
	mask[0], visited[0], cost[0] = 1, 1, 0
	ptr := func(s string) map[string]any { return map[string]any{"ptr": s} }
	return writeLaunch(t, dir, "bfsmask.json", map[string]any{
		"program": corpusCubin(t, "graph"), "arch": "sm_52", "block": []any{128}, "grid": []any{(n + 127) / 128},
		"buffers": map[string]any{"rowptr": map[string]any{"file": "rowptr.bin"}, "cols": map[string]any{"file": "cols.bin"},
			"mask": map[string]any{"file": "mask.bin"}, "updating": map[string]any{"bytes": n},
			"visited": map[string]any{"file": "visited.bin"}, "cost": map[string]any{"file": "cost.bin"}, "over": map[string]any{"bytes": 4}},
		"launches": []any{map[string]any{
			"repeat": n, "zero": []any{"over"}, "while": map[string]any{"buffer": "over"},
			"launches": []any{
				map[string]any{"kernel": "bfs_mask_expand", "params": []any{ptr("rowptr"), ptr("cols"), ptr("mask"), ptr("updating"),
					ptr("visited"), ptr("cost"), map[string]any{"s32": n}}},
				map[string]any{"kernel": "bfs_mask_commit", "params": []any{ptr("mask"), ptr("updating"), ptr("visited"), ptr("over"),
					map[string]any{"s32": n}}},
			},
		}},
		"outputs": []any{map[string]any{"buffer": "cost", "file": "cost.out"}},
		"expect":  []any{},
	}, map[string][]byte{"rowptr.bin": i32Bytes(rowptr), "cols.bin": i32Bytes(cols), "mask.bin": mask, "visited.bin": visited,
		"cost.bin": i32Bytes(cost)})
}
