package cubin

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// ELF constants that cubins use. The CUDA-specific values were confirmed by
// feeding variants to CUDA 11.8 cuobjdump -elf and nvdisasm.
const (
	EMCUDA = 190 // e_machine of every cubin

	ETRel  = 1 // e_type of relocatable cubins (ptxas -c)
	ETExec = 2 // e_type of linked cubins

	SecNull     = 0
	SecProgbits = 1
	SecSymtab   = 2
	SecStrtab   = 3
	SecRela     = 4
	SecNobits   = 8
	SecRel      = 9

	SecCUDAInfo       = 0x70000000 // .nv.info, .nv.info.<fn>: EIATTR records
	SecCUDACallgraph  = 0x70000001
	SecCUDAPrototype  = 0x70000002
	SecCUDAGlobal     = 0x70000007 // .nv.global in relocatable cubins: no file data
	SecCUDALocal      = 0x70000009 // .nv.local.<fn> in relocatable cubins: no file data
	SecCUDAShared     = 0x7000000a // .nv.shared.<fn> in relocatable cubins: no file data
	SecCUDARelocInfo  = 0x7000000b // .nv.rel.action
	SecCUDAConstant0  = 0x70000064 // .nv.constant<N> may have type SecCUDAConstant0+N (or PROGBITS)
	SHFAlloc          = 0x2
	SHFExecInstr      = 0x4
	SHFWrite          = 0x1
	shfBarriersShift  = 20 // .text sh_flags bits 20..: number of barriers (nvdisasm SHF_BARRIERS=n)
	shfBarriersMask   = 0x7f
	shiRegistersShift = 24 // .text sh_info bits 24..31: registers (nvdisasm SHI_REGISTERS=n)
)

// Section is one ELF section. Data aliases the input passed to Parse; it is nil
// for sections without file data (SHT_NOBITS, and SHT_CUDA_SHARED/LOCAL/GLOBAL
// in relocatable cubins: .nv.shared.*, .nv.local.*, .nv.global), whose Size
// is still meaningful.
type Section struct {
	Name    string
	Type    uint32
	Flags   uint64
	Addr    uint64
	Offset  uint64
	Size    uint64
	Link    uint32
	Info    uint32
	Align   uint64
	EntSize uint64
	Data    []byte
}

// Symbol is one .symtab entry.
type Symbol struct {
	Name    string
	Value   uint64
	Size    uint64
	Info    uint8  // st_info: binding << 4 | type
	Other   uint8  // st_other: 0x10 marks a kernel entry (STO_CUDA_ENTRY)
	Section uint16 // st_shndx
}

// Bind is the symbol binding (0 local, 1 global, 2 weak).
func (s Symbol) Bind() uint8 { return s.Info >> 4 }

// Type is the symbol type (0 none, 1 object, 2 func, 3 section).
func (s Symbol) Type() uint8 { return s.Info & 0xf }

// Reloc is one relocation entry of a REL or RELA section.
type Reloc struct {
	Offset uint64 // byte offset in the relocated section
	Type   uint32 // R_CUDA_* number; RelocTypeName gives its name
	Symbol uint32 // index into File.Symbols
	Addend int64  // RELA only
}

// header sizes per class
type layout struct {
	ehsize, shentsize, symentsize, relsize, relasize uint64
}

var (
	layout32 = layout{52, 40, 16, 8, 12}
	layout64 = layout{64, 64, 24, 16, 24}
)

// reader reads little-endian fields of either class at absolute offsets; the
// caller has checked bounds.
type reader struct {
	b    []byte
	is64 bool
}

func (r reader) u16(off uint64) uint16 { return binary.LittleEndian.Uint16(r.b[off:]) }
func (r reader) u32(off uint64) uint32 { return binary.LittleEndian.Uint32(r.b[off:]) }
func (r reader) u64(off uint64) uint64 { return binary.LittleEndian.Uint64(r.b[off:]) }

// word reads an address-sized field: 4 bytes in ELF32, 8 in ELF64.
func (r reader) word(off uint64) uint64 {
	if r.is64 {
		return r.u64(off)
	}
	return uint64(r.u32(off))
}

// inBounds reports whether [off, off+size) lies inside a buffer of n bytes,
// without overflowing.
func inBounds(off, size, n uint64) bool { return off <= n && size <= n-off }

// parseELF reads the ELF header, section table, section names and symbol
// table of any little-endian ELF file. Interpretation as a cubin comes later.
func parseELF(data []byte) (*File, error) {
	n := uint64(len(data))
	if n < 16 {
		return nil, errAt(0, "file is %d bytes, too short for an ELF identification (16 bytes)", n)
	}
	if !bytes.Equal(data[:4], []byte("\x7fELF")) {
		return nil, errAt(0, "bad ELF magic % x", data[:4])
	}
	f := &File{OSABI: data[7], ABIVersion: data[8]}
	var lay layout
	switch data[4] {
	case 1:
		f.Class, lay = 32, layout32
	case 2:
		f.Class, lay = 64, layout64
	default:
		return nil, errAt(4, "bad ELF class %d (want 1 for ELF32 or 2 for ELF64)", data[4])
	}
	if data[5] != 1 {
		return nil, errAt(5, "ELF data encoding %d is not little-endian (1)", data[5])
	}
	if n < lay.ehsize {
		return nil, errAt(n, "file is %d bytes, too short for the ELF%d header (%d bytes)", n, f.Class, lay.ehsize)
	}
	r := reader{b: data, is64: f.Class == 64}
	f.Type = r.u16(16)
	f.Machine = r.u16(18)
	f.Version = r.u32(20)
	var phoff, shoff, flagsOff uint64
	if r.is64 {
		f.Entry, phoff, shoff, flagsOff = r.u64(24), r.u64(32), r.u64(40), 48
	} else {
		f.Entry, phoff, shoff, flagsOff = uint64(r.u32(24)), uint64(r.u32(28)), uint64(r.u32(32)), 36
	}
	f.Flags = r.u32(flagsOff)
	h := flagsOff + 4 // e_ehsize
	phentsize, phnum := uint64(r.u16(h+2)), uint64(r.u16(h+4))
	shentsize, shnum, shstrndx := uint64(r.u16(h+6)), uint64(r.u16(h+8)), uint64(r.u16(h+10))

	if phnum > 0 && !inBounds(phoff, phnum*phentsize, n) {
		return nil, errAt(phoffField(r.is64), "program header table [0x%x, +%d×%d) past end of file (0x%x bytes)", phoff, phnum, phentsize, n)
	}
	if shnum == 0 {
		if shoff != 0 {
			return nil, errAt(h+8, "e_shnum is 0 with e_shoff 0x%x (extended section numbering is not supported)", shoff)
		}
		return f, nil
	}
	if shentsize < lay.shentsize {
		return nil, errAt(h+6, "e_shentsize %d smaller than an ELF%d section header (%d)", shentsize, f.Class, lay.shentsize)
	}
	if !inBounds(shoff, shnum*shentsize, n) {
		return nil, errAt(shoffField(r.is64), "section header table [0x%x, +%d×%d) past end of file (0x%x bytes)", shoff, shnum, shentsize, n)
	}
	if shoff < lay.ehsize {
		return nil, errAt(shoffField(r.is64), "section header table at 0x%x overlaps the ELF header", shoff)
	}
	if shstrndx >= shnum {
		return nil, errAt(h+10, "e_shstrndx %d out of range (%d sections)", shstrndx, shnum)
	}
	f.Sections = make([]Section, shnum)
	nameOffs := make([]uint32, shnum)
	for i := range f.Sections {
		hdr := shoff + uint64(i)*shentsize
		s := &f.Sections[i]
		nameOffs[i] = r.u32(hdr)
		s.Type = r.u32(hdr + 4)
		if r.is64 {
			s.Flags, s.Addr, s.Offset, s.Size = r.u64(hdr+8), r.u64(hdr+16), r.u64(hdr+24), r.u64(hdr+32)
			s.Link, s.Info = r.u32(hdr+40), r.u32(hdr+44)
			s.Align, s.EntSize = r.u64(hdr+48), r.u64(hdr+56)
		} else {
			s.Flags, s.Addr, s.Offset, s.Size = uint64(r.u32(hdr+8)), uint64(r.u32(hdr+12)), uint64(r.u32(hdr+16)), uint64(r.u32(hdr+20))
			s.Link, s.Info = r.u32(hdr+24), r.u32(hdr+28)
			s.Align, s.EntSize = uint64(r.u32(hdr+32)), uint64(r.u32(hdr+36))
		}
		if !hasFileData(s.Type) {
			continue
		}
		if !inBounds(s.Offset, s.Size, n) {
			return nil, errAt(hdr, "section %d data [0x%x, +0x%x) past end of file (0x%x bytes)", i, s.Offset, s.Size, n)
		}
		s.Data = data[s.Offset : s.Offset+s.Size : s.Offset+s.Size]
	}
	if err := checkOverlap(f.Sections, shoff, shentsize, lay.ehsize); err != nil {
		return nil, err
	}
	strtab := f.Sections[shstrndx]
	if strtab.Data == nil {
		return nil, errAt(shoff+shstrndx*shentsize, "section name table %d has no file data (type 0x%x)", shstrndx, strtab.Type)
	}
	for i := range f.Sections {
		name, ok := cstring(strtab.Data, nameOffs[i])
		if !ok {
			return nil, errAt(shoff+uint64(i)*shentsize, "section %d name offset 0x%x outside the name table (0x%x bytes) or unterminated", i, nameOffs[i], len(strtab.Data))
		}
		f.Sections[i].Name = name
	}
	if err := f.readSymbols(r, lay, shoff, shentsize); err != nil {
		return nil, err
	}
	return f, nil
}

// hasFileData reports whether sections of type t occupy bytes in the file.
// ptxas -c gives .nv.shared.<fn> type SHT_CUDA_SHARED with an offset that
// points at the section headers: like SHT_NOBITS, it only has a size.
func hasFileData(t uint32) bool {
	switch t {
	case SecNull, SecNobits, SecCUDAGlobal, SecCUDALocal, SecCUDAShared:
		return false
	}
	return true
}

func shoffField(is64 bool) uint64 {
	if is64 {
		return 40
	}
	return 32
}

func phoffField(is64 bool) uint64 {
	if is64 {
		return 32
	}
	return 28
}

// checkOverlap rejects sections whose file data overlap each other, the ELF
// header or the section header table: such files are corrupt, and accepting
// them would let one lying size field alias everything.
func checkOverlap(secs []Section, shoff, shentsize, ehsize uint64) error {
	type span struct {
		start, end uint64
		what       string
		idx        int
	}
	spans := []span{{0, ehsize, "the ELF header", -1}, {shoff, shoff + uint64(len(secs))*shentsize, "the section header table", -1}}
	for i, s := range secs {
		if s.Data != nil && s.Size > 0 {
			spans = append(spans, span{s.Offset, s.Offset + s.Size, "", i})
		}
	}
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			if a.start < b.start {
				return -1
			}
			return 1
		}
		return a.idx - b.idx
	})
	for k := 1; k < len(spans); k++ {
		a, b := spans[k-1], spans[k]
		if b.start < a.end {
			name := func(s span) string {
				if s.idx < 0 {
					return s.what
				}
				return "section " + itoa(s.idx)
			}
			return errAt(b.start, "%s [0x%x, 0x%x) overlaps %s [0x%x, 0x%x)", name(b), b.start, b.end, name(a), a.start, a.end)
		}
	}
	return nil
}

func itoa(i int) string {
	var buf [20]byte
	return string(appendInt(buf[:0], i))
}

func appendInt(b []byte, i int) []byte {
	if i < 0 {
		b = append(b, '-')
		i = -i
	}
	var tmp [20]byte
	k := len(tmp)
	for {
		k--
		tmp[k] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			break
		}
	}
	return append(b, tmp[k:]...)
}

// cstring returns the NUL-terminated string at off in tab.
func cstring(tab []byte, off uint32) (string, bool) {
	if uint64(off) >= uint64(len(tab)) {
		return "", off == 0 && len(tab) == 0
	}
	end := bytes.IndexByte(tab[off:], 0)
	if end < 0 {
		return "", false
	}
	return string(tab[off : int(off)+end]), true
}

// readSymbols reads the first SHT_SYMTAB section.
func (f *File) readSymbols(r reader, lay layout, shoff, shentsize uint64) error {
	idx := slices.IndexFunc(f.Sections, func(s Section) bool { return s.Type == SecSymtab })
	if idx < 0 {
		return nil
	}
	s := &f.Sections[idx]
	hdr := shoff + uint64(idx)*shentsize
	ent := s.EntSize
	if ent == 0 {
		ent = lay.symentsize
	}
	if ent < lay.symentsize {
		return errAt(hdr, "symbol table entry size %d smaller than an ELF%d symbol (%d)", ent, f.Class, lay.symentsize)
	}
	if s.Size%ent != 0 {
		return errAt(hdr, "symbol table size 0x%x is not a multiple of its entry size %d", s.Size, ent)
	}
	if uint64(s.Link) >= uint64(len(f.Sections)) || f.Sections[s.Link].Data == nil {
		return errAt(hdr, "symbol table names its string table as section %d, which has no data", s.Link)
	}
	strs := f.Sections[s.Link].Data
	count := s.Size / ent
	f.Symbols = make([]Symbol, count)
	sr := reader{b: s.Data, is64: r.is64}
	for i := range f.Symbols {
		o := uint64(i) * ent
		sym := &f.Symbols[i]
		var nameOff uint32
		if r.is64 {
			nameOff = sr.u32(o)
			sym.Info, sym.Other, sym.Section = s.Data[o+4], s.Data[o+5], sr.u16(o+6)
			sym.Value, sym.Size = sr.u64(o+8), sr.u64(o+16)
		} else {
			nameOff = sr.u32(o)
			sym.Value, sym.Size = uint64(sr.u32(o+4)), uint64(sr.u32(o+8))
			sym.Info, sym.Other, sym.Section = s.Data[o+12], s.Data[o+13], sr.u16(o+14)
		}
		name, ok := cstring(strs, nameOff)
		if !ok {
			return errAt(s.Offset+o, "symbol %d name offset 0x%x outside the string table (0x%x bytes) or unterminated", i, nameOff, len(strs))
		}
		sym.Name = name
	}
	return nil
}

// relocs reads the entries of a REL or RELA section (index idx).
func (f *File) relocs(idx int) ([]Reloc, error) {
	s := &f.Sections[idx]
	is64 := f.Class == 64
	lay := layout32
	if is64 {
		lay = layout64
	}
	size := lay.relsize
	if s.Type == SecRela {
		size = lay.relasize
	}
	ent := s.EntSize
	if ent == 0 {
		ent = size
	}
	if ent < size || s.Size%ent != 0 {
		return nil, errAt(s.Offset, "relocation section %d (%s): size 0x%x and entry size %d do not fit %d-byte entries", idx, s.Name, s.Size, s.EntSize, size)
	}
	out := make([]Reloc, s.Size/ent)
	r := reader{b: s.Data, is64: is64}
	for i := range out {
		o := uint64(i) * ent
		rel := &out[i]
		if is64 {
			info := r.u64(o + 8)
			rel.Offset, rel.Symbol, rel.Type = r.u64(o), uint32(info>>32), uint32(info)
			if s.Type == SecRela {
				rel.Addend = int64(r.u64(o + 16))
			}
		} else {
			info := r.u32(o + 4)
			rel.Offset, rel.Symbol, rel.Type = uint64(r.u32(o)), info>>8, info&0xff
			if s.Type == SecRela {
				rel.Addend = int64(int32(r.u32(o + 8)))
			}
		}
		if uint64(rel.Symbol) >= uint64(len(f.Symbols)) {
			return nil, errAt(s.Offset+o, "relocation %d of section %d (%s) names symbol %d, but there are %d symbols", i, idx, s.Name, rel.Symbol, len(f.Symbols))
		}
	}
	return out, nil
}
