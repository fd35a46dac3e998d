package maxwell

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Corpus: testdata/corpus/reduce.cu.

func TestCorpusReduceU32(t *testing.T) {
	forCorpus(t, "reduce", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(401, 1))
		const n = 100003
		in := make([]uint32, n)
		var want uint32
		for i := range in {
			in[i] = rng.Uint32()
			want += in[i]
		}
		d.alloc("in", fromU32(in))
		d.alloc("total", make([]byte, 4))
		d.launch("reduce_u32", dim(8, 1), dim(224, 1), 0, buf("in"), buf("total"), n)
		sameInts(t, "total", u32s(d.get("total")), []uint32{want})
	})
}

func TestCorpusReduceF32(t *testing.T) {
	forCorpus(t, "reduce", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(402, 1))
		const n = 50000
		in := randF32(rng, n)
		var sum, mag float64
		var maxAbs float32
		for _, v := range in {
			sum += float64(v)
			mag += math.Abs(float64(v))
			maxAbs = max(maxAbs, float32(math.Abs(float64(v))))
		}
		d.alloc("in", fromF32(in))
		d.alloc("total", make([]byte, 4))
		d.alloc("max", make([]byte, 4))
		d.launch("reduce_f32", dim(10, 1), dim(256, 1), 0, buf("in"), buf("total"), buf("max"), n)
		// each value passes through at most n/2560 + 5 + 8 + 10 additions
		closeF32(t, "total", f32s(d.get("total")), []float64{sum}, []float64{(n/2560 + 24) * u32f * mag})
		sameInts(t, "max", u32s(d.get("max")), []uint32{math.Float32bits(maxAbs)})
	})
}

func TestCorpusHistogram(t *testing.T) {
	forCorpus(t, "reduce", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(403, 1))
		const n = 30000
		words := make([]uint32, n)
		want := make([]uint32, 256)
		for i := range words {
			// skewed bytes: many collisions on the same bins
			words[i] = rng.Uint32() & 0x0f3f7fff
			for s := 0; s < 32; s += 8 {
				want[words[i]>>s&0xff]++
			}
		}
		d.alloc("words", fromU32(words))
		d.alloc("hist", make([]byte, 4*256))
		d.launch("histogram256", dim(16, 1), dim(192, 1), 0, buf("words"), n, buf("hist"))
		sameInts(t, "hist", u32s(d.get("hist")), want)
	})
}

// TestCorpusScan: the three-launch exclusive scan (blocks, their totals in
// one block, the offsets added).
func TestCorpusScan(t *testing.T) {
	forCorpus(t, "reduce", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(404, 1))
		const n, bs = 5000, 256
		nb := (n + bs - 1) / bs
		in := make([]uint32, n)
		for i := range in {
			in[i] = rng.Uint32() >> rng.IntN(32)
		}
		d.alloc("in", fromU32(in))
		d.alloc("out", make([]byte, 4*n))
		d.alloc("sums", make([]byte, 4*nb))
		d.alloc("offsets", make([]byte, 4*nb))
		d.alloc("total", make([]byte, 4))
		d.launch("scan_block", dim(nb, 1), dim(bs, 1), 0, buf("in"), buf("out"), buf("sums"), n)
		d.launch("scan_block", dim(1, 1), dim(bs, 1), 0, buf("sums"), buf("offsets"), buf("total"), nb)
		d.launch("scan_add", dim(nb, 1), dim(bs, 1), 0, buf("out"), buf("offsets"), n)
		want := make([]uint32, n)
		var s uint32
		for i, v := range in {
			want[i] = s
			s += v
		}
		sameInts(t, "out", u32s(d.get("out")), want)
		sameInts(t, "total", u32s(d.get("total")), []uint32{s})
	})
}

func TestCorpusBitonic(t *testing.T) {
	forCorpus(t, "reduce", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(405, 1))
		const blocks, threads = 6, 512
		keys := make([]uint32, blocks*2*threads)
		for i := range keys {
			keys[i] = rng.Uint32() >> 20 // duplicates
		}
		d.alloc("keys", fromU32(keys))
		d.launch("bitonic_shared", dim(blocks, 1), dim(threads, 1), 4*2*threads, buf("keys"))
		for b := range blocks {
			slices.Sort(keys[b*2*threads : (b+1)*2*threads])
		}
		sameInts(t, "keys", u32s(d.get("keys")), keys)
	})
}

// TestCorpusSharedTail: a 16-byte shared load 4 bytes past a 140-byte
// allocation (issue 15's LDS.U.128 at 0x80), which the hardware allows.
func TestCorpusSharedTail(t *testing.T) {
	forCorpus(t, "reduce", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(406, 1))
		in := make([]int32, 35)
		for i := range in {
			in[i] = int32(rng.Uint32())
		}
		d.alloc("in", fromI32(in))
		d.alloc("out", make([]byte, 4*32))
		d.launch("shared_tail", dim(1, 1), dim(32, 1), 0, buf("in"), buf("out"))
		want := make([]int32, 32)
		for i := range want {
			want[i] = in[(i+1)&31]*in[32] + in[33] - in[34]
		}
		sameInts(t, "out", i32s(d.get("out")), want)
	})
}
