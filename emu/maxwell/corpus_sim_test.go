package maxwell

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Corpus: testdata/corpus/sim.cu.

func TestCorpusNbody(t *testing.T) {
	forCorpus(t, "sim", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(501, 1))
		const n, bs = 512, 128
		const eps2 = float32(0.01)
		pos := make([]float32, 4*n)
		for i := range n {
			for c := range 3 {
				pos[4*i+c] = rng.Float32()*20 - 10
			}
			pos[4*i+3] = rng.Float32() + 0.1
		}
		d.alloc("pos", fromF32(pos))
		d.alloc("acc", make([]byte, 16*n))
		d.launch("nbody_accel", grid1(n, bs), dim(bs, 1), 16*bs, buf("pos"), buf("acc"), n, eps2)
		want, bound := make([]float64, 4*n), make([]float64, 4*n)
		for i := range n {
			var mag [3]float64
			for j := range n {
				var dv [3]float64
				d2 := float64(eps2)
				for c := range 3 {
					dv[c] = float64(pos[4*j+c]) - float64(pos[4*i+c])
					d2 += dv[c] * dv[c]
				}
				s := float64(pos[4*j+3]) / (d2 * math.Sqrt(d2))
				for c := range 3 {
					want[4*i+c] += dv[c] * s
					mag[c] += math.Abs(dv[c] * s)
				}
			}
			// n additions, and per term: the rsqrt (2 ulp), its cube, the
			// distance and the products
			for c := range 3 {
				bound[4*i+c] = (n + 24) * u32f * mag[c]
			}
		}
		closeF32(t, "acc", f32s(d.get("acc")), want, bound)
	})
}

func TestCorpusKmeans(t *testing.T) {
	forCorpus(t, "sim", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(502, 1))
		const npoints, nclusters, nfeatures = 3000, 10, 6
		f := make([]float32, nfeatures*npoints)
		for i := range f {
			f[i] = rng.Float32()
		}
		centres := make([]float32, nclusters*nfeatures)
		for i := range centres {
			centres[i] = rng.Float32()
		}
		member := make([]int32, npoints)
		for i := range member {
			member[i] = int32(rng.IntN(nclusters+1) - 1)
		}
		d.setConst("centres", fromF32(centres))
		d.alloc("f", fromF32(f))
		d.alloc("member", fromI32(member))
		d.alloc("changes", make([]byte, 4))
		d.launch("kmeans_assign", grid1(npoints, 256), dim(256, 1), 0, buf("f"), buf("member"), buf("changes"), npoints, nclusters, nfeatures)
		got := i32s(d.get("member"))
		dist := func(i, c int) float64 {
			var s float64
			for k := range nfeatures {
				x := float64(f[k*npoints+i]) - float64(centres[c*nfeatures+k])
				s += x * x
			}
			return s
		}
		diff := diffs{what: "membership"}
		var changes int32
		for i := range npoints {
			best := 0
			for c := 1; c < nclusters; c++ {
				if dist(i, c) < dist(i, best) {
					best = c
				}
			}
			g := int(got[i])
			// a different choice is right only on a tie within f32 rounding
			if g != best && (g < 0 || g >= nclusters || dist(i, g)-dist(i, best) > 16*u32f*dist(i, best)) {
				diff.add("[%d] got %d (distance %g) want %d (%g)", i, g, dist(i, max(g, 0)), best, dist(i, best))
			}
			if got[i] != member[i] {
				changes++
			}
		}
		diff.report(t, npoints)
		sameInts(t, "changes", i32s(d.get("changes")), []int32{changes})
		if changes < npoints/2 {
			t.Errorf("only %d changes", changes)
		}
	})
}

// cndRef is the Black-Scholes polynomial approximation of the normal CDF.
func cndRef(x float64) float64 {
	const a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
	k := 1 / (1 + 0.2316419*math.Abs(x))
	c := 0.39894228040143267793994605993438 * math.Exp(-0.5*x*x) * (k * (a1 + k*(a2+k*(a3+k*(a4+k*a5)))))
	if x > 0 {
		return 1 - c
	}
	return c
}

func TestCorpusBlackScholes(t *testing.T) {
	forCorpus(t, "sim", func(t *testing.T, d *device) {
		rng := rand.New(rand.NewPCG(503, 1))
		const n = 4000
		const r, v = float32(0.02), float32(0.30)
		price, strike, years := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range price {
			price[i] = 5 + 25*rng.Float32()
			strike[i] = 1 + 99*rng.Float32()
			years[i] = 0.25 + 9.75*rng.Float32()
		}
		d.alloc("call", make([]byte, 4*n))
		d.alloc("put", make([]byte, 4*n))
		d.alloc("price", fromF32(price))
		d.alloc("strike", fromF32(strike))
		d.alloc("years", fromF32(years))
		d.launch("black_scholes", dim(5, 1), dim(128, 1), 0, buf("call"), buf("put"), buf("price"), buf("strike"), buf("years"), r, v, n)
		call, put, bound := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			s, x, tt, rr, vv := float64(price[i]), float64(strike[i]), float64(years[i]), float64(r), float64(v)
			d1 := (math.Log(s/x) + (rr+0.5*vv*vv)*tt) / (vv * math.Sqrt(tt))
			d2 := d1 - vv*math.Sqrt(tt)
			e := math.Exp(-rr * tt)
			call[i] = s*cndRef(d1) - x*e*cndRef(d2)
			put[i] = x*e*(1-cndRef(d2)) - s*(1-cndRef(d1))
			// f32 logf/expf are within 2 ulp; d1 and d2 carry a few ulp of
			// the log into the CDF (slope below 0.4)
			bound[i] = 64 * u32f * (s + x)
		}
		closeF32(t, "call", f32s(d.get("call")), call, bound)
		closeF32(t, "put", f32s(d.get("put")), put, bound)
	})
}
