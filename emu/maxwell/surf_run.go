package maxwell

import (
	"fmt"

	"github.com/gpuisa/gpuisa/emu"
)

// surfExec runs SULD, SUST, SURED and SUATOM lane by lane in lane order.
// Coordinates are x[, y[, z]] then the layer for arrays, from Ra on; x is a
// byte offset in the row with .BA, else an element index.
func (k *Kernel) surfExec(w *emu.Warp, t *texInst, mask uint32) error {
	regs := w.Regs
	get := func(r uint8, i, l int) uint32 {
		if r == 255 {
			return 0
		}
		return regs[(int(r)+i)*32+l]
	}
	put := func(r uint8, i, l int, v uint32) {
		if r != 255 {
			regs[(int(r)+i)*32+l] = v
		}
	}
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		im, at, access, ignored, err := k.surfAt(get, t, l)
		if err != nil {
			return &laneErr{l, err}
		}
		if ignored {
			if t.op == tSuld || t.op == tSuatom {
				for i := range max(1, access/4) {
					put(t.rd, i, l, 0)
				}
			}
			continue
		}
		if err := k.surfAccess(t, im, at, access, l, get, put); err != nil {
			return &laneErr{l, err}
		}
	}
	return nil
}

// surfAt is where lane l's surface access goes: the image, the byte
// offset in global memory and the size; ignored: out of range under
// .IGN, so it accesses nothing.
func (k *Kernel) surfAt(get func(r uint8, i, l int) uint32, t *texInst, l int) (im *texImage, at uint64, access int, ignored bool, err error) {
	var h uint32
	if t.bindless {
		h = get(t.rh, 0, l)
	} else {
		h, _ = k.Const[texHandleBank].Load32(4 * t.index)
	}
	if k.tex != nil {
		im = k.tex.image(h & 0xfffff)
	}
	if im == nil {
		if err := k.tex.unboundErr(t.index, "surface"); err != nil && !t.bindless {
			return nil, 0, 0, false, err
		}
		return nil, 0, 0, false, fmt.Errorf("invalid surface handle %#x: no surface or texture has header index %d", h, h&0xfffff)
	}
	n := coordCount(t.dim)
	var xyz [3]int
	for d := range n {
		xyz[d] = int(int32(get(t.ra, d, l)))
	}
	layer := 0
	if isArray(t.dim) {
		layer = int(int32(get(t.ra, n, l)))
	}
	access = int(t.size)
	if t.formatted {
		access = im.f.bytes
	}
	bx := xyz[0]
	if !t.byteAddr {
		bx *= access
	}
	row := im.size[0] * im.f.bytes
	out := bx < 0 || bx+access > row || layer < 0 || layer >= im.layers
	for d := 1; d < 3; d++ {
		out = out || xyz[d] < 0 || xyz[d] >= im.size[d]
	}
	// element alignment suffices (the kernels ptxas builds load .v2 at
	// 4-byte steps of an r32 surface)
	align := min(access, im.f.bytes)
	if bx%align != 0 && !out {
		return nil, 0, 0, false, fmt.Errorf("%s: misaligned %d-byte access at byte %d of a row", im.what(), access, bx)
	}
	if out {
		switch t.clamp {
		case suTrap:
			return nil, 0, 0, false, fmt.Errorf("%s: access out of range (trap): byte x %d, y %d, z %d, layer %d; the surface is %d bytes x %d x %d, %d layers",
				im.what(), bx, xyz[1], xyz[2], layer, row, im.size[1], im.size[2], im.layers)
		case suIgnore:
			return im, 0, access, true, nil
		}
		bx = min(max(bx, 0), row-access) / align * align
		for d := 1; d < 3; d++ {
			xyz[d] = min(max(xyz[d], 0), im.size[d]-1)
		}
		layer = min(max(layer, 0), im.layers-1)
	}
	at = im.base + (uint64(layer*im.size[2]+xyz[2])*uint64(im.size[1])+uint64(xyz[1]))*uint64(row) + uint64(bx)
	return im, at, access, false, nil
}

func (k *Kernel) surfAccess(t *texInst, im *texImage, at uint64, access, l int,
	get func(r uint8, i, l int) uint32, put func(r uint8, i, l int, v uint32)) error {
	g := k.Global
	switch {
	case t.op == tSuld && t.formatted:
		if at+uint64(access) > uint64(len(g.Data)) {
			return g.Fault(at, access, false)
		}
		b := g.Data[at : at+uint64(access)]
		v := decodeTexel(im.f, b)
		n := 0
		for c := range 4 {
			if t.mask>>c&1 != 0 {
				put(t.rd, n, l, v[c])
				n++
			}
		}
	case t.op == tSust && t.formatted:
		if at+uint64(access) > uint64(len(g.Data)) {
			return g.Fault(at, access, true)
		}
		b := g.Data[at : at+uint64(access)]
		v := decodeTexel(im.f, b)
		n := 0
		for c := range 4 {
			if t.mask>>c&1 != 0 {
				v[c] = get(t.rb, n, l)
				n++
			}
		}
		// integer formats keep the register bits; decodeTexel gave
		// floats for the others, which encodeTexel reads back
		encodeTexel(im.f, v, b)
	case t.op == tSuld:
		if access < 4 {
			v, err := g.Load(at, access)
			if err != nil {
				return err
			}
			x := uint32(v)
			if t.signed {
				sh := uint(32 - 8*access)
				x = uint32(int32(x<<sh) >> sh)
			}
			put(t.rd, 0, l, x)
			return nil
		}
		for i := range access / 4 {
			v, err := g.Load(at+uint64(4*i), 4)
			if err != nil {
				return err
			}
			put(t.rd, i, l, uint32(v))
		}
	case t.op == tSust:
		if access < 4 {
			return g.Store(at, access, uint64(get(t.rb, 0, l)))
		}
		for i := range access / 4 {
			if err := g.Store(at+uint64(4*i), 4, uint64(get(t.rb, i, l))); err != nil {
				return err
			}
		}
	default: // SURED, SUATOM: 32-bit
		if t.formatted || access != 4 {
			return fmt.Errorf("formatted or %d-byte surface atomics are not supported", access)
		}
		x, y := get(t.rb, 0, l), uint32(0)
		if t.atom == aCas {
			y = get(t.rb, 1, l)
		}
		op := atomOps[t.atom]
		switch {
		case t.atom == aMin && t.atomSigned:
			op = emu.AtomMinS
		case t.atom == aMin:
			op = emu.AtomMinU
		case t.atom == aMax && t.atomSigned:
			op = emu.AtomMaxS
		case t.atom == aMax:
			op = emu.AtomMaxU
		}
		old, err := g.Atomic32(at, op, x, y)
		if err != nil {
			return err
		}
		if t.op == tSuatom {
			put(t.rd, 0, l, old)
		}
	}
	return nil
}
