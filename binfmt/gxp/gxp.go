// Package gxp reads PS Vita GXP shader files (SceGxmProgram): the header,
// the primary and secondary USSE programs and the parameter table with the
// registers each parameter is assigned to.
//
// Layout facts (little-endian; offsets are relative to the field that holds
// them): magic "GXP\0" at 0, version at 4, size at 8, program_flags at 0x14
// (bit 0 set = fragment program), parameter_count/offset at 0x24/0x28,
// PA/SA register counts at 0x30/0x32, temp count at 0x34, primary program
// instruction count/offset at 0x3c/0x40, secondary program
// count/offset/end at 0x44/0x48/0x4c. A parameter is 16 bytes: name offset
// (relative to the parameter), a 16-bit word with category:4 type:4
// components:4 container:4, semantic, semantic index, array size, resource
// index (the first register).
package gxp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrFormat wraps every error about a malformed file.
var ErrFormat = errors.New("gxp: malformed file")

// Kind is the program type.
type Kind uint8

const (
	Vertex Kind = iota
	Fragment
)

func (k Kind) String() string {
	if k == Fragment {
		return "fragment"
	}
	return "vertex"
}

// Program is a parsed GXP file.
type Program struct {
	Major, Minor uint8
	SDKVersion   uint16
	Size         uint32 // bytes, as the header says
	Flags        uint32 // program_flags
	Kind         Kind
	PARegs       uint16 // primary attribute registers
	SARegs       uint16 // secondary attribute registers
	TempRegs     uint32

	Primary         []uint64 // instruction words of the primary program
	PrimaryOffset   uint32   // file offset of Primary[0]
	Secondary       []uint64 // instruction words of the secondary program
	SecondaryOffset uint32

	Params []Param
}

// Param is one entry of the parameter table.
type Param struct {
	Name          string
	Category      Category
	Type          Type
	Components    uint8
	Container     uint8
	Semantic      uint8
	SemanticIndex uint8
	ArraySize     uint32
	ResourceIndex int32
}

// Category says what a parameter is.
type Category uint8

const (
	Attribute Category = iota
	Uniform
	Sampler
	AuxSurface
	UniformBuffer
)

var categoryNames = [...]string{"attribute", "uniform", "sampler", "auxsurface", "uniformbuffer"}

func (c Category) String() string {
	if int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return fmt.Sprintf("category%d", uint8(c))
}

// Type is a parameter's data type.
type Type uint8

var typeNames = [...]string{"f32", "f16", "c10", "u32", "s32", "u16", "s16", "u8", "s8", "aggregate"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type%d", uint8(t))
}

// Register names the first register the parameter lives in: attributes in
// pa, uniforms in sa, samplers and buffers by their resource index.
func (p *Param) Register() string {
	switch p.Category {
	case Attribute:
		return fmt.Sprintf("pa%d", p.ResourceIndex)
	case Uniform:
		return fmt.Sprintf("sa%d", p.ResourceIndex)
	case Sampler:
		return fmt.Sprintf("tex%d", p.ResourceIndex)
	}
	return fmt.Sprintf("res%d", p.ResourceIndex)
}

const (
	headerSize = 0x50 // the fields we read end at 0x50
	paramSize  = 16
	maxWords   = 1 << 20
)

// bad is a format error at byte offset off of the file.
func bad(off uint64, format string, a ...any) error {
	return fmt.Errorf("%w: at 0x%x: %s", ErrFormat, off, fmt.Sprintf(format, a...))
}

// maxNameLen bounds a parameter name: each is searched for its end, and
// many parameters naming one long string must not cost the file's size
// squared.
const maxNameLen = 1 << 12

// maxParams bounds the parameter table (real shaders have tens), so that
// reading every name costs at most maxParams x maxNameLen.
const maxParams = 1 << 16

// Parse reads a GXP file. It never panics; every inconsistency (bad magic,
// offsets or counts outside the file, unterminated names) is an error
// wrapping ErrFormat.
func Parse(b []byte) (*Program, error) {
	if len(b) < headerSize {
		return nil, bad(uint64(len(b)), "the file ends after %d bytes; the header needs %d", len(b), headerSize)
	}
	if string(b[:4]) != "GXP\x00" {
		return nil, bad(0, "magic %q, want \"GXP\\0\"", b[:4])
	}
	le := binary.LittleEndian
	u32 := func(off int) uint32 { return le.Uint32(b[off:]) }
	p := &Program{
		Major:      b[4],
		Minor:      b[5],
		SDKVersion: le.Uint16(b[6:]),
		Size:       u32(8),
		Flags:      u32(0x14),
		PARegs:     le.Uint16(b[0x30:]),
		SARegs:     le.Uint16(b[0x32:]),
		TempRegs:   u32(0x34),
	}
	if p.Flags&1 != 0 {
		p.Kind = Fragment
	}
	if p.Size > uint32(len(b)) {
		return nil, bad(8, "header size %d exceeds the %d-byte file", p.Size, len(b))
	}
	// relative offsets: target = position of the field + value
	rel := func(field int) (uint64, error) {
		t := uint64(field) + uint64(u32(field))
		if t > uint64(len(b)) {
			return 0, bad(uint64(field), "offset points to 0x%x, beyond the file", t)
		}
		return t, nil
	}
	words := func(field int, start uint64, n uint64, what string) ([]uint64, error) {
		if n > maxWords || start+8*n > uint64(len(b)) {
			return nil, bad(uint64(field), "%s: %d words at 0x%x run past the file", what, n, start)
		}
		w := make([]uint64, n)
		for i := range w {
			w[i] = le.Uint64(b[start+8*uint64(i):])
		}
		return w, nil
	}
	start, err := rel(0x40)
	if err != nil {
		return nil, err
	}
	if p.Primary, err = words(0x3c, start, uint64(u32(0x3c)), "primary program"); err != nil {
		return nil, err
	}
	p.PrimaryOffset = uint32(start)
	sStart, err := rel(0x48)
	if err != nil {
		return nil, err
	}
	sEnd, err := rel(0x4c)
	if err != nil {
		return nil, err
	}
	if sEnd < sStart || (sEnd-sStart)%8 != 0 {
		return nil, bad(0x48, "secondary program bounds 0x%x..0x%x", sStart, sEnd)
	}
	if p.Secondary, err = words(0x48, sStart, (sEnd-sStart)/8, "secondary program"); err != nil {
		return nil, err
	}
	p.SecondaryOffset = uint32(sStart)

	n := uint64(u32(0x24))
	if n > 0 {
		pStart, err := rel(0x28)
		if err != nil {
			return nil, err
		}
		if pStart+n*paramSize > uint64(len(b)) {
			return nil, bad(0x24, "%d parameters at 0x%x run past the file", n, pStart)
		}
		if n > maxParams {
			return nil, bad(0x24, "%d parameters, more than %d", n, maxParams)
		}
		p.Params = make([]Param, n)
		for i := range p.Params {
			off := pStart + uint64(i)*paramSize
			name, err := cstring(b, int64(off)+int64(int32(u32(int(off)))))
			if err != nil {
				return nil, bad(off, "parameter %d: %v", i, err)
			}
			bits := le.Uint16(b[off+4:])
			p.Params[i] = Param{
				Name:          name,
				Category:      Category(bits & 0xf),
				Type:          Type(bits >> 4 & 0xf),
				Components:    uint8(bits >> 8 & 0xf),
				Container:     uint8(bits >> 12),
				Semantic:      b[off+6],
				SemanticIndex: b[off+7],
				ArraySize:     u32(int(off) + 8),
				ResourceIndex: int32(u32(int(off) + 12)),
			}
		}
	}
	return p, nil
}

func cstring(b []byte, at int64) (string, error) {
	if at < 0 || at >= int64(len(b)) {
		return "", fmt.Errorf("name offset 0x%x outside the file", at)
	}
	window := b[at:min(int64(len(b)), at+maxNameLen+1)]
	if i := bytes.IndexByte(window, 0); i >= 0 {
		return string(window[:i]), nil
	}
	return "", fmt.Errorf("name at 0x%x is unterminated or longer than %d bytes", at, maxNameLen)
}

// Code returns a program's words as little-endian bytes (what a raw-binary
// disassembler takes).
func Code(words []uint64) []byte {
	out := make([]byte, 0, 8*len(words))
	for _, w := range words {
		out = binary.LittleEndian.AppendUint64(out, w)
	}
	return out
}
