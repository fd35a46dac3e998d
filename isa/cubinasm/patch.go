package cubinasm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/asm"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// Patch replaces the code of function fun in cubin orig with the code the
// listing src assembles to, and keeps everything else. src is either a
// whole-cubin listing (its .text.<fun> section is taken) or the function's
// lines alone, as `gpuisa dis` prints them (labels, `(sym) operands,
// control-word lines). What the cubin says about the code follows the new
// code: the section's size and register count, the barrier count, the
// function symbol's size (and those of its subroutines, by their labels),
// the relocations, EIATTR_REGCOUNT, EIATTR_EXIT_INSTR_OFFSETS and
// EIATTR_S2RCTAID_INSTR_OFFSETS. Attributes that name other code offsets
// (indirect branch targets, ...) are kept; when the code's size changes
// they may be stale, and warnings name them.
func Patch(orig []byte, fun, filename string, src []byte) (out []byte, warnings []string, err error) {
	f, err := cubin.Parse(orig)
	if err != nil {
		return nil, nil, err
	}
	sm := f.SM()
	if sm < 50 || sm > 53 {
		return nil, nil, fmt.Errorf("patching sm_%d cubins is not supported (sm_50..sm_53)", sm)
	}
	fn := f.Function(fun)
	if fn == nil {
		var names []string
		for _, g := range f.Functions {
			names = append(names, g.Name)
		}
		return nil, nil, fmt.Errorf("no function %s in the cubin (it has %s)", fun, strings.Join(names, ", "))
	}
	lines, err := functionLines(filename, src, fun)
	if err != nil {
		return nil, nil, err
	}
	code, err := maxwell.AssembleCode(filename, lines, sm)
	if err != nil {
		return nil, nil, err
	}
	text := &f.Sections[fn.Section]
	oldSize := len(text.Data)
	facts := maxwell.Facts(code.Code, sm)

	// the relocations, before anything changes
	relSec := -1
	for i := range f.Sections {
		s := &f.Sections[i]
		if (s.Type == cubin.SecRel || s.Type == cubin.SecRela) && int(s.Info) == fn.Section {
			relSec = i
		}
	}
	var rel []byte
	refs := slices.Clone(code.Refs)
	// ptxas writes the last offset first, nvlink the first: keep the order
	// the cubin has
	ascending := relocsAscending(f, relSec)
	slices.SortStableFunc(refs, func(a, b maxwell.CodeRef) int {
		if ascending {
			return int(a.Offset) - int(b.Offset)
		}
		return int(b.Offset) - int(a.Offset)
	})
	var errs asm.ErrorList
	for _, r := range refs {
		k := symbolIndex(f, r.Symbol)
		if k < 0 {
			errs.Add(asm.Pos{File: filename, Line: r.Line, Col: r.Col}, "%s: no such symbol in the cubin", r.Symbol)
			continue
		}
		sec := ""
		if s := f.Symbols[k].Section; s != 0 && int(s) < len(f.Sections) {
			sec = f.Sections[s].Name
		}
		rel = binary.LittleEndian.AppendUint64(rel, r.Offset)
		rel = binary.LittleEndian.AppendUint64(rel, uint64(k)<<32|uint64(relocTypeFor(r.Kind, sec)))
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	switch {
	case relSec >= 0 && f.Sections[relSec].Type == cubin.SecRela:
		return nil, nil, fmt.Errorf("%s has RELA relocations, which patching does not rewrite", f.Sections[relSec].Name)
	case relSec >= 0:
		f.Sections[relSec].Data = rel
	case len(rel) > 0:
		return nil, nil, fmt.Errorf("the new code of %s names symbols (%s), but the cubin has no relocation section for .text.%s to hold them", fun, refs[0].Symbol, fun)
	}

	// the code and its section header
	text.Data = code.Code
	if facts.Registers > 255 {
		return nil, nil, fmt.Errorf("the new code uses %d registers (255 at most)", facts.Registers)
	}
	text.Info = text.Info&0xffffff | uint32(facts.Registers)<<24
	if facts.Barriers >= 0 {
		const shift, mask = 20, 0x7f
		text.Flags = text.Flags&^(mask<<shift) | uint64(facts.Barriers)<<shift
	} else {
		warnings = append(warnings, "a BAR takes its barrier number from a register: SHF_BARRIERS kept")
	}

	// symbols: the function and its subroutines, by their labels
	symtab := f.Section(".symtab")
	if symtab == nil {
		return nil, nil, errors.New("the cubin has no .symtab")
	}
	symtab.Data = slices.Clone(symtab.Data)
	for k := range f.Symbols {
		y := &f.Symbols[k]
		if int(y.Section) != fn.Section || y.Type() != 2 {
			continue
		}
		value := y.Value
		if a, ok := code.Labels[y.Name]; ok {
			value = a
		} else if y.Name != fun {
			warnings = append(warnings, fmt.Sprintf("no label %s in the new code: its symbol is kept at 0x%x", y.Name, y.Value))
			continue
		}
		// the function spans its section; a subroutine ends where the next
		// function starts
		end := uint64(len(code.Code))
		for j := range f.Symbols {
			if y.Name == fun {
				break
			}
			z := &f.Symbols[j]
			if a, ok := code.Labels[z.Name]; ok && int(z.Section) == fn.Section && z.Type() == 2 && a > value && a < end {
				end = a
			}
		}
		putSymbol(symtab.Data, f.Class, k, value, end-value)
	}

	// attributes
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Type != cubin.SecCUDAInfo {
			continue
		}
		switch s.Name {
		case ".nv.info":
			s.Data = rewriteAttrs(s.Data, func(id uint8, payload []byte) []byte {
				if id == cubin.AttrRegCount && len(payload) == 8 && int(binary.LittleEndian.Uint32(payload)) == fn.Symbol {
					binary.LittleEndian.PutUint32(payload[4:], uint32(facts.Registers))
				}
				return payload
			})
		case ".nv.info." + fun:
			s.Data = rewriteAttrs(s.Data, func(id uint8, payload []byte) []byte {
				switch id {
				case cubin.AttrExitInstrOffsets:
					return words(facts.Exits)
				case cubin.AttrS2RCTAIDInstrOffsets:
					return words(facts.CTAIDReads)
				case 0x34, 0x28, 0x31:
					if len(code.Code) != oldSize {
						warnings = append(warnings, fmt.Sprintf("%s names code offsets and is kept as it was", cubin.AttrName(id)))
					}
				}
				return payload
			})
		}
	}
	out, err = cubin.Encode(f, cubin.EncodeOptions{ProgramHeaders: hasProgramHeaders(orig)})
	return out, warnings, err
}

// functionLines returns the code lines of fun in src: its .text section
// when src is a whole-cubin listing, else all of src.
func functionLines(filename string, src []byte, fun string) ([]maxwell.CodeLine, error) {
	if IsCubinListing(src) {
		l, err := Parse(filename, src)
		if err != nil {
			return nil, err
		}
		for _, s := range l.Sections {
			if s.Name == ".text."+fun {
				return s.code, nil
			}
		}
		return nil, fmt.Errorf("%s: the listing has no section .text.%s", filename, fun)
	}
	var lines []maxwell.CodeLine
	asm.Lines(src, func(line string, n int) {
		lines = append(lines, maxwell.CodeLine{Text: line, Line: n})
	})
	return lines, nil
}

// relocsAscending reports whether relocation section i (if any) lists
// offsets in increasing order (it has two that are).
func relocsAscending(f *cubin.File, i int) bool {
	if i < 0 {
		return false
	}
	d := f.Sections[i].Data
	for k := 16; k+16 <= len(d); k += 16 {
		if binary.LittleEndian.Uint64(d[k:]) > binary.LittleEndian.Uint64(d[k-16:]) {
			return true
		}
	}
	return false
}

// symbolIndex finds the symbol a relocated operand names: one defined in a
// data section or undefined before a function or section symbol.
func symbolIndex(f *cubin.File, name string) int {
	best := -1
	for k, y := range f.Symbols {
		if y.Name != name || y.Type() == 3 {
			continue
		}
		if best < 0 || y.Type() != 2 {
			best = k
		}
	}
	if best < 0 {
		for k, y := range f.Symbols {
			if y.Name == name {
				return k
			}
		}
	}
	return best
}

// relocTypeFor is the relocation an operand that names a symbol needs: the
// text says which part of the address, the symbol's section how wide.
func relocTypeFor(kind maxwell.RefKind, section string) uint32 {
	switch kind {
	case maxwell.RefLo:
		return rABS32_LO_20
	case maxwell.RefHi:
		return rABS32_HI_20
	case maxwell.RefConst:
		return rCONST_FIELD19_20
	}
	switch {
	case strings.HasPrefix(section, ".nv.constant"):
		return rABS16_20 // an offset in a constant bank
	case strings.HasPrefix(section, ".nv.shared"):
		return rABS24_20 // an offset in shared memory
	}
	return rABS32_20
}

// putSymbol sets the value and size of symbol k in a symbol table.
func putSymbol(symtab []byte, class, k int, value, size uint64) {
	if class == 64 {
		o := k * 24
		binary.LittleEndian.PutUint64(symtab[o+8:], value)
		binary.LittleEndian.PutUint64(symtab[o+16:], size)
		return
	}
	o := k * 16
	binary.LittleEndian.PutUint32(symtab[o+4:], uint32(value))
	binary.LittleEndian.PutUint32(symtab[o+8:], uint32(size))
}

// rewriteAttrs copies an .nv.info section, passing each SVAL payload
// through edit (which may change it in place or return a new one).
func rewriteAttrs(data []byte, edit func(id uint8, payload []byte) []byte) []byte {
	var out []byte
	for off := 0; off+4 <= len(data); {
		format, id := data[off], data[off+1]
		if format != cubin.FmtSVal {
			out = append(out, data[off:off+4]...)
			off += 4
			continue
		}
		size := int(binary.LittleEndian.Uint16(data[off+2:]))
		end := min(off+4+size, len(data))
		payload := edit(id, slices.Clone(data[off+4:end]))
		out = append(out, format, id)
		out = binary.LittleEndian.AppendUint16(out, uint16(len(payload)))
		out = append(out, payload...)
		off = end
	}
	return out
}

func words(ws []uint32) []byte {
	var out []byte
	for _, w := range ws {
		out = binary.LittleEndian.AppendUint32(out, w)
	}
	return out
}

// hasProgramHeaders reports whether an ELF file has program headers.
func hasProgramHeaders(b []byte) bool {
	if len(b) < 64 {
		return false
	}
	if b[4] == 2 {
		return binary.LittleEndian.Uint16(b[56:]) > 0
	}
	return binary.LittleEndian.Uint16(b[44:]) > 0
}
