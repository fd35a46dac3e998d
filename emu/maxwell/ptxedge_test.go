package maxwell

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/ptxedge/ptxedge.ptx from the operation table (ptxedge_ops_test.go)")

// TestPTXEdgeCurrent: the committed PTX is what the operation table generates
// (-update rewrites it; testdata/ptxedge/build.sh compiles it).
func TestPTXEdgeCurrent(t *testing.T) {
	path := filepath.Join("testdata", "ptxedge", "ptxedge.ptx")
	want := []byte(edgePTX())
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: go test -run TestPTXEdgeCurrent -update ./emu/maxwell, then testdata/ptxedge/build.sh", path)
	}
}

// edgeInputs are all pairs of the group's edge values (the third operand
// cycling through them) and random operands with a bias to extremes.
func edgeInputs(g edgeGroup, rng *rand.Rand) (a, b, c []uint64) {
	v := g.values
	for i, x := range v {
		for j, y := range v {
			a, b, c = append(a, x), append(b, y), append(c, v[(i*7+j*3)%len(v)])
		}
	}
	mask := uint64(math.MaxUint32)
	if g.wide {
		mask = math.MaxUint64
	}
	pick := func() uint64 {
		switch rng.IntN(4) {
		case 0:
			return v[rng.IntN(len(v))]
		case 1:
			return (v[rng.IntN(len(v))] + uint64(rng.IntN(5)) - 2) & mask
		}
		return rng.Uint64() >> rng.IntN(8) & mask
	}
	for range 1500 {
		a, b, c = append(a, pick()), append(b, pick()), append(c, pick())
	}
	return a, b, c
}

// TestPTXEdge runs every operation of the table on edge values in every
// build of testdata/ptxedge/ptxedge.ptx and compares with PTX's definition.
func TestPTXEdge(t *testing.T) {
	groups := edgeGroups()
	for _, v := range variants {
		t.Run(v.arch+"."+v.opt, func(t *testing.T) {
			prog, err := os.ReadFile(filepath.Join("testdata", "ptxedge", "ptxedge."+v.arch+"."+v.opt+".cubin"))
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range groups {
				rng := rand.New(rand.NewPCG(15, 7))
				a, b, c := edgeInputs(g, rng)
				n, size := len(a), 4
				enc := func(x []uint64) []byte {
					if g.wide {
						return fromU64(x)
					}
					w := make([]uint32, len(x))
					for i := range x {
						w[i] = uint32(x[i])
					}
					return fromU32(w)
				}
				if g.wide {
					size = 8
				}
				d := newDevice(t, prog, v.arch)
				d.alloc("a", enc(a))
				d.alloc("b", enc(b))
				d.alloc("c", enc(c))
				d.alloc("out", make([]byte, n*len(g.ops)*size))
				d.launch(g.kernel, grid1(n, 128), dim(128, 1), 0, buf("a"), buf("b"), buf("c"), buf("out"), n)
				raw := d.get("out")
				var got []uint64
				if g.wide {
					got = u64s(raw)
				} else {
					for _, x := range u32s(raw) {
						got = append(got, uint64(x))
					}
				}
				bad := map[string]*diffs{}
				var order []string
				for i := range n {
					for k, o := range g.ops {
						if o.undefined != nil && o.undefined(a[i], b[i], c[i]) {
							continue
						}
						g, w := got[i*len(g.ops)+k], o.ref(a[i], b[i], c[i])
						if g == w || o.float == 32 && math.IsNaN(ptxF32(g)) && math.IsNaN(ptxF32(w)) ||
							o.float == 64 && math.IsNaN(ptxF64(g)) && math.IsNaN(ptxF64(w)) ||
							o.anyZero && (g|w)&^(1<<31) == 0 {
							continue
						}
						dd := bad[o.name]
						if dd == nil {
							dd = &diffs{what: o.name}
							bad[o.name] = dd
							order = append(order, o.name)
						}
						dd.add("(%#x, %#x, %#x) got %#x want %#x", a[i], b[i], c[i], g, w)
					}
				}
				for _, name := range order {
					bad[name].report(t, n)
				}
			}
		})
	}
}
