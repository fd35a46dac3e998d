package maxwell

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// texLaunch is a one-warp launch with textures and surfaces: the output
// buffer "out" first, then the kernel's other parameters.
type texLaunch struct {
	program  []byte
	arch     string
	kernel   string
	out      []byte
	params   []emu.Param
	textures map[string]emu.Image
	surfaces map[string]emu.Image
	buffers  map[string][]byte // images backed by buffers
	blocks   uint32            // grid size (0: 1)
}

// exec runs the launch and returns the global memory and where each buffer is.
func (tl texLaunch) exec(t testing.TB) (global []byte, places map[string]emu.BufferPlace, err error) {
	t.Helper()
	k, cfg, places := tl.build(t)
	_, err = emu.Run(cfg, k)
	return k.Global.Data, places, err
}

// build makes the kernel and configuration.
func (tl texLaunch) build(t testing.TB) (*Kernel, emu.Config, map[string]emu.BufferPlace) {
	t.Helper()
	out := "out"
	l := &emu.Launch{Arch: tl.arch, Kernel: tl.kernel, Textures: tl.textures, Surfaces: tl.surfaces}
	l.Params = append([]emu.Param{{Ptr: &out}}, tl.params...)
	s := &emu.Setup{Arch: l.Arch, Job: jobOf(t, l), Grid: emu.Dim3{max(tl.blocks, 1), 1, 1}, Block: emu.Dim3{32, 1, 1}, Buffers: map[string]emu.BufferPlace{}}
	bufs := map[string][]byte{"out": tl.out}
	for n, b := range tl.buffers {
		bufs[n] = b
	}
	next := uint64(256)
	for _, n := range sortedKeys(bufs) {
		b := bufs[n]
		s.Buffers[n] = emu.BufferPlace{Addr: next, Bytes: uint64(len(b))}
		s.Global = append(s.Global, make([]byte, int(next)-len(s.Global))...)
		s.Global = append(s.Global, b...)
		next = (uint64(len(s.Global)) + 255) &^ 255
	}
	img, err := ProgramImage("test", tl.program, tl.kernel, tl.arch)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKernel(s, img)
	if err != nil {
		t.Fatal(err)
	}
	return k, k.Config(s, img), s.Buffers
}

func sortedKeys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// jobOf converts a launch built in a test (values only: no files) to the
// job an emulator reads.
func jobOf(t testing.TB, l *emu.Launch) *emu.Job {
	t.Helper()
	j, err := l.Job("")
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func nums(v ...float64) []emu.Num {
	var out []emu.Num
	for _, x := range v {
		out = append(out, emu.Num{Text: strconv.FormatFloat(x, 'g', -1, 64)})
	}
	return out
}

// ---- the reference: a texture as decoded texels, sampled the simple way

type refTex struct {
	w, h, d, layers int
	levels          [][][4]uint32 // per level: layer-major, then z, y, x
	integer         bool
	linear          bool
	normalized      bool
	addr            [3]string
	border          [4]uint32
}

func (r *refTex) size(l int) [3]int {
	return [3]int{max(1, r.w>>l), max(1, r.h>>l), max(1, r.d>>l)}
}

// makeRef decodes bytes of the given format (only what the tests use).
func makeRef(format string, w, h, d, layers, nlevels int, data []byte) *refTex {
	r := &refTex{w: w, h: h, d: d, layers: layers, addr: [3]string{"clamp", "clamp", "clamp"}}
	off := 0
	for l := range nlevels {
		s := r.size(l)
		n := s[0] * s[1] * s[2] * layers
		lv := make([][4]uint32, n)
		for i := range lv {
			one := math.Float32bits(1)
			switch format {
			case "rgba32f":
				for c := range 4 {
					lv[i][c] = binary.LittleEndian.Uint32(data[off+4*c:])
				}
				off += 16
			case "rgba8unorm":
				for c := range 4 {
					lv[i][c] = math.Float32bits(float32(float64(data[off+c]) / 255))
				}
				off += 4
			case "rgba16f":
				for c := range 4 {
					lv[i][c] = math.Float32bits(halfToFloat(binary.LittleEndian.Uint16(data[off+2*c:])))
				}
				off += 8
			case "r32f":
				lv[i] = [4]uint32{binary.LittleEndian.Uint32(data[off:]), 0, 0, one}
				off += 4
			case "r32ui":
				lv[i] = [4]uint32{binary.LittleEndian.Uint32(data[off:]), 0, 0, 1}
				r.integer = true
				off += 4
			default:
				panic(format)
			}
		}
		r.levels = append(r.levels, lv)
	}
	return r
}

func (r *refTex) get(l, layer, x, y, z int) [4]uint32 {
	s := r.size(l)
	return r.levels[l][((layer*s[2]+z)*s[1]+y)*s[0]+x]
}

// at resolves one texel index per dimension through the address modes.
func (r *refTex) at(l, layer int, i [3]int) [4]uint32 {
	s := r.size(l)
	var x [3]int
	for d := range 3 {
		mode := r.addr[d]
		if !r.normalized && (mode == "wrap" || mode == "mirror") {
			mode = "clamp"
		}
		n, v := s[d], i[d]
		switch mode {
		case "clamp":
			v = max(0, min(v, n-1))
		case "border":
			if v < 0 || v >= n {
				return r.border
			}
		case "wrap":
			v = v % n
			if v < 0 {
				v += n
			}
		case "mirror":
			p := v % (2 * n)
			if p < 0 {
				p += 2 * n
			}
			if p < n {
				v = p
			} else {
				v = 2*n - 1 - p
			}
		}
		x[d] = v
	}
	return r.get(l, layer, x[0], x[1], x[2])
}

// lookup filters at level l: coordinates in level-0 texels (normalized
// ones scaled first), offsets added to the texel indices, depth compare
// with ref when dc.
func (r *refTex) lookup(l, layer, dims int, c [3]float32, off [3]int, dc bool, ref float32) [4]uint32 {
	s := r.size(l)
	var u [3]float64
	for d := range dims {
		u[d] = float64(c[d])
		if r.normalized {
			u[d] *= float64([3]int{r.w, r.h, r.d}[d])
		}
		u[d] *= float64(s[d]) / float64([3]int{r.w, r.h, r.d}[d])
	}
	layer = max(0, min(layer, r.layers-1))
	cmp := func(t [4]uint32) [4]uint32 {
		if !dc {
			return t
		}
		v := float32(0)
		if ref <= math.Float32frombits(t[0]) {
			v = 1
		}
		b := math.Float32bits(v)
		return [4]uint32{b, b, b, b}
	}
	if !r.linear || r.integer {
		var i [3]int
		for d := range dims {
			i[d] = int(math.Floor(u[d])) + off[d]
		}
		return cmp(r.at(l, layer, i))
	}
	var base [3]int
	var a [3]float64
	for d := range dims {
		x := u[d] - 0.5
		base[d] = int(math.Floor(x)) + off[d]
		a[d] = math.Round((x-math.Floor(x))*256) / 256
	}
	var acc [4]float64
	for dz := range 2 {
		for dy := range 2 {
			for dx := range 2 {
				step := [3]int{dx, dy, dz}
				w := 1.0
				skip := false
				for d := range 3 {
					if d >= dims {
						skip = skip || step[d] == 1
						continue
					}
					if step[d] == 1 {
						w *= a[d]
					} else {
						w *= 1 - a[d]
					}
				}
				if skip {
					continue
				}
				t := cmp(r.at(l, layer, [3]int{base[0] + dx, base[1] + dy, base[2] + dz}))
				for k := range 4 {
					acc[k] += w * float64(math.Float32frombits(t[k]))
				}
			}
		}
	}
	var out [4]uint32
	for k := range 4 {
		out[k] = math.Float32bits(float32(acc[k]))
	}
	return out
}

// levelFor is the nearest mip level for a level of detail (GL's rule).
func (r *refTex) levelFor(lambda float64) int {
	top := len(r.levels) - 1
	lambda = math.Max(0, math.Min(lambda, float64(top)))
	if lambda <= 0.5 {
		return 0
	}
	return min(top, int(math.Ceil(lambda+0.5))-1)
}

// lodOf is log2 of the larger gradient length, in texels.
func (r *refTex) lodOf(dx, dy [2]float64) float64 {
	sx, sy := 1.0, 1.0
	if r.normalized {
		sx, sy = float64(r.w), float64(r.h)
	}
	a := math.Hypot(dx[0]*sx, dx[1]*sy)
	b := math.Hypot(dy[0]*sx, dy[1]*sy)
	return math.Log2(math.Max(a, b))
}

// gather4 is tld4: component c of the bilinear footprint at level 0.
func (r *refTex) gather4(c int, uv [2]float32, off [2]int) [4]uint32 {
	u, v := float64(uv[0]), float64(uv[1])
	if r.normalized {
		u, v = u*float64(r.w), v*float64(r.h)
	}
	i, j := int(math.Floor(u-0.5))+off[0], int(math.Floor(v-0.5))+off[1]
	return [4]uint32{
		r.at(0, 0, [3]int{i, j + 1, 0})[c], r.at(0, 0, [3]int{i + 1, j + 1, 0})[c],
		r.at(0, 0, [3]int{i + 1, j, 0})[c], r.at(0, 0, [3]int{i, j, 0})[c]}
}

// fetch is tld: integer coordinates at level 0, zero outside.
func (r *refTex) fetch(x, y int) [4]uint32 {
	if x < 0 || y < 0 || x >= r.w || y >= r.h {
		return [4]uint32{}
	}
	return r.get(0, 0, x, y, 0)
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	rng.Read(b)
	return b
}

func randFloats(rng *rand.Rand, n int, scale float32) []byte {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(rng.Float32()*scale))
	}
	return b
}

func randHalves(rng *rand.Rand, n int) []byte {
	b := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(b[2*i:], floatToHalf(rng.Float64()*4-2, 0))
	}
	return b
}

func put4(dst []uint32, v [4]uint32) { copy(dst, v[:]) }

func fbits(x float32) uint32    { return math.Float32bits(x) }
func fval(x uint32) float32     { return math.Float32frombits(x) }
func fadd32(a, b uint32) uint32 { return fbits(fval(a) + fval(b)) }

// texsurfSetup is the 17_texsurf launch: bound tref/sref, bindless tobj/sobj
// (parameters) and tmem/smem (handles in the output buffer).
type texsurfSetup struct {
	u, v                float32
	tref, tobj, tmem    []byte
	sref, sobj, smem    []byte
	rtref, rtobj, rtmem *refTex
	textures, surfaces  map[string]emu.Image
}

func newTexsurf(seed int64) *texsurfSetup {
	rng := rand.New(rand.NewSource(seed))
	s := &texsurfSetup{u: rng.Float32() * 2, v: 0.5 + rng.Float32()*4.5}
	s.tref = randFloats(rng, 4*(16*8+8*4+4*2), 8) // gradients up to 8 texels: levels 0..2
	s.tobj = randBytes(rng, 4*8*6*4*2)
	s.tmem = randHalves(rng, 4*12*10)
	s.sref = randBytes(rng, 160*32*4)
	s.sobj = randBytes(rng, 40*32*4)
	s.smem = randBytes(rng, 4*32*4)
	s.rtref = makeRef("rgba32f", 16, 8, 1, 1, 3, s.tref)
	s.rtref.linear, s.rtref.addr = true, [3]string{"border", "clamp", "clamp"}
	s.rtref.border = [4]uint32{fbits(0.125), fbits(0.25), fbits(0.375), fbits(0.5)}
	s.rtobj = makeRef("rgba8unorm", 8, 6, 4, 2, 1, s.tobj)
	s.rtobj.addr = [3]string{"border", "border", "border"}
	s.rtobj.border = [4]uint32{fbits(0.25), fbits(0.5), fbits(0.75), fbits(1)}
	s.rtmem = makeRef("rgba16f", 12, 10, 1, 1, 1, s.tmem)
	s.rtmem.linear, s.rtmem.normalized, s.rtmem.addr = true, true, [3]string{"wrap", "mirror", "clamp"}
	s.textures = map[string]emu.Image{
		"tref": {Buffer: "tref", Format: "rgba32f", Size: nums(16, 8), Levels: nums(3)[0], Filter: "linear",
			Address: []string{"border", "clamp"}, Border: nums(0.125, 0.25, 0.375, 0.5)},
		"tobj": {Buffer: "tobj", Format: "rgba8unorm", Size: nums(8, 6, 4), Layers: nums(2)[0],
			Address: []string{"border"}, Border: nums(0.25, 0.5, 0.75, 1)},
		"tmem": {Buffer: "tmem", Format: "rgba16f", Size: nums(12, 10), Filter: "linear", Normalized: true,
			Address: []string{"wrap", "mirror"}},
	}
	s.surfaces = map[string]emu.Image{
		"sref": {Buffer: "sref", Format: "r32ui", Size: nums(160, 32)},
		"sobj": {Buffer: "sobj", Format: "r32ui", Size: nums(40, 32)},
		"smem": {Buffer: "smem", Format: "r32i", Size: nums(4, 32)},
	}
	return s
}

// texsurfRef computes the kernel's output rows and final surfaces.
func (s *texsurfSetup) ref() (out [32][49]uint32, sref, sobj, smem []uint32) {
	sref, sobj, smem = u32s(s.sref), u32s(s.sobj), u32s(s.smem)
	var u, v [32]float32
	for t := range 32 {
		u[t] = s.u + float32(t)
		v[t] = s.v
	}
	// implicit level of detail: coarse quad derivatives (lanes +1 and +2)
	quad := func(r *refTex, t int) int {
		q := t &^ 3
		dx := [2]float64{float64(u[q+1]) - float64(u[q]), 0}
		dy := [2]float64{float64(u[q+2]) - float64(u[q]), 0}
		return r.levelFor(r.lodOf(dx, dy))
	}
	uv := func(t int) [3]float32 { return [3]float32{u[t], v[t], 0} }
	half := float32(0.5)
	var r12, r13, r14, r15, r17, r31 [32]uint32
	// %i is read before it is set (suld/sust on smem): ptxas reads a
	// register no instruction writes (zero at launch here) or R1 (the stack
	// size, 0 without local memory); the reference takes 0
	for t := range 32 {
		o := &out[t]
		f := s.rtref.fetch(t, 0) // f0..f3
		lgrad := s.rtref.levelFor(s.rtref.lodOf([2]float64{float64(fval(f[0])), float64(fval(f[1]))},
			[2]float64{float64(fval(f[2])), float64(fval(f[3]))}))
		put4(o[12:16], s.rtref.lookup(lgrad, 0, 2, uv(t), [3]int{}, false, 0))
		lref := quad(s.rtref, t)
		f32 := s.rtobj.lookup(0, 0, 2, uv(t), [3]int{1, -1}, false, 0)
		f36 := s.rtref.lookup(lref, 0, 2, uv(t), [3]int{1, -1}, true, half)
		g41 := s.rtobj.gather4(3, [2]float32{u[t], v[t]}, [2]int{1, -1})
		o[0], o[1], o[2], o[3] = fadd32(f[0], f32[0]), fadd32(f[1], f36[0]), fadd32(f[2], g41[0]), fadd32(f[3], g41[3])
		tx := s.rtref.lookup(lref, 0, 2, uv(t), [3]int{}, false, 0)
		m32 := s.rtmem.lookup(0, 0, 2, uv(t), [3]int{}, false, 0)
		m36 := s.rtmem.gather4(2, [2]float32{u[t], v[t]}, [2]int{})
		o[4], o[5], o[6], o[7] = tx[0], fadd32(tx[1], m32[0]), fadd32(tx[2], m36[0]), tx[3]
		put4(o[8:12], s.rtref.lookup(s.rtref.levelFor(0.5), 0, 2, uv(t), [3]int{}, false, 0))
		put4(o[16:20], s.rtref.gather4(0, [2]float32{u[t], v[t]}, [2]int{}))
		put4(o[20:24], s.rtobj.lookup(0, 0, 2, uv(t), [3]int{}, false, 0))
		put4(o[24:28], s.rtobj.gather4(1, [2]float32{u[t], v[t]}, [2]int{}))
		put4(o[28:32], s.rtobj.fetch(t, 0))
		t3 := s.rtobj.lookup(0, 0, 3, [3]float32{u[t], v[t], u[t]}, [3]int{}, false, 0)
		a2 := s.rtobj.lookup(0, min(t, 65535), 2, uv(t), [3]int{}, false, 0)
		l22 := s.rtobj.lookup(0, 0, 2, [3]float32{v[t], u[t], 0}, [3]int{}, false, 0)
		m26 := s.rtmem.fetch(t, 0)
		// smem: suld [smem, {0, t}] before sust [smem, {0}]
		r31[t] = smem[4*t]
		o[32], o[33], o[34] = 16, 8, 3
		o[35] = t3[0] + l22[0]
		o[36], o[37] = t3[1]+l22[3], t3[2]+m26[0]
		o[38] = t3[3] + r31[t]
		o[39], o[40], o[41], o[42] = a2[0], a2[1], a2[2], a2[3]
		o[43] = 8
	}
	smem[0] = 10 // sust [smem, {0}], txq.height of tmem
	const row = 160
	for t := range 32 {
		r12[t] = sref[t]
	}
	for t := range 32 {
		r13[t], r14[t] = sref[t*row+t], sref[t*row+t+1]
	}
	for t := range 32 {
		r15[t] = r12[t] + r13[t]
		sref[t] = r15[t]
	}
	for t := range 32 {
		copy(sref[t*row+t:], []uint32{r12[t], r13[t], r14[t], r15[t]})
	}
	for t := range 32 {
		sref[t*row+4*t] = r12[t]
	}
	for t := range 32 {
		sref[t] += r15[t]
	}
	for t := range 32 {
		r17[t] = sobj[t*40+t]
	}
	for t := range 32 {
		o := &out[t]
		o[44], o[45], o[46], o[47], o[48] = r12[t], r13[t], r14[t], row, r17[t]
	}
	return
}

func TestOracleTexsurf(t *testing.T) {
	for _, vt := range variants {
		t.Run(vt.arch+"_"+vt.opt, func(t *testing.T) {
			prog := oracleCubin(t, vt.arch, "17_texsurf."+vt.opt+".cubin")
			for seed := int64(1); seed <= 3; seed++ {
				s := newTexsurf(seed)
				runTexsurf(t, s, prog, vt.arch)
			}
			// without textures, the bound reference faults by name
			zero := emu.Num{Text: "0"}
			tl := texLaunch{program: prog, arch: vt.arch, kernel: "texsurf", out: make([]byte, 32*256),
				params: []emu.Param{{U64: &zero}, {U64: &zero}, {U32: &zero}, {U32: &zero}}}
			var f *emu.Fault
			if _, _, err := tl.exec(t); !errors.As(err, &f) || !strings.Contains(err.Error(), `texture reference "tref" is not bound`) {
				t.Fatalf("unbound tref: %v", err)
			}
		})
	}
}

func runTexsurf(t *testing.T, s *texsurfSetup, prog []byte, arch string) {
	t.Helper()
	tobj, sobj := "tobj", "sobj"
	out := make([]byte, 32*256)
	l := &emu.Launch{Textures: s.textures, Surfaces: s.surfaces}
	tm, _ := l.ImageHandle(emu.Param{Tex: ptr("tmem")})
	sm, _ := l.ImageHandle(emu.Param{Surf: ptr("smem")})
	binary.LittleEndian.PutUint64(out, tm)
	binary.LittleEndian.PutUint64(out[8:], sm)
	tl := texLaunch{program: prog, arch: arch, kernel: "texsurf", out: out,
		params: []emu.Param{{Tex: &tobj}, {Surf: &sobj}, {F32: &emu.Num{Text: strconv.FormatFloat(float64(s.u), 'g', -1, 32)}},
			{F32: &emu.Num{Text: strconv.FormatFloat(float64(s.v), 'g', -1, 32)}}},
		textures: s.textures, surfaces: s.surfaces,
		buffers: map[string][]byte{"tref": s.tref, "tobj": s.tobj, "tmem": s.tmem, "sref": s.sref, "sobj": s.sobj, "smem": s.smem}}
	g, places, err := tl.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	want, wsref, wsobj, wsmem := s.ref()
	got := u32s(g[places["out"].Addr:][:32*256])
	for th := range 32 {
		for i, w := range want[th] {
			if x := got[th*64+i]; x != w {
				t.Fatalf("thread %d word %d: got %#x (%g), want %#x (%g)", th, i, x, fval(x), w, fval(w))
			}
		}
	}
	for name, w := range map[string][]uint32{"sref": wsref, "sobj": wsobj, "smem": wsmem} {
		p := places[name]
		if err := sameWords(u32s(g[p.Addr:p.Addr+p.Bytes]), w); err != nil {
			t.Fatalf("surface %s: %v", name, err)
		}
	}
}

func ptr(s string) *string { return &s }

// ownTexCubin reads one of testdata/texsurf.sm_5x.O3/O0.cubin.
func ownTexCubin(t testing.TB, arch, opt string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "texsurf."+arch+"."+opt+".cubin"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func f32param(x float32) emu.Param {
	return emu.Param{F32: &emu.Num{Text: strconv.FormatFloat(float64(x), 'g', -1, 32)}}
}

// lookupMip blends two levels with an 8-bit fraction (mip_filter linear).
func (r *refTex) lookupMip(lambda float64, layer, dims int, c [3]float32) [4]uint32 {
	top := float64(len(r.levels) - 1)
	lambda = math.Max(0, math.Min(lambda, top))
	l0 := int(lambda)
	f := math.Round((lambda-float64(l0))*256) / 256
	a := r.lookup(l0, layer, dims, c, [3]int{}, false, 0)
	if f == 0 || l0 == len(r.levels)-1 {
		return a
	}
	b := r.lookup(l0+1, layer, dims, c, [3]int{}, false, 0)
	var out [4]uint32
	for k := range 4 {
		out[k] = fbits(float32(float64(fval(a[k]))*(1-f) + float64(fval(b[k]))*f))
	}
	return out
}

// texmoreCase is the texmore kernel's inputs for a seed and the reference
// output (the first 152 bytes of each thread's 256).
type texmoreCase struct {
	u0, v0       float32
	a3, arr, mip []byte
	textures     map[string]emu.Image
	want         [32][]uint32
}

func newTexmore(seed int64) *texmoreCase {
	rng := rand.New(rand.NewSource(seed))
	c := &texmoreCase{u0: rng.Float32()*2 - 0.5, v0: rng.Float32()*2 - 0.5}
	u0, v0 := c.u0, c.v0
	c.a3 = randFloats(rng, 4*6*5*4, 1)
	c.arr = randBytes(rng, 4*(5*4+2*2)*3)
	c.mip = randBytes(rng, 4*(16*16+8*8+4*4+2*2+1))
	r3 := makeRef("rgba32f", 6, 5, 4, 1, 1, c.a3)
	r3.linear, r3.normalized, r3.addr = true, true, [3]string{"wrap", "wrap", "wrap"}
	ra := makeRef("r32ui", 5, 4, 1, 3, 2, c.arr)
	rm := makeRef("rgba8unorm", 16, 16, 1, 1, 5, c.mip)
	rm.linear, rm.normalized, rm.addr = true, true, [3]string{"mirror", "clamp", "clamp"}
	c.textures = map[string]emu.Image{
		"a3":  {Buffer: "a3", Format: "rgba32f", Size: nums(6, 5, 4), Filter: "linear", Normalized: true, Address: []string{"wrap"}},
		"arr": {Buffer: "arr", Format: "r32ui", Size: nums(5, 4), Layers: nums(3)[0], Levels: nums(2)[0]},
		"mip": {Buffer: "mip", Format: "rgba8unorm", Size: nums(16, 16), Levels: nums(5)[0], Filter: "linear",
			MipFilter: "linear", Normalized: true, Address: []string{"mirror", "clamp"}},
	}
	var u, w, lod [32]float32
	for th := range 32 {
		f40 := float32(th) * 0.0625
		u[th], w[th], lod[th] = u0+f40, v0-f40, float32(th)*0.125
	}
	for th := range 32 {
		var want []uint32
		add := func(v [4]uint32) { want = append(want, v[:]...) }
		add(r3.lookup(0, 0, 3, [3]float32{u[th], v0, w[th]}, [3]int{}, false, 0))
		add(rm.lookupMip(float64(lod[th]), 0, 2, [3]float32{u[th], v0}))
		f41 := float64(float32(th) * 0.0625)
		add(rm.lookupMip(rm.lodOf([2]float64{f41, float64(lod[th])}, [2]float64{float64(lod[th]), f41}), 0, 2, [3]float32{u[th], v0}))
		if th < 5 && th < 16>>th {
			add(rm.get(th, 0, th, th, 0))
		} else {
			add([4]uint32{})
		}
		add(ra.lookup(ra.levelFor(float64(lod[th])), th, 2, [3]float32{u[th], v0}, [3]int{}, false, 0))
		if th < 3 {
			add(ra.get(0, th, th, th, 0))
		} else {
			add([4]uint32{})
		}
		// tex.1d: implicit level of detail from the quad (u steps 1/16)
		q := th &^ 3
		lam := rm.lodOf([2]float64{float64(u[q+1]) - float64(u[q]), 0}, [2]float64{float64(u[q+2]) - float64(u[q]), 0})
		add(rm.lookupMip(lam, 0, 2, [3]float32{u[th], 0}))
		add([4]uint32{4, 3, 5, 1})
		add([4]uint32{1, 0, 0x10DC, 0x10B5})
		c.want[th] = append(want, uint32(16>>(th&3)), uint32(16>>(th&3)))
	}
	return c
}

func TestOwnTexmore(t *testing.T) {
	for _, vt := range variants {
		t.Run(vt.arch+"_"+vt.opt, func(t *testing.T) {
			prog := ownTexCubin(t, vt.arch, vt.opt)
			for seed := int64(1); seed <= 3; seed++ {
				c := newTexmore(seed)
				tl := texLaunch{program: prog, arch: vt.arch, kernel: "texmore", out: make([]byte, 32*256),
					params:   []emu.Param{{Tex: ptr("a3")}, {Tex: ptr("arr")}, {Tex: ptr("mip")}, f32param(c.u0), f32param(c.v0)},
					textures: c.textures, buffers: map[string][]byte{"a3": c.a3, "arr": c.arr, "mip": c.mip}}
				g, places, err := tl.exec(t)
				if err != nil {
					t.Fatal(err)
				}
				got := u32s(g[places["out"].Addr:][:32*256])
				for th := range 32 {
					for i, x := range c.want[th] {
						if y := got[th*64+i]; y != x {
							t.Fatalf("seed %d thread %d word %d: got %#x (%g), want %#x (%g)", seed, th, i, y, fval(y), x, fval(x))
						}
					}
				}
			}
		})
	}
}

func unorm8(x float32) byte {
	if x != x {
		return 0
	}
	return byte(math.RoundToEven(math.Min(math.Max(float64(x), 0), 1) * 255))
}

func TestOwnSurfmore(t *testing.T) {
	for _, vt := range variants {
		t.Run(vt.arch+"_"+vt.opt, func(t *testing.T) {
			prog := ownTexCubin(t, vt.arch, vt.opt)
			rng := rand.New(rand.NewSource(7))
			s3 := randBytes(rng, 4*32*4*8)
			sa := randBytes(rng, 4*34*8*8)
			s8 := randBytes(rng, 4*40*32)
			const xoff = 120
			surfaces := map[string]emu.Image{
				"s3": {Buffer: "s3", Format: "r32ui", Size: nums(32, 4, 8)},
				"sa": {Buffer: "sa", Format: "r32ui", Size: nums(34, 8), Layers: nums(8)[0]},
				"s8": {Buffer: "s8", Format: "rgba8unorm", Size: nums(40, 32)},
			}
			tl := texLaunch{program: prog, arch: vt.arch, kernel: "surfmore", out: make([]byte, 32*256),
				params:   []emu.Param{{Surf: ptr("s3")}, {Surf: ptr("sa")}, {Surf: ptr("s8")}, {U32: &emu.Num{Text: strconv.Itoa(xoff)}}},
				surfaces: surfaces, buffers: map[string][]byte{"s3": s3, "sa": sa, "s8": s8}}
			g, places, err := tl.exec(t)
			if err != nil {
				t.Fatal(err)
			}
			// the reference, instruction by instruction, lanes in order
			m3, ma, m8 := u32s(s3), u32s(sa), append([]byte(nil), s8...)
			i3 := func(x, y, z int) int { return (z*4+y)*32 + x }
			ia := func(x, y, layer int) int { return (layer*8+y)*34 + x }
			var out [32][14]uint32
			for th := range 32 {
				out[th][0] = m3[i3(th, th&3, th>>2)]
			}
			for th := range 32 {
				m3[i3(th, th&3, th>>2)] = out[th][0] + uint32(th)
			}
			for th := range 32 {
				out[th][1], out[th][2] = ma[ia(th, th>>2, th&3)], ma[ia(th+1, th>>2, th&3)]
			}
			for th := range 32 {
				ma[ia(th, th&3, th>>2)] = out[th][2]
			}
			for th := range 32 {
				out[th][3] = ma[ia(th, 0, th&3)]
				out[th][4] = uint32(m8[th*160+th])
				out[th][5] = uint32(binary.LittleEndian.Uint16(m8[th*160+4*th:]))
			}
			for th := range 32 {
				m8[th*160+th]++
			}
			for th := range 32 {
				f := float32(th) * 0.03125
				copy(m8[th*160+4*(th+1):], []byte{unorm8(f), unorm8(-f), unorm8(f + 0.5), 255})
			}
			for th := range 32 {
				x := (4*th + xoff) / 4
				out[th][6] = ma[ia(min(x, 33), 0, 0)]
				if x < 34 {
					out[th][7] = ma[ia(x, 0, 0)]
				}
			}
			for th := range 32 {
				if x := (4*th + xoff) / 4; x < 34 {
					ma[ia(x, 0, 0)] = uint32(th)
				}
			}
			for th := range 32 {
				m3[i3(th, th&3, 0)] = min(m3[i3(th, th&3, 0)], uint32(th))
			}
			for th := range 32 {
				m3[i3(th&3, 0, 0)] &= uint32(th)
			}
			for th := range 32 {
				m3[i3(th, 0, 0)] |= uint32(th)
			}
			m3[0] += 32
			for th := range 32 {
				o := &out[th]
				o[8], o[9], o[10], o[11], o[12], o[13] = 32, 4, 8, 8, 0x10B5, 0x10D2
				got := u32s(g[places["out"].Addr+uint64(256*th):][:14*4])
				if err := sameWords(got, o[:]); err != nil {
					t.Fatalf("thread %d: %v", th, err)
				}
			}
			for name, w := range map[string][]byte{"s3": fromU32(m3), "sa": fromU32(ma), "s8": m8} {
				p := places[name]
				if err := sameWords(u32s(g[p.Addr:p.Addr+p.Bytes]), u32s(w)); err != nil {
					t.Fatalf("surface %s: %v", name, err)
				}
			}
		})
	}
}

// TestTexFaults: a texture handle that names nothing, and a trapping
// surface load past the end, fault at the instruction with the thread.
func TestTexFaults(t *testing.T) {
	for _, vt := range variants {
		t.Run(vt.arch+"_"+vt.opt, func(t *testing.T) {
			prog := ownTexCubin(t, vt.arch, vt.opt)
			textures := map[string]emu.Image{"tx": {Format: "r32f", Size: nums(8)}}
			surfaces := map[string]emu.Image{"sx": {Format: "r32ui", Size: nums(40), Fill: emu.Num{Text: "1"}}}
			launch := func(tex emu.Param, x int) error {
				tl := texLaunch{program: prog, arch: vt.arch, kernel: "texfault", out: make([]byte, 16),
					params:   []emu.Param{tex, {Surf: ptr("sx")}, {U32: &emu.Num{Text: strconv.Itoa(x)}}},
					textures: textures, surfaces: surfaces}
				_, _, err := tl.exec(t)
				return err
			}
			var f *emu.Fault
			for _, h := range []string{"0", "0x300003", "0x7"} {
				err := launch(emu.Param{U64: &emu.Num{Text: h}}, 0)
				if !errors.As(err, &f) || !strings.Contains(f.Inst, "TLD") || f.Thread != (emu.Dim3{0, 0, 0}) ||
					!strings.Contains(err.Error(), "invalid texture handle") {
					t.Fatalf("handle %s: %v", h, err)
				}
			}
			// 4 bytes at byte x + 4 tid of a 160-byte surface
			if err := launch(emu.Param{Tex: ptr("tx")}, 0); err != nil {
				t.Fatal(err)
			}
			err := launch(emu.Param{Tex: ptr("tx")}, 132)
			if !errors.As(err, &f) || !strings.Contains(f.Inst, "SULD") || !strings.Contains(err.Error(), "out of range (trap)") ||
				f.Thread != (emu.Dim3{7, 0, 0}) || f.PC == 0 {
				t.Fatalf("trap: %v", err)
			}
			err = launch(emu.Param{Tex: ptr("tx")}, 2)
			if !errors.As(err, &f) || !strings.Contains(err.Error(), "misaligned") || f.Thread != (emu.Dim3{0, 0, 0}) {
				t.Fatalf("misaligned: %v", err)
			}
		})
	}
}

// TestTexLaunchExample runs testdata/texmore.json, a launch file with
// textures from files, as gpuisa run does; its inputs and expected output
// come from the Go reference (GPUISA_WRITE_TESTDATA=1 rewrites them).
func TestTexLaunchExample(t *testing.T) {
	c := newTexmore(1)
	want := make([]uint32, 32*64)
	for th := range 32 {
		copy(want[th*64:], c.want[th])
	}
	files := map[string][]byte{"texmore_a3.bin": c.a3, "texmore_arr.bin": c.arr, "texmore_mip.bin": c.mip,
		"texmore_expected.bin": fromU32(want)}
	json := `{
  "program": "texsurf.sm_52.O3.cubin",
  "arch": "sm_52",
  "kernel": "texmore",
  "grid": [1],
  "block": [32],
  "buffers": {"out": {"bytes": 8192}},
  "textures": {
    "a3": {"file": "texmore_a3.bin", "format": "rgba32f", "size": [6, 5, 4], "filter": "linear", "normalized": true, "address": ["wrap"]},
    "arr": {"file": "texmore_arr.bin", "format": "r32ui", "size": [5, 4], "layers": 3, "levels": 2},
    "mip": {"file": "texmore_mip.bin", "format": "rgba8unorm", "size": [16, 16], "levels": 5,
            "filter": "linear", "mip_filter": "linear", "normalized": true, "address": ["mirror", "clamp"]}
  },
  "params": [{"ptr": "out"}, {"tex": "a3"}, {"tex": "arr"}, {"tex": "mip"}, {"f32": "` +
		strconv.FormatFloat(float64(c.u0), 'g', -1, 32) + `"}, {"f32": "` + strconv.FormatFloat(float64(c.v0), 'g', -1, 32) + `"}],
  "outputs": [{"buffer": "out", "file": "texmore_out.bin"}],
  "expect": [{"output": "texmore_out.bin", "file": "texmore_expected.bin", "type": "u32"}],
  "note": "texsurf.ptx's texmore: 3D linear filtering, linear mip filtering, gradients, layered and integer fetches, txq; the expected output is the Go reference's (texsurf_test.go)"
}
`
	files["texmore.json"] = []byte(json)
	for name, data := range files {
		p := filepath.Join("testdata", name)
		if os.Getenv("GPUISA_WRITE_TESTDATA") == "1" {
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		old, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(old, data) {
			t.Fatalf("testdata/%s is stale (GPUISA_WRITE_TESTDATA=1 go test -run TestTexLaunchExample rewrites it): %v", name, err)
		}
	}
	s, err := emu.LoadFile(filepath.Join("testdata", "texmore.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunSetup(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Check(out.Result); err != nil || n != 32*64 {
		t.Fatalf("expectations: %d checked, %v", n, err)
	}
}

// TestTexLaunchErrors: launch files with textures that cannot work say why.
func TestTexLaunchErrors(t *testing.T) {
	base := `"program": "texsurf.sm_52.O3.cubin", "arch": "sm_52", "kernel": "texfault", "grid": [1], "block": [32],
	  "buffers": {"out": {"bytes": 64}, "small": {"bytes": 16}},`
	params := `"params": [{"ptr": "out"}, {"tex": "t"}, {"surf": "s"}, {"u32": 0}]`
	for _, c := range []struct{ images, params, want string }{
		{`"textures": {"t": {"format": "rgb32f", "size": [4]}}, "surfaces": {"s": {"format": "r32ui", "size": [4]}},`, params, "format \"rgb32f\""},
		{`"textures": {"t": {"format": "r32f", "size": [4]}},`, params, "no surface \"s\""},
		{`"textures": {"t": {"format": "r32f", "size": [0]}}, "surfaces": {"s": {"format": "r32ui", "size": [4]}},`, params, "size[0]"},
		{`"textures": {"t": {"format": "r32f", "size": [4], "buffer": "nope"}}, "surfaces": {"s": {"format": "r32ui", "size": [4]}},`, params, "no buffer \"nope\""},
		{`"textures": {"t": {"format": "rgba32f", "size": [4, 4], "buffer": "small"}}, "surfaces": {"s": {"format": "r32ui", "size": [4]}},`, params, "needs 256"},
		{`"textures": {"t": {"format": "r32f", "size": [4], "levels": 4}}, "surfaces": {"s": {"format": "r32ui", "size": [4]}},`, params, "at most 3"},
		{`"textures": {"t": {"format": "r32f", "size": [4], "address": ["repeat"]}}, "surfaces": {"s": {"format": "r32ui", "size": [4]}},`, params, "address mode \"repeat\""},
	} {
		l, err := emu.ParseLaunch([]byte("{" + base + c.images + c.params + "}"))
		if err == nil {
			var s *emu.Setup
			if s, err = emu.Load(l, "testdata"); err == nil {
				_, err = RunSetup(s, nil)
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.images, err, c.want)
		}
	}
}

// TestTexCubinsUpToDate rebuilds testdata/texsurf.*.cubin with ptxas when it
// is installed.
func TestTexCubinsUpToDate(t *testing.T) {
	nb := newNVBuilder(t, "ptxas", "gen.sh")
	for _, vt := range variants {
		for _, name := range []string{"texsurf", "texcube"} {
			nb.build(name+"."+vt.arch+"."+vt.opt+".cubin", "ptxas", "-arch", vt.arch, "-"+vt.opt, testdataPTX(name))
		}
	}
	for _, opt := range []string{"O3", "O0"} {
		nb.build("texhalf.sm_53."+opt+".cubin", "ptxas", "-arch", "sm_53", "-"+opt, testdataPTX("texhalf"))
	}
}

// BenchmarkTexmore: 256 warps of texmore (3D and mip-linear filtering,
// gradients, fetches, queries).
func BenchmarkTexmore(b *testing.B) {
	c := newTexmore(1)
	tl := texLaunch{program: ownTexCubin(b, "sm_52", "O3"), arch: "sm_52", kernel: "texmore", out: make([]byte, 32*256),
		params:   []emu.Param{{Tex: ptr("a3")}, {Tex: ptr("arr")}, {Tex: ptr("mip")}, f32param(c.u0), f32param(c.v0)},
		textures: c.textures, buffers: map[string][]byte{"a3": c.a3, "arr": c.arr, "mip": c.mip}, blocks: 256}
	k, cfg, _ := tl.build(b)
	benchKernel(b, k, cfg)
}

// TestSuatomListing runs testdata/suatom.s (our assembler's syntax).
func TestSuatomListing(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "suatom.s"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(5))
	init := randBytes(rng, 4*32)
	tl := texLaunch{program: src, arch: "sm_52", out: make([]byte, 32*16), params: []emu.Param{{Surf: ptr("s")}},
		surfaces: map[string]emu.Image{"s": {Buffer: "s", Format: "r32ui", Size: nums(32)}},
		buffers:  map[string][]byte{"s": init}}
	g, places, err := tl.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	m := u32s(init)
	var want []uint32
	for th := range 32 {
		x := uint32(th)
		old := m[th]
		want = append(want, old, old+x+5, x, x+100)
		m[th] = x + 100
	}
	if err := sameWords(u32s(g[places["out"].Addr:][:32*16]), want); err != nil {
		t.Fatal("results:", err)
	}
	if err := sameWords(u32s(g[places["s"].Addr:][:32*4]), m); err != nil {
		t.Fatal("surface:", err)
	}
}

// TestTmmlListing runs testdata/tmml.s: level-of-detail queries in signed
// 8.8 fixed point, computed then clamped to the texture's levels.
func TestTmmlListing(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "tmml.s"))
	if err != nil {
		t.Fatal(err)
	}
	tl := texLaunch{program: src, arch: "sm_52", out: make([]byte, 32*16), params: []emu.Param{{Tex: ptr("t")}},
		textures: map[string]emu.Image{"t": {Format: "r8unorm", Size: nums(64, 64), Levels: nums(4)[0], Normalized: true}}}
	g, places, err := tl.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	var want []uint32
	for th := range 32 {
		u := func(l int) float64 { return float64(float32(l*l) / 1024) }
		q := th &^ 3
		lambda := math.Log2(math.Max(math.Abs(u(q+1)-u(q)), math.Abs(u(q+2)-u(q))) * 64)
		fix := func(x float64) uint32 { return uint32(int32(math.Round(x * 256))) }
		want = append(want, fix(lambda), fix(math.Min(math.Max(lambda, 0), 3)), 0, 0)
	}
	if err := sameWords(u32s(g[places["out"].Addr:][:32*16]), want); err != nil {
		t.Fatal(err)
	}
}

// FuzzTexRun runs arbitrary code with textures and surfaces bound (seeded
// with testdata/texsurf.ptx's kernels): a result or a *emu.Fault, never a
// panic.
func FuzzTexRun(f *testing.F) {
	for _, kn := range []string{"texmore", "surfmore", "texfault"} {
		img, err := ProgramImage("k", ownTexCubin(f, "sm_52", "O3"), kn, "sm_52")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(img.Code)
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		if len(code) > 4096 {
			return
		}
		for len(code)%32 != 0 {
			code = append(code, 0)
		}
		exit := make([]byte, 32)
		binary.LittleEndian.PutUint64(exit, 0x001fc400fe2007f1)
		for i := 1; i < 4; i++ {
			binary.LittleEndian.PutUint64(exit[8*i:], 0xe30000000007000f)
		}
		code = append(code, exit...)
		l := &emu.Launch{Arch: "sm_52",
			Textures: map[string]emu.Image{"a": {Format: "rgba8unorm", Size: nums(4, 4), Levels: nums(2)[0], Filter: "linear", Normalized: true},
				"b": {Format: "r32ui", Size: nums(3, 2, 2), Layers: nums(2)[0]}},
			Surfaces: map[string]emu.Image{"s": {Format: "r32ui", Size: nums(8, 4)}}}
		name := "buf"
		l.Params = []emu.Param{{Ptr: &name}, {Tex: ptr("a")}, {Tex: ptr("b")}, {Surf: ptr("s")}, {U32: &emu.Num{Text: "3"}}, {U32: &emu.Num{Text: "5"}}}
		s := &emu.Setup{Arch: l.Arch, Job: jobOf(t, l), Grid: emu.Dim3{1, 1, 1}, Block: emu.Dim3{40, 1, 1}, Global: make([]byte, 1024),
			Buffers: map[string]emu.BufferPlace{"buf": {Addr: 256, Bytes: 512}}, LocalBytes: 64}
		img := &Image{Code: code, ParamBase: cbParamBase}
		k, err := NewKernel(s, img)
		if err != nil {
			return
		}
		cfg := k.Config(s, img)
		cfg.MaxSteps = 2000
		_, err = emu.Run(cfg, k)
		var fault *emu.Fault
		if err != nil && !errors.As(err, &fault) {
			t.Fatalf("not a fault: %v", err)
		}
	})
}

// refHalfValue decodes a positive finite binary16 (the reference's own code).
func refHalfValue(h uint16) float64 {
	e, m := int(h>>10), float64(h&0x3ff)
	if e == 0 {
		return m * math.Ldexp(1, -24)
	}
	return (1 + m/1024) * math.Ldexp(1, e-15)
}

// refHalf rounds to the nearest binary16, ties to even, by search.
func refHalf(f float32) uint32 {
	x := math.Abs(float64(f))
	sign := uint32(0)
	if math.Signbit(float64(f)) {
		sign = 0x8000
	}
	lo, hi := 0, 0x7bff // largest finite
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if refHalfValue(uint16(mid)) <= x {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	h := lo
	if h < 0x7bff {
		d0, d1 := x-refHalfValue(uint16(h)), refHalfValue(uint16(h+1))-x
		if d1 < d0 || d1 == d0 && h&1 == 1 {
			h++
		}
	}
	return sign | uint32(h)
}

func TestOwnTexhalf(t *testing.T) {
	for _, opt := range []string{"O3", "O0"} {
		data, err := os.ReadFile(filepath.Join("testdata", "texhalf.sm_53."+opt+".cubin"))
		if err != nil {
			t.Fatal(err)
		}
		for seed := int64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewSource(seed))
			u0, v0 := rng.Float32(), rng.Float32()
			img := randFloats(rng, 4*(16*8+8*4+4*2+2*1), 4)
			r := makeRef("rgba32f", 16, 8, 1, 1, 4, img)
			r.linear, r.normalized, r.addr = true, true, [3]string{"wrap", "wrap", "wrap"}
			tl := texLaunch{program: data, arch: "sm_53", kernel: "texhalf", out: make([]byte, 32*32),
				params: []emu.Param{{Tex: ptr("t")}, f32param(u0), f32param(v0)},
				textures: map[string]emu.Image{"t": {Buffer: "t", Format: "rgba32f", Size: nums(16, 8), Levels: nums(4)[0],
					Filter: "linear", Normalized: true, Address: []string{"wrap"}}},
				buffers: map[string][]byte{"t": img}}
			g, places, err := tl.exec(t)
			if err != nil {
				t.Fatal(err)
			}
			got := u32s(g[places["out"].Addr:][:32*32])
			var u [32]float32
			for th := range 32 {
				u[th] = u0 + float32(th)*0.0625
			}
			for th := range 32 {
				f0 := float32(th) * 0.0625
				q := th &^ 3
				c := [3]float32{u[th], v0}
				var want []uint32
				pack := func(v [4]uint32) {
					want = append(want, refHalf(fval(v[0]))|refHalf(fval(v[1]))<<16, refHalf(fval(v[2]))|refHalf(fval(v[3]))<<16)
				}
				pack(r.lookup(r.levelFor(r.lodOf([2]float64{float64(u[q+1]) - float64(u[q]), 0}, [2]float64{float64(u[q+2]) - float64(u[q]), 0})), 0, 2, c, [3]int{}, false, 0))
				pack(r.lookup(r.levelFor(float64(f0)), 0, 2, c, [3]int{}, false, 0))
				pack(r.lookup(r.levelFor(r.lodOf([2]float64{float64(f0), float64(v0)}, [2]float64{float64(v0), float64(f0)})), 0, 2, c, [3]int{}, false, 0))
				if err := sameWords(got[th*8:th*8+6], want); err != nil {
					t.Fatalf("%s seed %d thread %d: %v", opt, seed, th, err)
				}
			}
		}
	}
}
