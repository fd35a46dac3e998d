package usse

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Texture is an image a shader samples: texels row after row, one level.
type Texture struct {
	Width, Height int
	// Format of a texel, named as the Maxwell emulator's launch files name
	// them: r8unorm, rg8unorm, rgba8unorm (the default), rgba16f, r32f,
	// rg32f, rgba32f. Missing channels read as (r, 0, 0, 1) and (r, g, 0, 1).
	Format string
	Data   []byte
	Linear bool      // bilinear filtering, else nearest
	Wrap   [2]string // per axis: "clamp" (default), "wrap", "mirror"
	// Cube: Data holds six square faces, +X, -X, +Y, -Y, +Z, -Z, one after
	// the other (the face order of GXM, GL and the Maxwell launch files).
	Cube bool
}

// texLayout is a format's channel count and bytes per channel (1: unorm8,
// 2: f16, 4: f32).
func texLayout(format string) (chans, size int, ok bool) {
	switch format {
	case "r8unorm":
		return 1, 1, true
	case "rg8unorm":
		return 2, 1, true
	case "", "rgba8unorm":
		return 4, 1, true
	case "rgba16f":
		return 4, 2, true
	case "r32f":
		return 1, 4, true
	case "rg32f":
		return 2, 4, true
	case "rgba32f":
		return 4, 4, true
	}
	return 0, 0, false
}

// Check reports whether the texel data fits the shape and format.
func (tx *Texture) Check() error {
	ch, size, ok := texLayout(tx.Format)
	if !ok {
		return fmt.Errorf("texture format %q (r8unorm, rg8unorm, rgba8unorm, rgba16f, r32f, rg32f, rgba32f)", tx.Format)
	}
	if tx.Width <= 0 || tx.Height <= 0 || tx.Width > 1<<14 || tx.Height > 1<<14 {
		return fmt.Errorf("texture size %dx%d (1..16384 each)", tx.Width, tx.Height)
	}
	if tx.Cube && tx.Width != tx.Height {
		return fmt.Errorf("cube texture faces %dx%d are not square", tx.Width, tx.Height)
	}
	if need := tx.faces() * tx.Width * tx.Height * ch * size; len(tx.Data) < need {
		return fmt.Errorf("texture %dx%d %s needs %d bytes, has %d", tx.Width, tx.Height, tx.Format, need, len(tx.Data))
	}
	for _, w := range tx.Wrap {
		switch w {
		case "", "clamp", "wrap", "mirror":
		default:
			return fmt.Errorf("texture address mode %q (clamp, wrap, mirror)", w)
		}
	}
	return nil
}

// faces is 6 for a cube texture, else 1.
func (tx *Texture) faces() int {
	if tx.Cube {
		return 6
	}
	return 1
}

// texel reads texel (x, y) of face face as RGBA.
func (tx *Texture) texel(face, x, y int) [4]float32 {
	ch, size, _ := texLayout(tx.Format)
	b := tx.Data[((face*tx.Height+y)*tx.Width+x)*ch*size:]
	r := [4]float32{0, 0, 0, 1}
	for c := 0; c < ch; c++ {
		switch size {
		case 1:
			r[c] = float32(b[c]) / 255
		case 2:
			r[c] = halfToFloat(uint32(binary.LittleEndian.Uint16(b[2*c:])))
		default:
			r[c] = f32(binary.LittleEndian.Uint32(b[4*c:]))
		}
	}
	return r
}

// address maps texel coordinate i into [0, n) by a wrap mode.
func address(i, n int, mode string) int {
	switch mode {
	case "wrap":
		i %= n
		if i < 0 {
			i += n
		}
		return i
	case "mirror":
		p := 2 * n
		i %= p
		if i < 0 {
			i += p
		}
		if i >= n {
			i = p - 1 - i
		}
		return i
	}
	return min(max(i, 0), n-1)
}

// Sample reads the texture at normalised coordinates (u, v): texel centres
// at (i+0.5)/size, nearest or bilinear. A cube texture reads face +X.
func (tx *Texture) Sample(u, v float32) [4]float32 { return tx.sampleFace(0, u, v) }

// SampleCube reads a cube texture in direction (x, y, z): the face of the
// largest coordinate (its sign picks the positive or negative face), and
// (s, t) in that face as OpenGL's cube map table gives them (the table
// every API shares). Ties between equal magnitudes prefer z, then y (our
// choice: the GL specification leaves them open). Each face is sampled on
// its own with its address modes (no filtering across faces).
func (tx *Texture) SampleCube(x, y, z float32) [4]float32 {
	ax, ay, az := math.Abs(float64(x)), math.Abs(float64(y)), math.Abs(float64(z))
	var face int
	var sc, tc, ma float64
	switch {
	case az >= ax && az >= ay:
		face, ma, sc, tc = 4, az, float64(x), -float64(y)
		if z < 0 {
			face, sc = 5, -float64(x)
		}
	case ay >= ax:
		face, ma, sc, tc = 2, ay, float64(x), float64(z)
		if y < 0 {
			face, tc = 3, -float64(z)
		}
	default:
		face, ma, sc, tc = 0, ax, -float64(z), -float64(y)
		if x < 0 {
			face, sc = 1, float64(z)
		}
	}
	if ma == 0 || math.IsNaN(ma) {
		return tx.sampleFace(face, 0.5, 0.5)
	}
	return tx.sampleFace(face, float32((sc/ma+1)/2), float32((tc/ma+1)/2))
}

// sampleFace samples one face at (u, v).
func (tx *Texture) sampleFace(face int, u, v float32) [4]float32 {
	x := float64(u)*float64(tx.Width) - 0.5
	y := float64(v)*float64(tx.Height) - 0.5
	if math.IsNaN(x) || math.IsNaN(y) {
		x, y = 0, 0
	}
	x = math.Max(-1<<20, math.Min(1<<20, x))
	y = math.Max(-1<<20, math.Min(1<<20, y))
	if !tx.Linear {
		xi := address(int(math.Floor(x+0.5)), tx.Width, tx.Wrap[0])
		yi := address(int(math.Floor(y+0.5)), tx.Height, tx.Wrap[1])
		return tx.texel(face, xi, yi)
	}
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := float32(x-x0), float32(y-y0)
	xa, xb := address(int(x0), tx.Width, tx.Wrap[0]), address(int(x0)+1, tx.Width, tx.Wrap[0])
	ya, yb := address(int(y0), tx.Height, tx.Wrap[1]), address(int(y0)+1, tx.Height, tx.Wrap[1])
	t00, t10, t01, t11 := tx.texel(face, xa, ya), tx.texel(face, xb, ya), tx.texel(face, xa, yb), tx.texel(face, xb, yb)
	var r [4]float32
	for c := range r {
		top := t00[c] + (t10[c]-t00[c])*fx
		bot := t01[c] + (t11[c]-t01[c])*fx
		r[c] = top + (bot-top)*fy
	}
	return r
}

// textureSet is the textures bound to the 16 units.
type textureSet [16]*Texture

// SMP (op1 0x1C): samples texture unit (the word in the sampler register:
// the driver's texture state there is, in this model, the unit number the
// launch binds), at the coordinates of source 0 (f32, f16 or fx10; 1D, 2D
// and cube: one, two or three channels, as Vita3K loads them), and writes
// RGBA as f32 (4 registers), f16 (2) or, by format 0, f32 (Vita3K). LOD
// bias, replace and gradients are read and ignored: textures have one
// level here.
func lowerSmp(l *lowerer) {
	dim := l.enum("dim")
	var nc int
	switch dim {
	case "1D":
		nc = 1
	case "2D":
		nc = 2
	case "Cube":
		nc = 3
	default:
		l.fail("%s textures: %w", dim, errUnsupported)
		return
	}
	var cf fmtID
	switch l.field("s0type") {
	case 0:
		cf = fF32
	case 1:
		cf = fF16
	case 2:
		cf = fFX10
	default:
		l.fail("coordinate type %d: %w", l.field("s0type"), errUnsupported)
		return
	}
	df := fF32
	if l.enum("fconv") == ".f16" {
		df = fF16
	}
	d, s0, s1 := l.opnd(0), l.opnd(1), l.opnd(2)
	o := op{kind: kSample, fmt: df, n: 4, nsrc: 2, aux: uint32(nc)}
	for c := 0; c < 4; c++ {
		o.dst[c] = l.dstChan(d, df, c, 0)
	}
	for c := 0; c < 3; c++ {
		o.src[0][c] = chanSrc{part: pConst, fmt: fF32}
		if c < nc {
			o.src[0][c] = l.floatSrc(s0, cf, "xyz"[c], 0)
		}
	}
	o.src[1][0] = l.rawSrc(s1, fU32, 'x', 0)
	l.emit(o)
}

// sample runs kSample.
func (t *Instance) sample(o *op) {
	unit := t.raw(&o.src[1][0])
	if t.tex == nil || unit >= uint32(len(t.tex)) || t.tex[unit] == nil {
		t.fault = fmt.Errorf("texture unit %d has no texture (the launch binds textures by sampler name)", unit)
		return
	}
	tx := t.tex[unit]
	if cube := o.aux == 3; cube != tx.Cube {
		t.fault = fmt.Errorf("texture unit %d: a cube lookup needs a cube texture and a cube texture a cube lookup (cube texture: %v)", unit, tx.Cube)
		return
	}
	var texel [4]float32
	if tx.Cube {
		texel = tx.SampleCube(t.readF(&o.src[0][0]), t.readF(&o.src[0][1]), t.readF(&o.src[0][2]))
	} else {
		texel = tx.Sample(t.readF(&o.src[0][0]), t.readF(&o.src[0][1]))
	}
	t.storeF(o, &texel)
}
