package main

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// cuobjdump -elf's decoding of the DWARF and NVIDIA debug sections of -G
// builds: .debug_abbrev, .debug_info, .debug_loc, .debug_frame,
// .nv_debug_info_reg_sass and .nv_debug_info_reg_type. The layouts are
// DWARF 2's (64-bit .debug_frame) and NVIDIA's register maps; the text is
// cuobjdump 11.8's, read off its output for our -G builds.

// dwarfReader reads little-endian fields and LEB128 numbers; past the end
// it yields zeros and sets bad.
type dwarfReader struct {
	b   []byte
	pos int
	bad bool
}

func (r *dwarfReader) more() bool { return !r.bad && r.pos < len(r.b) }

func (r *dwarfReader) bytes(n int) []byte {
	if n < 0 || r.pos+n > len(r.b) {
		r.bad = true
		r.pos = len(r.b)
		return nil
	}
	r.pos += n
	return r.b[r.pos-n : r.pos]
}

func (r *dwarfReader) u8() uint64 {
	if b := r.bytes(1); b != nil {
		return uint64(b[0])
	}
	return 0
}

func (r *dwarfReader) u16() uint64 {
	if b := r.bytes(2); b != nil {
		return uint64(binary.LittleEndian.Uint16(b))
	}
	return 0
}

func (r *dwarfReader) u32() uint64 {
	if b := r.bytes(4); b != nil {
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return 0
}

func (r *dwarfReader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *dwarfReader) uleb() uint64 {
	var v uint64
	for shift := 0; ; shift += 7 {
		b := r.bytes(1)
		if b == nil {
			return v
		}
		if shift < 64 {
			v |= uint64(b[0]&0x7f) << shift
		}
		if b[0]&0x80 == 0 {
			return v
		}
	}
}

func (r *dwarfReader) sleb() int64 {
	var v int64
	shift := 0
	for {
		b := r.bytes(1)
		if b == nil {
			return v
		}
		if shift < 64 {
			v |= int64(b[0]&0x7f) << shift
		}
		shift += 7
		if b[0]&0x80 == 0 {
			if shift < 64 && b[0]&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (r *dwarfReader) cstring() string {
	for k := r.pos; k < len(r.b); k++ {
		if r.b[k] == 0 {
			s := string(r.b[r.pos:k])
			r.pos = k + 1
			return s
		}
	}
	r.bad = true
	s := string(r.b[r.pos:])
	r.pos = len(r.b)
	return s
}

// dwarfReloc is a relocation of a debug section: the symbol's name and the
// value it puts at its offset (symbol value plus addend).
type dwarfReloc struct {
	name  string
	value uint64
}

// relocsOf returns the relocations that patch section i, by offset.
func (d *elfDumper) relocsOf(i int) map[uint64]dwarfReloc {
	out := map[uint64]dwarfReloc{}
	for _, k := range d.rels[i] {
		s := &d.f.Sections[k]
		size := 16
		if s.Type == cubin.SecRela {
			size = 24
		}
		for e := 0; e+size <= len(s.Data); e += size {
			off := binary.LittleEndian.Uint64(s.Data[e:])
			sym := binary.LittleEndian.Uint64(s.Data[e+8:]) >> 32
			var rel dwarfReloc
			if sym < uint64(len(d.f.Symbols)) {
				rel = dwarfReloc{name: d.f.Symbols[sym].Name, value: d.f.Symbols[sym].Value}
			}
			if size == 24 {
				rel.value += binary.LittleEndian.Uint64(s.Data[e+16:])
			}
			out[off] = rel
		}
	}
	return out
}

type dwarfAbbrev struct {
	tag      uint64
	children bool
	attrs    [][2]uint64 // attribute, form
}

// parseAbbrevs reads the abbreviation table at off.
func parseAbbrevs(data []byte, off uint64) map[uint64]*dwarfAbbrev {
	out := map[uint64]*dwarfAbbrev{}
	if off > uint64(len(data)) {
		return out
	}
	r := &dwarfReader{b: data, pos: int(off)}
	for r.more() {
		code := r.uleb()
		if code == 0 {
			break
		}
		a := &dwarfAbbrev{tag: r.uleb(), children: r.u8() != 0}
		for r.more() {
			at, form := r.uleb(), r.uleb()
			if at == 0 && form == 0 {
				break
			}
			a.attrs = append(a.attrs, [2]uint64{at, form})
		}
		out[code] = a
	}
	return out
}

// debugAbbrev prints .debug_abbrev.
func (d *elfDumper) debugAbbrev(s *cubin.Section) {
	w := d.w
	w.WriteString("\nContents of the .debug_abbrev section:\n\n  Number  TAG\n")
	r := &dwarfReader{b: s.Data}
	for r.more() {
		code := r.uleb()
		if code == 0 {
			continue // the end of one unit's table
		}
		tag := r.uleb()
		children := "[has no children]"
		if r.u8() != 0 {
			children = "[has children]"
		}
		fmt.Fprintf(w, "   %d      0x%02x %s      %s\n", code, tag, tagName(tag), children)
		for r.more() {
			at, form := r.uleb(), r.uleb()
			if at == 0 && form == 0 {
				break
			}
			fmt.Fprintf(w, "   %s(0x%x)          %s(0x%x)\n", dwarfName(dwarfAttrs, "DW_AT", at), at, dwarfName(dwarfForms, "DW_FORM", form), form)
		}
		w.WriteByte('\n')
	}
}

// debugInfo prints .debug_info (section i): each unit's header and its
// entries, attributes decoded by form, addresses relocated.
func (d *elfDumper) debugInfo(i int, s *cubin.Section) {
	w := d.w
	relocs := d.relocsOf(i)
	var abbrevData []byte
	for k := range d.f.Sections {
		if d.f.Sections[k].Name == ".debug_abbrev" {
			abbrevData = d.f.Sections[k].Data
		}
	}
	r := &dwarfReader{b: s.Data}
	for r.more() {
		unit := r.pos
		length := r.u32()
		end := r.pos + int(length)
		if length >= 0xfffffff0 || end > len(s.Data) {
			return // 64-bit units are not made by ptxas
		}
		version := r.u16()
		abbrevOff := r.u32()
		ptrSize := int(r.u8())
		fmt.Fprintf(w, " Compilation Unit @ offset 0x%x:\n  Length:           %d\n  Version:          %d\n  Abbrev Offset:    %d\n  Pointer Size:     %d\n",
			unit, length, version, abbrevOff, ptrSize)
		abbrevs := parseAbbrevs(abbrevData, abbrevOff)
		ur := &dwarfReader{b: s.Data[:end], pos: r.pos}
		level := 0
		for ur.more() {
			at := ur.pos
			code := ur.uleb()
			if code == 0 {
				level--
				continue
			}
			a := abbrevs[code]
			if a == nil {
				fmt.Fprintf(w, " <%d><%x>:  Abbrev Number: %d (unknown)\n", level, at, code)
				break
			}
			fmt.Fprintf(w, " <%d><%x>:  Abbrev Number: %d   (0x%02x %s)\n", level, at, code, a.tag, tagName(a.tag))
			for _, af := range a.attrs {
				fmt.Fprintf(w, "      %s   \t%s\n", dwarfName(dwarfAttrs, "DW_AT", af[0]), d.attrValue(ur, af[0], af[1], ptrSize, uint64(unit), relocs))
			}
			if a.children {
				level++
			}
		}
		r.pos = end
	}
}

// attrValue reads one attribute value and returns its text.
func (d *elfDumper) attrValue(r *dwarfReader, at, form uint64, ptrSize int, unit uint64, relocs map[uint64]dwarfReloc) string {
	hex := func(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }
	switch form {
	case 0x01: // addr
		off := uint64(r.pos)
		var v uint64
		if ptrSize == 4 {
			v = r.u32()
		} else {
			v = r.u64()
		}
		if rel, ok := relocs[off]; ok {
			v = rel.value
		}
		return strconv.FormatUint(v, 16)
	case 0x0b: // data1
		return hex(r.u8())
	case 0x05: // data2
		return hex(r.u16())
	case 0x06: // data4
		return hex(r.u32())
	case 0x07: // data8
		return hex(r.u64())
	case 0x0d: // sdata
		return strconv.FormatInt(r.sleb(), 10)
	case 0x0f: // udata
		return hex(r.uleb())
	case 0x08: // string
		return r.cstring()
	case 0x0e: // strp
		off := r.u32()
		for k := range d.f.Sections {
			if str := d.f.Sections[k].Data; d.f.Sections[k].Name == ".debug_str" && off < uint64(len(str)) {
				return (&dwarfReader{b: str, pos: int(off)}).cstring()
			}
		}
		return hex(off)
	case 0x0c: // flag
		return strconv.FormatUint(r.u8(), 10)
	case 0x11: // ref1
		return fmt.Sprintf("<%x>", unit+r.u8())
	case 0x12: // ref2
		return fmt.Sprintf("<%x>", unit+r.u16())
	case 0x13: // ref4
		return fmt.Sprintf("<%x>", unit+r.u32())
	case 0x14: // ref8
		return fmt.Sprintf("<%x>", unit+r.u64())
	case 0x0a, 0x03, 0x04, 0x09: // block1, block2, block4, block
		var n uint64
		switch form {
		case 0x0a:
			n = r.u8()
		case 0x03:
			n = r.u16()
		case 0x04:
			n = r.u32()
		default:
			n = r.uleb()
		}
		if n > uint64(len(r.b)) {
			r.bad = true
			return ""
		}
		block := r.bytes(int(n))
		var b strings.Builder
		fmt.Fprintf(&b, "%3d byte block: ", len(block))
		for _, c := range block {
			fmt.Fprintf(&b, "%2x ", c)
		}
		if at == 0x02 || at == 0x38 { // location, data_member_location
			if ops, ok := dwarfExpr(block); ok {
				b.WriteString("(" + ops + ")")
			}
		}
		return b.String()
	}
	r.bad = true
	return fmt.Sprintf("(form 0x%x)", form)
}

// dwarfExpr decodes a location expression of the operations ptxas uses;
// ok is false when it holds another.
func dwarfExpr(b []byte) (string, bool) {
	r := &dwarfReader{b: b}
	var ops []string
	for r.more() {
		switch op := r.u8(); op {
		case 0x03:
			ops = append(ops, fmt.Sprintf("DW_OP_addr: 0x%x", r.u64()))
		case 0x23:
			ops = append(ops, fmt.Sprintf("DW_OP_plus_uconst: %d", r.uleb()))
		case 0x90:
			ops = append(ops, "DW_OP_regx: "+regxName(r.uleb()))
		case 0x91:
			ops = append(ops, fmt.Sprintf("DW_OP_fbreg: %d", r.sleb()))
		case 0x96:
			ops = append(ops, "DW_OP_nop")
		default:
			return "", false
		}
	}
	if r.bad {
		return "", false
	}
	return strings.Join(ops, "; "), true
}

// regxName: ptxas's DW_OP_regx operand is a PTX register name packed into
// the number, first character highest ("%r1" is 0x257231).
func regxName(v uint64) string {
	var b []byte
	for ; v != 0; v >>= 8 {
		b = append([]byte{byte(v)}, b...)
	}
	return string(b)
}

// debugLoc prints .debug_loc: each location list with its offset.
func (d *elfDumper) debugLoc(i int, s *cubin.Section) {
	w := d.w
	w.WriteString("\n\tStart Address\tEnd Address\tRegister-name\n")
	relocs := d.relocsOf(i)
	r := &dwarfReader{b: s.Data}
	for first := true; r.more(); first = false {
		if !first {
			w.WriteByte('\n')
		}
		fmt.Fprintf(w, ".debug_loc + %d:\n", r.pos)
		for r.more() {
			_, relocated := relocs[uint64(r.pos)]
			start, end := r.u64(), r.u64()
			if !relocated {
				// cuobjdump ends a list at an entry whose start address
				// has no relocation (not only at 0, 0)
				break
			}
			n := r.u16()
			expr, ok := dwarfExpr(r.bytes(int(n)))
			if !ok {
				expr = "?"
			}
			fmt.Fprintf(w, "\t0x%x\t\t0x%x\t\t%s\n", start, end, expr)
		}
	}
}

// regSass prints .nv_debug_info_reg_sass: per function, the PTX registers
// and where (a register number and an address range) they live.
func (d *elfDumper) regSass(s *cubin.Section) {
	d.perFunction(s, func(r *dwarfReader) {
		r.u32() // zero
		reg := r.cstring()
		loc, start, end := r.u32(), r.u32(), r.u32()
		fmt.Fprintf(d.w, "    (reg: %s) 0x%x, 0x%x, 0x%x\n", reg, loc, start, end)
	})
}

// regType prints .nv_debug_info_reg_type: per function, the PTX type of
// each register of .nv_debug_info_reg_sass.
func (d *elfDumper) regType(s *cubin.Section) {
	d.perFunction(s, func(r *dwarfReader) {
		if t := r.u8(); int(t) < len(ptxTypeNames) {
			fmt.Fprintf(d.w, "%s\n", ptxTypeNames[t])
		} else {
			fmt.Fprintf(d.w, "0x%x\n", t)
		}
	})
}

// perFunction walks the records of NVIDIA's register maps: a function's
// name, its entry count (printed in hex), then entry reads each entry.
func (d *elfDumper) perFunction(s *cubin.Section, entry func(r *dwarfReader)) {
	r := &dwarfReader{b: s.Data}
	for r.more() {
		name := r.cstring()
		n := r.u32()
		fmt.Fprintf(d.w, "  Function Name: %s\n  Total entry: %x\n", name, n)
		for k := uint64(0); k < n && r.more(); k++ {
			entry(r)
		}
	}
}

// ptxTypeNames are the type codes of .nv_debug_info_reg_type (seen in our
// -G builds: .b16, .b32, .b64, .u32, .f32, .pred; the others in PTX's
// order between them, .f16x2 being a guess).
var ptxTypeNames = [...]string{
	".b8", ".b16", ".b32", ".b64", ".u8", ".u16", ".u32", ".u64",
	".s8", ".s16", ".s32", ".s64", ".f16", ".f16x2", ".f32", ".f64", ".pred",
}

// debugFrame prints .debug_frame (section i, 64-bit DWARF): each CIE and
// FDE with its call-frame instructions, FDEs named by their relocation.
func (d *elfDumper) debugFrame(i int, s *cubin.Section) {
	w := d.w
	relocs := d.relocsOf(i)
	first := uint64(0)
	if len(s.Data) >= 4 {
		first = uint64(binary.LittleEndian.Uint32(s.Data))
	}
	fmt.Fprintf(w, "decodeDebugFrame, frameBuf 0x%x, total_length %d\n", first, len(s.Data))
	r := &dwarfReader{b: s.Data}
	codeAlign, dataAlign := uint64(1), int64(1)
	for r.more() {
		if r.u32() != 0xffffffff {
			return // only 64-bit entries are made by ptxas
		}
		length := r.u64()
		if length < 8 || length > uint64(len(s.Data)-r.pos) {
			return
		}
		end := r.pos + int(length)
		id := r.u64()
		er := &dwarfReader{b: s.Data[:end], pos: r.pos}
		if id == ^uint64(0) {
			version := er.u8()
			augAt := er.pos
			aug := er.cstring()
			augLen := er.pos - augAt
			caAt := er.pos
			codeAlign = er.uleb()
			caLen := er.pos - caAt
			daAt := er.pos
			dataAlign = er.sleb()
			daLen := er.pos - daAt
			var ra uint64
			if version == 1 {
				ra = er.u8()
			} else {
				ra = er.uleb()
			}
			fmt.Fprintf(w, "CIE length %d, cie_id %d\nversion %d\naugmentation slen %d\naugmentation %s\ncode_align_factor slen %d\ndata_align_factor slen %d\n",
				length, int64(id), version, augLen, aug, caLen, daLen)
			ptr := uint64(0)
			if er.pos+4 <= end {
				ptr = uint64(binary.LittleEndian.Uint32(s.Data[er.pos:]))
			}
			fmt.Fprintf(w, " Debug Frame Common Information Entry\n  length:                 %d\n  CIE_id :                %d\n  version:                %d\n  augmentation:           %s\n",
				length, int64(id), version, aug)
			fmt.Fprintf(w, "  code align factor:      %d\n  data align factor:      %d\n  return address register 0x%x\n", codeAlign, dataAlign, ra)
			fmt.Fprintf(w, "  initial instructions: %d bytes, ptr = 0x%x, frameBuf = 0x%x\n", end-er.pos, ptr, first)
		} else {
			locAt := uint64(er.pos)
			loc, rng := er.u64(), er.u64()
			name := ""
			if rel, ok := relocs[locAt]; ok {
				name = rel.name
				loc = rel.value
			}
			fmt.Fprintf(w, " Debug Frame Description Entry\n  length:                 %d\n  CIE_pointer:            %d\n  initial_location:       0x%x\n  address_range:          0x%x\n  function:               %s\n  instructions: %d bytes\n",
				length, id, loc, rng, name, end-er.pos)
		}
		cfaInstructions(w, s.Data[er.pos:end])
		r.pos = end
	}
}

// cfaInstructions prints call-frame instructions, operands unscaled.
func cfaInstructions(w interface{ WriteString(string) (int, error) }, b []byte) {
	r := &dwarfReader{b: b}
	for r.more() {
		op := r.u8()
		var line string
		switch {
		case op>>6 == 1:
			line = fmt.Sprintf("DW_CFA_advance_loc delta %d", op&0x3f)
		case op>>6 == 2:
			line = fmt.Sprintf("DW_CFA_offset register %s, offset %d", cfaReg(uint64(op&0x3f)), r.uleb())
		case op>>6 == 3:
			line = fmt.Sprintf("DW_CFA_restore register %s", cfaReg(uint64(op&0x3f)))
		case op == 0x00:
			line = "DW_CFA_nop"
		case op == 0x02:
			line = fmt.Sprintf("DW_CFA_advance_loc1 delta %d", r.u8())
		case op == 0x03:
			line = fmt.Sprintf("DW_CFA_advance_loc2 delta %d", r.u16())
		case op == 0x04:
			line = fmt.Sprintf("DW_CFA_advance_loc4 delta %d", r.u32())
		case op == 0x05:
			reg := r.uleb()
			line = fmt.Sprintf("DW_CFA_offset_extended register %s, offset %d", cfaReg(reg), r.uleb())
		case op == 0x06:
			line = fmt.Sprintf("DW_CFA_restore_extended register %s", cfaReg(r.uleb()))
		case op == 0x07:
			line = fmt.Sprintf("DW_CFA_undefined  %s", cfaReg(r.uleb()))
		case op == 0x08:
			line = fmt.Sprintf("DW_CFA_same_value %s", cfaReg(r.uleb()))
		case op == 0x0c:
			reg := r.uleb()
			line = fmt.Sprintf("DW_CFA_def_cfa register %s, offset %d", cfaReg(reg), r.uleb())
		case op == 0x0d:
			line = fmt.Sprintf("DW_CFA_def_cfa_register %s", cfaReg(r.uleb()))
		case op == 0x0e:
			line = fmt.Sprintf("DW_CFA_def_cfa_offset %d", r.uleb())
		default:
			w.WriteString(fmt.Sprintf("  DW_CFA_??? (0x%x)\n", op))
			return
		}
		w.WriteString("  " + line + "\n")
	}
}

// cfaReg names a call-frame register: the class in the top byte.
func cfaReg(v uint64) string {
	class, n := v>>24, v&0xffffff
	switch class {
	case 5:
		return "R" + strconv.FormatUint(n, 10)
	case 2:
		return "P" + strconv.FormatUint(n, 10)
	case 1:
		return "C" + strconv.FormatUint(n, 10)
	}
	return fmt.Sprintf("0x%x", v)
}

// tagName is a DW_TAG's name; cuobjdump calls the ones it does not know
// "<unknown>" (0x42, DW_TAG_rvalue_reference_type, in -G builds).
func tagName(tag uint64) string {
	if s, ok := dwarfTags[tag]; ok {
		return s
	}
	return "<unknown>"
}

func dwarfName(names map[uint64]string, prefix string, v uint64) string {
	if s, ok := names[v]; ok {
		return s
	}
	return fmt.Sprintf("%s_0x%x", prefix, v)
}

var dwarfTags = map[uint64]string{
	0x01: "DW_TAG_array_type", 0x02: "DW_TAG_class_type", 0x04: "DW_TAG_enumeration_type", 0x05: "DW_TAG_formal_parameter",
	0x0b: "DW_TAG_lexical_block", 0x0d: "DW_TAG_member", 0x0f: "DW_TAG_pointer_type", 0x10: "DW_TAG_reference_type",
	0x11: "DW_TAG_compile_unit", 0x13: "DW_TAG_structure_type", 0x15: "DW_TAG_subroutine_type", 0x16: "DW_TAG_typedef",
	0x17: "DW_TAG_union_type", 0x18: "DW_TAG_unspecified_parameters", 0x1d: "DW_TAG_inlined_subroutine",
	0x21: "DW_TAG_subrange_type", 0x24: "DW_TAG_base_type", 0x26: "DW_TAG_const_type", 0x28: "DW_TAG_enumerator",
	0x2e: "DW_TAG_subprogram", 0x34: "DW_TAG_variable", 0x35: "DW_TAG_volatile_type", 0x39: "DW_TAG_namespace",
	0x3a: "DW_TAG_imported_module", 0x3b: "DW_TAG_unspecified_type", 0x08: "DW_TAG_imported_declaration",
	0x2f: "DW_TAG_template_type_param", 0x30: "DW_TAG_template_value_param", 0x37: "DW_TAG_restrict_type",
}

var dwarfAttrs = map[uint64]string{
	0x01: "DW_AT_sibling", 0x02: "DW_AT_location", 0x03: "DW_AT_name", 0x0b: "DW_AT_byte_size", 0x10: "DW_AT_stmt_list",
	0x11: "DW_AT_low_pc", 0x12: "DW_AT_high_pc", 0x13: "DW_AT_language", 0x1b: "DW_AT_comp_dir", 0x1c: "DW_AT_const_value",
	0x20: "DW_AT_inline", 0x22: "DW_AT_lower_bound", 0x25: "DW_AT_producer", 0x27: "DW_AT_prototyped", 0x2f: "DW_AT_upper_bound",
	0x31: "DW_AT_abstract_origin", 0x32: "DW_AT_accessibility", 0x33: "DW_AT_address_class", 0x34: "DW_AT_artificial",
	0x37: "DW_AT_count", 0x38: "DW_AT_data_member_location", 0x39: "DW_AT_decl_column", 0x3a: "DW_AT_decl_file",
	0x3b: "DW_AT_decl_line", 0x3c: "DW_AT_declaration", 0x3e: "DW_AT_encoding", 0x3f: "DW_AT_external",
	0x40: "DW_AT_frame_base", 0x47: "DW_AT_specification", 0x49: "DW_AT_type", 0x58: "DW_AT_call_file",
	0x59: "DW_AT_call_line", 0x5a: "DW_AT_description", 0x64: "DW_AT_object_pointer", 0x2007: "DW_AT_MIPS_linkage_name",
	0x0c: "DW_AT_bit_offset", 0x0d: "DW_AT_bit_size",
}

var dwarfForms = map[uint64]string{
	0x01: "DW_FORM_addr", 0x03: "DW_FORM_block2", 0x04: "DW_FORM_block4", 0x05: "DW_FORM_data2", 0x06: "DW_FORM_data4",
	0x07: "DW_FORM_data8", 0x08: "DW_FORM_string", 0x09: "DW_FORM_block", 0x0a: "DW_FORM_block1", 0x0b: "DW_FORM_data1",
	0x0c: "DW_FORM_flag", 0x0d: "DW_FORM_sdata", 0x0e: "DW_FORM_strp", 0x0f: "DW_FORM_udata", 0x10: "DW_FORM_ref_addr",
	0x11: "DW_FORM_ref1", 0x12: "DW_FORM_ref2", 0x13: "DW_FORM_ref4", 0x14: "DW_FORM_ref8", 0x15: "DW_FORM_ref_udata",
}
