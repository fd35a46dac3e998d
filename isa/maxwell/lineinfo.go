package maxwell

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// Line tables: the DWARF (version 2) line programs of .debug_line that
// ptxas writes for -lineinfo and -G code, with NVIDIA's extension for
// inlining: the extended opcode 0x90 sets the inlining context of the rows
// after it to (the index of the row of the call site, the offset of the
// inlined function's name in .debug_str); (0, 0) ends it.

// LineRow is one row of a line table.
type LineRow struct {
	Section int    // the code section the address lies in
	Addr    uint64 // offset in that section
	File    string // directory/name, as nvdisasm prints it
	Line    int
	// InlinedAt is the index (in the rows of this row's sequence, counting
	// from 1) of the row of the call site this row was inlined into; 0 when
	// not inlined.
	InlinedAt int
	// Sequence is the index of the first row of this row's sequence (the
	// rows from a set_address to an end_sequence) in the slice LineTable
	// returns: InlinedAt counts from there (nvdisasm -gi: a unit holding
	// two kernels' sequences names the second's call sites from its own
	// first row).
	Sequence int
}

// extInlineContext is NVIDIA's extended line opcode for inlining.
const extInlineContext = 0x90

// LineTable decodes the line programs of f's .debug_line section. Rows are
// in program order. Addresses come from the R_CUDA_64 relocations of the
// DW_LNE_set_address operands.
func LineTable(f *cubin.File) ([]LineRow, error) { return lineTableOf(f, ".debug_line", nil) }

// PTXLineTable decodes .nv_debug_line_sass, which maps the code to lines of
// the PTX kept in .nv_debug_ptx_txt (the file its rows name).
func PTXLineTable(f *cubin.File) ([]LineRow, error) {
	return lineTableOf(f, ".nv_debug_line_sass", nil)
}

// lineTableOf decodes the line programs of section name; a non-nil trace
// also describes them.
func lineTableOf(f *cubin.File, name string, trace *lineTrace) ([]LineRow, error) {
	sec := -1
	for i := range f.Sections {
		if f.Sections[i].Name == name {
			sec = i
		}
	}
	if sec < 0 {
		return nil, nil
	}
	data := f.Sections[sec].Data
	relocAt := map[uint64]cubin.Reloc{}
	for _, r := range sectionRelocs(f, sec) {
		relocAt[r.Offset] = r
	}
	var rows []LineRow
	for at := 0; at+4 <= len(data); {
		unit, err := decodeLineUnit(f, data, at, relocAt, len(rows), trace)
		rows = append(rows, unit.rows...)
		if err != nil {
			return rows, fmt.Errorf("%s at %#x: %w", name, unit.pos, err)
		}
		at = unit.end
	}
	return rows, nil
}

type lineUnit struct {
	rows     []LineRow
	pos, end int
}

var errLineTruncated = errors.New("truncated line program")

// lineReader reads LEB128 numbers and bytes, remembering the first overrun.
type lineReader struct {
	b   []byte
	pos int
	err error
}

func (r *lineReader) byte() byte {
	if r.pos >= len(r.b) {
		r.err = errLineTruncated
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *lineReader) uleb() uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		c := r.byte()
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		if c < 0x80 || r.err != nil {
			return v
		}
	}
}

func (r *lineReader) sleb() int64 {
	var v int64
	shift := uint(0)
	for {
		c := r.byte()
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c < 0x80 || r.err != nil {
			if c&0x40 != 0 && shift < 64 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (r *lineReader) cstring() string {
	start := r.pos
	for r.pos < len(r.b) && r.b[r.pos] != 0 {
		r.pos++
	}
	s := string(r.b[start:r.pos])
	r.byte()
	return s
}

// decodeLineUnit decodes the line program at offset at; with a non-nil
// trace it also describes the header and every opcode as cuobjdump -elf does.
func decodeLineUnit(f *cubin.File, data []byte, at int, relocAt map[uint64]cubin.Reloc, first int, trace *lineTrace) (lineUnit, error) {
	u := lineUnit{pos: at, end: len(data)}
	length := int(binary.LittleEndian.Uint32(data[at:]))
	if length < 0 || length > len(data)-at-4 {
		return u, errLineTruncated
	}
	u.end = at + 4 + length
	r := &lineReader{b: data[:u.end], pos: at + 4}
	version := int(r.byte()) | int(r.byte())<<8 // 2
	if r.pos+4 > u.end {
		return u, errLineTruncated
	}
	program := r.pos + 4 + int(binary.LittleEndian.Uint32(data[r.pos:]))
	if program > u.end {
		return u, errLineTruncated // the header would end after the unit
	}
	r.pos += 4
	minInst := int(r.byte())
	isStmt := int(r.byte()) // default is_stmt
	lineBase := int(int8(r.byte()))
	lineRange := int(r.byte())
	opBase := int(r.byte())
	if lineRange == 0 || opBase == 0 {
		return u, errors.New("bad line program header")
	}
	stdLens := make([]int, opBase)
	for k := 1; k < opBase; k++ {
		stdLens[k] = int(r.byte())
	}
	if trace != nil {
		trace.header(at, length, version, program-(at+10), minInst, isStmt, lineBase, lineRange, stdLens)
	}
	var dirs []string
	for r.err == nil && r.pos < len(r.b) && r.b[r.pos] != 0 {
		dirs = append(dirs, r.cstring())
	}
	r.byte()
	trace.dirs(dirs)
	var files []string
	for r.err == nil && r.pos < len(r.b) && r.b[r.pos] != 0 {
		name := r.cstring()
		dir := int(r.uleb())
		time := r.uleb() // modification time
		size := r.uleb() // length
		trace.file(len(files)+1, dir, time, size, name)
		if dir > 0 && dir <= len(dirs) && (name == "" || name[0] != '/') {
			name = dirs[dir-1] + "/" + name
		}
		files = append(files, name)
	}
	if r.err != nil {
		return u, r.err
	}
	if program < r.pos || program > u.end {
		return u, errors.New("bad header length")
	}
	if trace != nil {
		trace.statements(data[min(r.pos+1, program):program])
	}
	r.pos = program // ptxas pads the header
	section, addr, line, file, inlinedAt := -1, uint64(0), 1, 1, 0
	seq := first // the first row of the current sequence
	emit := func() {
		name := ".nv_debug_ptx_txt" // the PTX table names no files
		if file >= 1 && file <= len(files) {
			name = files[file-1]
		}
		u.rows = append(u.rows, LineRow{Section: section, Addr: addr, File: name, Line: line, InlinedAt: inlinedAt, Sequence: seq})
	}
	for r.err == nil && r.pos < u.end {
		op := int(r.byte())
		switch {
		case op >= opBase:
			adj := op - opBase
			addr += uint64(adj / lineRange * minInst)
			line += lineBase + adj%lineRange
			trace.special(adj, adj/lineRange*minInst, lineBase+adj%lineRange, line)
			emit()
		case op == 0:
			n := r.uleb()
			if n == 0 || n > uint64(u.end-r.pos) {
				return u, errLineTruncated // also a length too large for an int
			}
			end := r.pos + int(n)
			switch ext := r.byte(); ext {
			case 1: // end_sequence
				section, addr, line, file, inlinedAt = -1, 0, 1, 1, 0
				seq = first + len(u.rows)
				trace.printf("  Extended opcode 1: End of Sequence\n")
				if end < u.end {
					trace.printf("\n") // cuobjdump parts sequences with a blank line
				}
			case 2: // set_address: the operand is relocated against a function
				if trace != nil && r.pos+8 <= end {
					trace.setAddress(binary.LittleEndian.Uint64(data[r.pos:]))
				}
				rel, ok := relocAt[uint64(r.pos)]
				if !ok || int(rel.Symbol) >= len(f.Symbols) {
					return u, fmt.Errorf("set_address at %#x without a relocation", r.pos)
				}
				s := f.Symbols[rel.Symbol]
				section, addr = int(s.Section), s.Value+uint64(rel.Addend)
			case extInlineContext:
				inlinedAt = int(r.uleb())
				name := r.uleb() // the inlined function's name in .debug_str
				trace.printf("  Extended opcode 144: Set context to %d and function offset to %#x\n", inlinedAt, name)
			default:
				trace.printf("  Extended opcode %d\n", ext)
			}
			r.pos = end
		case op == 1: // copy
			trace.printf("  Copy\n")
			emit()
		case op == 2:
			d := r.uleb() * uint64(minInst)
			addr += d
			trace.advancePC(d)
		case op == 3:
			d := int(r.sleb())
			line += d
			trace.printf("  Advance Line by %d to %d\n", d, line)
		case op == 4:
			file = int(r.uleb())
			trace.printf("  Set File Name to entry %d in the File Name Table\n", file)
		case op == 8: // const_add_pc
			d := uint64((255 - opBase) / lineRange * minInst)
			addr += d
			trace.advancePC(d)
		case op == 9:
			d := uint64(r.byte()) | uint64(r.byte())<<8
			addr += d
			trace.advancePC(d)
		default:
			for k := 0; k < stdLens[op]; k++ {
				r.uleb()
			}
			trace.printf("  Opcode %d\n", op)
		}
	}
	return u, r.err
}

// lineTrace describes a line program as cuobjdump -elf prints it. Its
// methods do nothing on a nil trace. The addresses are those the program
// itself sets (cuobjdump does not apply the relocations).
type lineTrace struct {
	out      []byte
	debugStr bool // the file has .debug_str: cuobjdump prints the header's offset into it
	addr     uint64
}

func (t *lineTrace) printf(format string, a ...any) {
	if t != nil {
		t.out = fmt.Appendf(t.out, format, a...)
	}
}

func (t *lineTrace) header(offset, length, version, prologue, minInst, isStmt, lineBase, lineRange int, stdLens []int) {
	t.printf("  Offset:                         %d\n  Length:                         %d\n", offset, length)
	t.printf("  DWARF Version:                   %d\n  Prologue Length:                %d\n", version, prologue)
	t.printf("  Minimum instruction length:      %d\n  Initial value of is_stmt:        %d\n", minInst, isStmt)
	t.printf("  Line base:                       %d\n  Line range:                      %d\n  Opcode base:                     %d\n\nOpcodes:\n", lineBase, lineRange, len(stdLens))
	for k := 1; k < len(stdLens); k++ {
		t.printf("  Opcode %d has %d args\n", k, stdLens[k])
	}
}

func (t *lineTrace) dirs(dirs []string) {
	t.printf("\nThe Directory Table:\n")
	for _, d := range dirs {
		t.printf("  %s\n", d)
	}
	t.printf("\nThe File Name Table:\n  Entry   Dir     Time    Size    Name\n")
}

func (t *lineTrace) file(entry, dir int, time, size uint64, name string) {
	t.printf("   %d       %d      %d       %d       %s\n", entry, dir, time, size, name)
}

// statements starts the opcodes; pad is the header after the file table.
func (t *lineTrace) statements(pad []byte) {
	if t.debugStr {
		off := uint32(0)
		for k := len(pad) - 1; k >= 0 && k >= len(pad)-4; k-- {
			off = off<<8 | uint32(pad[k])
		}
		t.printf("\nOffset in .debug_str:            %d\n", off)
	}
	t.printf("\nLine Number Statements:\n")
}

func (t *lineTrace) setAddress(a uint64) {
	if t != nil {
		t.addr = a
		t.printf("  Extended opcode 2: set Address to %#x\n", a)
	}
}

func (t *lineTrace) advancePC(d uint64) {
	if t != nil {
		t.addr += d
		t.printf("  Advance PC by %d to %#x\n", d, t.addr)
	}
}

func (t *lineTrace) special(adj, addrAdv, lineAdv, line int) {
	if t != nil {
		t.addr += uint64(addrAdv)
		t.printf("  Special opcode %d: advance Address by %d to %#x and Line by %d to %d\n", adj, addrAdv, t.addr, lineAdv, line)
	}
}

// DumpLineSection appends cuobjdump -elf's description of the line programs
// in section name (.debug_line or .nv_debug_line_sass) of f.
func DumpLineSection(dst []byte, f *cubin.File, name string) ([]byte, error) {
	t := &lineTrace{out: dst, debugStr: name == ".debug_line" && f.Section(".debug_str") != nil}
	_, err := lineTableOf(f, name, t)
	return t.out, err
}

// lineNotes returns the //## comments nvdisasm -g (or -gi with inline)
// prints before instructions of code section sec, by the address of the
// instruction: a row at a control word's address stands for the
// instruction after it. Of the rows that land on one instruction the last
// counts (a row at a function's control word followed by one at its first
// instruction: calls.sm_52.rdc); a comment is printed where the
// (innermost) file and line change.
func lineNotes(rows []LineRow, sec int, inline bool) map[uint64][]byte {
	at := func(r *LineRow) uint64 {
		if r.Addr%BundleSize == 0 {
			return r.Addr + 8
		}
		return r.Addr
	}
	notes := map[uint64][]byte{}
	var prevFile string
	prevLine := -1
	for i := range rows {
		r := &rows[i]
		if r.Section != sec || i+1 < len(rows) && rows[i+1].Section == sec && at(&rows[i+1]) == at(r) {
			continue
		}
		if r.File == prevFile && r.Line == prevLine {
			continue
		}
		prevFile, prevLine = r.File, r.Line
		var note []byte
		for depth := 0; depth < len(rows); depth++ {
			note = fmt.Appendf(note, "\t//## File \"%s\", line %d", r.File, r.Line)
			site := r.Sequence + r.InlinedAt - 1
			if !inline || r.InlinedAt == 0 || site < 0 || site >= len(rows) {
				note = append(note, '\n')
				break
			}
			r = &rows[site]
			note = fmt.Appendf(note, " inlined at \"%s\", line %d\n", r.File, r.Line)
		}
		notes[at(&rows[i])] = note
	}
	return notes
}
