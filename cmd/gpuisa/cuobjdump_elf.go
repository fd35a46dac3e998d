package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// cuobjdump -elf: the ELF header line, the section table, then the sections
// in cuobjdump's order (string tables and symbols; data sections; the other
// CUDA sections; code; debug sections), each followed by the REL sections
// that patch it. Record formats were read off cuobjdump 11.8's output for
// the oracle cubins and our line-info builds.

// dumpELF prints -elf for one ELF image.
func dumpELF(w *bufio.Writer, f *cubin.File) {
	fmt.Fprintf(w, "\n64bit elf: type=%d, abi=%d, sm=%d, toolkit=118, flags = 0x%x\n", f.Type, f.ABIVersion, f.SM(), f.Flags)
	fmt.Fprintf(w, "Sections:\nIndex Offset   Size ES Align        Type        Flags Link     Info Name\n")
	for i := 1; i < len(f.Sections); i++ {
		s := &f.Sections[i]
		fmt.Fprintf(w, "%5x %6x %6x %2x %2x %17s %7x %4x %8x %s\n", i, s.Offset, s.Size, s.EntSize, s.Align,
			strings.TrimPrefix(cubin.SectionTypeName(s.Type), "SHT_"), s.Flags, s.Link, s.Info, s.Name)
	}
	d := elfDumper{w: w, f: f, rels: map[int][]int{}}
	for i := range f.Sections {
		if t := f.Sections[i].Type; t == cubin.SecRel || t == cubin.SecRela {
			target := int(f.Sections[i].Info)
			d.rels[target] = append(d.rels[target], i)
		}
	}
	for _, group := range elfGroups {
		for i := 1; i < len(f.Sections); i++ {
			if s := &f.Sections[i]; s.Type != cubin.SecRel && s.Type != cubin.SecRela && group.has(s) {
				d.section(i, group.kind)
			}
		}
	}
	for i := 1; i < len(f.Sections); i++ {
		// debug sections, in the order of debugOrder, then any other
		if debugRank(f.Sections[i].Name) < 0 && !isRel(&f.Sections[i]) && !d.done(i) {
			d.section(i, kindOther)
		}
	}
}

const (
	kindTables = iota // .strtab, .shstrtab, .symtab
	kindData          // constant banks, shared and global memory
	kindCUDA          // .nv.info*, .nv.callgraph, .nv.prototype, .nv.rel.action
	kindCode          // .text.*
	kindDebug         // DWARF and NVIDIA's debug sections
	kindOther
)

type elfGroup struct {
	kind int
	has  func(s *cubin.Section) bool
}

// elfGroups is cuobjdump's section order: groups in turn, sections of a group
// in index order (the debug group in debugOrder).
var elfGroups = []elfGroup{
	{kindTables, func(s *cubin.Section) bool { return s.Type == cubin.SecStrtab && s.Name == ".strtab" }},
	{kindTables, func(s *cubin.Section) bool { return s.Type == cubin.SecStrtab && s.Name != ".strtab" }},
	{kindTables, func(s *cubin.Section) bool { return s.Type == cubin.SecSymtab }},
	{kindData, func(s *cubin.Section) bool { return isData(s) }},
	{kindCUDA, func(s *cubin.Section) bool {
		return s.Type >= cubin.SecCUDAInfo && !isData(s) && s.Flags&cubin.SHFExecInstr == 0
	}},
	{kindCode, func(s *cubin.Section) bool { return s.Flags&cubin.SHFExecInstr != 0 }},
}

func init() {
	for _, name := range debugOrder {
		elfGroups = append(elfGroups, elfGroup{kindDebug, func(s *cubin.Section) bool { return debugName(s.Name) == name }})
	}
}

// debugOrder is the order cuobjdump prints debug sections in.
var debugOrder = []string{".debug_str", ".debug_abbrev", ".debug_info", ".debug_loc", ".nv_debug_info_reg_sass",
	".nv_debug_info_reg_type", ".debug_line", ".nv_debug_line_sass", ".nv_debug_ptx_txt", ".debug_frame", ".debug_macinfo"}

// debugName is a debug section's name without the hash a relocatable
// cubin's .nv_debug_ptx_txt carries (".nv_debug_ptx_txt.1478286831").
func debugName(name string) string {
	if strings.HasPrefix(name, ".nv_debug_ptx_txt.") {
		return ".nv_debug_ptx_txt"
	}
	return name
}

func debugRank(name string) int {
	name = debugName(name)
	for k, n := range debugOrder {
		if n == name {
			return k
		}
	}
	if strings.HasPrefix(name, ".debug") || strings.HasPrefix(name, ".nv_debug") {
		return len(debugOrder)
	}
	return -1
}

func isRel(s *cubin.Section) bool { return s.Type == cubin.SecRel || s.Type == cubin.SecRela }

// isData: memory the code reads (constant banks, shared, global), allocated
// and not executable.
func isData(s *cubin.Section) bool {
	if s.Flags&cubin.SHFExecInstr != 0 || isRel(s) {
		return false
	}
	return strings.HasPrefix(s.Name, ".nv.constant") || strings.HasPrefix(s.Name, ".nv.shared") ||
		strings.HasPrefix(s.Name, ".nv.global") || strings.HasPrefix(s.Name, ".nv.local")
}

// EIATTR numbers with a layout of their own in -elf.
const (
	attrExterns               = 0x0f // u32 symbols
	attrIndirectBranchTargets = 0x34 // u32 branch, u16 kind (1: call), u16, u32 count, count × u32 target
)

type elfDumper struct {
	w        *bufio.Writer
	f        *cubin.File
	rels     map[int][]int // section index → its REL/RELA sections
	printed  map[int]bool
	codeDone bool // a code section is out: the next starts with blank lines
}

func (d *elfDumper) done(i int) bool { return d.printed[i] }

// section prints section i and then the relocation sections that patch it.
func (d *elfDumper) section(i int, kind int) {
	if d.printed == nil {
		d.printed = map[int]bool{}
	}
	if d.printed[i] {
		return
	}
	d.printed[i] = true
	w, f, s := d.w, d.f, &d.f.Sections[i]
	suffix := "" // after the relocations
	switch {
	case kind == kindTables && s.Type == cubin.SecSymtab:
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		fmt.Fprintf(w, " index           value           size      info    other  shndx    name  \n")
		for k, y := range f.Symbols {
			name := y.Name
			if k == 0 {
				name = "(null)"
			}
			fmt.Fprintf(w, " %3s %15s %15s %8s %8s %6s     %s\n", hexOrZero(uint64(k)), hexOrZero(y.Value), hexOrZero(y.Size),
				hexOrZero(uint64(y.Info)), hexOrZero(uint64(y.Other)), hexOrZero(uint64(y.Section)), name)
		}
		w.WriteString("\n\n")
	case kind == kindTables:
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
	case s.Type == cubin.SecNobits && strings.HasPrefix(s.Name, ".nv.global"):
		// not shown
	case s.Type == cubin.SecNobits:
		fmt.Fprintf(w, "%s\n   No data to be dumped. \n\n\n", s.Name)
	case s.Type == cubin.SecCUDAInfo:
		fmt.Fprintf(w, "%s\n", s.Name)
		d.info(d.attrsOf(s.Name))
		w.WriteString("\n\n")
	case s.Type == cubin.SecCUDACallgraph || s.Type == cubin.SecCUDAPrototype:
		fmt.Fprintf(w, "%s\n", s.Name)
		for k := 0; k+8 <= len(s.Data); k += 8 {
			fmt.Fprintf(w, " <%d,%d>\n", int32(binary.LittleEndian.Uint32(s.Data[k:])), int32(binary.LittleEndian.Uint32(s.Data[k+4:])))
		}
		w.WriteString("\n\n")
	case s.Type == cubin.SecCUDARelocInfo:
		fmt.Fprintf(w, "%s\n", s.Name)
		d.relocInfo(s)
		w.WriteString("\n\n")
	case kind == kindCode:
		if d.codeDone {
			w.WriteString("\n\n")
		}
		d.codeDone = true
		fmt.Fprintf(w, "%s\n", s.Name)
		var fn *cubin.Function
		for k := range f.Functions {
			if f.Functions[k].Section == i {
				fn = &f.Functions[k]
			}
		}
		if fn != nil {
			fmt.Fprintf(w, "bar = %d\treg = %d\tlmem=%d\tsmem=%d\n", fn.Barriers, fn.Registers, fn.LocalSize, fn.SharedSize)
		}
		d.words(s.Data)
	case kind == kindData:
		fmt.Fprintf(w, "%s\n", s.Name)
		d.words(s.Data)
		suffix = "\n\n"
	case s.Name == ".debug_line" || s.Name == ".nv_debug_line_sass":
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		out, _ := maxwell.DumpLineSection(nil, f, s.Name)
		w.Write(out)
		w.WriteString("\n\n")
	case s.Name == ".debug_macinfo":
		return // cuobjdump leaves it out, with its relocations
	case s.Name == ".debug_abbrev":
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		d.debugAbbrev(s)
	case s.Name == ".debug_info":
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		d.debugInfo(i, s)
	case s.Name == ".debug_loc":
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		d.debugLoc(i, s)
	case s.Name == ".debug_frame":
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		d.debugFrame(i, s)
	case s.Name == ".nv_debug_info_reg_sass":
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		d.regSass(s)
	case s.Name == ".nv_debug_info_reg_type":
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		d.regType(s)
	case s.Name == ".debug_str" || debugName(s.Name) == ".nv_debug_ptx_txt":
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		d.strings(s.Data)
	default:
		fmt.Fprintf(w, "\n.section %s\n", s.Name)
		d.words(s.Data)
	}
	for _, r := range d.rels[i] {
		d.rel(r)
	}
	w.WriteString(suffix)
}

// words prints data as 32-bit words, four to a line, then a newline.
func (d *elfDumper) words(data []byte) {
	w := d.w
	n := len(data) / 4
	// then the bytes past the last whole word, one item each
	items := n + len(data)%4
	for k := 0; k < items; k++ {
		if k < n {
			fmt.Fprintf(w, "0x%08x", binary.LittleEndian.Uint32(data[4*k:]))
		} else {
			fmt.Fprintf(w, "0x%02x", data[4*n+k-n])
		}
		if k%4 == 3 {
			w.WriteByte('\n')
		} else {
			w.WriteByte(' ')
		}
	}
	if items > 0 {
		w.WriteByte('\n') // a blank line after a full last line
	}
}

// strings prints NUL-terminated strings one to a line.
func (d *elfDumper) strings(data []byte) {
	for _, s := range strings.Split(strings.TrimRight(string(data), "\x00"), "\x00") {
		d.w.WriteString(s)
		d.w.WriteByte('\n')
	}
}

// rel prints a REL or RELA section: its entries.
func (d *elfDumper) rel(i int) {
	w, f, s := d.w, d.f, &d.f.Sections[i]
	kind := "REL"
	size := 16
	if s.Type == cubin.SecRela {
		kind, size = "RELA", 24
	}
	fmt.Fprintf(w, "\n.section %s\t%s\n", s.Name, kind)
	for k := 0; k < len(s.Data)/size; k++ {
		e := s.Data[k*size:]
		off := binary.LittleEndian.Uint64(e)
		info := binary.LittleEndian.Uint64(e[8:])
		name := ""
		if sym := info >> 32; sym < uint64(len(f.Symbols)) {
			name = f.Symbols[sym].Name
		}
		if s.Type == cubin.SecRela {
			fmt.Fprintf(w, "0x%x    %s    %s    %#x\n", off, name, cubin.RelocTypeName(uint32(info)), int64(binary.LittleEndian.Uint64(e[16:])))
		} else {
			fmt.Fprintf(w, "0x%x    %s    %s\n", off, name, cubin.RelocTypeName(uint32(info)))
		}
	}
}

// relocInfo prints .nv.rel.action: a header naming the first relocation type
// described, then one 8-byte entry per type from it on.
func (d *elfDumper) relocInfo(s *cubin.Section) {
	w := d.w
	if len(s.Data) < 8 {
		return
	}
	base := binary.LittleEndian.Uint32(s.Data)
	fmt.Fprintf(w, "Header : Base Relocation : %s\n", cubin.RelocTypeName(base))
	w.WriteString("Reloc type : Symbol Kind,Addend Shift,Source Position1,length1,Destination Position1,Source Position2,length2,Destination Position2\n")
	kinds := []string{"ADDR", "GADDR", "FDESC", "HEADER_INDEX"}
	for k := 8; k+8 <= len(s.Data); k += 8 {
		e := s.Data[k : k+8]
		kind := fmt.Sprintf("%d", e[0])
		if int(e[0]) < len(kinds) {
			kind = kinds[e[0]]
		}
		fmt.Fprintf(w, "%s : EIVALUE_SYM_KIND_%s,%d,%d,%d,%d,%d,%d,%d\n", cubin.RelocTypeName(base+uint32(k/8-1)), kind,
			e[1], e[2], e[3], e[4], e[5], e[6], e[7])
	}
}

// attrsOf returns the records of the .nv.info section called name (as
// cubin.Parse read them: the global ones, or a function's).
func (d *elfDumper) attrsOf(name string) []cubin.Attr {
	if name == ".nv.info" {
		return d.f.Info
	}
	fn := d.f.Function(strings.TrimPrefix(name, ".nv.info."))
	if fn == nil {
		return nil
	}
	return fn.Info
}

// info prints EIATTR records.
func (d *elfDumper) info(attrs []cubin.Attr) {
	w, f := d.w, d.f
	fmtNames := map[uint8]string{cubin.FmtNVal: "EIFMT_NVAL", cubin.FmtBVal: "EIFMT_BVAL", cubin.FmtHVal: "EIFMT_HVAL", cubin.FmtSVal: "EIFMT_SVAL"}
	symName := func(k uint32) string {
		if int(k) < len(f.Symbols) {
			return f.Symbols[k].Name
		}
		return ""
	}
	for n, a := range attrs {
		fmt.Fprintf(w, "\t<0x%d>\n\tAttribute:\t%s\n\tFormat:\t%s\n", n+1, a.Name(), fmtNames[a.Format])
		word := func(k int) uint32 { v, _ := a.Word(k); return v }
		switch {
		case a.Format == cubin.FmtNVal:
		case a.Format == cubin.FmtBVal || a.Format == cubin.FmtHVal:
			fmt.Fprintf(w, "\tValue:\t0x%x\n", a.Value)
		case a.ID == cubin.AttrRegCount && len(a.Data) == 8:
			fmt.Fprintf(w, "\tValue:\tfunction: %s(0x%x)\tregister count: %d\n", symName(word(0)), word(0), word(1))
		case a.ID == cubin.AttrMinStackSize && len(a.Data) == 8:
			fmt.Fprintf(w, "\tValue:\tfunction: %s(0x%x)\tmin stack size: 0x%x\n", symName(word(0)), word(0), word(1))
		case a.ID == cubin.AttrFrameSize && len(a.Data) == 8:
			fmt.Fprintf(w, "\tValue:\tfunction: %s(0x%x)\tframe size: 0x%x\n", symName(word(0)), word(0), word(1))
		case a.ID == cubin.AttrKParamInfo && len(a.Data) == 12:
			info := word(2)
			space := "CBANK"
			if info>>17&1 != 0 {
				space = "SMEM"
			}
			fmt.Fprintf(w, "\tValue:\tIndex : 0x%x\tOrdinal : 0x%x\tOffset  : 0x%x\tSize    : 0x%x\n", word(0),
				binary.LittleEndian.Uint16(a.Data[4:]), binary.LittleEndian.Uint16(a.Data[6:]), info>>18)
			fmt.Fprintf(w, "\t\tPointee's logAlignment : 0x%x\tSpace : 0x%x\tcbank : 0x%x\tParameter Space : %s\t\n", info&0xff, info>>8&0xf, info>>12&0x1f, space)
		case a.ID == attrExterns:
			w.WriteString("\tValue:\texterns:\t")
			for k := 0; 4*k+4 <= len(a.Data); k++ {
				fmt.Fprintf(w, "%s(0x%x)\t", symName(word(k)), word(k))
			}
			w.WriteByte('\n')
		case a.ID == attrIndirectBranchTargets:
			w.WriteString("\tValue:\t\n")
			p := a.Data
			for len(p) >= 12 {
				off, kind, count := binary.LittleEndian.Uint32(p), binary.LittleEndian.Uint16(p[4:]), binary.LittleEndian.Uint32(p[8:])
				p = p[12:]
				call := ""
				if kind == 1 {
					call = " (kind_call)"
				}
				fmt.Fprintf(w, "\t\tOffset of Indirect Branch: 0x%x%s\t Number of targets: %d\n\t\t", off, call, count)
				if count > 0 {
					w.WriteString("Targets: ")
				}
				for k := uint32(0); k < count && len(p) >= 4; k++ {
					fmt.Fprintf(w, "0x%x ", binary.LittleEndian.Uint32(p))
					p = p[4:]
				}
				w.WriteString("\n\n")
			}
		default:
			w.WriteString("\tValue:\t")
			for k := 0; 4*k+4 <= len(a.Data); k++ {
				fmt.Fprintf(w, "0x%x ", word(k))
			}
			w.WriteByte('\n')
		}
	}
}
