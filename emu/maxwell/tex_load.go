package maxwell

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
)

// Driver facts for textures and surfaces (see doc.go): the 32-bit handle of
// a bound reference sits in constant bank 0 at 4 x the instruction's index;
// txq/suq queries ptxas does not map to TXQ read a per-header descriptor
// table whose address is in bank 0 at 0xb0 (textures) and 0xc0 (surfaces),
// with the entry sizes the cubin's .nv.unified.texrefDescSize and
// .nv.surfrefDescSize relocations ask for.
const (
	cbTexDescTable  = 0xb0
	cbSurfDescTable = 0xc0
	texDescSize     = 0x40
	surfDescSize    = 0x20
	texHandleBank   = 0
)

// Texture descriptor fields (byte offsets ptxas reads through c[0x2]).
const (
	tdForceUnnorm = 0x00
	tdAddr0       = 0x0c
	tdFilter      = 0x18
	tdNormalized  = 0x1c
	tdDataType    = 0x20
	tdOrder       = 0x24
	tdArraySize   = 0x28
	tdLevels      = 0x2c
	sdDepth       = 0x08
	sdDataType    = 0x0c
	sdOrder       = 0x10
	sdLayout      = 0x14
	sdArraySize   = 0x1c
)

// TexSlot is a bound texture or surface reference: the cubin's relocation
// of a constant-bank word against its symbol.
type TexSlot struct {
	Bank    int
	Offset  uint32
	Name    string
	Surface bool
}

// texSlots reads the .rel.nv.constantN.<fn> relocations that bind texture
// and surface references.
func texSlots(f *cubin.File, fn *cubin.Function) []TexSlot {
	var out []TexSlot
	for _, sec := range f.Sections {
		var bank int
		if _, err := fmt.Sscanf(sec.Name, ".rel.nv.constant%d.", &bank); err != nil || sec.Name != fmt.Sprintf(".rel.nv.constant%d.%s", bank, fn.Name) {
			continue
		}
		ent := 16
		if f.Class == 32 {
			ent = 8
		}
		for off := 0; off+ent <= len(sec.Data); off += ent {
			var at uint64
			var sym, typ uint32
			if ent == 16 {
				at = binary.LittleEndian.Uint64(sec.Data[off:])
				info := binary.LittleEndian.Uint64(sec.Data[off+8:])
				sym, typ = uint32(info>>32), uint32(info)
			} else {
				at = uint64(binary.LittleEndian.Uint32(sec.Data[off:]))
				info := binary.LittleEndian.Uint32(sec.Data[off+4:])
				sym, typ = info>>8, info&0xff
			}
			if int(sym) >= len(f.Symbols) || bank < 0 || bank > 15 {
				continue
			}
			switch cubin.RelocTypeName(typ) {
			case "R_CUDA_TEX_HEADER_INDEX":
				out = append(out, TexSlot{bank, uint32(at), f.Symbols[sym].Name, false})
			case "R_CUDA_SURF_HEADER_INDEX":
				out = append(out, TexSlot{bank, uint32(at), f.Symbols[sym].Name, true})
			}
		}
	}
	return out
}

// descSizeReloc is the value of a code relocation against the driver's
// descriptor-size symbols.
func descSizeReloc(sym string) (uint64, bool) {
	switch sym {
	case ".nv.unified.texrefDescSize":
		return texDescSize, true
	case ".nv.surfrefDescSize":
		return surfDescSize, true
	}
	return 0, false
}

type texFormat struct {
	name  string
	n     int  // channels
	bits  int  // per channel
	kind  byte // 'u' unorm, 's' snorm, 'U' unsigned int, 'I' signed int, 'f' float
	bytes int  // per texel
}

func (f texFormat) integer() bool { return f.kind == 'U' || f.kind == 'I' }

func parseFormat(s string) (texFormat, error) {
	f, err := emu.ParseTexelFormat(s)
	if err != nil {
		return texFormat{}, err
	}
	return texFormat{name: s, n: f.Channels, bits: f.Bits, kind: f.Kind, bytes: f.Bytes()}, nil
}

// Address modes (CUDA's cudaTextureAddressMode numbering, which txq returns).
const (
	amWrap uint8 = iota
	amClamp
	amMirror
	amBorder
)

var addrModes = map[string]uint8{"wrap": amWrap, "clamp": amClamp, "mirror": amMirror, "border": amBorder}

// Depth compare functions (GL order): pass when ref OP texel.
var compareFuncs = map[string]uint8{"never": 0, "less": 1, "equal": 2, "lequal": 3, "greater": 4, "notequal": 5, "gequal": 6, "always": 7}

// texImage is one entry of the texture header (and sampler) table.
type texImage struct {
	name       string
	surface    bool
	f          texFormat
	dims       int    // 1..3 from the launch's size
	size       [3]int // level 0 width, height, depth
	layers     int
	levels     int
	base       uint64   // offset of level 0 in global memory
	levelOff   []uint64 // offset of each level from base
	bytes      uint64
	linear     bool
	mipLinear  bool
	addr       [3]uint8
	normalized bool
	border     [4]uint32 // raw component values
	compare    uint8
	cube       bool // layers are cube faces, six per cube
}

// levelSize is the size of level l in dimension d.
func (im *texImage) levelSize(l, d int) int { return max(1, im.size[d]>>uint(l)) }

// texUnit is the launch's texture and surface state.
type texUnit struct {
	imgs    []*texImage       // index = header index; 0 is nil
	unbound map[uint32]string // bank-0 offsets of references the launch does not bind
}

// unboundErr names the cubin's reference behind an unbound index.
func (u *texUnit) unboundErr(index uint32, what string) error {
	if u == nil {
		return nil
	}
	if name, ok := u.unbound[4*index]; ok {
		return fmt.Errorf("%s reference %q is not bound: the launch file has no %s of that name", what, name, what)
	}
	return nil
}

func (u *texUnit) image(i uint32) *texImage {
	if i == 0 || int(i) >= len(u.imgs) {
		return nil
	}
	return u.imgs[i]
}

// bindImages builds the launch's header table: places texels in global
// memory, writes the descriptor tables and binds the cubin's references.
func (k *Kernel) bindImages(s *emu.Setup, img *Image) error {
	j := s.Job
	if j == nil {
		j = &emu.Job{}
	}
	if len(j.Textures)+len(j.Surfaces) == 0 && len(img.TexSlots) == 0 {
		return nil
	}
	u := &texUnit{imgs: []*texImage{nil}}
	global := k.Global.Data
	// place appends n zero bytes, 256-aligned, and returns where they are;
	// the launch reserved room for the images (emu.Setup.Global's
	// capacity), so this copies nothing
	place := func(n uint64, what string) (uint64, error) {
		at := (uint64(len(global)) + 255) &^ 255
		if at+n > emu.MaxMemory {
			return 0, fmt.Errorf("does not fit in global memory (%#x bytes)", uint64(emu.MaxMemory))
		}
		global = slices.Grow(global, int(at+n)-len(global))
		tail := global[len(global) : at+n]
		clear(tail)
		global = global[:at+n]
		k.regions = append(k.regions, emu.Region{Name: what, Addr: at, Size: n})
		return at, nil
	}
	for i, li := range append(append([]emu.TexImage(nil), j.Textures...), j.Surfaces...) {
		im, err := newTexImage(li.Name, i >= len(j.Textures), li)
		if err != nil {
			return err
		}
		switch {
		case li.Buffer != "":
			p := s.Buffers[li.Buffer]
			if im.bytes > p.Bytes {
				return fmt.Errorf("%s: buffer %q has %d bytes, the image needs %d", im.what(), li.Buffer, p.Bytes, im.bytes)
			}
			im.base = p.Addr
		default:
			if uint64(len(li.Data)) < im.bytes && li.Data != nil && !li.Pad {
				return fmt.Errorf("%s: %d bytes of texels, the image needs %d (or give a fill)", im.what(), len(li.Data), im.bytes)
			}
			at, err := place(im.bytes, im.what())
			if err != nil {
				return fmt.Errorf("%s %v", im.what(), err)
			}
			data := global[at : at+im.bytes]
			if li.Fill != 0 {
				for j := range data {
					data[j] = li.Fill
				}
			}
			copy(data, li.Data)
			im.base = at
		}
		u.imgs = append(u.imgs, im)
	}
	// descriptor tables, indexed by header index
	td := make([]byte, texDescSize*len(u.imgs))
	sd := make([]byte, surfDescSize*len(u.imgs))
	le := binary.LittleEndian
	for i, im := range u.imgs {
		if im == nil {
			continue
		}
		t := td[i*texDescSize:]
		for d := range 3 {
			le.PutUint32(t[tdAddr0+4*d:], uint32(im.addr[d]))
		}
		le.PutUint32(t[tdFilter:], uint32(b2u(im.linear)))
		le.PutUint32(t[tdNormalized:], uint32(b2u(im.normalized)))
		le.PutUint32(t[tdDataType:], im.f.dataType())
		le.PutUint32(t[tdOrder:], im.f.channelOrder())
		le.PutUint32(t[tdArraySize:], uint32(im.layers))
		le.PutUint32(t[tdLevels:], uint32(im.levels))
		sv := sd[i*surfDescSize:]
		le.PutUint32(sv[sdDepth:], uint32(im.size[2]))
		le.PutUint32(sv[sdDataType:], im.f.dataType())
		le.PutUint32(sv[sdOrder:], im.f.channelOrder())
		le.PutUint32(sv[sdArraySize:], uint32(im.layers))
	}
	tdAt, err := place(uint64(len(td)), "the texture descriptors")
	if err != nil {
		return fmt.Errorf("texture descriptors %v", err)
	}
	copy(global[tdAt:], td)
	sdAt, err := place(uint64(len(sd)), "the surface descriptors")
	if err != nil {
		return fmt.Errorf("surface descriptors %v", err)
	}
	copy(global[sdAt:], sd)
	k.Global.Data = global
	c0 := k.Const[0].Data
	le.PutUint64(c0[cbTexDescTable:], GlobalBase+tdAt)
	le.PutUint64(c0[cbSurfDescTable:], GlobalBase+sdAt)
	for _, sl := range img.TexSlots {
		h, err := j.ImageHandle(slotArg(sl))
		if err != nil {
			h = 0 // unbound: instructions using it fault
			if sl.Bank == texHandleBank {
				if u.unbound == nil {
					u.unbound = map[uint32]string{}
				}
				u.unbound[sl.Offset] = sl.Name
			}
		}
		c := k.Const[sl.Bank].Data
		if int(sl.Offset)+4 <= len(c) {
			le.PutUint32(c[sl.Offset:], uint32(h))
		}
	}
	k.tex = u
	return nil
}

func slotArg(sl TexSlot) emu.Arg {
	if sl.Surface {
		return emu.Surf(sl.Name)
	}
	return emu.Tex(sl.Name)
}

func (im *texImage) what() string {
	if im.surface {
		return fmt.Sprintf("surface %q", im.name)
	}
	return fmt.Sprintf("texture %q", im.name)
}

// dataType and channelOrder are the cudaChannelFormatKind-like codes txq
// returns: PTX documents them as OpenCL's CL_* values; we give those.
func (f texFormat) dataType() uint32 {
	switch {
	case f.kind == 'u' && f.bits == 8:
		return 0x10D2 // CL_UNORM_INT8
	case f.kind == 'u':
		return 0x10D3 // CL_UNORM_INT16
	case f.kind == 's' && f.bits == 8:
		return 0x10D0 // CL_SNORM_INT8
	case f.kind == 's':
		return 0x10D1 // CL_SNORM_INT16
	case f.kind == 'I':
		return map[int]uint32{8: 0x10D7, 16: 0x10D8, 32: 0x10D9}[f.bits]
	case f.kind == 'U':
		return map[int]uint32{8: 0x10DA, 16: 0x10DB, 32: 0x10DC}[f.bits]
	case f.bits == 16:
		return 0x10DD // CL_HALF_FLOAT
	}
	return 0x10DE // CL_FLOAT
}

func (f texFormat) channelOrder() uint32 {
	return map[int]uint32{1: 0x10B0, 2: 0x10B2, 4: 0x10B5}[f.n] // CL_R, CL_RG, CL_RGBA
}

func newTexImage(name string, surface bool, li emu.TexImage) (*texImage, error) {
	im := &texImage{name: name, surface: surface, size: [3]int{1, 1, 1}, layers: 1, levels: 1, compare: 3}
	f, err := parseFormat(li.Format)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", im.what(), err)
	}
	im.f = f
	// the whole size, checked for overflow and against global memory
	// before anything below multiplies or allocates
	total, err := emu.TexBytes(li.Format, li.Size, li.Layers, li.Levels)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", im.what(), err)
	}
	im.dims = len(li.Size)
	copy(im.size[:], li.Size)
	im.layers = max(li.Layers, 1)
	if li.Levels > 0 {
		im.levels = li.Levels
		most := 1
		for d := range 3 {
			most = max(most, bitsLen(im.size[d]))
		}
		if im.levels > most {
			return nil, fmt.Errorf("%s: %d levels, a %v image has at most %d", im.what(), im.levels, im.size, most)
		}
	}
	if li.Cube {
		if surface || im.dims != 2 || im.size[0] != im.size[1] || im.layers%6 != 0 {
			return nil, fmt.Errorf("%s: a cube map is a texture with a square 2D size and 6 layers per cube (%v, %d layers)", im.what(), im.size[:im.dims], im.layers)
		}
		im.cube = true
	}
	switch li.Filter {
	case "", "nearest":
	case "linear":
		im.linear = true
	default:
		return nil, fmt.Errorf("%s: filter %q (nearest, linear)", im.what(), li.Filter)
	}
	switch li.MipFilter {
	case "", "nearest":
	case "linear":
		im.mipLinear = true
	default:
		return nil, fmt.Errorf("%s: mip_filter %q (nearest, linear)", im.what(), li.MipFilter)
	}
	im.addr = [3]uint8{amClamp, amClamp, amClamp}
	if len(li.Address) > 3 {
		return nil, fmt.Errorf("%s: address has more than 3 modes", im.what())
	}
	for d, a := range li.Address {
		m, ok := addrModes[a]
		if !ok {
			return nil, fmt.Errorf("%s: address mode %q (clamp, wrap, mirror, border)", im.what(), a)
		}
		im.addr[d] = m
		if len(li.Address) == 1 {
			im.addr = [3]uint8{m, m, m}
		}
	}
	im.normalized = li.Normalized
	if len(li.Border) > 4 {
		return nil, fmt.Errorf("%s: border has more than 4 components", im.what())
	}
	copy(im.border[:], li.Border)
	if li.Compare != "" {
		c, ok := compareFuncs[li.Compare]
		if !ok {
			return nil, fmt.Errorf("%s: compare %q (never, less, equal, lequal, greater, notequal, gequal, always)", im.what(), li.Compare)
		}
		im.compare = c
	}
	var off uint64
	for lv := range im.levels {
		im.levelOff = append(im.levelOff, off)
		off += uint64(im.levelSize(lv, 0)*im.levelSize(lv, 1)*im.levelSize(lv, 2)) * uint64(im.layers) * uint64(f.bytes)
	}
	im.bytes = off
	if off != total {
		return nil, fmt.Errorf("%s: %d bytes of texels, expected %d", im.what(), off, total)
	}
	return im, nil
}

func bitsLen(n int) int {
	b := 0
	for n > 0 {
		b++
		n >>= 1
	}
	return b
}
