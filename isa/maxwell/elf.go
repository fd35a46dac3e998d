package maxwell

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"gpuisa/binfmt/cubin"
	"gpuisa/isa"
)

// ListOptions selects variants of the ELF-mode listing.
type ListOptions struct {
	// NoHex leaves out the /* 0x... */ columns and the control-word lines,
	// as plain `nvdisasm file.cubin` does. The default is `nvdisasm -hex
	// -novliw`.
	NoHex bool
	// NVN adds comments naming constant banks and attribute addresses
	// (see AppendNVNComment).
	NVN bool
}

// ListCubin appends what `nvdisasm -hex -novliw file.cubin` prints for the
// code of an sm_5x cubin: the .headerflags and .elftype lines, then every
// .text.<name> section with its section directives, the function symbols
// (.global/.type/.size/.other), labels at branch targets (.L_x_N, numbered in
// the order nvdisasm numbers them: direct targets in code order, then the
// EIATTR_INDIRECT_BRANCH_TARGETS entries) and branch operands printed as
// those labels or as the names of the functions they call.
//
// Not listed (yet): the data sections (.nv.info*, .nv.constant*,
// .nv.rel.action, ...), and relocated operands keep their raw values.
func ListCubin(dst []byte, f *cubin.File, opts ListOptions) ([]byte, []*isa.DecodeError) {
	sm := f.SM()
	dst = append(dst, "\t.headerflags\t@\""...)
	dst = append(dst, cubin.HeaderFlags(f.Flags)...)
	dst = append(dst, "\"\n\t.elftype\t@\""...)
	if f.Type == cubin.ETRel {
		dst = append(dst, "ET_REL"...)
	} else {
		dst = append(dst, "ET_EXEC"...)
	}
	dst = append(dst, "\"\n"...)
	// nvdisasm numbers the labels of all functions together: direct branch
	// targets first, then the indirect-branch tables, then the end labels
	var errs []*isa.DecodeError
	next := 0
	lists := make([]*funcListing, len(f.Functions))
	for i := range f.Functions {
		lists[i] = newFuncListing(f, &f.Functions[i], sm, &next)
		errs = append(errs, lists[i].errs...)
	}
	for _, l := range lists {
		l.indirect()
	}
	for _, l := range lists {
		l.lb.endLbl = l.lb.add(uint64(len(l.fn.Code)), true)
	}
	for _, l := range lists {
		dst = l.list(dst, opts)
	}
	return dst, errs
}

// sectionRule appends nvdisasm's "//----- name -----" line.
func sectionRule(dst []byte, name string) []byte {
	dst = append(dst, "\n\n//--------------------- "...)
	dst = append(dst, name...)
	dst = blanks(dst, 25-len(name))
	return append(dst, " --------------------------\n"...)
}

// labeled is one instruction of a function being listed.
type labeled struct {
	inst Inst
	ok   bool
}

// funcLabels numbers the labels of one .text section.
type funcLabels struct {
	at     map[uint64][]int // address → label numbers, in allocation order
	first  map[uint64]int   // address → the label nvdisasm names it by
	syms   map[uint64]string
	next   *int // label numbers run through the whole file
	indir  map[uint64][]uint64 // branch address → EIATTR_INDIRECT_BRANCH_TARGETS targets
	endLbl int
}

func (l *funcLabels) add(addr uint64, printed bool) int {
	n := *l.next
	*l.next++
	if _, ok := l.first[addr]; !ok {
		l.first[addr] = n
		l.at[addr] = append(l.at[addr], n)
	} else if printed {
		l.at[addr] = append(l.at[addr], n)
	}
	return n
}

// name appends the operand text of a branch to target: a function symbol of
// the section, or the label there.
func (l *funcLabels) name(dst []byte, target uint64) []byte {
	dst = append(dst, "`("...)
	if s, ok := l.syms[target]; ok {
		dst = append(dst, s...)
	} else {
		dst = append(dst, ".L_x_"...)
		dst = strconv.AppendInt(dst, int64(l.first[target]), 10)
	}
	return append(dst, ')')
}

// symAt is a function symbol of the section being listed.
type symAt struct {
	s    cubin.Symbol
	addr uint64
}

// funcListing is one .text section on its way to the listing.
type funcListing struct {
	fn    *cubin.Function
	insts []labeled
	lb    *funcLabels
	syms  []symAt
	errs  []*isa.DecodeError
}

func newFuncListing(f *cubin.File, fn *cubin.Function, sm int, next *int) *funcListing {
	code := fn.Code
	n := len(code) / BundleSize
	insts := make([]labeled, n*3)
	var errs []*isa.DecodeError
	lb := &funcLabels{at: map[uint64][]int{}, first: map[uint64]int{}, syms: map[uint64]string{}, indir: map[uint64][]uint64{}, next: next}
	// function symbols of this section (the function and its local
	// subroutines) name call targets
	var syms []symAt
	for _, s := range f.Symbols {
		if int(s.Section) == fn.Section && s.Type() == 2 {
			lb.syms[s.Value] = s.Name
			syms = append(syms, symAt{s, s.Value})
		}
	}
	for b := 0; b < n; b++ {
		ctrl := binary.LittleEndian.Uint64(code[b*BundleSize:])
		for s := 0; s < 3; s++ {
			addr := uint64(b*BundleSize + 8 + 8*s)
			w := binary.LittleEndian.Uint64(code[addr:])
			inst, err := Decode(w, CtrlField(ctrl, s), sm, addr)
			if err != nil {
				errs = append(errs, err.(*isa.DecodeError))
				continue
			}
			insts[b*3+s] = labeled{inst, true}
			if t, ok := relTarget(inst, addr); ok {
				if _, sym := lb.syms[t]; !sym {
					if _, seen := lb.first[t]; !seen {
						lb.add(t, true)
					}
				}
			}
		}
	}
	if rest := len(code) % BundleSize; rest != 0 {
		errs = append(errs, &isa.DecodeError{Addr: uint64(n * BundleSize), Len: rest, Err: isa.ErrTruncated,
			Detail: "Unaligned instruction found"})
	}
	return &funcListing{fn: fn, insts: insts, lb: lb, syms: syms, errs: errs}
}

// indirect numbers the labels of EIATTR_INDIRECT_BRANCH_TARGETS.
func (fl *funcListing) indirect() {
	lb := fl.lb
	for _, a := range fl.fn.Info {
		if a.ID != attrIndirectBranchTargets {
			continue
		}
		d := a.Data
		for len(d) >= 12 {
			at := uint64(binary.LittleEndian.Uint32(d))
			cnt := int(binary.LittleEndian.Uint32(d[8:]))
			d = d[12:]
			lb.add(at, false)
			for k := 0; k < cnt && len(d) >= 4; k++ {
				t := uint64(binary.LittleEndian.Uint32(d))
				d = d[4:]
				lb.add(t, false)
				lb.indir[at] = append(lb.indir[at], t)
			}
		}
	}
}

func (fl *funcListing) list(dst []byte, opts ListOptions) []byte {
	fn, insts, lb, syms := fl.fn, fl.insts, fl.lb, fl.syms
	code := fn.Code
	n := len(code) / BundleSize
	// print every text, then lay the lines out at the widest one
	var text []byte
	ends := make([]int, len(insts))
	leads := make([]int, len(insts))
	maxw := 0
	for i := range insts {
		start := len(text)
		addr := uint64(i/3*BundleSize + 8 + 8*(i%3))
		if !insts[i].ok {
			text = append(text, ".word "...)
			text = isa.AppendHexNum(text, binary.LittleEndian.Uint64(code[addr:]))
		} else {
			text = appendGuard(text, insts[i].inst)
			leads[i] = len(text) - start
			text = appendBodyLabels(text, insts[i].inst, addr, lb)
		}
		ends[i] = len(text)
		maxw = max(maxw, addrLen(addr)+len(text)-start)
	}
	col := 8 + 19 + maxw + 2

	name := ".text." + fn.Name
	dst = sectionRule(dst, name)
	dst = append(dst, "\t.section\t"...)
	dst = append(dst, name...)
	dst = append(dst, ",\"ax\",@progbits\n"...)
	if fn.Barriers != 0 {
		dst = fmt.Appendf(dst, "\t.sectionflags\t@\"SHF_BARRIERS=%d\"\n", fn.Barriers)
	}
	dst = fmt.Appendf(dst, "\t.sectioninfo\t@\"SHI_REGISTERS=%d\"\n\t.align\t32\n", fn.Registers)
	symBlock := func(dst []byte, s cubin.Symbol, end string) []byte {
		if s.Bind() == 1 {
			dst = append(dst, "        .global         "...)
			dst = append(dst, s.Name...)
			dst = append(dst, '\n')
		}
		dst = fmt.Appendf(dst, "        .type           %s,@function\n        .size           %s,(%s - %s)\n", s.Name, s.Name, end, s.Name)
		if s.Other&0x10 != 0 {
			dst = fmt.Appendf(dst, "        .other          %s,@\"STO_CUDA_ENTRY STV_DEFAULT\"\n", s.Name)
		}
		return dst
	}
	endName := ".L_x_" + strconv.Itoa(lb.endLbl)
	// the section symbol comes after an entry's own label, before others'
	sectionLabelDone := false
	putSyms := func(dst []byte, addr uint64) []byte {
		for _, s := range syms {
			if s.addr != addr {
				continue
			}
			end := endName
			if s.s.Size != 0 && s.addr+s.s.Size < uint64(len(code)) {
				end = fmt.Sprintf(".L_x_%d", lb.first[s.addr+s.s.Size])
			}
			if addr == 0 && s.s.Other&0x10 == 0 && !sectionLabelDone {
				dst = append(dst, name...)
				dst = append(dst, ":\n"...)
				sectionLabelDone = true
			}
			dst = symBlock(dst, s.s, end)
			dst = append(dst, s.s.Name...)
			dst = append(dst, ":\n"...)
		}
		if addr == 0 && !sectionLabelDone {
			dst = append(dst, name...)
			dst = append(dst, ":\n"...)
			sectionLabelDone = true
		}
		return dst
	}
	putLabels := func(dst []byte, addr uint64) []byte {
		for _, k := range lb.at[addr] {
			dst = append(dst, ".L_x_"...)
			dst = strconv.AppendInt(dst, int64(k), 10)
			dst = append(dst, ":\n"...)
		}
		return dst
	}
	dst = putSyms(dst, 0)
	start := 0
	for b := 0; b < n; b++ {
		first := uint64(b*BundleSize + 8)
		if b > 0 {
			dst = putSyms(dst, first)
			dst = putLabels(dst, first-8)
		}
		dst = putLabels(dst, first)
		if !opts.NoHex {
			dst = blanks(dst, col)
			dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[b*BundleSize:]))
		}
		for s := 0; s < 3; s++ {
			i := b*3 + s
			addr := first + uint64(8*s)
			if s > 0 {
				dst = putSyms(dst, addr)
				dst = putLabels(dst, addr)
			}
			t := text[start:ends[i]]
			start = ends[i]
			g := leads[i]
			dst = blanks(dst, 8)
			dst = isa.AppendAddr(dst, addr)
			dst = blanks(dst, 19-g)
			dst = append(dst, t...)
			if opts.NoHex {
				dst = append(dst, '\n')
				continue
			}
			dst = blanks(dst, col-8-addrLen(addr)-19+g-len(t))
			dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[addr:]))
		}
	}
	dst = putLabels(dst, uint64(len(code)))
	return dst
}

// attrIndirectBranchTargets is EIATTR_INDIRECT_BRANCH_TARGETS: entries of
// u32 branch offset, u16, u16, u32 count, count × u32 target offsets.
const attrIndirectBranchTargets = 0x34

// relTarget returns the address a PC-relative form at addr points to.
func relTarget(inst Inst, addr uint64) (uint64, bool) {
	f := &forms[inst.form]
	if f.attrs&attrPCRel == 0 {
		return 0, false
	}
	for k := range f.toks {
		t := &f.toks[k]
		if t.kind == tkRel {
			return uint64(int64(addr) + 8 + isa.SignExtend(t.get(inst.Word), t.width())), true
		}
	}
	return 0, false
}
