package maxwell

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Corpus: testdata/corpus/linalg.cu.

func TestCorpusSgemm(t *testing.T) {
	forCorpus(t, "linalg", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(101, 1))
		const m, n, k = 40, 48, 72 // not multiples of the tile
		const alpha, beta = float32(1.5), float32(-0.5)
		a, b, c := randF32(rng, m*k), randF32(rng, k*n), randF32(rng, m*n)
		d.alloc("a", fromF32(a))
		d.alloc("b", fromF32(b))
		d.alloc("c", fromF32(c))
		d.launch("sgemm_tiled", dim(3, 3), dim(16, 16), 0, buf("a"), buf("b"), buf("c"), m, n, k, alpha, beta)
		want, bound := make([]float64, m*n), make([]float64, m*n)
		for i := range m {
			for j := range n {
				var s, mag float64
				for l := range k {
					p := float64(a[i*k+l]) * float64(b[l*n+j])
					s += p
					mag += math.Abs(p)
				}
				want[i*n+j] = float64(alpha)*s + float64(beta)*float64(c[i*n+j])
				bound[i*n+j] = (k + 4) * u32f * (float64(alpha)*mag + math.Abs(float64(beta)*float64(c[i*n+j])))
			}
		}
		closeF32(t, "C", f32s(d.get("c")), want, bound)
	})
}

func TestCorpusSgemv(t *testing.T) {
	forCorpus(t, "linalg", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(102, 1))
		const rows, cols = 100, 300
		a, x := randF32(rng, rows*cols), randF32(rng, cols)
		d.alloc("a", fromF32(a))
		d.alloc("x", fromF32(x))
		d.alloc("y", make([]byte, 4*rows))
		d.launch("sgemv_warp", grid1(32*rows, 128), dim(128, 1), 0, buf("a"), buf("x"), buf("y"), rows, cols)
		want, bound := make([]float64, rows), make([]float64, rows)
		for i := range rows {
			var mag float64
			for j := range cols {
				p := float64(a[i*cols+j]) * float64(x[j])
				want[i] += p
				mag += math.Abs(p)
			}
			bound[i] = (cols/32 + 6) * u32f * mag
		}
		closeF32(t, "y", f32s(d.get("y")), want, bound)
	})
}

func TestCorpusTranspose(t *testing.T) {
	forCorpus(t, "linalg", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(103, 1))
		const rows, cols = 70, 100
		in := make([]uint32, rows*cols)
		for i := range in {
			in[i] = rng.Uint32()
		}
		d.alloc("in", fromU32(in))
		d.alloc("out", make([]byte, 4*rows*cols))
		d.launch("transpose_tiled", dim((cols+31)/32, (rows+31)/32), dim(32, 8), 0, buf("in"), buf("out"), rows, cols)
		want := make([]uint32, rows*cols)
		for i := range rows {
			for j := range cols {
				want[j*rows+i] = in[i*cols+j]
			}
		}
		sameInts(t, "out", u32s(d.get("out")), want)
	})
}

func TestCorpusSpmv(t *testing.T) {
	forCorpus(t, "linalg", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(104, 1))
		const rows, cols = 500, 400
		rowptr := []int32{0}
		var colidx []int32
		var val []float32
		for range rows {
			for range rng.IntN(21) {
				colidx = append(colidx, int32(rng.IntN(cols)))
				val = append(val, rng.Float32()*4-2)
			}
			rowptr = append(rowptr, int32(len(colidx)))
		}
		x := randF32(rng, cols)
		d.alloc("rowptr", fromI32(rowptr))
		d.alloc("colidx", fromI32(colidx))
		d.alloc("val", fromF32(val))
		d.alloc("x", fromF32(x))
		d.alloc("y", make([]byte, 4*rows))
		d.launch("spmv_csr", grid1(rows, 128), dim(128, 1), 0, buf("rowptr"), buf("colidx"), buf("val"), buf("x"), buf("y"), rows)
		want, bound := make([]float64, rows), make([]float64, rows)
		for r := range rows {
			var mag float64
			for e := rowptr[r]; e < rowptr[r+1]; e++ {
				p := float64(val[e]) * float64(x[colidx[e]])
				want[r] += p
				mag += math.Abs(p)
			}
			bound[r] = float64(rowptr[r+1]-rowptr[r]+1) * u32f * mag
		}
		closeF32(t, "y", f32s(d.get("y")), want, bound)
	})
}

// TestCorpusCorrelation runs PolyBench's correlation: four kernels over
// shared buffers, each checked against the algorithm in float64.
func TestCorpusCorrelation(t *testing.T) {
	forCorpus(t, "linalg", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(105, 1))
		const m, n = 64, 50 // m variables, n samples
		const eps = float32(0.1)
		data := make([]float32, n*m)
		for i := range data {
			data[i] = rng.Float32()
		}
		d.alloc("data", fromF32(data))
		d.alloc("mean", make([]byte, 4*m))
		d.alloc("std", make([]byte, 4*m))
		d.alloc("sym", make([]byte, 4*m*m))
		fn := float32(n)
		d.launch("corr_mean", grid1(m, 256), dim(256, 1), 0, buf("mean"), buf("data"), fn, m, n)
		d.launch("corr_std", grid1(m, 256), dim(256, 1), 0, buf("mean"), buf("std"), buf("data"), fn, eps, m, n)
		d.launch("corr_reduce", dim((m+31)/32, (n+7)/8), dim(32, 8), 0, buf("mean"), buf("std"), buf("data"), fn, m, n)
		d.launch("corr_corr", grid1(m, 256), dim(256, 1), 0, buf("sym"), buf("data"), m, n)

		mean, std := make([]float64, m), make([]float64, m)
		norm := make([]float64, n*m)
		for j := range m {
			for i := range n {
				mean[j] += float64(data[i*m+j])
			}
			mean[j] /= n
			for i := range n {
				dv := float64(data[i*m+j]) - mean[j]
				std[j] += dv * dv
			}
			std[j] = math.Sqrt(std[j] / n)
			if std[j] <= float64(eps) {
				std[j] = 1
			}
			for i := range n {
				norm[i*m+j] = (float64(data[i*m+j]) - mean[j]) / (math.Sqrt(n) * std[j])
			}
		}
		sym := make([]float64, m*m)
		for j1 := 0; j1 < m-1; j1++ {
			sym[j1*m+j1] = 1
			for j2 := j1 + 1; j2 < m; j2++ {
				for i := range n {
					sym[j1*m+j2] += norm[i*m+j1] * norm[i*m+j2]
				}
				sym[j2*m+j1] = sym[j1*m+j2]
			}
		}
		// values are below 1 in magnitude (means and deviations of [0,1)
		// samples, correlations); n-term sums lose at most about n ulp
		const abs = (n + 8) * u32f
		bounds := func(k int) []float64 {
			b := make([]float64, k)
			for i := range b {
				b[i] = abs
			}
			return b
		}
		closeF32(t, "mean", f32s(d.get("mean")), mean, bounds(m))
		closeF32(t, "stddev", f32s(d.get("std")), std, bounds(m))
		closeF32(t, "data", f32s(d.get("data")), norm, bounds(n*m))
		closeF32(t, "symmat", f32s(d.get("sym")), sym, bounds(m*m))
	})
}
