package fuzzseed

import (
	"encoding/binary"
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// Rebuild writes an ELF file with the header and sections of data (any
// little-endian ELF that cubin.ParseELF reads) after edit has changed them:
// it may replace a section's Data (its Size follows) and append sections.
// Section indices stay, so symbols and links keep pointing where they did.
// Program headers are dropped (nothing gpuisa reads uses them).
func Rebuild(data []byte, edit func(secs []cubin.Section) []cubin.Section) ([]byte, error) {
	f, err := cubin.ParseELF(data)
	if err != nil {
		return nil, err
	}
	secs := append([]cubin.Section(nil), f.Sections...)
	if edit != nil {
		secs = edit(secs)
	}
	is64 := f.Class == 64
	ehsize, shentsize := 52, 40
	if is64 {
		ehsize, shentsize = 64, 64
	}
	// the section name table is rebuilt from the names
	shstrndx := -1
	for i, s := range secs {
		if s.Name == ".shstrtab" {
			shstrndx = i
		}
	}
	if shstrndx < 0 {
		return nil, fmt.Errorf("no .shstrtab")
	}
	names := []byte{0}
	nameOff := make([]uint32, len(secs))
	for i, s := range secs {
		if i == 0 {
			continue
		}
		nameOff[i] = uint32(len(names))
		names = append(append(names, s.Name...), 0)
	}
	secs[shstrndx].Data = names
	out := make([]byte, ehsize)
	offs := make([]uint64, len(secs))
	for i := range secs {
		s := &secs[i]
		if s.Data == nil {
			continue // no file data: only a size
		}
		align := max(s.Align, 1)
		for uint64(len(out))%align != 0 {
			out = append(out, 0)
		}
		offs[i] = uint64(len(out))
		s.Size = uint64(len(s.Data))
		out = append(out, s.Data...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))
	le := binary.LittleEndian
	for i, s := range secs {
		h := make([]byte, shentsize)
		le.PutUint32(h[0:], nameOff[i])
		le.PutUint32(h[4:], s.Type)
		if is64 {
			le.PutUint64(h[8:], s.Flags)
			le.PutUint64(h[16:], s.Addr)
			le.PutUint64(h[24:], offs[i])
			le.PutUint64(h[32:], s.Size)
			le.PutUint32(h[40:], s.Link)
			le.PutUint32(h[44:], s.Info)
			le.PutUint64(h[48:], s.Align)
			le.PutUint64(h[56:], s.EntSize)
		} else {
			le.PutUint32(h[8:], uint32(s.Flags))
			le.PutUint32(h[12:], uint32(s.Addr))
			le.PutUint32(h[16:], uint32(offs[i]))
			le.PutUint32(h[20:], uint32(s.Size))
			le.PutUint32(h[24:], s.Link)
			le.PutUint32(h[28:], s.Info)
			le.PutUint32(h[32:], uint32(s.Align))
			le.PutUint32(h[36:], uint32(s.EntSize))
		}
		out = append(out, h...)
	}
	// the header: identification, then the fields at their class's offsets
	copy(out, data[:16])
	le.PutUint16(out[16:], f.Type)
	le.PutUint16(out[18:], f.Machine)
	le.PutUint32(out[20:], f.Version)
	var flagsOff int
	if is64 {
		le.PutUint64(out[24:], f.Entry)
		le.PutUint64(out[40:], shoff)
		flagsOff = 48
	} else {
		le.PutUint32(out[24:], uint32(f.Entry))
		le.PutUint32(out[32:], uint32(shoff))
		flagsOff = 36
	}
	le.PutUint32(out[flagsOff:], f.Flags)
	h := flagsOff + 4
	le.PutUint16(out[h:], uint16(ehsize))
	le.PutUint16(out[h+6:], uint16(shentsize))
	le.PutUint16(out[h+8:], uint16(len(secs)))
	le.PutUint16(out[h+10:], uint16(shstrndx))
	return out, nil
}
