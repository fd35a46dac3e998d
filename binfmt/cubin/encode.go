package cubin

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// EncodeOptions selects how Encode lays out a file.
type EncodeOptions struct {
	// ProgramHeaders appends the program header table ptxas and nvlink
	// write for executable cubins (ET_EXEC): PHDR, a LOAD segment over the
	// allocated read-only sections, one over the allocated writable ones
	// (shared memory, global data), and a LOAD of the table itself.
	ProgramHeaders bool
}

// Encode writes f as an ELF file laid out as ptxas (and Write) lay out
// cubins: the ELF header, each section's data in section order at its
// alignment (sections without file data take the offset reached, and no
// room), the section header table 8-aligned, then (with ProgramHeaders) the
// program headers. It is the inverse of Parse for ptxas's, nvlink's and
// Write's cubins: Encode(Parse(b)) == b for the oracle's 110 and the 42
// committed ones (TestEncodeOracle).
//
// The sections are written as they are: Data for sections with file data
// (.symtab and the string tables included), Size for the others. Section
// names are looked up in the section name table (the .shstrtab section), so
// each must be there.
func Encode(f *File, opts EncodeOptions) ([]byte, error) {
	if f.Class != 32 && f.Class != 64 {
		return nil, fmt.Errorf("cubin.Encode: class %d, want 32 or 64", f.Class)
	}
	is64 := f.Class == 64
	lay := layout32
	if is64 {
		lay = layout64
	}
	shstrndx := -1
	for i := range f.Sections {
		if f.Sections[i].Type == SecStrtab && f.Sections[i].Name == ".shstrtab" {
			shstrndx = i
			break
		}
	}
	if shstrndx < 0 && len(f.Sections) > 0 {
		return nil, fmt.Errorf("cubin.Encode: no .shstrtab section")
	}
	names := make([]uint32, len(f.Sections))
	for i := range f.Sections {
		if i == 0 && f.Sections[i].Name == "" {
			continue
		}
		off, ok := StringIndex(f.Sections[shstrndx].Data, f.Sections[i].Name)
		if !ok {
			return nil, fmt.Errorf("cubin.Encode: section %d name %q is not in .shstrtab", i, f.Sections[i].Name)
		}
		names[i] = off
	}
	out := make([]byte, lay.ehsize)
	offs := make([]uint64, len(f.Sections))
	// the segments: allocated read-only sections (code, constants), then
	// allocated writable ones (shared memory, globals), each contiguous
	var loadStart, loadEnd, rwStart, rwFile, rwMem uint64
	haveLoad, haveRW := false, false
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Type == SecNull {
			continue
		}
		if a := max(s.Align, 1); uint64(len(out))%a != 0 {
			out = append(out, make([]byte, a-uint64(len(out))%a)...)
		}
		offs[i] = uint64(len(out))
		writable := s.Flags&SHFAlloc != 0 && s.Flags&SHFWrite != 0
		if writable && (s.Type == SecNobits || hasFileData(s.Type)) {
			if !haveRW {
				rwStart, haveRW = offs[i], true
			}
			if hasFileData(s.Type) {
				rwFile += uint64(len(s.Data))
				rwMem += uint64(len(s.Data))
			} else {
				rwMem += s.Size
			}
		}
		if !hasFileData(s.Type) {
			continue
		}
		out = append(out, s.Data...)
		if s.Flags&SHFAlloc != 0 && !writable {
			if !haveLoad {
				loadStart, haveLoad = offs[i], true
			}
			loadEnd = uint64(len(out))
		}
	}
	for len(out)%8 != 0 {
		out = append(out, 0) // the section headers start 8-aligned
	}
	shoff := uint64(len(out))
	le := binary.LittleEndian
	word := func(v uint64) {
		if is64 {
			out = le.AppendUint64(out, v)
		} else {
			out = le.AppendUint32(out, uint32(v))
		}
	}
	for i := range f.Sections {
		s := &f.Sections[i]
		size := uint64(len(s.Data))
		if !hasFileData(s.Type) {
			size = s.Size
		}
		out = le.AppendUint32(out, names[i])
		out = le.AppendUint32(out, s.Type)
		word(s.Flags)
		word(s.Addr)
		word(offs[i])
		word(size)
		out = le.AppendUint32(out, s.Link)
		out = le.AppendUint32(out, s.Info)
		word(s.Align)
		word(s.EntSize)
	}
	// program headers: p_type, p_flags (ELF64: right after the type), offset,
	// vaddr, paddr, filesz, memsz, align
	phentsize := uint64(56)
	if !is64 {
		phentsize = 32
	}
	var phoff, phnum uint64
	if opts.ProgramHeaders {
		phoff = uint64(len(out))
		phnum = 2
		if haveLoad {
			phnum++
		}
		if haveRW {
			phnum++
		}
		tab := phnum * phentsize
		phdr := func(typ, flags uint32, off, filesz, memsz uint64) {
			out = le.AppendUint32(out, typ)
			if is64 {
				out = le.AppendUint32(out, flags)
			}
			word(off)
			word(0)
			word(0)
			word(filesz)
			word(memsz)
			if !is64 {
				out = le.AppendUint32(out, flags)
			}
			word(8)
		}
		const ptLoad, ptPhdr, pfRX, pfRW = 1, 6, 5, 6
		phdr(ptPhdr, pfRX, phoff, tab, tab)
		if haveLoad {
			phdr(ptLoad, pfRX, loadStart, loadEnd-loadStart, loadEnd-loadStart)
		}
		if haveRW {
			phdr(ptLoad, pfRW, rwStart, rwFile, rwMem)
		}
		phdr(ptLoad, pfRX, phoff, tab, tab)
	}
	h := out[:lay.ehsize]
	copy(h, "\x7fELF")
	h[4] = 1
	if is64 {
		h[4] = 2
	}
	h[5], h[6], h[7], h[8] = 1, 1, f.OSABI, f.ABIVersion
	le.PutUint16(h[16:], f.Type)
	le.PutUint16(h[18:], f.Machine)
	le.PutUint32(h[20:], f.Version)
	var p int
	if is64 {
		le.PutUint64(h[24:], f.Entry)
		le.PutUint64(h[32:], phoff)
		le.PutUint64(h[40:], shoff)
		p = 48
	} else {
		le.PutUint32(h[24:], uint32(f.Entry))
		le.PutUint32(h[28:], uint32(phoff))
		le.PutUint32(h[32:], uint32(shoff))
		p = 36
	}
	le.PutUint32(h[p:], f.Flags)
	le.PutUint16(h[p+4:], uint16(lay.ehsize))
	le.PutUint16(h[p+6:], uint16(phentsize))
	le.PutUint16(h[p+8:], uint16(phnum))
	le.PutUint16(h[p+10:], uint16(lay.shentsize))
	le.PutUint16(h[p+12:], uint16(len(f.Sections)))
	le.PutUint16(h[p+14:], uint16(max(shstrndx, 0)))
	return out, nil
}

// StringIndex returns the offset of name in an ELF string table: the first
// place where it stands as a whole NUL-terminated string (the empty name is
// at 0).
func StringIndex(tab []byte, name string) (uint32, bool) {
	if name == "" {
		return 0, true
	}
	for from := 0; from < len(tab); {
		i := bytes.Index(tab[from:], []byte(name))
		if i < 0 {
			return 0, false
		}
		at := from + i
		if at > 0 && tab[at-1] == 0 && at+len(name) < len(tab) && tab[at+len(name)] == 0 {
			return uint32(at), true
		}
		from = at + 1
	}
	return 0, false
}
