package maxwell

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Corpus: testdata/corpus/stencil.cu.

// TestCorpusJacobi2D runs PolyBench's Jacobi 2D for several steps (two
// kernels a step, as the host loop launches them). The reference is exact:
// the step is a sum of five terms then one product, which no compiler
// contracts into a multiply-add.
func TestCorpusJacobi2D(t *testing.T) {
	forCorpus(t, "stencil", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(201, 1))
		const n, steps = 40, 6
		a := make([]float32, n*n)
		for i := range a {
			a[i] = rng.Float32()
		}
		b := append([]float32(nil), a...)
		d.alloc("a", fromF32(a))
		d.alloc("b", fromF32(b))
		g, bl := dim((n+15)/16, (n+15)/16), dim(16, 16)
		for range steps {
			d.launch("jacobi2d_step", g, bl, 0, buf("a"), buf("b"), n)
			d.launch("jacobi2d_copy", g, bl, 0, buf("a"), buf("b"), n)
		}
		for range steps {
			for i := 1; i < n-1; i++ {
				for j := 1; j < n-1; j++ {
					b[i*n+j] = 0.2 * (a[i*n+j] + a[i*n+j-1] + a[i*n+j+1] + a[(i+1)*n+j] + a[(i-1)*n+j])
				}
			}
			for i := 1; i < n-1; i++ {
				copy(a[i*n+1:i*n+n-1], b[i*n+1:i*n+n-1])
			}
		}
		sameInts(t, "A", u32s(d.get("a")), u32s(fromF32(a)))
		sameInts(t, "B", u32s(d.get("b")), u32s(fromF32(b)))
	})
}

func TestCorpusStencil7(t *testing.T) {
	forCorpus(t, "stencil", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(202, 1))
		const nx, ny, nz = 37, 21, 9
		const c0, c1 = float32(0.5), float32(1.0 / 6)
		in := randF32(rng, nx*ny*nz)
		out := randF32(rng, nx*ny*nz) // the boundary keeps these
		d.alloc("in", fromF32(in))
		d.alloc("out", fromF32(out))
		d.launch("stencil7", dim((nx+31)/32, (ny+3)/4), dim(32, 4), 0, c0, c1, buf("in"), buf("out"), nx, ny, nz)
		want, bound := make([]float64, len(out)), make([]float64, len(out))
		at := func(x, y, z int) int { return x + nx*(y+ny*z) }
		for i, v := range out {
			want[i] = float64(v)
		}
		for z := 1; z < nz-1; z++ {
			for y := 1; y < ny-1; y++ {
				for x := 1; x < nx-1; x++ {
					var s, mag float64
					for _, j := range []int{at(x, y, z-1), at(x, y, z+1), at(x-1, y, z), at(x+1, y, z), at(x, y-1, z), at(x, y+1, z)} {
						s += float64(in[j])
						mag += math.Abs(float64(in[j]))
					}
					ctr := float64(c0) * float64(in[at(x, y, z)])
					want[at(x, y, z)] = float64(c1)*s - ctr
					bound[at(x, y, z)] = 8 * u32f * (float64(c1)*mag + math.Abs(ctr))
				}
			}
		}
		closeF32(t, "out", f32s(d.get("out")), want, bound)
	})
}

// TestCorpusHotspot runs HotSpot steps, ping-ponging the temperature
// buffers; each step is checked against a float64 step of the same input.
func TestCorpusHotspot(t *testing.T) {
	forCorpus(t, "stencil", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(203, 1))
		const n, steps = 50, 3
		const k, rx, ry, rz, amb = float32(0.3), float32(0.1), float32(0.12), float32(0.05), float32(80)
		power, temp := make([]float32, n*n), make([]float32, n*n)
		for i := range temp {
			power[i] = rng.Float32()
			temp[i] = 60 + 40*rng.Float32()
		}
		d.alloc("power", fromF32(power))
		d.alloc("t0", fromF32(temp))
		d.alloc("t1", make([]byte, 4*n*n))
		src, dst := "t0", "t1"
		for range steps {
			tin := f32s(d.get(src))
			d.launch("hotspot_step", dim((n+15)/16, (n+15)/16), dim(16, 16), 0, buf("power"), buf(src), buf(dst), n, k, rx, ry, rz, amb)
			want, bound := make([]float64, n*n), make([]float64, n*n)
			for y := range n {
				for x := range n {
					at := func(yy, xx int) float64 {
						return float64(tin[min(max(yy, 0), n-1)*n+min(max(xx, 0), n-1)])
					}
					c := at(y, x)
					terms := []float64{float64(power[y*n+x]), (at(y-1, x) + at(y+1, x) - 2*c) * float64(ry),
						(at(y, x+1) + at(y, x-1) - 2*c) * float64(rx), (float64(amb) - c) * float64(rz)}
					var dsum, mag float64
					for _, v := range terms {
						dsum += v
						mag += math.Abs(v)
					}
					// the neighbour sums cancel: their rounding is relative to the temperatures
					mag += 4 * c * float64(rx+ry+rz)
					want[y*n+x] = c + float64(k)*dsum
					bound[y*n+x] = 8 * u32f * (c + float64(k)*mag)
				}
			}
			closeF32(t, "temperature", f32s(d.get(dst)), want, bound)
			src, dst = dst, src
		}
	})
}
