package maxwell

import (
	"encoding/binary"
	"math"

	"github.com/gpuisa/gpuisa/emu"
)

// texel reads and decodes texel (x, y, z) of a layer of level lv.
func (k *Kernel) texel(im *texImage, lv, layer int, xyz [3]int) [4]uint32 {
	w, h, d := im.levelSize(lv, 0), im.levelSize(lv, 1), im.levelSize(lv, 2)
	idx := ((uint64(layer)*uint64(d)+uint64(xyz[2]))*uint64(h)+uint64(xyz[1]))*uint64(w) + uint64(xyz[0])
	at := im.base + im.levelOff[lv] + idx*uint64(im.f.bytes)
	g := k.Global.Data
	if at+uint64(im.f.bytes) > uint64(len(g)) {
		return [4]uint32{}
	}
	if k.texReads != nil {
		*k.texReads = append(*k.texReads, emu.Access{Space: emu.Global, Addr: at, Size: im.f.bytes, Read: true})
	}
	return decodeTexel(im.f, g[at:at+uint64(im.f.bytes)])
}

// decodeTexel turns a texel's bytes into four 32-bit components: float
// bits for normalized and float formats, integers for integer formats;
// missing components read 0, 0 and 1 (G, B, A).
func decodeTexel(f texFormat, b []byte) [4]uint32 {
	out := [4]uint32{0, 0, 0, math.Float32bits(1)}
	if f.integer() {
		out[3] = 1
	}
	for c := range f.n {
		var raw uint32
		switch f.bits {
		case 8:
			raw = uint32(b[c])
		case 16:
			raw = uint32(binary.LittleEndian.Uint16(b[2*c:]))
		default:
			raw = binary.LittleEndian.Uint32(b[4*c:])
		}
		sh := uint(32 - f.bits)
		switch f.kind {
		case 'u':
			out[c] = math.Float32bits(float32(float64(raw) / float64(uint32(1)<<f.bits-1)))
		case 's':
			v := float64(int32(raw<<sh)>>sh) / float64(uint32(1)<<(f.bits-1)-1)
			out[c] = math.Float32bits(float32(max(v, -1)))
		case 'U':
			out[c] = raw
		case 'I':
			out[c] = uint32(int32(raw<<sh) >> sh)
		case 'f':
			if f.bits == 16 {
				out[c] = math.Float32bits(halfToFloat(uint16(raw)))
			} else {
				out[c] = raw
			}
		}
	}
	return out
}

// encodeTexel is the inverse for formatted surface stores: float
// components are converted with saturation and rounding to nearest.
func encodeTexel(f texFormat, comps [4]uint32, b []byte) {
	for c := range f.n {
		var raw uint32
		x := float64(math.Float32frombits(comps[c]))
		switch f.kind {
		case 'u':
			if math.IsNaN(x) {
				x = 0
			}
			raw = uint32(math.RoundToEven(min(max(x, 0), 1) * float64(uint32(1)<<f.bits-1)))
		case 's':
			if math.IsNaN(x) {
				x = 0
			}
			raw = uint32(int32(math.RoundToEven(min(max(x, -1), 1) * float64(uint32(1)<<(f.bits-1)-1))))
		case 'U', 'I':
			raw = comps[c]
		case 'f':
			raw = comps[c]
			if f.bits == 16 {
				raw = uint32(floatToHalf(float64(math.Float32frombits(comps[c])), 0))
			}
		}
		switch f.bits {
		case 8:
			b[c] = byte(raw)
		case 16:
			binary.LittleEndian.PutUint16(b[2*c:], uint16(raw))
		default:
			binary.LittleEndian.PutUint32(b[4*c:], raw)
		}
	}
}

// wrapIndex applies an address mode to texel index i of a dimension of n
// texels; ok is false for a border texel. Wrap and mirror need normalized
// coordinates (CUDA documents them so); otherwise they clamp.
func wrapIndex(i, n int, mode uint8, normalized bool) (int, bool) {
	if !normalized && (mode == amWrap || mode == amMirror) {
		mode = amClamp
	}
	switch mode {
	case amWrap:
		return ((i % n) + n) % n, true
	case amMirror:
		m := ((i % (2 * n)) + 2*n) % (2 * n)
		if m >= n {
			m = 2*n - 1 - m
		}
		return m, true
	case amBorder:
		return i, i >= 0 && i < n
	}
	return min(max(i, 0), n-1), true
}

// floorInt is floor(x) as an int, NaN 0, bounded so indices stay small.
func floorInt(x float64) int {
	if math.IsNaN(x) {
		return 0
	}
	return int(math.Floor(min(max(x, -(1<<30)), 1<<30)))
}

// weight8 is a filter weight as the hardware keeps it: 1.8 fixed point.
func weight8(f float64) float64 { return math.Round(f*256) / 256 }

// fetch reads a texel through the sampler's address modes (the border
// color outside) and applies the depth comparison.
func (k *Kernel) fetch(im, smp *texImage, lv, layer int, idx [3]int, q *sampleReq) [4]uint32 {
	var xyz [3]int
	border := false
	for d := range 3 {
		n := im.levelSize(lv, d)
		mode := smp.addr[d]
		if q.cube {
			mode = amClamp
		}
		v, ok := wrapIndex(idx[d], n, mode, smp.normalized)
		xyz[d] = v
		border = border || !ok
	}
	var t [4]uint32
	if border {
		t = smp.border
	} else {
		t = k.texel(im, lv, layer, xyz)
	}
	if q.dc {
		r := float32(0)
		if depthPass(smp.compare, q.ref, math.Float32frombits(t[0])) {
			r = 1
		}
		b := math.Float32bits(r)
		t = [4]uint32{b, b, b, b}
	}
	return t
}

func depthPass(fn uint8, ref, v float32) bool {
	switch fn {
	case 0:
		return false
	case 1:
		return ref < v
	case 2:
		return ref == v
	case 3:
		return ref <= v
	case 4:
		return ref > v
	case 5:
		return ref != v
	case 6:
		return ref >= v
	}
	return true
}

// level picks the mip level(s) for a level of detail: nearest (GL's
// rule: level 0 up to 0.5, then ceil(lambda+0.5)-1) or linear between
// floor(lambda) and the next, with an 8-bit fraction.
func (im *texImage) level(smp *texImage, lambda float64) (l0, l1 int, frac float64) {
	top := float64(im.levels - 1)
	if math.IsNaN(lambda) {
		lambda = 0
	}
	lambda = min(max(lambda, 0), top)
	if smp.mipLinear && !im.f.integer() {
		l0 = int(math.Floor(lambda))
		frac = weight8(lambda - float64(l0))
		if l0 >= im.levels-1 || frac == 0 {
			return l0, l0, 0
		}
		return l0, l0 + 1, frac
	}
	if lambda <= 0.5 {
		return 0, 0, 0
	}
	l0 = min(int(math.Ceil(lambda+0.5))-1, im.levels-1)
	return l0, l0, 0
}

// sample is a filtered lookup (TEX, TEXS, TXD).
func (k *Kernel) sample(im, smp *texImage, q *sampleReq) [4]uint32 {
	l0, l1, frac := im.level(smp, q.lambda)
	a := k.sampleLevel(im, smp, l0, q)
	if l1 == l0 {
		return a
	}
	b := k.sampleLevel(im, smp, l1, q)
	var out [4]uint32
	for c := range 4 {
		x, y := float64(math.Float32frombits(a[c])), float64(math.Float32frombits(b[c]))
		out[c] = math.Float32bits(float32(x*(1-frac) + y*frac))
	}
	return out
}

func (k *Kernel) sampleLevel(im, smp *texImage, lv int, q *sampleReq) [4]uint32 {
	layer := min(q.layer, im.layers-1)
	ratio := [3]float64{}
	for d := range q.dims {
		ratio[d] = float64(im.levelSize(lv, d)) / float64(im.size[d])
	}
	if !smp.linear || im.f.integer() {
		var idx [3]int
		for d := range q.dims {
			idx[d] = floorInt(q.u[d]*ratio[d]) + q.off[d]
		}
		return k.fetch(im, smp, lv, layer, idx, q)
	}
	var i0 [3]int
	var wt [3]float64
	for d := range q.dims {
		x := q.u[d]*ratio[d] - 0.5
		i0[d] = floorInt(x)
		wt[d] = weight8(x - math.Floor(x))
		i0[d] += q.off[d]
	}
	var sum [4]float64
	for corner := range 1 << q.dims {
		w := 1.0
		idx := i0
		for d := range q.dims {
			if corner>>d&1 != 0 {
				idx[d]++
				w *= wt[d]
			} else {
				w *= 1 - wt[d]
			}
		}
		t := k.fetch(im, smp, lv, layer, idx, q)
		for c := range 4 {
			sum[c] += w * float64(math.Float32frombits(t[c]))
		}
	}
	var out [4]uint32
	for c := range 4 {
		out[c] = math.Float32bits(float32(sum[c]))
	}
	return out
}

// gather is TLD4: component comp of the 2x2 footprint of linear filtering
// at level 0, in GL's order (i0,j1) (i1,j1) (i1,j0) (i0,j0).
func (k *Kernel) gather(im, smp *texImage, q *sampleReq, comp uint8) [4]uint32 {
	layer := min(q.layer, im.layers-1)
	x, y := q.u[0]-0.5, q.u[1]-0.5
	i0, j0 := floorInt(x)+q.off[0], floorInt(y)+q.off[1]
	var out [4]uint32
	for n, p := range [4][2]int{{0, 1}, {1, 1}, {1, 0}, {0, 0}} {
		t := k.fetch(im, smp, 0, layer, [3]int{i0 + p[0], j0 + p[1], 0}, q)
		out[n] = t[comp]
	}
	return out
}
