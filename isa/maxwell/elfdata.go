package maxwell

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// The data sections of the ELF-mode listing: .nv.info* (EIATTR records with
// nvdisasm's .L_N labels), constant banks, .nv.rel.action and shared memory.

// dataLister keeps the .L_N label counter of one listing.
type dataLister struct {
	f      *cubin.File
	out    *listOut                          // where a large section's listing goes as it is made
	next   int                               // .L_N numbers start at 1
	xlabel func(sec int, addr uint64) string // .L_x_N@srel of a code address
	// codeAddr is the text of a 64-bit relocation to symbol sym + addend, a
	// code address: "(sym + .L_x_N@srel)"
	codeAddr func(sym uint32, addend int64) string
	ends     map[int]map[uint64]string // section → address → end label of an object there
	// hidden, when set, says which sections are not listed (-plr): their
	// objects take no label
	hidden func(sec int) bool
}

func (d *dataLister) label() string {
	d.next++
	return ".L_" + strconv.Itoa(d.next)
}

// listable reports whether nvdisasm lists a section (not the ELF tables,
// not the relocation sections, which it folds into operands).
func listable(s *cubin.Section) bool {
	switch s.Type {
	case cubin.SecNull, cubin.SecSymtab, cubin.SecStrtab, cubin.SecRel, cubin.SecRela:
		return false
	}
	return s.Name != ""
}

// sectionHeader appends the rule and the .section/.align lines.
func sectionHeader(dst []byte, s *cubin.Section) []byte {
	dst = sectionRule(dst, s.Name)
	flags := ""
	if s.Flags&cubin.SHFAlloc != 0 {
		flags += "a"
	}
	if s.Flags&cubin.SHFWrite != 0 {
		flags += "w"
	}
	if s.Flags&cubin.SHFExecInstr != 0 {
		flags += "x"
	}
	typ := "@\"" + cubin.SectionTypeName(s.Type) + "\""
	switch s.Type {
	case cubin.SecProgbits:
		typ = "@progbits"
	case cubin.SecNobits:
		typ = "@nobits"
	}
	dst = fmt.Appendf(dst, "\t.section\t%s,\"%s\",%s\n", s.Name, flags, typ)
	if s.Align > 1 {
		dst = fmt.Appendf(dst, "\t.align\t%d\n", s.Align)
	}
	if s.EntSize != 0 {
		dst = fmt.Appendf(dst, "\t.sectionentsize\t%d\n", s.EntSize)
	}
	return dst
}

func dataLine(dst []byte, off int, directive, args string) []byte {
	return fmt.Appendf(dst, "        /*%04x*/ \t%s\t%s\n", off, directive, args)
}

// bytesLines appends data as .byte lines of 16, or one .zero when it is
// all zero, writing dst to o (when not nil) as it grows.
func bytesLines(dst []byte, base int, data []byte, o *listOut) []byte {
	zero := true
	for _, b := range data {
		zero = zero && b == 0
	}
	if zero {
		return fmt.Appendf(dst, "\t.zero\t\t%d\n", len(data))
	}
	for i := 0; i < len(data); i += 16 {
		dst = o.flush(dst)
		row := data[i:min(i+16, len(data))]
		args := make([]byte, 0, 96)
		for k, b := range row {
			if k > 0 {
				args = append(args, ", "...)
			}
			args = fmt.Appendf(args, "0x%02x", b)
		}
		dst = dataLine(dst, base+i, ".byte", string(args))
	}
	return dst
}

// symbol names for index@(...) words
func (d *dataLister) symName(i uint32) string {
	if int(i) < len(d.f.Symbols) {
		return d.f.Symbols[i].Name
	}
	return strconv.FormatUint(uint64(i), 10)
}

// Attributes whose payload starts with a symbol index (printed index@(sym)
// after an .align), by attribute id: an array, set up with no code at
// start-up.
var indexAttrs = [256]bool{0x2f: true, 0x23: true, 0x12: true, 0x11: true, 0x0a: true}

// Attributes that list instruction offsets, one "....[i]...." comment each,
// by attribute id.
var offsetListAttrs = [256]bool{0x1c: true, 0x1d: true, 0x28: true, 0x31: true, 0x4a: true, 0x3d: true}

// listInfo appends the records of an .nv.info section.
func (d *dataLister) listInfo(dst []byte, sec int, data []byte) []byte {
	pendingEnd := ""
	off := 0
	for off+4 <= len(data) {
		dst = d.out.flush(dst)
		format, id := data[off], data[off+1]
		val := binary.LittleEndian.Uint16(data[off+2:])
		dst = fmt.Appendf(dst, "\n\n\t//----- nvinfo : %s\n\t.align\t\t4\n", cubin.AttrName(id))
		if pendingEnd != "" {
			dst = append(dst, pendingEnd+":\n"...)
			pendingEnd = ""
		}
		dst = dataLine(dst, off, ".byte", fmt.Sprintf("0x%02x, 0x%02x", format, id))
		switch format {
		case cubin.FmtNVal:
			dst = append(dst, "\t.zero\t\t2\n"...)
			off += 4
			continue
		case cubin.FmtBVal:
			if data[off+2] == 0 {
				dst = append(dst, "\t.zero\t\t1\n"...)
			} else {
				dst = dataLine(dst, off+2, ".byte", fmt.Sprintf("0x%02x", data[off+2]))
			}
			dst = append(dst, "\t.zero\t\t1\n"...)
			off += 4
			continue
		case cubin.FmtHVal:
			dst = dataLine(dst, off+2, ".short", fmt.Sprintf("0x%04x", val))
			off += 4
			continue
		}
		start, end := d.label(), d.label()
		dst = dataLine(dst, off+2, ".short", "("+end+" - "+start+")")
		pendingEnd = end
		p := off + 4
		size := int(val)
		if p+size > len(data) {
			size = len(data) - p
		}
		payload := data[p : p+size]
		word := func(i int) uint32 { return binary.LittleEndian.Uint32(payload[i:]) }
		switch {
		case indexAttrs[id] && size >= 4:
			dst = append(dst, "\t.align\t\t4\n"+start+":\n"...)
			dst = dataLine(dst, p, ".word", "index@("+d.symName(word(0))+")")
			if id == 0x0a && size >= 8 {
				dst = dataLine(dst, p+4, ".short", fmt.Sprintf("0x%04x", binary.LittleEndian.Uint16(payload[4:])))
				dst = dataLine(dst, p+6, ".short", fmt.Sprintf("0x%04x", binary.LittleEndian.Uint16(payload[6:])))
				dst = d.words(dst, p+8, payload[8:])
			} else {
				dst = d.words(dst, p+4, payload[4:])
			}
		case id == 0x17 && size == 12: // KPARAM_INFO
			dst = append(dst, start+":\n"...)
			dst = dataLine(dst, p, ".word", fmt.Sprintf("0x%08x", word(0)))
			dst = dataLine(dst, p+4, ".short", fmt.Sprintf("0x%04x", binary.LittleEndian.Uint16(payload[4:])))
			dst = dataLine(dst, p+6, ".short", fmt.Sprintf("0x%04x", binary.LittleEndian.Uint16(payload[6:])))
			dst = dataLine(dst, p+8, ".byte", fmt.Sprintf("0x%02x, 0x%02x, 0x%02x, 0x%02x", payload[8], payload[9], payload[10], payload[11]))
		case id == attrExterns:
			for i := 0; i+4 <= size; i += 4 {
				dst = fmt.Appendf(dst, "\n\n\t//   ....[%d]....\n\t.align\t\t4\n", i/4)
				if i == 0 {
					dst = append(dst, start+":\n"...)
				}
				dst = dataLine(dst, p+i, ".word", "index@("+d.symName(word(i))+")")
			}
		case offsetListAttrs[id]:
			for i := 0; i+4 <= size; i += 4 {
				dst = fmt.Appendf(dst, "\n\n\t//   ....[%d]....\n", i/4)
				if i == 0 {
					dst = append(dst, start+":\n"...)
				}
				dst = dataLine(dst, p+i, ".word", fmt.Sprintf("0x%08x", word(i)))
			}
		case id == attrIndirectBranchTargets:
			k := 0
			for i := 0; i+12 <= size; k++ {
				dst = fmt.Appendf(dst, "\n\n\t//   ....[%d]....\n", k)
				if k == 0 {
					dst = append(dst, start+":\n"...)
				}
				dst = dataLine(dst, p+i, ".word", d.xlabel(sec, uint64(word(i))))
				dst = dataLine(dst, p+i+4, ".short", fmt.Sprintf("0x%x", binary.LittleEndian.Uint16(payload[i+4:])))
				dst = dataLine(dst, p+i+6, ".short", fmt.Sprintf("0x%x", binary.LittleEndian.Uint16(payload[i+6:])))
				n := int(word(i + 8))
				dst = dataLine(dst, p+i+8, ".word", fmt.Sprintf("0x%x", n))
				i += 12
				for j := 0; j < n && i+4 <= size; j++ {
					dst = dataLine(dst, p+i, ".word", d.xlabel(sec, uint64(word(i))))
					i += 4
				}
			}
		default:
			dst = append(dst, start+":\n"...)
			dst = d.words(dst, p, payload)
		}
		off = p + size
	}
	if pendingEnd != "" {
		dst = append(dst, pendingEnd+":\n"...)
	}
	return dst
}

// words appends .word lines (and a .byte line for a tail).
func (d *dataLister) words(dst []byte, base int, data []byte) []byte {
	i := 0
	for ; i+4 <= len(data); i += 4 {
		dst = d.out.flush(dst)
		dst = dataLine(dst, base+i, ".word", fmt.Sprintf("0x%08x", binary.LittleEndian.Uint32(data[i:])))
	}
	if i < len(data) {
		dst = bytesLines(dst, base+i, data[i:], d.out)
	}
	return dst
}

// listData appends a data section: EIATTR records for .nv.info*, the size
// of sections without file data, the bytes of the others.
func (d *dataLister) listData(dst []byte, sec int) []byte {
	s := &d.f.Sections[sec]
	dst = sectionHeader(dst, s)
	switch {
	case s.Type == cubin.SecCUDAInfo:
		return d.listInfo(dst, sec, s.Data)
	case s.Type == cubin.SecCUDACallgraph || s.Type == cubin.SecCUDAPrototype:
		return d.listCallgraph(dst, s)
	case s.Type == cubin.SecCUDARelocInfo:
		return bytesLines(dst, 0, s.Data, d.out)
	case s.Type == cubin.SecCUDAShared:
		return d.listShared(dst, sec)
	default:
		return d.listObjects(dst, sec)
	}
}

// listShared appends a shared-memory section of a relocatable cubin: each
// object with its size and alignment, then the section label.
func (d *dataLister) listShared(dst []byte, sec int) []byte {
	s := &d.f.Sections[sec]
	for i := range d.f.Symbols {
		y := &d.f.Symbols[i]
		if !objectSym(y) || int(y.Section) != sec {
			continue
		}
		dst = fmt.Appendf(dst, "\t.type\t\t%s,@\"STT_CUDA_OBJECT\"\n\t.size\t\t%s, %d, %d\n", y.Name, y.Name, y.Size, s.Align)
		dst = fmt.Appendf(dst, "\t.other\t\t%s,@\"STO_CUDA_SHARED %s\"\n%s:\n\t.zero\t\t%d\n", y.Name, visibility(y.Other), y.Name, y.Size)
	}
	return append(dst, s.Name+":\n"...)
}

// objectSym reports symbols nvdisasm lists inside data sections.
func objectSym(s *cubin.Symbol) bool { return s.Type() == 1 || s.Type() == 13 }

// endLabels names the end of every object symbol: the symbol starting there
// in the same section, else a .L_N label (allocated for every object symbol,
// in symbol-table order, before any other .L_N).
func (d *dataLister) endLabels() {
	d.ends = map[int]map[uint64]string{}
	for i := range d.f.Symbols {
		s := &d.f.Symbols[i]
		if !objectSym(s) || s.Section == 0 || s.Other&0x40 != 0 {
			continue // shared-memory objects print their size as a number
		}
		if d.hidden != nil && d.hidden(int(s.Section)) {
			continue
		}
		if int(s.Section) < len(d.f.Sections) && s.Value > d.f.Sections[s.Section].Size {
			continue // past its section (extern __shared__ arrays): not listed
		}
		l := d.label()
		end := s.Value + s.Size
		if d.symAt(int(s.Section), end) != nil {
			continue
		}
		if d.ends[int(s.Section)] == nil {
			d.ends[int(s.Section)] = map[uint64]string{}
		}
		if _, ok := d.ends[int(s.Section)][end]; !ok {
			d.ends[int(s.Section)][end] = l
		}
	}
}

func (d *dataLister) symAt(sec int, addr uint64) *cubin.Symbol {
	for i := range d.f.Symbols {
		s := &d.f.Symbols[i]
		if objectSym(s) && int(s.Section) == sec && s.Value == addr {
			return s
		}
	}
	return nil
}

// listObjects appends a data section with the object symbols in it: their
// .type/.size/.other lines and labels between runs of bytes.
func (d *dataLister) listObjects(dst []byte, sec int) []byte {
	s := &d.f.Sections[sec]
	size := s.Size
	if s.Data != nil {
		size = uint64(len(s.Data))
	}
	// addresses where the bytes are split: symbol starts and ends
	cuts := map[uint64]bool{0: true}
	var syms []*cubin.Symbol
	for i := range d.f.Symbols {
		y := &d.f.Symbols[i]
		if objectSym(y) && int(y.Section) == sec && y.Value <= size {
			syms = append(syms, y)
			cuts[y.Value] = true
		}
	}
	for a := range d.ends[sec] {
		cuts[a] = true
	}
	relocs := d.dataRelocs(sec)
	for a, r := range relocs {
		cuts[a], cuts[a+r.size] = true, true
	}
	// nvdisasm labels the section when it meets the section's first
	// object in symbol-table order: after that object's label when it
	// lies at 0, before every label at 0 otherwise
	sectionLabel := size == 0 && len(syms) == 0 // an empty section has no label
	at := uint64(0)
	for at <= size {
		r, relocated := relocs[at]
		relocated = relocated && at+r.size <= size
		if relocated && r.size == 4 && !r.unaligned {
			dst = append(dst, "\t.align\t\t4\n"...) // before the labels
		}
		for k, y := range syms {
			if y.Value != at {
				continue
			}
			if at == 0 && k > 0 && !sectionLabel {
				dst = append(dst, s.Name+":\n"...)
				sectionLabel = true
			}
			typ, end := "@object", d.ends[sec][y.Value+y.Size]
			if y.Type() == 13 {
				typ = "@\"STT_CUDA_OBJECT\""
			}
			if n := d.symAt(sec, y.Value+y.Size); n != nil {
				end = n.Name
			}
			if y.Bind() == 1 {
				dst = fmt.Appendf(dst, "\t.global\t\t%s\n", y.Name)
			}
			dst = fmt.Appendf(dst, "\t.type\t\t%s,%s\n\t.size\t\t%s,(%s - %s)\n", y.Name, typ, y.Name, end, y.Name)
			switch {
			case y.Other&0x80 != 0:
				dst = fmt.Appendf(dst, "\t.other\t\t%s,@\"STO_CUDA_CONSTANT %s\"\n", y.Name, visibility(y.Other))
			case y.Other&0x20 != 0:
				dst = fmt.Appendf(dst, "\t.other\t\t%s,@\"STO_CUDA_GLOBAL %s\"\n", y.Name, visibility(y.Other))
			}
			dst = append(dst, y.Name+":\n"...)
		}
		if at == 0 && !sectionLabel {
			dst = append(dst, s.Name+":\n"...)
			sectionLabel = true
		}
		if l, ok := d.ends[sec][at]; ok && at != 0 {
			dst = append(dst, l+":\n"...)
		}
		next := size
		for c := range cuts {
			if c > at && c < next {
				next = c
			}
		}
		if relocated {
			if r.size == 8 {
				dst = dataLine(dst, int(at), ".dword", r.text)
			} else {
				dst = dataLine(dst, int(at), ".word", r.text)
			}
		} else if next > at {
			if s.Data != nil {
				dst = bytesLines(dst, int(at), s.Data[at:next], d.out)
			} else {
				dst = fmt.Appendf(dst, "\t.zero\t\t%d\n", next-at)
			}
		}
		if next == size {
			if l, ok := d.ends[sec][size]; ok && size != 0 {
				dst = append(dst, l+":\n"...)
			}
			break
		}
		at = next
	}
	return dst
}

func visibility(other uint8) string {
	return [...]string{"STV_DEFAULT", "STV_INTERNAL", "STV_HIDDEN", "STV_PROTECTED"}[other&3]
}

// dataReloc is a relocated value in a data section as nvdisasm lists it.
type dataReloc struct {
	text      string
	size      uint64 // 4: a .word after .align 4; 8: a .dword where it lies
	unaligned bool   // a .word without the .align 4
}

// shfAlloc is the ELF section flag SHF_ALLOC.
const shfAlloc = 2

// relocR64 is R_CUDA_64, the 64-bit addresses of the debug sections.
const relocR64 = 2

// sectionRelocs returns the relocations that patch section sec (from its
// REL and RELA sections), in table order. A REL entry's addend is the
// value already in sec's data.
func sectionRelocs(f *cubin.File, sec int) []cubin.Reloc {
	var out []cubin.Reloc
	data := f.Sections[sec].Data
	for i := range f.Sections {
		r := &f.Sections[i]
		if int(r.Info) != sec || !(r.Type == cubin.SecRel && r.EntSize == 16 || r.Type == cubin.SecRela && r.EntSize == 24) {
			continue
		}
		size := int(r.EntSize)
		for k := 0; k+size <= len(r.Data); k += size {
			off := binary.LittleEndian.Uint64(r.Data[k:])
			info := binary.LittleEndian.Uint64(r.Data[k+8:])
			rel := cubin.Reloc{Offset: off, Type: uint32(info), Symbol: uint32(info >> 32)}
			switch {
			case r.Type == cubin.SecRela:
				rel.Addend = int64(binary.LittleEndian.Uint64(r.Data[k+16:]))
			case rel.Type == relocR64 && off+8 <= uint64(len(data)):
				rel.Addend = int64(binary.LittleEndian.Uint64(data[off:]))
			}
			out = append(out, rel)
		}
	}
	return out
}

// dataRelocs returns the values of section sec that relocations patch, with
// the text nvdisasm prints for them.
func (d *dataLister) dataRelocs(sec int) map[uint64]dataReloc {
	var out map[uint64]dataReloc
	for _, r := range sectionRelocs(d.f, sec) {
		sym := d.symName(r.Symbol)
		rel := dataReloc{size: 4}
		switch typ := cubin.RelocTypeName(r.Type); typ {
		case "R_CUDA_TEX_HEADER_INDEX":
			rel.text = "[20@lo(0x0)=" + sym + "]"
		case "R_CUDA_SURF_HEADER_INDEX":
			rel.text = "[20@lo(0x0)=fun@R_CUDA_SURF_HEADER_INDEX(" + sym + ")]"
		case "R_CUDA_64":
			rel.size, rel.text = 8, sym
			if r.Addend != 0 && d.codeAddr != nil {
				rel.text = d.codeAddr(r.Symbol, r.Addend)
			}
		case "R_CUDA_32":
			// a function pointer in .nv.global.init; a section offset in
			// the debug sections, which nvdisasm does not align
			rel.text = sym
			rel.unaligned = d.f.Sections[sec].Flags&shfAlloc == 0
		case "R_CUDA_G64", "R_CUDA_UNUSED_CLEAR64", "R_CUDA_FUNC_DESC_64":
			rel.size, rel.text = 8, "fun@"+typ+"("+sym+")"
		default:
			rel.text = typ + "(" + sym + ")"
		}
		if out == nil {
			out = map[uint64]dataReloc{}
		}
		out[r.Offset] = rel
	}
	return out
}

// listSymbols appends the SYMBOLS section: symbols defined in no section
// (externs, texture and surface references).
func (d *dataLister) listSymbols(dst []byte) []byte {
	started := false
	for i := 1; i < len(d.f.Symbols); i++ {
		y := &d.f.Symbols[i]
		if y.Section != 0 || y.Name == "" {
			continue
		}
		var typ string
		switch y.Type() {
		case 1:
			typ = "@object"
		case 2:
			typ = "@function"
		case 10:
			typ = "@\"STT_CUDA_TEXTURE\""
		case 12:
			typ = "@\"STT_CUDA_SURFACE\""
		case 11:
			typ = "@\"STT_CUDA_SAMPLER\""
		default:
			continue
		}
		if !started {
			dst = append(dst, "\n\n//--------------------- SYMBOLS --------------------------\n\n"...)
			started = true
		}
		dst = fmt.Appendf(dst, "\t.type\t\t%s,%s\n", y.Name, typ)
		if y.Size != 0 {
			dst = fmt.Appendf(dst, "\t.size\t\t%s,0x%x\n", y.Name, y.Size)
		}
	}
	return dst
}

// attrExterns is EIATTR_EXTERNS: the symbol indices of external functions.
const attrExterns = 0x0f

// listCallgraph appends .nv.callgraph / .nv.prototype: pairs of words. In
// the call graph, (0, 0xffffffff) starts the caller→callee edges (two symbol
// indices), (0, 0xfffffffe) and (0, 0xfffffffd) lists of (symbol, prototype
// string); .nv.prototype holds (symbol, prototype string) pairs.
func (d *dataLister) listCallgraph(dst []byte, s *cubin.Section) []byte {
	secondIsString := s.Type == cubin.SecCUDAPrototype
	data := s.Data
	for i := 0; i+8 <= len(data); i += 8 {
		a, b := binary.LittleEndian.Uint32(data[i:]), binary.LittleEndian.Uint32(data[i+4:])
		var ta, tb string
		switch {
		case a == 0 && b >= 0xfffffff0:
			ta, tb = "0x00000000", fmt.Sprintf("0x%08x", b)
			secondIsString = b != 0xffffffff
		case secondIsString:
			ta, tb = "index@("+d.symName(a)+")", "str_index@(\""+d.str(b)+"\")"
		default:
			ta, tb = "index@("+d.symName(a)+")", "index@("+d.symName(b)+")"
		}
		dst = append(dst, "\t.align\t\t4\n"...)
		dst = dataLine(dst, i, ".word", ta)
		dst = append(dst, "\t.align\t\t4\n"...)
		dst = dataLine(dst, i+4, ".word", tb)
	}
	return dst
}

// str returns the string at offset off of .strtab.
func (d *dataLister) str(off uint32) string {
	t := d.f.Section(".strtab")
	if t == nil || int(off) >= len(t.Data) {
		return strconv.FormatUint(uint64(off), 10)
	}
	b := t.Data[off:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
