package gxp

import "encoding/binary"

// Write builds a GXP file from a program and its resources: the header,
// the varyings block (fragment output and input descriptors), the
// parameter, container, literal and dependent-sampler tables, both
// programs and the parameter names, laid out as Parse and ParseResources
// read them. Fields it does not model are 0. It lets tests and examples
// make shaders from assembled code.
func Write(p *Program, r *Resources) []byte {
	if r == nil {
		r = &Resources{}
	}
	le := binary.LittleEndian
	const hdr = 0x98
	b := make([]byte, hdr)
	copy(b, "GXP\x00")
	b[4], b[5] = max(p.Major, 1), p.Minor
	if p.Major == 0 && p.Minor == 0 {
		b[5] = 5
	}
	le.PutUint16(b[6:], p.SDKVersion)
	flags := p.Flags &^ 1
	if p.Kind == Fragment {
		flags |= 1
	}
	le.PutUint32(b[0x14:], flags)
	le.PutUint16(b[0x30:], p.PARegs)
	le.PutUint16(b[0x32:], p.SARegs)
	le.PutUint32(b[0x34:], p.TempRegs)
	rel := func(field int) { le.PutUint32(b[field:], uint32(len(b)-field)) }
	align := func() {
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	// varyings
	rel(0x2c)
	vo := len(b)
	b = append(b, make([]byte, 20)...)
	if p.Kind == Vertex {
		b[vo+19] = byte(r.OutputRegs)
	}
	if p.Kind == Fragment {
		b[vo+8], b[vo+10], b[vo+11] = r.Output.StartPA, byte(r.Output.Type), r.Output.Components
		le.PutUint16(b[vo+12:], uint16(len(r.Inputs)))
		le.PutUint32(b[vo+16:], 4)
		for _, in := range r.Inputs {
			b = le.AppendUint32(b, in.Info)
			b = le.AppendUint32(b, in.Resource)
			b = le.AppendUint32(b, in.SizeWord)
			b = le.AppendUint32(b, in.CompInfo)
		}
	}
	b = append(b, make([]byte, 12)...) // the block is at least 32 bytes
	// parameters (names patched in at the end)
	le.PutUint32(b[0x24:], uint32(len(p.Params)))
	rel(0x28)
	paramAt := len(b)
	for _, par := range p.Params {
		e := make([]byte, paramSize)
		le.PutUint16(e[4:], uint16(par.Category)&0xf|uint16(par.Type&0xf)<<4|uint16(par.Components&0xf)<<8|uint16(par.Container&0xf)<<12)
		e[6], e[7] = par.Semantic, par.SemanticIndex
		le.PutUint32(e[8:], par.ArraySize)
		le.PutUint32(e[12:], uint32(par.ResourceIndex))
		b = append(b, e...)
	}
	le.PutUint32(b[0x90:], uint32(len(r.Containers)))
	rel(0x94)
	for _, c := range r.Containers {
		b = le.AppendUint16(b, c.Index)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint16(b, c.BaseSA)
		b = le.AppendUint16(b, c.Size)
	}
	le.PutUint32(b[0x70:], uint32(len(r.Literals)))
	rel(0x74)
	for _, l := range r.Literals {
		b = le.AppendUint32(b, l.Offset)
		b = le.AppendUint32(b, l.Value)
	}
	le.PutUint32(b[0x80:], uint32(len(r.Samplers)))
	rel(0x84)
	for _, s := range r.Samplers {
		b = le.AppendUint16(b, uint16(4*s.Unit))
		b = le.AppendUint16(b, s.SAOffset)
	}
	align()
	rel(0x48)
	for _, w := range p.Secondary {
		b = le.AppendUint64(b, w)
	}
	rel(0x4c)
	le.PutUint32(b[0x3c:], uint32(len(p.Primary)))
	rel(0x40)
	for _, w := range p.Primary {
		b = le.AppendUint64(b, w)
	}
	for i, par := range p.Params {
		at := paramAt + i*paramSize
		le.PutUint32(b[at:], uint32(len(b)-at))
		b = append(append(b, par.Name...), 0)
	}
	align()
	le.PutUint32(b[8:], uint32(len(b)))
	return b
}
