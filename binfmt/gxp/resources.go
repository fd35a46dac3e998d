package gxp

import (
	"encoding/binary"
	"fmt"
)

// Resources is what a GXP says about the data the driver places in
// registers before a program runs: the secondary-attribute containers (the
// default uniform buffer, literals), the literal table, and for fragment
// programs the iterated inputs (varyings and non-dependent texture reads)
// and the output register format.
//
// Layout facts (Vita3K's SceGxmProgram, gxp_parser and the fragment input
// code; our reading): varyings_offset at 0x2c, literals count/offset at
// 0x70/0x74, container count/offset at 0x90/0x94, offsets relative to their
// field. A container is {index u16, unused u16, base SA u16, size u16}: the
// words of buffer `index` land in SA from `base` (14: the default uniform
// buffer; 16 or 19: literals and data). A literal is {SA offset u32 from the
// literal container's base, value u32}. A dependent sampler (count/offset
// at 0x80/0x84) is {resource index * 4 u16, SA offset u16}. The varyings block has the
// fragment output start (byte 8), type (10) and component count (11), the
// descriptor count (u16 at 12) and the offset of 16-byte descriptors {info,
// resource index, size, component info} (u32 at 16, relative to itself).
type Resources struct {
	Containers []Container
	Literals   []Literal
	// Samplers a program reads with texture instructions (dependent
	// reads): the texture unit and the SA register, from the data
	// container's base, where the driver puts the texture's state.
	Samplers []DependentSampler
	// OutputRegs (vertex programs): how many O registers the program's
	// outputs take (the top byte of the varyings block's first output word:
	// 4 for POSITION alone, 6 with a float2 TEXCOORD0, 8 with a COLOR, in
	// the libvita2d GXPs).
	OutputRegs int
	// Fragment programs only.
	Inputs []FragmentInput
	Output FragmentOutput
}

// Container places a buffer's words in secondary-attribute registers.
type Container struct {
	Index  uint16 // 14: default uniform buffer; 16/19: literals and data
	BaseSA uint16 // first SA register
	Size   uint16 // words
}

// Literal is a constant the driver writes to an SA register.
type Literal struct {
	Offset uint32 // from the literal container's base
	Value  uint32 // f32 bits
}

// DependentSampler ties a texture unit to an SA register.
type DependentSampler struct {
	Unit     int    // texture unit (the sampler parameter's resource index)
	SAOffset uint16 // from the data container's (19) base
}

// InputKind says what a fragment input iterates.
type InputKind uint8

const (
	InputNone     InputKind = iota // a descriptor with only a texture read
	InputTexcoord                  // TEXCOORD0..9 (Index)
	InputColor                     // COLOR0..1 (Index)
	InputFog
	InputPosition
	InputSpriteCoord
)

// FragmentInput is one descriptor of a fragment program's inputs: an
// interpolated value in PA registers, and/or a texture sampled at a
// texture coordinate before the program starts (a non-dependent read),
// whose result also lands in PA registers.
type FragmentInput struct {
	Kind       InputKind
	Index      int    // texcoord or colour number
	Format     Type   // F32, F16, C10 or U8 (the parameter type codes)
	Components int    // 1..4
	PA         int    // first PA register of the iterated value
	Regs       int    // PA registers it takes
	Info       uint32 // the raw descriptor words
	Resource   uint32
	SizeWord   uint32
	CompInfo   uint32

	// Sample: a non-dependent texture read.
	Sample       bool
	SampleCoord  int  // the texcoord it reads (10: the point coordinate)
	Texture      int  // texture unit (the sampler's resource index)
	SampleFormat Type // F32, F16 or U8 result
	SamplePA     int
	SampleRegs   int
	Projected    bool // coordinates divided by their last component
	CoordComps   int  // 2 (xy), 3 (xyz) or 4 (xyw, projected)
}

// FragmentOutput is where a fragment program leaves its colour.
type FragmentOutput struct {
	Type        Type  // parameter type of the colour (F16, F32, U8, ...)
	Components  uint8 // 1..4
	StartPA     uint8 // first PA register when Type is F16
	NativeColor bool  // the colour is in the O bank (program type bit 6)
}

const (
	maxContainers = 64
	maxLiterals   = 1 << 12
	maxInputs     = 64
)

// ParseResources reads the containers, literals and (fragment programs)
// inputs and output of a GXP file that Parse accepted. Inconsistent
// offsets and counts are errors wrapping ErrFormat.
func ParseResources(b []byte) (*Resources, error) {
	p, err := Parse(b)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	if len(b) < 0x98 {
		return &Resources{}, nil // an old header without these tables
	}
	u32 := func(off uint64) uint32 { return le.Uint32(b[off:]) }
	rel := func(field uint64) uint64 { return field + uint64(u32(field)) }
	table := func(countAt, offAt uint64, size uint64, limit uint32, what string) (uint64, uint32, error) {
		n := u32(countAt)
		if n == 0 {
			return 0, 0, nil
		}
		if n > limit {
			return 0, 0, bad(countAt, "%d %s (limit %d)", n, what, limit)
		}
		at := rel(offAt)
		if at+uint64(n)*size > uint64(len(b)) {
			return 0, 0, bad(offAt, "%d %s at 0x%x run past the file", n, what, at)
		}
		return at, n, nil
	}
	r := &Resources{}
	at, n, err := table(0x90, 0x94, 8, maxContainers, "containers")
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < uint64(n); i++ {
		o := at + 8*i
		r.Containers = append(r.Containers, Container{Index: le.Uint16(b[o:]), BaseSA: le.Uint16(b[o+4:]), Size: le.Uint16(b[o+6:])})
	}
	at, n, err = table(0x70, 0x74, 8, maxLiterals, "literals")
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < uint64(n); i++ {
		o := at + 8*i
		r.Literals = append(r.Literals, Literal{Offset: u32(o), Value: u32(o + 4)})
	}
	at, n, err = table(0x80, 0x84, 4, maxContainers, "dependent samplers")
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < uint64(n); i++ {
		o := at + 4*i
		r.Samplers = append(r.Samplers, DependentSampler{Unit: int(le.Uint16(b[o:]) / 4), SAOffset: le.Uint16(b[o+2:])})
	}
	if p.Kind == Vertex {
		if vo := uint64(0x2c) + uint64(le.Uint32(b[0x2c:])); vo+20 <= uint64(len(b)) {
			r.OutputRegs = int(b[vo+19])
		}
	}
	if p.Kind == Fragment {
		if err := r.parseFragment(b, p); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Container returns the container with the given index.
func (r *Resources) Container(index uint16) (Container, bool) {
	for _, c := range r.Containers {
		if c.Index == index {
			return c, true
		}
	}
	return Container{}, false
}

// LiteralBase is the first SA register of the literal container (16, else
// 19), as the driver places literals.
func (r *Resources) LiteralBase() (uint16, bool) {
	if c, ok := r.Container(16); ok {
		return c.BaseSA, true
	}
	if c, ok := r.Container(19); ok {
		return c.BaseSA, true
	}
	return 0, false
}

func (r *Resources) parseFragment(b []byte, p *Program) error {
	le := binary.LittleEndian
	vo := uint64(0x2c) + uint64(le.Uint32(b[0x2c:]))
	if vo+20 > uint64(len(b)) {
		return bad(0x2c, "varyings at 0x%x run past the file", vo)
	}
	r.Output = FragmentOutput{
		StartPA:     b[vo+8],
		Type:        Type(b[vo+10]),
		Components:  b[vo+11],
		NativeColor: p.Flags>>6&1 != 0,
	}
	n := uint64(le.Uint16(b[vo+12:]))
	if n == 0 {
		return nil
	}
	if n > maxInputs {
		return bad(vo+12, "%d fragment inputs (limit %d)", n, maxInputs)
	}
	at := vo + 16 + uint64(le.Uint32(b[vo+16:]))
	if at+16*n > uint64(len(b)) {
		return bad(vo+16, "%d fragment inputs at 0x%x run past the file", n, at)
	}
	pa := 0
	for i := uint64(0); i < n; i++ {
		o := at + 16*i
		in := FragmentInput{Info: le.Uint32(b[o:]), Resource: le.Uint32(b[o+4:]), SizeWord: le.Uint32(b[o+8:]), CompInfo: le.Uint32(b[o+12:])}
		if id := in.Info & 0x4000f000; id != 0xf000 {
			switch {
			case id&0x40000000 != 0:
				in.Kind = InputSpriteCoord
			case id <= 0x9000:
				in.Kind, in.Index = InputTexcoord, int(id>>12)
			case id == 0xa000 || id == 0xb000:
				in.Kind, in.Index = InputColor, int(id>>12-0xa)
			case id == 0xc000:
				in.Kind = InputFog
			case id == 0xd000:
				in.Kind = InputPosition
			default:
				return bad(o, "fragment input %d: unknown kind 0x%x", i, id)
			}
			colour := in.Kind == InputColor
			switch t := in.Info & 0x30100000; {
			case t == 0x20000000:
				in.Format = F16
			case t == 0x10000000:
				in.Format = C10
			case t == 0x00100000 && colour, t == 0 && !colour:
				in.Format = F32
			default:
				in.Format = U8
			}
			in.Components = int(in.Info>>22&3) + 1
			in.PA, in.Regs = pa, int(in.SizeWord>>4&3)+1
			pa += in.Regs
		}
		if tc := in.Info & 0x40f; tc != 0xf {
			in.Sample = true
			in.SampleCoord = int(tc)
			if tc == 0x400 {
				in.SampleCoord = 10
			}
			in.Texture = int(in.Resource)
			switch in.CompInfo >> 4 & 3 {
			case 0:
				in.SampleFormat = U8
			case 3:
				in.SampleFormat = F32
			default:
				in.SampleFormat = F16
			}
			switch in.Info & 0x300 {
			case 0x100:
				in.CoordComps = 2
			case 0x300:
				in.CoordComps = 3
				in.Projected = true
			default:
				in.CoordComps = 4
				in.Projected = true
			}
			in.SamplePA, in.SampleRegs = pa, int(in.SizeWord>>6&3)+1
			pa += in.SampleRegs
		}
		r.Inputs = append(r.Inputs, in)
	}
	if pa > 1<<10 {
		return fmt.Errorf("%w: fragment inputs take %d PA registers", ErrFormat, pa)
	}
	return nil
}

// Parameter type codes (the Type of a parameter, also used for formats).
const (
	F32 Type = iota
	F16
	C10
	U32
	S32
	U16
	S16
	U8
	S8
	Aggregate
)
