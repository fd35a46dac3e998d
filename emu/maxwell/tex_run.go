package maxwell

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpuisa/gpuisa/emu"
)

// source slots of a texture instruction, in the order the hardware reads
// them from the Ra and Rb register groups
const (
	sHandle uint8 = iota
	sLayer
	sX
	sY
	sZ
	sLod
	sOff
	sDC
	sMS
	sGrad // TXD: dx, dy per coordinate
)

// texArgs is one lane's sources.
type texArgs struct {
	handle uint32
	layer  uint32
	c      [3]uint32 // coordinates (float bits, or integers for TLD)
	lod    uint32
	off    uint32
	ref    uint32
	grad   [3][2]uint32
}

// coordCount is the number of coordinates of a dimension.
func coordCount(d uint8) int {
	switch d {
	case d1D, dA1D:
		return 1
	case d2D, dA2D:
		return 2
	}
	return 3
}

func isArray(d uint8) bool { return d == dA1D || d == dA2D || d == dA3D || d == dACube }

// layout lists the instruction's source slots and how many of them come
// from the Ra group (the rest from Rb).
func (t *texInst) layout() (slots []uint8, nA int) {
	coords := func() {
		if isArray(t.dim) {
			slots = append(slots, sLayer)
		}
		for i := range coordCount(t.dim) {
			slots = append(slots, sX+uint8(i))
		}
	}
	extras := func() {
		if t.lod == lodBias || t.lod == lodLevel {
			slots = append(slots, sLod)
		}
		if t.aoffi {
			slots = append(slots, sOff)
		}
		if t.dc {
			slots = append(slots, sDC)
		}
		if t.ms {
			slots = append(slots, sMS)
		}
	}
	switch t.op {
	case tTexs, tTlds, tTld4s:
		coords()
		extras()
		// TLDS ARRAY_2D takes the layer alone in Ra (ptxas's register setup)
		if len(slots) >= 3 && !(t.op == tTlds && isArray(t.dim)) {
			return slots, 2
		}
		return slots, 1
	case tTxq:
		if t.bindless {
			slots = append(slots, sHandle)
		}
		return append(slots, sLod), len(slots) + 1
	case tTxd:
		if t.bindless {
			slots = append(slots, sHandle)
		}
		coords()
		nA = len(slots)
		for range coordCount(t.dim) * 2 {
			slots = append(slots, sGrad)
		}
		if t.aoffi {
			slots = append(slots, sOff)
		}
		return slots, nA
	}
	coords()
	nA = len(slots)
	if t.bindless {
		slots = append(slots, sHandle)
	}
	extras()
	return slots, nA
}

var errNoTexture = errors.New("no textures or surfaces in this launch")

// texExec runs a texture instruction for the lanes in mask.
func (k *Kernel) texExec(w *emu.Warp, t *texInst, mask uint32) error {
	if mask == 0 {
		return nil
	}
	switch t.op {
	case tSuld, tSust, tSured, tSuatom:
		return k.surfExec(w, t, mask)
	}
	// every lane's sources first: derivatives read the quad's neighbours,
	// and the destinations may overlap the sources
	var args [32]texArgs
	k.texSources(w.Regs, t, &args)
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		out, err := k.texLane(t, &args, l)
		if err != nil {
			return err
		}
		k.texWrite(w.Regs, t, l, out)
	}
	return nil
}

// texSources reads every lane's sources of a texture instruction.
func (k *Kernel) texSources(regs []uint32, t *texInst, args *[32]texArgs) {
	get := func(r uint8, i, l int) uint32 {
		if r == 255 {
			return 0
		}
		return regs[(int(r)+i)*32+l]
	}
	slots, nA := t.slots, t.nA
	for l := range 32 {
		a := &args[l]
		g := 0
		for i, s := range slots {
			var v uint32
			if i < nA {
				v = get(t.ra, i, l)
			} else {
				v = get(t.rb, i-nA, l)
			}
			switch s {
			case sHandle:
				a.handle = v
			case sLayer:
				a.layer = v
			case sX, sY, sZ:
				a.c[s-sX] = v
			case sLod:
				a.lod = v
			case sMS: // the sample index: images have one sample
			case sOff:
				a.off = v
			case sDC:
				a.ref = v
			case sGrad:
				a.grad[g/2][g%2] = v
				g++
			}
		}
		if !t.bindless {
			a.handle, _ = k.Const[texHandleBank].Load32(4 * t.index)
		}
	}
}

// texLane is lane l's result of a texture instruction (not a surface
// one).
func (k *Kernel) texLane(t *texInst, args *[32]texArgs, l int) ([4]uint32, error) {
	var out [4]uint32
	u := k.tex
	a := &args[l]
	var im, smp *texImage
	if u != nil {
		im = u.image(a.handle & 0xfffff)
		smp = u.image(a.handle >> 20)
	}
	if im == nil {
		if err := u.unboundErr(t.index, "texture"); err != nil && !t.bindless {
			return out, &laneErr{l, err}
		}
		if u == nil {
			return out, &laneErr{l, fmt.Errorf("texture handle %#x: %v", a.handle, errNoTexture)}
		}
		return out, &laneErr{l, fmt.Errorf("invalid texture handle %#x: header index %d is not one of the launch's %d textures and surfaces", a.handle, a.handle&0xfffff, len(u.imgs)-1)}
	}
	switch t.op {
	case tTxq:
		lv := int(a.lod)
		if lv < im.levels {
			out = [4]uint32{uint32(im.levelSize(lv, 0)), uint32(im.levelSize(lv, 1)), uint32(im.levelSize(lv, 2)), uint32(im.levels)}
			if im.layers > 1 {
				out[2] = uint32(im.layers)
			}
		}
	case tTld, tTlds:
		out = k.texelFetch(im, t, a)
	default:
		if smp == nil {
			return out, &laneErr{l, fmt.Errorf("invalid texture handle %#x: sampler index %d is not one of the launch's textures", a.handle, a.handle>>20)}
		}
		if isCube(t.dim) && !im.cube {
			return out, &laneErr{l, fmt.Errorf("%s lookup on %s, which is not a cube map (\"cube\": true)", dimName(t.dim), im.what())}
		}
		q := k.request(t, args, l, im, smp)
		if t.op == tTmml {
			out = im.lodQuery(q.lambda)
		} else if t.op == tTld4 || t.op == tTld4s {
			out = k.gather(im, smp, &q, t.comp)
		} else {
			out = k.sample(im, smp, &q)
		}
	}
	return out, nil
}

// texWrite writes the enabled components: full forms to Rd, Rd+1, ...;
// the scalar forms' first two to the Rd pair, the others to the Rd2 pair.
func (k *Kernel) texWrite(regs []uint32, t *texInst, l int, out [4]uint32) {
	put := func(r uint8, i int, v uint32) {
		if r != 255 {
			regs[(int(r)+i)*32+l] = v
		}
	}
	n := 0
	if t.f16 {
		// .F16: the enabled components as binary16, two per register
		var h [4]uint32
		for c := range 4 {
			if t.mask>>c&1 != 0 {
				h[n] = uint32(floatToHalf(float64(math.Float32frombits(out[c])), 0))
				n++
			}
		}
		put(t.rd, 0, h[0]|h[1]<<16)
		if n > 2 {
			put(t.rd2, 0, h[2]|h[3]<<16)
		}
		return
	}
	for c := range 4 {
		if t.mask>>c&1 == 0 {
			continue
		}
		switch t.op {
		case tTexs, tTlds, tTld4s:
			if n < 2 {
				put(t.rd, n, out[c])
			} else {
				put(t.rd2, n-2, out[c])
			}
		default:
			put(t.rd, n, out[c])
		}
		n++
	}
}

// sampleReq is one lane's filtered lookup.
type sampleReq struct {
	dims   int
	u      [3]float64 // texel-space coordinates at level 0 (scaled when normalized)
	layer  int
	off    [3]int
	lambda float64 // level of detail before clamping
	dc     bool
	ref    float32
	cube   bool // a cube face: indices clamp to the face, whatever the sampler says
}

// request turns lane l's sources into a lookup: coordinates, offsets,
// layer, and the level of detail (explicit, from gradients, or from the
// quad's derivatives: lanes l&^3 +1 (x) and +2 (y)).
func (k *Kernel) request(t *texInst, args *[32]texArgs, l int, im, smp *texImage) sampleReq {
	a := &args[l]
	if isCube(t.dim) {
		return k.cubeRequest(t, args, l, im, smp)
	}
	q := sampleReq{dims: coordCount(t.dim), dc: t.dc, ref: math.Float32frombits(a.ref)}
	q.layer = int(a.layer & 0xffff)
	scale := [3]float64{1, 1, 1}
	if smp.normalized {
		for d := range 3 {
			scale[d] = float64(im.size[d])
		}
	}
	for d := range q.dims {
		q.u[d] = float64(math.Float32frombits(a.c[d])) * scale[d]
	}
	if t.aoffi {
		bits, width := 4, 4
		if t.op == tTld4 || t.op == tTld4s {
			bits, width = 6, 8
		}
		for d := range q.dims {
			v := int32(a.off>>(uint(d*width))) << (32 - bits) >> (32 - bits)
			q.off[d] = int(v)
		}
	}
	deriv := func(dx, dy [3]float64) float64 {
		var sx, sy float64
		for d := range q.dims {
			sx += dx[d] * dx[d] * scale[d] * scale[d]
			sy += dy[d] * dy[d] * scale[d] * scale[d]
		}
		return math.Log2(math.Sqrt(max(sx, sy)))
	}
	f := func(v uint32) float64 { return float64(math.Float32frombits(v)) }
	switch {
	case t.op == tTxd:
		var dx, dy [3]float64
		for d := range q.dims {
			dx[d], dy[d] = f(a.grad[d][0]), f(a.grad[d][1])
		}
		q.lambda = deriv(dx, dy)
	case t.explicitLevel():
		q.lambda = t.level(a)
	default: // implicit: coarse derivatives of the quad
		base := l &^ 3
		var dx, dy [3]float64
		for d := range q.dims {
			c0 := f(args[base].c[d])
			dx[d] = f(args[base+1].c[d]) - c0
			dy[d] = f(args[base+2].c[d]) - c0
		}
		q.lambda = deriv(dx, dy)
		if t.lod == lodBias {
			q.lambda += f(a.lod)
		}
	}
	return q
}

// texelFetch is TLD: integer coordinates and level, no sampler; texels
// outside the image (or level) read as zero.
func (k *Kernel) texelFetch(im *texImage, t *texInst, a *texArgs) [4]uint32 {
	lv := 0
	if t.lod == lodLevel {
		lv = int(int32(a.lod))
	}
	if lv < 0 || lv >= im.levels {
		return [4]uint32{}
	}
	var xyz [3]int
	n := coordCount(t.dim)
	for d := range n {
		xyz[d] = int(int32(a.c[d]))
		if t.aoffi {
			xyz[d] += int(int32(a.off>>(uint(4*d))) << 28 >> 28)
		}
	}
	layer := int(a.layer & 0xffff)
	if !isArray(t.dim) {
		layer = 0
	}
	for d := range 3 {
		if xyz[d] < 0 || xyz[d] >= im.levelSize(lv, d) {
			return [4]uint32{}
		}
	}
	if layer >= im.layers {
		return [4]uint32{}
	}
	return k.texel(im, lv, layer, xyz)
}

// lodQuery is TMML: the computed level of detail, then the clamped one the
// lookup would use, as signed 8.8 fixed point (what Mesa's TMML lowering
// converts with a 1/256 scale); the computed one saturates to [-128, 128).
func (im *texImage) lodQuery(lambda float64) [4]uint32 {
	fix := func(x float64) uint32 { return uint32(int32(math.Round(min(max(x, -128), 128-1.0/256) * 256))) }
	if math.IsNaN(lambda) {
		lambda = 0
	}
	return [4]uint32{fix(lambda), fix(min(max(lambda, 0), float64(im.levels-1))), 0, 0}
}

func isCube(d uint8) bool { return d == dCube || d == dACube }

func dimName(d uint8) string {
	for name, v := range texDims {
		if v == d {
			return name
		}
	}
	return "?"
}

// cubeFace picks the face of a direction by its major axis (x before y
// before z on ties) and returns the face (+X, -X, +Y, -Y, +Z, -Z = 0..5)
// and the face coordinates in [0, 1], as OpenGL and Direct3D define them.
func cubeFace(x, y, z float64) (face int, s, t float64) {
	ax, ay, az := math.Abs(x), math.Abs(y), math.Abs(z)
	var ma, sc, tc float64
	switch {
	case ax >= ay && ax >= az:
		ma, tc = ax, -y
		if x >= 0 {
			face, sc = 0, -z
		} else {
			face, sc = 1, z
		}
	case ay >= az:
		ma, sc = ay, x
		if y >= 0 {
			face, tc = 2, z
		} else {
			face, tc = 3, -z
		}
	default:
		ma, tc = az, -y
		if z >= 0 {
			face, sc = 4, x
		} else {
			face, sc = 5, -x
		}
	}
	if ma == 0 {
		return 0, 0.5, 0.5
	}
	return face, (sc/ma + 1) / 2, (tc/ma + 1) / 2
}

// cubeRequest is request for CUBE and ARRAY_CUBE: the direction picks a
// face (layer 6*cube + face) and normalized face coordinates; filtering
// stays inside the face (its edges clamp: no filtering across faces), and
// the level of detail comes from the face coordinates of the quad's lanes.
func (k *Kernel) cubeRequest(t *texInst, args *[32]texArgs, l int, im, smp *texImage) sampleReq {
	a := &args[l]
	f := func(v uint32) float64 { return float64(math.Float32frombits(v)) }
	size := float64(im.size[0])
	project := func(c [3]uint32) (int, float64, float64) {
		face, s, t := cubeFace(f(c[0]), f(c[1]), f(c[2]))
		return face, s * size, t * size
	}
	face, u, v := project(a.c)
	q := sampleReq{dims: 2, dc: t.dc, ref: math.Float32frombits(a.ref), cube: true}
	q.u[0], q.u[1] = u, v
	q.layer = face
	if t.dim == dACube {
		q.layer += 6 * int(a.layer&0xffff)
	}
	deriv := func(du, dv [2]float64) float64 {
		return math.Log2(math.Sqrt(max(du[0]*du[0]+du[1]*du[1], dv[0]*dv[0]+dv[1]*dv[1])))
	}
	switch {
	case t.op == tTxd:
		// the gradients, taken through the face projection
		var d [2][2]float64 // d/dx, d/dy of the face coordinates
		for i := range 2 {
			var c [3]uint32
			for k := range 3 {
				c[k] = math.Float32bits(float32(f(a.c[k]) + f(a.grad[k][i])))
			}
			_, u2, v2 := project(c)
			d[i] = [2]float64{u2 - u, v2 - v}
		}
		q.lambda = deriv(d[0], d[1])
	case t.explicitLevel():
		q.lambda = t.level(a)
	default: // implicit: the quad's face coordinates
		base := l &^ 3
		_, u0, v0 := project(args[base].c)
		_, u1, v1 := project(args[base+1].c)
		_, u2, v2 := project(args[base+2].c)
		q.lambda = deriv([2]float64{u1 - u0, v1 - v0}, [2]float64{u2 - u0, v2 - v0})
		if t.lod == lodBias {
			q.lambda += f(a.lod)
		}
	}
	return q
}

// explicitLevel: the level of detail does not come from derivatives (LZ,
// LL, or .NDV, where a bias is the level itself).
func (t *texInst) explicitLevel() bool {
	return t.lod == lodZero || t.lod == lodLevel || t.ndv
}

// level is the explicit level of detail of lane sources a.
func (t *texInst) level(a *texArgs) float64 {
	if t.lod == lodLevel || t.ndv && t.lod == lodBias {
		return float64(math.Float32frombits(a.lod))
	}
	return 0
}
