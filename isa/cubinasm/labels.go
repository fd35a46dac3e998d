package cubinasm

import (
	"encoding/binary"
	"strconv"

	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// endLabels works out what nvdisasm names the end of each function symbol
// by in its .size line, when the function symbols stand in the symbol table
// in the order funcs: the numbering maxwell.ListCubin reproduces. Labels
// are numbered through the whole file: the targets of each code section's
// branches first (in code order, one per address), then the entries of the
// indirect-branch tables, then one per function end in symbol-table order
// (one per address), then each section's end if no function ends there. A
// .size names the function or symbol at the end address (past a control
// word), else the first label there.
func (l *Listing) endLabels(funcs []*Symbol) map[*Symbol]string {
	type key struct {
		sec  *Section
		addr uint64
	}
	first := map[key]int{}
	next := 0
	keyOf := func(s *Section, a uint64) key {
		if a%maxwell.BundleSize == 0 && a < uint64(len(s.data)) {
			a += 8 // a label at a control word stands for the instruction after it
		}
		return key{s, a}
	}
	add := func(s *Section, a uint64) {
		k := keyOf(s, a)
		if _, ok := first[k]; !ok {
			first[k] = next
		}
		next++
	}
	symAt := func(s *Section, a uint64) *Symbol {
		var found *Symbol
		for _, y := range l.order {
			if y.Section == s && y.Type == 2 && l.symValue(y) == a {
				found = y
			}
		}
		return found
	}
	var code []*Section
	for _, s := range l.Sections {
		if s.isCode {
			code = append(code, s)
		}
	}
	for _, s := range code {
		if !s.targetsSet {
			// the same for every symbol order Build tries
			s.targets, s.targetsSet = maxwell.BranchTargets(s.data, l.SM()), true
		}
		for _, t := range s.targets {
			if symAt(s, t) != nil {
				continue // a call names the function
			}
			if _, ok := first[keyOf(s, t)]; !ok {
				add(s, t)
			}
		}
	}
	for _, s := range code {
		info := l.section(".nv.info." + s.Name[len(".text."):])
		if info == nil {
			continue
		}
		d := info.data
		for off := 0; off+4 <= len(d); {
			size := int(binary.LittleEndian.Uint16(d[off+2:]))
			if d[off] != 4 {
				off += 4
				continue
			}
			if d[off+1] == 0x34 {
				p := d[off+4 : min(off+4+size, len(d))]
				for len(p) >= 12 {
					add(s, uint64(binary.LittleEndian.Uint32(p)))
					cnt := int(binary.LittleEndian.Uint32(p[8:]))
					p = p[12:]
					for k := 0; k < cnt && len(p) >= 4; k++ {
						add(s, uint64(binary.LittleEndian.Uint32(p)))
						p = p[4:]
					}
				}
			}
			off += 4 + size
		}
	}
	ends := map[key]bool{}
	for _, y := range funcs {
		s := y.Section
		if s == nil || !s.isCode {
			continue
		}
		e := key{s, l.symValue(y) + l.symSize(y)}
		if !ends[e] {
			ends[e] = true
			add(s, e.addr)
		}
	}
	for _, s := range code {
		if !ends[key{s, uint64(len(s.data))}] {
			add(s, uint64(len(s.data)))
		}
	}
	out := map[*Symbol]string{}
	for _, y := range funcs {
		s := y.Section
		if s == nil || !s.isCode {
			continue
		}
		e := l.symValue(y) + l.symSize(y)
		switch z := symAt(s, e); {
		case z != nil && e%maxwell.BundleSize != 0:
			out[y] = z.Name
		case e < uint64(len(s.data)):
			out[y] = ".L_x_" + strconv.Itoa(first[keyOf(s, e)])
		default:
			out[y] = ".L_x_" + strconv.Itoa(first[keyOf(s, uint64(len(s.data)))])
		}
	}
	return out
}

// symValue and symSize are a code symbol's address and size by its labels.
func (l *Listing) symValue(y *Symbol) uint64 { return y.Section.asm.Labels[y.Name] }

func (l *Listing) symSize(y *Symbol) uint64 {
	if y.sizeEnd == "" {
		return y.size
	}
	return y.Section.asm.Labels[y.sizeEnd] - l.symValue(y)
}

func (l *Listing) section(name string) *Section {
	for _, s := range l.Sections {
		if s.Name == name {
			return s
		}
	}
	return nil
}
