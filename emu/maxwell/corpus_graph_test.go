package maxwell

import (
	"math/rand/v2"
	"testing"
)

// Corpus: testdata/corpus/graph.cu and dp.cu (host loops of launches).

// randomGraph is a directed graph in CSR form: n nodes, out-degrees 0..maxdeg.
func randomGraph(rng *rand.Rand, n, maxdeg int) (rowptr, cols []int32) {
	rowptr = []int32{0}
	for range n {
		for range rng.IntN(maxdeg + 1) {
			cols = append(cols, int32(rng.IntN(n)))
		}
		rowptr = append(rowptr, int32(len(cols)))
	}
	return rowptr, cols
}

// bfsRef is the distance of every node from src (-1: unreachable).
func bfsRef(rowptr, cols []int32, src int) []int32 {
	dist := make([]int32, len(rowptr)-1)
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int32{int32(src)}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for e := rowptr[v]; e < rowptr[v+1]; e++ {
			if u := cols[e]; dist[u] < 0 {
				dist[u] = dist[v] + 1
				queue = append(queue, u)
			}
		}
	}
	return dist
}

// bfsStart is the frontier BFS's state before level 0: every distance -1
// but the source's, the source alone in the queue (two halves), the
// level populations with 1 at level 0.
func bfsStart(n, src int) (dist, queue, counts []int32) {
	dist = make([]int32, n)
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue = make([]int32, 2*n)
	queue[0] = int32(src)
	counts = make([]int32, n+2)
	counts[0] = 1
	return dist, queue, counts
}

// bfsMaskStart is Rodinia's BFS state before the first level: the source
// masked and visited at cost 0, every other cost 1<<30.
func bfsMaskStart(n, src int) (mask, visited []byte, cost []int32) {
	mask, visited = make([]byte, n), make([]byte, n)
	cost = make([]int32, n)
	for i := range cost {
		cost[i] = 1 << 30
	}
	mask[src], visited[src], cost[src] = 1, 1, 0
	return mask, visited, cost
}

// TestCorpusBFS: the frontier-queue BFS, one launch per level until the
// next frontier is empty (the host reads counts[level+1], as a host loop does).
func TestCorpusBFS(t *testing.T) {
	forCorpus(t, "graph", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(301, 1))
		const n, src = 3000, 5
		rowptr, cols := randomGraph(rng, n, 4)
		dist, queue, counts := bfsStart(n, src)
		d.alloc("rowptr", fromI32(rowptr))
		d.alloc("cols", fromI32(cols))
		d.alloc("dist", fromI32(dist))
		d.alloc("queue", fromI32(queue))
		d.alloc("counts", fromI32(counts))
		level := 0
		for ; int32(d.word("counts", level)) > 0; level++ {
			if level > n {
				t.Fatal("no end")
			}
			d.launch("bfs_level", grid1(int(d.word("counts", level)), 128), dim(128, 1), 0,
				buf("rowptr"), buf("cols"), buf("dist"), buf("queue"), buf("counts"), level, n)
		}
		want := bfsRef(rowptr, cols, src)
		sameInts(t, "dist", i32s(d.get("dist")), want)
		// the frontier sizes are the level populations
		pop := make([]int32, n+2)
		for _, v := range want {
			if v >= 0 {
				pop[v]++
			}
		}
		sameInts(t, "counts", i32s(d.get("counts")), pop)
		if level < 5 {
			t.Errorf("only %d levels: the graph is too easy", level)
		}
	})
}

// TestCorpusBFSMask: Rodinia's two-kernel BFS, looping while a level
// changed something.
func TestCorpusBFSMask(t *testing.T) {
	forCorpus(t, "graph", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(302, 1))
		const n, src = 2000, 0
		rowptr, cols := randomGraph(rng, n, 4)
		mask, visited, cost := bfsMaskStart(n, src)
		d.alloc("rowptr", fromI32(rowptr))
		d.alloc("cols", fromI32(cols))
		d.alloc("mask", mask)
		d.alloc("updating", make([]byte, n))
		d.alloc("visited", visited)
		d.alloc("cost", fromI32(cost))
		d.alloc("over", make([]byte, 4))
		g, b := grid1(n, 256), dim(256, 1)
		for it := 0; ; it++ {
			if it > n {
				t.Fatal("no end")
			}
			d.set("over", make([]byte, 4))
			d.launch("bfs_mask_expand", g, b, 0, buf("rowptr"), buf("cols"), buf("mask"), buf("updating"), buf("visited"), buf("cost"), n)
			d.launch("bfs_mask_commit", g, b, 0, buf("mask"), buf("updating"), buf("visited"), buf("over"), n)
			if d.word("over", 0) == 0 {
				break
			}
		}
		want := bfsRef(rowptr, cols, src)
		for i, v := range want {
			if v < 0 {
				want[i] = 1 << 30
			}
		}
		sameInts(t, "cost", i32s(d.get("cost")), want)
	})
}

// TestCorpusNeedlemanWunsch: one launch per anti-diagonal of 16x16 tiles,
// nw_upper then nw_lower, with a changing grid; the whole score matrix is
// checked against the recurrence.
func TestCorpusNeedlemanWunsch(t *testing.T) {
	forCorpus(t, "dp", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(303, 1))
		const n, penalty = 128, 10
		const w = n + 1
		ref := make([]int32, w*w)
		for i := range ref {
			ref[i] = int32(rng.IntN(21) - 10)
		}
		score := make([]int32, w*w)
		for i := range w {
			score[i*w] = int32(-i * penalty)
			score[i] = int32(-i * penalty)
		}
		d.alloc("score", fromI32(score))
		d.alloc("ref", fromI32(ref))
		nb := n / 16
		for diag := range nb {
			d.launch("nw_upper", dim(diag+1, 1), dim(16, 1), 0, buf("score"), buf("ref"), n, penalty, diag)
		}
		for diag := nb; diag < 2*nb-1; diag++ {
			d.launch("nw_lower", dim(2*nb-1-diag, 1), dim(16, 1), 0, buf("score"), buf("ref"), n, penalty, diag)
		}
		for i := 1; i < w; i++ {
			for j := 1; j < w; j++ {
				score[i*w+j] = max(score[(i-1)*w+j-1]+ref[i*w+j], score[(i-1)*w+j]-penalty, score[i*w+j-1]-penalty)
			}
		}
		sameInts(t, "score", i32s(d.get("score")), score)
	})
}

// TestCorpusPathfinder: pyramids of rows per launch, the host swapping the
// row buffers, as Rodinia's host loop does.
func TestCorpusPathfinder(t *testing.T) {
	forCorpus(t, "dp", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(304, 1))
		const rows, cols, pyramid = 100, 1000, 20
		wall := make([]int32, rows*cols)
		for i := range wall {
			wall[i] = int32(rng.IntN(10))
		}
		d.alloc("wall", fromI32(wall))
		d.alloc("r0", fromI32(wall[:cols]))
		d.alloc("r1", make([]byte, 4*cols))
		src, dst := "r0", "r1"
		launches := 0
		for start := 0; start < rows-1; start += pyramid {
			iters := min(pyramid, rows-1-start)
			d.launch("pathfinder_step", grid1(cols, 256-2*pyramid), dim(256, 1), 0,
				iters, buf("wall"), buf(src), buf(dst), cols, start, pyramid)
			src, dst = dst, src
			launches++
		}
		want := append([]int32(nil), wall[:cols]...)
		for r := 1; r < rows; r++ {
			next := make([]int32, cols)
			for c := range cols {
				next[c] = wall[r*cols+c] + min(want[max(c-1, 0)], want[c], want[min(c+1, cols-1)])
			}
			want = next
		}
		sameInts(t, "result", i32s(d.get(src)), want)
	})
}
