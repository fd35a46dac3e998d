package maxwell

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// The corpus's host loops as launch files (emu/sequence.go): the
// application's launches over shared buffers, repeated with changing
// parameters (templates), looping while a buffer says so, checked at the
// end against the same Go references as the corpus tests.

// seqFile is a launch file under construction: its JSON and its files.
type seqFile struct {
	launch map[string]any
	files  map[string][]byte
}

// runSeq writes the launch file into a temporary directory, runs it on a
// device and checks its expectations; it returns the sequence.
func runSeq(t *testing.T, b corpusBuild, f seqFile) *emu.Sequence {
	t.Helper()
	dir := t.TempDir()
	for name, data := range f.files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := json.MarshalIndent(f.launch, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	l, err := emu.ParseLaunch(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	seq, err := l.NewSequence(emu.NewDevice([]emu.Emulator{Emulator()}), dir)
	if err != nil {
		t.Fatal(err)
	}
	if b.checked() {
		seq.Adjust = func(j *emu.Job) { j.Check = emu.CheckMemory | emu.CheckRace | emu.CheckInit }
		seq.After = func(n int, _ *emu.Job, r *emu.Result, _ error) {
			if r != nil {
				for _, f := range r.Findings {
					t.Errorf("launch %d: %v", n, f)
				}
			}
		}
	}
	res, err := seq.Run()
	if err != nil {
		t.Fatal(err)
	}
	n, err := l.Check(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("nothing checked")
	}
	return seq
}

// corpusPath is a corpus cubin's absolute path.
func corpusPath(t *testing.T, src string, b corpusBuild) string {
	p, err := filepath.Abs(filepath.Join("testdata", "corpus", src+"."+b.arch+"."+b.opt+".cubin"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func forCorpusSeq(t *testing.T, f func(t *testing.T, b corpusBuild)) {
	for _, b := range corpusBuilds {
		t.Run(b.arch+"."+b.opt, func(t *testing.T) { f(t, b) })
	}
}

func s32p(v int) map[string]any       { return map[string]any{"s32": v} }
func s32t(tmpl string) map[string]any { return map[string]any{"s32": tmpl} }
func ptrp(name string) map[string]any { return map[string]any{"ptr": name} }
func fileBuf(name string) map[string]any {
	return map[string]any{"file": name}
}
func expectS32(out, file string) map[string]any {
	return map[string]any{"output": out, "file": file, "type": "s32"}
}

// TestSeqPathfinder: PathFinder's host loop, a launch per pyramid of 20
// rows, the row buffers swapped by name ("r{$i%2}").
func TestSeqPathfinder(t *testing.T) {
	forCorpusSeq(t, func(t *testing.T, b corpusBuild) {
		rng := rand.New(rand.NewPCG(311, 1))
		const rows, cols, pyramid = 101, 700, 20
		wall := make([]int32, rows*cols)
		for i := range wall {
			wall[i] = int32(rng.IntN(10))
		}
		want := append([]int32(nil), wall[:cols]...)
		for r := 1; r < rows; r++ {
			next := make([]int32, cols)
			for c := range cols {
				next[c] = wall[r*cols+c] + min(want[max(c-1, 0)], want[c], want[min(c+1, cols-1)])
			}
			want = next
		}
		steps := (rows - 1) / pyramid
		seq := runSeq(t, b, seqFile{
			launch: map[string]any{
				"program": corpusPath(t, "dp", b), "arch": b.arch, "kernel": "pathfinder_step",
				"buffers": map[string]any{"wall": fileBuf("wall.bin"), "r0": fileBuf("row0.bin"), "r1": map[string]any{"bytes": 4 * cols}},
				"launches": []any{map[string]any{
					"repeat": steps, "grid": []any{(cols + 255 - 2*pyramid) / (256 - 2*pyramid)}, "block": []any{256},
					"params": []any{s32p(pyramid), ptrp("wall"), ptrp("r{$i%2}"), ptrp("r{($i+1)%2}"), s32p(cols), s32t("{20*$i}"), s32p(pyramid)},
				}},
				"outputs": []any{map[string]any{"buffer": "r" + strconv.Itoa(steps%2), "file": "result.bin"}},
				"expect":  []any{expectS32("result.bin", "expected.bin")},
			},
			files: map[string][]byte{"wall.bin": fromI32(wall), "row0.bin": fromI32(wall[:cols]), "expected.bin": fromI32(want)},
		})
		if seq.Launches != steps {
			t.Errorf("%d launches, want %d", seq.Launches, steps)
		}
	})
}

// TestSeqBFS: the frontier BFS, a launch per level while the next
// frontier is not empty (counts[level+1]).
func TestSeqBFS(t *testing.T) {
	forCorpusSeq(t, func(t *testing.T, b corpusBuild) {
		rng := rand.New(rand.NewPCG(312, 1))
		const n, src = 2000, 3
		rowptr, cols := randomGraph(rng, n, 4)
		dist, queue, counts := bfsStart(n, src)
		want := bfsRef(rowptr, cols, src)
		levels := 0
		for _, d := range want {
			levels = max(levels, int(d)+1)
		}
		seq := runSeq(t, b, seqFile{
			launch: map[string]any{
				"program": corpusPath(t, "graph", b), "arch": b.arch, "kernel": "bfs_level",
				"buffers": map[string]any{"rowptr": fileBuf("rowptr.bin"), "cols": fileBuf("cols.bin"), "dist": fileBuf("dist.bin"),
					"queue": fileBuf("queue.bin"), "counts": fileBuf("counts.bin")},
				"launches": []any{map[string]any{
					"repeat": n, "while": map[string]any{"buffer": "counts", "index": "{$i+1}"},
					"grid": []any{(n + 127) / 128}, "block": []any{128},
					"params": []any{ptrp("rowptr"), ptrp("cols"), ptrp("dist"), ptrp("queue"), ptrp("counts"), s32t("{$i}"), s32p(n)},
				}},
				"outputs": []any{map[string]any{"buffer": "dist", "file": "dist.out"}},
				"expect":  []any{expectS32("dist.out", "expected.bin")},
			},
			files: map[string][]byte{"rowptr.bin": fromI32(rowptr), "cols.bin": fromI32(cols), "dist.bin": fromI32(dist),
				"queue.bin": fromI32(queue), "counts.bin": fromI32(counts), "expected.bin": fromI32(want)},
		})
		if seq.Launches != levels {
			t.Errorf("%d launches, want one per level (%d)", seq.Launches, levels)
		}
	})
}

// TestSeqBFSMask: Rodinia's BFS host loop: a group of two kernels,
// repeated while the commit kernel sets the flag the group zeroes first.
func TestSeqBFSMask(t *testing.T) {
	forCorpusSeq(t, func(t *testing.T, b corpusBuild) {
		rng := rand.New(rand.NewPCG(313, 1))
		const n, src = 1500, 0
		rowptr, cols := randomGraph(rng, n, 4)
		mask, visited, cost := bfsMaskStart(n, src)
		want := bfsRef(rowptr, cols, src)
		for i, v := range want {
			if v < 0 {
				want[i] = 1 << 30
			}
		}
		grid := []any{(n + 255) / 256}
		runSeq(t, b, seqFile{
			launch: map[string]any{
				"program": corpusPath(t, "graph", b), "arch": b.arch, "block": []any{256}, "grid": grid,
				"buffers": map[string]any{"rowptr": fileBuf("rowptr.bin"), "cols": fileBuf("cols.bin"), "mask": fileBuf("mask.bin"),
					"updating": map[string]any{"bytes": n}, "visited": fileBuf("visited.bin"), "cost": fileBuf("cost.bin"),
					"over": map[string]any{"bytes": 4}},
				"launches": []any{map[string]any{
					"repeat": n, "zero": []any{"over"}, "while": map[string]any{"buffer": "over", "index": 0},
					"launches": []any{
						map[string]any{"kernel": "bfs_mask_expand", "params": []any{ptrp("rowptr"), ptrp("cols"), ptrp("mask"), ptrp("updating"),
							ptrp("visited"), ptrp("cost"), s32p(n)}},
						map[string]any{"kernel": "bfs_mask_commit", "params": []any{ptrp("mask"), ptrp("updating"), ptrp("visited"), ptrp("over"), s32p(n)}},
					},
				}},
				"outputs": []any{map[string]any{"buffer": "cost", "file": "cost.out"}},
				"expect":  []any{expectS32("cost.out", "expected.bin")},
			},
			files: map[string][]byte{"rowptr.bin": fromI32(rowptr), "cols.bin": fromI32(cols), "mask.bin": mask,
				"visited.bin": visited, "cost.bin": fromI32(cost), "expected.bin": fromI32(want)},
		})
	})
}

// TestSeqNeedlemanWunsch: two repeated steps whose grid grows and shrinks
// with the anti-diagonal ("{$i+1}").
func TestSeqNeedlemanWunsch(t *testing.T) {
	forCorpusSeq(t, func(t *testing.T, b corpusBuild) {
		rng := rand.New(rand.NewPCG(314, 1))
		const n, penalty = 96, 10
		const w, nb = n + 1, n / 16
		ref := make([]int32, w*w)
		for i := range ref {
			ref[i] = int32(rng.IntN(21) - 10)
		}
		score := make([]int32, w*w)
		for i := range w {
			score[i*w], score[i] = int32(-i*penalty), int32(-i*penalty)
		}
		want := append([]int32(nil), score...)
		for i := 1; i < w; i++ {
			for j := 1; j < w; j++ {
				want[i*w+j] = max(want[(i-1)*w+j-1]+ref[i*w+j], want[(i-1)*w+j]-penalty, want[i*w+j-1]-penalty)
			}
		}
		params := func(d string) []any { return []any{ptrp("score"), ptrp("ref"), s32p(n), s32p(penalty), s32t(d)} }
		seq := runSeq(t, b, seqFile{
			launch: map[string]any{
				"program": corpusPath(t, "dp", b), "arch": b.arch, "block": []any{16},
				"buffers": map[string]any{"score": fileBuf("score.bin"), "ref": fileBuf("ref.bin")},
				"launches": []any{
					map[string]any{"kernel": "nw_upper", "repeat": nb, "grid": []any{"{$i+1}"}, "params": params("{$i}")},
					map[string]any{"kernel": "nw_lower", "repeat": nb - 1, "grid": []any{"{" + strconv.Itoa(nb-1) + "-$i}"},
						"params": params("{" + strconv.Itoa(nb) + "+$i}")},
				},
				"outputs": []any{map[string]any{"buffer": "score", "file": "score.out"}},
				"expect":  []any{expectS32("score.out", "expected.bin")},
			},
			files: map[string][]byte{"score.bin": fromI32(score), "ref.bin": fromI32(ref), "expected.bin": fromI32(want)},
		})
		if seq.Launches != 2*nb-1 {
			t.Errorf("%d launches, want %d", seq.Launches, 2*nb-1)
		}
	})
}

// TestSeqWhileLimit: a while loop still going after its repeat count is an
// error naming the buffer, with the memory so far.
func TestSeqWhileLimit(t *testing.T) {
	b := corpusBuild{"sm_52", "O3"}
	rng := rand.New(rand.NewPCG(312, 1))
	const n = 500
	rowptr, cols := randomGraph(rng, n, 4)
	dist, _, counts := bfsStart(n, 0)
	dir := t.TempDir()
	for name, data := range map[string][]byte{"rowptr.bin": fromI32(rowptr), "cols.bin": fromI32(cols), "dist.bin": fromI32(dist),
		"counts.bin": fromI32(counts)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := json.Marshal(map[string]any{
		"program": corpusPath(t, "graph", b), "kernel": "bfs_level",
		"buffers": map[string]any{"rowptr": fileBuf("rowptr.bin"), "cols": fileBuf("cols.bin"), "dist": fileBuf("dist.bin"),
			"queue": map[string]any{"bytes": 8 * n}, "counts": fileBuf("counts.bin")},
		"launches": []any{map[string]any{
			"repeat": 2, "while": map[string]any{"buffer": "counts", "index": "{$i+1}"}, "grid": []any{4}, "block": []any{128},
			"params": []any{ptrp("rowptr"), ptrp("cols"), ptrp("dist"), ptrp("queue"), ptrp("counts"), s32t("{$i}"), s32p(n)},
		}},
	})
	l, err := emu.ParseLaunch(data)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := l.NewSequence(emu.NewDevice([]emu.Emulator{Emulator()}), dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := seq.Run()
	if err == nil || !strings.Contains(err.Error(), "counts is still not zero after 2 repetitions") || res == nil || seq.Launches != 2 {
		t.Fatalf("got %v after %d launches (result %v)", err, seq.Launches, res != nil)
	}
}
