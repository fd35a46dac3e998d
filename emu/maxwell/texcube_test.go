package maxwell

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// refCube is the test's own model of a cube map: faces (+X -X +Y -Y +Z -Z)
// of rgba32f texels, six per cube, levels of halving size.
type refCube struct {
	size   int
	levels [][]float32 // per level: layer-major, then rows, then texels, 4 floats each
	layers int
}

// face chooses the face and its (s, t) in [0, 1] the way OpenGL's table of
// cube-map faces lists them: the major axis (x, then y, then z on ties)
// names the face, (sc, tc, ma) come from that row.
func (c *refCube) face(x, y, z float32) (int, float64, float64) {
	type row struct {
		sc, tc func() float32
		ma     float32
	}
	rows := []row{
		{func() float32 { return -z }, func() float32 { return -y }, x},  // +X
		{func() float32 { return z }, func() float32 { return -y }, -x},  // -X
		{func() float32 { return x }, func() float32 { return z }, y},    // +Y
		{func() float32 { return x }, func() float32 { return -z }, -y},  // -Y
		{func() float32 { return x }, func() float32 { return -y }, z},   // +Z
		{func() float32 { return -x }, func() float32 { return -y }, -z}, // -Z
	}
	abs := func(v float32) float32 { return float32(math.Abs(float64(v))) }
	f := 4
	if z < 0 {
		f = 5
	}
	if abs(y) >= abs(z) {
		f = 2
		if y < 0 {
			f = 3
		}
	}
	if abs(x) >= abs(y) && abs(x) >= abs(z) {
		f = 0
		if x < 0 {
			f = 1
		}
	}
	r := rows[f]
	ma := float64(r.ma)
	return f, (float64(r.sc())/ma + 1) / 2, (float64(r.tc())/ma + 1) / 2
}

// texel of a level and layer, with indices clamped to the face.
func (c *refCube) texel(lv, layer, i, j int) [4]float32 {
	n := max(c.size>>lv, 1)
	i, j = min(max(i, 0), n-1), min(max(j, 0), n-1)
	at := ((layer*n+j)*n + i) * 4
	p := c.levels[lv][at : at+4]
	return [4]float32{p[0], p[1], p[2], p[3]}
}

func (c *refCube) nearest(lv, cube int, x, y, z float32) [4]uint32 {
	f, s, t := c.face(x, y, z)
	n := float64(max(c.size>>lv, 1))
	v := c.texel(lv, 6*cube+f, int(math.Floor(s*n)), int(math.Floor(t*n)))
	return bitsOf(v)
}

// linear filters the 2x2 texels around (s, t) with weights rounded to
// 1/256, summed exactly and rounded once.
func (c *refCube) linear(cube int, x, y, z float32) [4]uint32 {
	f, s, t := c.face(x, y, z)
	n := float64(c.size)
	u, v := s*n-0.5, t*n-0.5
	i, j := int(math.Floor(u)), int(math.Floor(v))
	a := math.Round((u-math.Floor(u))*256) / 256
	b := math.Round((v-math.Floor(v))*256) / 256
	var sum [4]float64
	for _, k := range []struct {
		di, dj int
		w      float64
	}{{0, 0, (1 - a) * (1 - b)}, {1, 0, a * (1 - b)}, {0, 1, (1 - a) * b}, {1, 1, a * b}} {
		tx := c.texel(0, 6*cube+f, i+k.di, j+k.dj)
		for ch := range 4 {
			sum[ch] += k.w * float64(tx[ch])
		}
	}
	var out [4]uint32
	for ch := range 4 {
		out[ch] = math.Float32bits(float32(sum[ch]))
	}
	return out
}

// gatherR is tld4.r: the red components of the 2x2 footprint at level 0 in
// the order (i0,j1) (i1,j1) (i1,j0) (i0,j0).
func (c *refCube) gatherR(x, y, z float32) [4]uint32 {
	f, s, t := c.face(x, y, z)
	n := float64(c.size)
	i, j := int(math.Floor(s*n-0.5)), int(math.Floor(t*n-0.5))
	var out [4]uint32
	for k, p := range [4][2]int{{0, 1}, {1, 1}, {1, 0}, {0, 0}} {
		out[k] = math.Float32bits(c.texel(0, f, i+p[0], j+p[1])[0])
	}
	return out
}

func bitsOf(v [4]float32) [4]uint32 {
	return [4]uint32{math.Float32bits(v[0]), math.Float32bits(v[1]), math.Float32bits(v[2]), math.Float32bits(v[3])}
}

func newRefCube(rng *rand.Rand, size, layers, levels int) (*refCube, []byte) {
	c := &refCube{size: size, layers: layers}
	var raw []byte
	for lv := range levels {
		n := max(size>>lv, 1)
		texels := make([]float32, n*n*layers*4)
		for i := range texels {
			texels[i] = float32(rng.Intn(1<<16)) / 64
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(texels[i]))
		}
		c.levels = append(c.levels, texels)
	}
	return c, raw
}

// TestOwnTexcube: cube and cube-array lookups (testdata/texcube.ptx, all six
// builds) against the reference's face selection and filtering.
func TestOwnTexcube(t *testing.T) {
	for _, vt := range variants {
		t.Run(vt.arch+"_"+vt.opt, func(t *testing.T) {
			prog, err := os.ReadFile(filepath.Join("testdata", "texcube."+vt.arch+"."+vt.opt+".cubin"))
			if err != nil {
				t.Fatal(err)
			}
			for seed := int64(1); seed <= 3; seed++ {
				rng := rand.New(rand.NewSource(seed))
				cube, cubeRaw := newRefCube(rng, 8, 6, 2)
				acube, acubeRaw := newRefCube(rng, 4, 12, 1)
				in := make([]byte, 0, 32*16)
				type dir struct {
					x, y, z float32
					cube    int
				}
				dirs := make([]dir, 32)
				for th := range dirs {
					d := dir{float32(rng.Float64()*2 - 1), float32(rng.Float64()*2 - 1), float32(rng.Float64()*2 - 1), rng.Intn(2)}
					dirs[th] = d
					for _, v := range []float32{d.x, d.y, d.z} {
						in = binary.LittleEndian.AppendUint32(in, math.Float32bits(v))
					}
					in = binary.LittleEndian.AppendUint32(in, uint32(d.cube))
				}
				textures := map[string]emu.Image{
					"cube":  {Buffer: "cube", Format: "rgba32f", Size: nums(8, 8), Layers: nums(6)[0], Levels: nums(2)[0], Cube: true},
					"acube": {Buffer: "acube", Format: "rgba32f", Size: nums(4, 4), Layers: nums(12)[0], Filter: "linear", Cube: true},
				}
				tl := texLaunch{program: prog, arch: vt.arch, kernel: "texcube", out: make([]byte, 32*64),
					params:   []emu.Param{{Tex: ptr("cube")}, {Tex: ptr("acube")}, {Ptr: ptr("in")}},
					textures: textures, buffers: map[string][]byte{"cube": cubeRaw, "acube": acubeRaw, "in": in}}
				g, places, err := tl.exec(t)
				if err != nil {
					t.Fatal(err)
				}
				got := u32s(g[places["out"].Addr:][:32*64])
				for th, d := range dirs {
					var want []uint32
					for _, v := range [][4]uint32{cube.nearest(0, 0, d.x, d.y, d.z), cube.nearest(1, 0, d.x, d.y, d.z),
						acube.linear(d.cube, d.x, d.y, d.z), acube.gatherR(d.x, d.y, d.z)} {
						want = append(want, v[:]...)
					}
					for i, w := range want {
						if y := got[th*16+i]; y != w {
							t.Fatalf("seed %d thread %d (%g %g %g cube %d) word %d: got %#x (%g), want %#x (%g)",
								seed, th, d.x, d.y, d.z, d.cube, i, y, fval(y), w, fval(w))
						}
					}
				}
			}
		})
	}
}

// A cube lookup on a texture the launch does not declare a cube map faults
// naming it; a cube map must be square with six layers per cube.
func TestTexcubeErrors(t *testing.T) {
	prog, err := os.ReadFile(filepath.Join("testdata", "texcube.sm_52.O3.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	plain := emu.Image{Buffer: "b", Format: "rgba32f", Size: nums(8, 8), Layers: nums(12)[0]}
	tl := texLaunch{program: prog, arch: "sm_52", kernel: "texcube", out: make([]byte, 32*64),
		params:   []emu.Param{{Tex: ptr("p")}, {Tex: ptr("p")}, {Ptr: ptr("in")}},
		textures: map[string]emu.Image{"p": plain}, buffers: map[string][]byte{"b": make([]byte, 8*8*12*16), "in": make([]byte, 32*16)}}
	if _, _, err := tl.exec(t); err == nil || !strings.Contains(err.Error(), "not a cube map") {
		t.Fatalf("got %v, want a fault saying the texture is not a cube map", err)
	}
	for _, bad := range []emu.Image{
		{Format: "rgba32f", Size: nums(8, 4), Layers: nums(6)[0], Cube: true},
		{Format: "rgba32f", Size: nums(8, 8), Layers: nums(5)[0], Cube: true},
	} {
		if _, err := newTexImage("c", false, jobOf(t, &emu.Launch{Textures: map[string]emu.Image{"c": bad}}).Textures[0]); err == nil || !strings.Contains(err.Error(), "cube map") {
			t.Errorf("%+v: got %v, want a cube-map shape error", bad, err)
		}
	}
}
