package cubin

import (
	"slices"
	"strconv"
	"strings"
)

// File is a parsed cubin. Byte slices in it (Section.Data, Function.Code,
// Attr.Data, ConstBank.Data) alias the input given to Parse.
type File struct {
	Class      int    // 32 (ELF32, e.g. Tesla cubins) or 64
	OSABI      uint8  // EI_OSABI: 0x33 in CUDA 11 cubins
	ABIVersion uint8  // EI_ABIVERSION: 7 in CUDA 11 cubins
	Type       uint16 // ETExec, or ETRel for relocatable code (ptxas -c)
	Machine    uint16 // EMCUDA
	Version    uint32 // e_version; CUDA stores its API version (0x76 = 11.8)
	Entry      uint64
	Flags      uint32 // e_flags; see SM, VirtualSM and HeaderFlags

	Sections  []Section
	Symbols   []Symbol    // .symtab; index 0 is the null symbol
	Functions []Function  // one per .text.<name> section, in section order
	Info      []Attr      // the global .nv.info section
	Constants []ConstBank // global .nv.constant<N> sections (no function suffix)
}

// SM is the SM version the code is for (e_flags & 0xff): 10 for sm_10, 52 for sm_52.
func (f *File) SM() int { return int(f.Flags & EFSMMask) }

// VirtualSM is the virtual (PTX) SM version the code was compiled from
// (e_flags bits 16..23), 0 when absent.
func (f *File) VirtualSM() int { return int(f.Flags>>EFVirtualSMShift) & 0xff }

// Function returns the function called name, or nil.
func (f *File) Function(name string) *Function {
	for i := range f.Functions {
		if f.Functions[i].Name == name {
			return &f.Functions[i]
		}
	}
	return nil
}

// Section returns the first section called name, or nil.
func (f *File) Section(name string) *Section {
	for i := range f.Sections {
		if f.Sections[i].Name == name {
			return &f.Sections[i]
		}
	}
	return nil
}

// ConstBank is the initial content of a constant bank: c[Bank][0..len(Data)).
type ConstBank struct {
	Bank    int
	Section int // section index of .nv.constant<Bank>[.<fn>]
	Data    []byte
}

// Function is one kernel or device function: a .text.<Name> section and
// everything the cubin says about it.
type Function struct {
	Name      string
	Section   int    // index of .text.<Name> in File.Sections
	Code      []byte // the section contents
	Symbol    int    // index of the function's symbol in File.Symbols, -1 if none
	Value     uint64 // symbol value (0: the function starts its section)
	Size      uint64 // symbol size (= len(Code) in ptxas output)
	Entry     bool   // the symbol is a kernel entry (st_other STO_CUDA_ENTRY 0x10)
	Registers int    // registers per thread (sh_info >> 24)
	Barriers  int    // barriers used (sh_flags >> 20), nvdisasm's SHF_BARRIERS

	Info      []Attr  // records of .nv.info.<Name>
	Params    []Param // EIATTR_KPARAM_INFO records, sorted by Ordinal
	ParamBank int     // constant bank holding the parameters; -1 when there is no EIATTR_PARAM_CBANK
	ParamBase uint32  // offset of parameter 0 in that bank (0x140 on sm_5x, 0x20 on sm_2x)
	ParamSize uint32  // bytes of parameters (EIATTR_CBANK_PARAM_SIZE, else EIATTR_SMEM_PARAM_SIZE)

	Constants  []ConstBank // .nv.constant<N>.<Name>, by bank
	SharedSize uint64      // size of .nv.shared.<Name> (static shared memory)
	LocalSize  uint64      // size of .nv.local.<Name> (local memory per thread)
	Relocs     []Reloc     // entries of .rel.text.<Name> / .rela.text.<Name>
}

// Const returns the initial data of constant bank n for this function, or nil.
func (fn *Function) Const(n int) []byte {
	for _, c := range fn.Constants {
		if c.Bank == n {
			return c.Data
		}
	}
	return nil
}

// Parse reads a cubin: an ELF32 or ELF64 little-endian file for EM_CUDA. It
// checks every offset and size against the input, so a malformed file gives
// a *FormatError naming the byte offset, never a panic or a large allocation.
func Parse(data []byte) (*File, error) {
	f, err := parseELF(data)
	if err != nil {
		return nil, err
	}
	if f.Machine != EMCUDA {
		return nil, errAt(18, "e_machine is %d, not EM_CUDA (190): not a cubin", f.Machine)
	}
	if err := f.interpret(); err != nil {
		return nil, err
	}
	return f, nil
}

// ParseELF reads the header, sections and symbols of any little-endian ELF
// file (any machine), with the same checks as Parse but without interpreting
// CUDA sections: Functions, Info and Constants stay empty. It serves tools
// that look into host executables, e.g. for an embedded .nv_fatbin.
func ParseELF(data []byte) (*File, error) { return parseELF(data) }

// interpret fills Functions, Info and Constants from the sections.
func (f *File) interpret() error {
	// section index → function index, for the per-function sections
	byText := map[int]int{}
	var symsByName map[string][]int // built on first need
	findSym := func(name string, sec int) int {
		if symsByName == nil {
			symsByName = map[string][]int{}
			for k, sym := range f.Symbols {
				if sym.Type() != 3 && sym.Name != "" {
					symsByName[sym.Name] = append(symsByName[sym.Name], k)
				}
			}
		}
		for _, k := range symsByName[name] {
			if int(f.Symbols[k].Section) == sec {
				return k
			}
		}
		return -1
	}
	for i, s := range f.Sections {
		name, ok := strings.CutPrefix(s.Name, ".text.")
		if !ok || !hasFileData(s.Type) {
			continue
		}
		fn := Function{
			Name: name, Section: i, Code: s.Data, Symbol: -1, ParamBank: -1,
			Registers: int(s.Info >> shiRegistersShift),
			Barriers:  int(s.Flags>>shfBarriersShift) & shfBarriersMask,
		}
		// ptxas puts the function's symbol index in sh_info's low 24 bits;
		// fall back to a search by name for other producers.
		k := int(s.Info & 0xffffff)
		if k >= len(f.Symbols) || f.Symbols[k].Name != name || int(f.Symbols[k].Section) != i {
			k = findSym(name, i)
		}
		if k >= 0 {
			sym := f.Symbols[k]
			fn.Symbol, fn.Value, fn.Size, fn.Entry = k, sym.Value, sym.Size, sym.Other&0x10 != 0
		}
		byText[i] = len(f.Functions)
		f.Functions = append(f.Functions, fn)
	}
	index := make(map[string]int, len(f.Functions))
	for i, fn := range f.Functions {
		index[fn.Name] = i
	}
	byName := func(name string) *Function {
		if i, ok := index[name]; ok {
			return &f.Functions[i]
		}
		return nil
	}
	for i := range f.Sections {
		s := &f.Sections[i]
		switch {
		case s.Name == ".nv.info":
			attrs, err := parseAttrs(s.Data, s.Offset)
			if err != nil {
				return err
			}
			f.Info = attrs
		case strings.HasPrefix(s.Name, ".nv.info."):
			fn := byName(strings.TrimPrefix(s.Name, ".nv.info."))
			if fn == nil {
				continue // info for a function without code (e.g. an extern)
			}
			if err := f.readFuncInfo(fn, s); err != nil {
				return err
			}
		case strings.HasPrefix(s.Name, ".nv.constant"):
			rest := strings.TrimPrefix(s.Name, ".nv.constant")
			num, fnName, _ := strings.Cut(rest, ".")
			bank, err := strconv.Atoi(num)
			if err != nil || bank < 0 || bank > 255 {
				continue // not a constant bank section we understand
			}
			c := ConstBank{Bank: bank, Section: i, Data: s.Data}
			if fnName == "" {
				f.Constants = append(f.Constants, c)
			} else if fn := byName(fnName); fn != nil {
				fn.Constants = append(fn.Constants, c)
			}
		case strings.HasPrefix(s.Name, ".nv.shared."):
			if fn := byName(strings.TrimPrefix(s.Name, ".nv.shared.")); fn != nil {
				fn.SharedSize = s.Size
			}
		case strings.HasPrefix(s.Name, ".nv.local."):
			if fn := byName(strings.TrimPrefix(s.Name, ".nv.local.")); fn != nil {
				fn.LocalSize = s.Size
			}
		case s.Type == SecRel || s.Type == SecRela:
			k, ok := byText[int(s.Info)]
			if !ok {
				continue // relocations of a data section
			}
			rels, err := f.relocs(i)
			if err != nil {
				return err
			}
			fn := &f.Functions[k]
			for _, r := range rels {
				if r.Offset >= uint64(len(fn.Code)) {
					return errAt(s.Offset, "relocation at 0x%x is outside %s (0x%x bytes)", r.Offset, f.Sections[fn.Section].Name, len(fn.Code))
				}
			}
			fn.Relocs = append(fn.Relocs, rels...)
		}
	}
	for i := range f.Functions {
		fn := &f.Functions[i]
		if fn.ParamBank < 0 && f.SM() < 20 {
			fn.ParamBase = ParamBaseFor(f.SM()) // sm_1x: parameters are copied to shared memory
		}
		slices.SortStableFunc(fn.Constants, func(a, b ConstBank) int { return a.Bank - b.Bank })
		slices.SortStableFunc(fn.Relocs, func(a, b Reloc) int {
			if a.Offset < b.Offset {
				return -1
			} else if a.Offset > b.Offset {
				return 1
			}
			return 0
		})
	}
	slices.SortStableFunc(f.Constants, func(a, b ConstBank) int { return a.Bank - b.Bank })
	return nil
}

// readFuncInfo parses .nv.info.<fn> into fn's Info, Params and parameter layout.
func (f *File) readFuncInfo(fn *Function, s *Section) error {
	attrs, err := parseAttrs(s.Data, s.Offset)
	if err != nil {
		return err
	}
	fn.Info = attrs
	var smemSize uint32
	haveCBankSize := false
	for _, a := range attrs {
		at := s.Offset + uint64(a.Off)
		switch a.ID {
		case AttrKParamInfo:
			p, err := parseParam(a, s.Offset)
			if err != nil {
				return err
			}
			fn.Params = append(fn.Params, p)
		case AttrParamCBank:
			if a.Format != FmtSVal || len(a.Data) < 8 {
				return errAt(at, "EIATTR_PARAM_CBANK payload is %d bytes, want 8", len(a.Data))
			}
			sym, _ := a.Word(0)
			w, _ := a.Word(1)
			fn.ParamBase, fn.ParamBank = w&0xffff, 0
			if !haveCBankSize {
				fn.ParamSize = w >> 16
			}
			// The symbol names .nv.constant<N>.<fn>; N is the bank.
			if uint64(sym) < uint64(len(f.Symbols)) {
				if sec := int(f.Symbols[sym].Section); sec < len(f.Sections) {
					if n, ok := strings.CutPrefix(f.Sections[sec].Name, ".nv.constant"); ok {
						n, _, _ = strings.Cut(n, ".")
						if b, err := strconv.Atoi(n); err == nil {
							fn.ParamBank = b
						}
					}
				}
			}
		case AttrCBankParamSize:
			fn.ParamSize, haveCBankSize = uint32(a.Value), true
		case AttrSMemParamSize:
			smemSize = uint32(a.Value)
		}
	}
	if fn.ParamBank < 0 && !haveCBankSize && smemSize != 0 {
		fn.ParamSize = smemSize
	}
	slices.SortStableFunc(fn.Params, func(a, b Param) int { return a.Ordinal - b.Ordinal })
	return nil
}
