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
	// InlinedAt is the index (in the unit's rows, counting from 1) of the
	// row of the call site this row was inlined into; 0 when not inlined.
	InlinedAt int
	// Unit is the index of the first row of this row's line program in the
	// slice LineTable returns: InlinedAt counts from there.
	Unit int
}

// extInlineContext is NVIDIA's extended line opcode for inlining.
const extInlineContext = 0x90

// LineTable decodes the line programs of f's .debug_line section. Rows are
// in program order. Addresses come from the R_CUDA_64 relocations of the
// DW_LNE_set_address operands.
func LineTable(f *cubin.File) ([]LineRow, error) { return lineTableOf(f, ".debug_line") }

// PTXLineTable decodes .nv_debug_line_sass, which maps the code to lines of
// the PTX kept in .nv_debug_ptx_txt (the file its rows name).
func PTXLineTable(f *cubin.File) ([]LineRow, error) { return lineTableOf(f, ".nv_debug_line_sass") }

func lineTableOf(f *cubin.File, name string) ([]LineRow, error) {
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
		unit, err := decodeLineUnit(f, data, at, relocAt, len(rows))
		rows = append(rows, unit.rows...)
		if err != nil {
			return rows, fmt.Errorf(".debug_line at %#x: %w", unit.pos, err)
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

func decodeLineUnit(f *cubin.File, data []byte, at int, relocAt map[uint64]cubin.Reloc, first int) (lineUnit, error) {
	u := lineUnit{pos: at, end: len(data)}
	length := int(binary.LittleEndian.Uint32(data[at:]))
	if length < 0 || length > len(data)-at-4 {
		return u, errLineTruncated
	}
	u.end = at + 4 + length
	r := &lineReader{b: data[:u.end], pos: at + 4}
	r.byte() // version (2)
	r.byte()
	if r.pos+4 > u.end {
		return u, errLineTruncated
	}
	program := r.pos + 4 + int(binary.LittleEndian.Uint32(data[r.pos:]))
	r.pos += 4
	minInst := int(r.byte())
	r.byte() // default is_stmt
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
	var dirs []string
	for r.err == nil && r.pos < len(r.b) && r.b[r.pos] != 0 {
		dirs = append(dirs, r.cstring())
	}
	r.byte()
	var files []string
	for r.err == nil && r.pos < len(r.b) && r.b[r.pos] != 0 {
		name := r.cstring()
		dir := int(r.uleb())
		r.uleb() // modification time
		r.uleb() // length
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
	r.pos = program // ptxas pads the header
	section, addr, line, file, inlinedAt := -1, uint64(0), 1, 1, 0
	emit := func() {
		name := ".nv_debug_ptx_txt" // the PTX table names no files
		if file >= 1 && file <= len(files) {
			name = files[file-1]
		}
		u.rows = append(u.rows, LineRow{Section: section, Addr: addr, File: name, Line: line, InlinedAt: inlinedAt, Unit: first})
	}
	for r.err == nil && r.pos < u.end {
		op := int(r.byte())
		switch {
		case op >= opBase:
			adj := op - opBase
			addr += uint64(adj / lineRange * minInst)
			line += lineBase + adj%lineRange
			emit()
		case op == 0:
			n := int(r.uleb())
			end := r.pos + n
			if n == 0 || end > u.end {
				return u, errLineTruncated
			}
			switch r.byte() {
			case 1: // end_sequence
				section, addr, line, file, inlinedAt = -1, 0, 1, 1, 0
			case 2: // set_address: the operand is relocated against a function
				rel, ok := relocAt[uint64(r.pos)]
				if !ok || int(rel.Symbol) >= len(f.Symbols) {
					return u, fmt.Errorf("set_address at %#x without a relocation", r.pos)
				}
				s := f.Symbols[rel.Symbol]
				section, addr = int(s.Section), s.Value+uint64(rel.Addend)
			case extInlineContext:
				inlinedAt = int(r.uleb())
				r.uleb() // the inlined function's name in .debug_str
			}
			r.pos = end
		case op == 1: // copy
			emit()
		case op == 2:
			addr += r.uleb() * uint64(minInst)
		case op == 3:
			line += int(r.sleb())
		case op == 4:
			file = int(r.uleb())
		case op == 8: // const_add_pc
			addr += uint64((255 - opBase) / lineRange * minInst)
		case op == 9:
			addr += uint64(r.byte()) | uint64(r.byte())<<8
		default:
			for k := 0; k < stdLens[op]; k++ {
				r.uleb()
			}
		}
	}
	return u, r.err
}

// lineNotes returns the //## comments nvdisasm -g (or -gi with inline)
// prints before instructions of code section sec, by the address of the
// row (a control word's address stands for the instruction after it).
// The last row at an address counts; a comment is printed where the
// (innermost) file and line change.
func lineNotes(rows []LineRow, sec int, inline bool) map[uint64][]byte {
	notes := map[uint64][]byte{}
	var prevFile string
	prevLine := -1
	for i := range rows {
		r := &rows[i]
		if r.Section != sec || i+1 < len(rows) && rows[i+1].Section == sec && rows[i+1].Addr == r.Addr {
			continue
		}
		if r.File == prevFile && r.Line == prevLine {
			continue
		}
		prevFile, prevLine = r.File, r.Line
		var note []byte
		for depth := 0; depth < len(rows); depth++ {
			note = fmt.Appendf(note, "\t//## File \"%s\", line %d", r.File, r.Line)
			at := r.Unit + r.InlinedAt - 1
			if !inline || r.InlinedAt == 0 || at < 0 || at >= len(rows) {
				note = append(note, '\n')
				break
			}
			r = &rows[at]
			note = fmt.Appendf(note, " inlined at \"%s\", line %d\n", r.File, r.Line)
		}
		notes[rows[i].Addr] = note
	}
	return notes
}
