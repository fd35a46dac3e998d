package cubin

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Module describes a cubin for Write: what `gpuisa as -cubin` and tests need
// to wrap machine code in an ELF file that Parse, and for sm_5x NVIDIA's
// tools, accept.
type Module struct {
	Class     int    // 32 or 64; 0 picks 32 for sm_1x (as CUDA 3.x–6.x did) and 64 otherwise
	SM        int    // target, e.g. 10, 20, 52
	VirtualSM int    // PTX SM recorded in e_flags bits 16..23; 0 for none
	Flags     uint32 // further e_flags bits, e.g. EFTexmodeUnified|EF64BitAddress as ptxas sets for sm_5x
	Kernels   []Kernel
}

// Kernel is one kernel entry for Write.
type Kernel struct {
	Name      string
	Code      []byte
	Registers int // registers per thread, 0..255
	Barriers  int // barriers used, 0..127
	// Params lists the parameters (Offset relative to ParamBase). On sm_2x+
	// they live in constant bank 0 at ParamBase (ParamBaseFor gives ptxas's
	// choice); on sm_1x in shared memory, marked SMem.
	Params    []Param
	ParamBase uint32
	ParamSize uint32 // 0: the end of the last parameter
	// Constants are the initial constant banks (Section is ignored). On
	// sm_2x+ a zero-filled bank 0 of ParamBase+ParamSize bytes is added when
	// none is given and the kernel has parameters, as ptxas does.
	Constants  []ConstBank
	SharedSize uint64 // static shared memory (.nv.shared.<Name>)
	LocalSize  uint64 // local memory per thread (.nv.local.<Name>)
}

// ParamBaseFor returns where ptxas puts parameter 0 for an SM version: the
// offset in constant bank 0 (0x140 on sm_5x, 0x20 on sm_2x), or for sm_1x the
// shared-memory offset the launch copies parameters to (0x10).
func ParamBaseFor(sm int) uint32 {
	switch {
	case sm >= 50:
		return 0x140
	case sm >= 20:
		return 0x20
	}
	return 0x10
}

// DefaultModule returns a Module for one kernel with the header values and
// parameter layout ptxas would use for sm: e_flags with the virtual SM set
// to sm (and, from sm_50 on, EF_CUDA_TEXMODE_UNIFIED|EF_CUDA_64BIT_ADDRESS),
// and paramSizes laid out at their natural alignment from ParamBaseFor(sm).
func DefaultModule(sm int, name string, code []byte, registers int, paramSizes ...uint32) *Module {
	m := &Module{SM: sm, VirtualSM: sm}
	if sm >= 50 {
		m.Flags = EFTexmodeUnified | EF64BitAddress
	}
	k := Kernel{Name: name, Code: code, Registers: registers, ParamBase: ParamBaseFor(sm)}
	var off uint32
	for i, size := range paramSizes {
		align := min(max(size, 1), 8)
		off = (off + align - 1) &^ (align - 1)
		p := Param{Ordinal: i, Offset: off, Size: size, CBank: 0x1f, SMem: sm < 20}
		k.Params = append(k.Params, p)
		off += size
	}
	k.ParamSize = off
	m.Kernels = []Kernel{k}
	return m
}

// elfBuilder lays out sections and writes the file.
type elfBuilder struct {
	is64     bool
	secs     []wsec
	shstrtab []byte
}

type wsec struct {
	name           string
	typ            uint32
	flags          uint64
	link, info     uint32
	align, entsize uint64
	data           []byte
	size           uint64 // for NOBITS
}

func (b *elfBuilder) add(s wsec) int {
	b.secs = append(b.secs, s)
	return len(b.secs) - 1
}

func strIndex(tab *[]byte, s string) uint32 {
	off := uint32(len(*tab))
	*tab = append(append(*tab, s...), 0)
	return off
}

// Write builds a cubin from m. The result round-trips through Parse: every
// Kernel comes back as a Function with the same name, code, registers,
// barriers, parameters, parameter layout, constant banks and sizes.
func Write(m *Module) ([]byte, error) {
	if m.SM <= 0 || m.SM > 0xff || m.VirtualSM < 0 || m.VirtualSM > 0xff {
		return nil, fmt.Errorf("cubin.Write: SM %d / virtual SM %d out of range", m.SM, m.VirtualSM)
	}
	class := m.Class
	if class == 0 {
		class = 64
		if m.SM < 20 {
			class = 32
		}
	}
	if class != 32 && class != 64 {
		return nil, fmt.Errorf("cubin.Write: class %d, want 32 or 64", class)
	}
	b := &elfBuilder{is64: class == 64}
	lay := layout32
	if b.is64 {
		lay = layout64
	}
	seen := map[string]bool{}
	for _, k := range m.Kernels {
		switch {
		case k.Name == "":
			return nil, errors.New("cubin.Write: kernel without a name")
		case seen[k.Name]:
			return nil, fmt.Errorf("cubin.Write: kernel %s defined twice", k.Name)
		case k.Registers < 0 || k.Registers > 255:
			return nil, fmt.Errorf("cubin.Write: kernel %s: %d registers, want 0..255", k.Name, k.Registers)
		case m.SM < 20 && (len(k.Params) > 0 || k.ParamSize > 0) && k.ParamBase != ParamBaseFor(m.SM):
			return nil, fmt.Errorf("cubin.Write: kernel %s: sm_1x parameters live at shared 0x%x, not 0x%x", k.Name, ParamBaseFor(m.SM), k.ParamBase)
		case k.Barriers < 0 || k.Barriers > shfBarriersMask:
			return nil, fmt.Errorf("cubin.Write: kernel %s: %d barriers, want 0..%d", k.Name, k.Barriers, shfBarriersMask)
		}
		seen[k.Name] = true
	}

	b.add(wsec{}) // 0: null
	shstrIdx := b.add(wsec{name: ".shstrtab", typ: SecStrtab, align: 1})
	strIdx := b.add(wsec{name: ".strtab", typ: SecStrtab, align: 1})
	symIdx := b.add(wsec{name: ".symtab", typ: SecSymtab, link: uint32(strIdx), align: 8, entsize: lay.symentsize})
	infoIdx := b.add(wsec{name: ".nv.info", typ: SecCUDAInfo, link: uint32(symIdx), align: 4})

	// Section indices per kernel; text sections go last so that the
	// symbol table (built below) can name them.
	type kidx struct{ info, text, const0 int }
	idx := make([]kidx, len(m.Kernels))
	var consts, nobits []struct{ kernel, sec int }
	textAlign := uint64(4)
	if m.SM >= 50 {
		textAlign = 32
	}
	for i, k := range m.Kernels {
		idx[i].info = b.add(wsec{name: ".nv.info." + k.Name, typ: SecCUDAInfo, link: uint32(symIdx), align: 4})
	}
	for i, k := range m.Kernels {
		idx[i].const0 = -1
		banks := k.Constants
		hasBank0 := false
		for _, c := range banks {
			hasBank0 = hasBank0 || c.Bank == 0
		}
		if !hasBank0 && m.SM >= 20 && (len(k.Params) > 0 || k.ParamSize > 0) {
			banks = append([]ConstBank{{Bank: 0, Data: make([]byte, k.ParamBase+paramSize(k))}}, banks...)
		}
		for _, c := range banks {
			if c.Bank < 0 || c.Bank > 255 {
				return nil, fmt.Errorf("cubin.Write: kernel %s: constant bank %d", k.Name, c.Bank)
			}
			s := b.add(wsec{name: fmt.Sprintf(".nv.constant%d.%s", c.Bank, k.Name), typ: SecProgbits, flags: SHFAlloc, align: 4, data: c.Data})
			if c.Bank == 0 {
				idx[i].const0 = s
			}
			consts = append(consts, struct{ kernel, sec int }{i, s})
		}
		if k.SharedSize > 0 {
			s := b.add(wsec{name: ".nv.shared." + k.Name, typ: SecNobits, flags: SHFAlloc | SHFWrite, align: 4, size: k.SharedSize})
			nobits = append(nobits, struct{ kernel, sec int }{i, s})
		}
		if k.LocalSize > 0 {
			s := b.add(wsec{name: ".nv.local." + k.Name, typ: SecNobits, flags: SHFAlloc | SHFWrite, align: 4, size: k.LocalSize})
			nobits = append(nobits, struct{ kernel, sec int }{i, s})
		}
	}
	for i, k := range m.Kernels {
		idx[i].text = b.add(wsec{name: ".text." + k.Name, typ: SecProgbits, flags: SHFAlloc | SHFExecInstr | uint64(k.Barriers)<<shfBarriersShift,
			link: uint32(symIdx), align: textAlign, data: k.Code})
	}
	// per-kernel sections point at their text section
	for i := range m.Kernels {
		b.secs[idx[i].info].info = uint32(idx[i].text)
	}
	for _, c := range consts {
		b.secs[c.sec].info = uint32(idx[c.kernel].text)
	}
	for _, c := range nobits {
		b.secs[c.sec].info = uint32(idx[c.kernel].text)
	}

	// Symbols: null, a section symbol per text and constant section, then
	// one global FUNC symbol per kernel.
	var strtab = []byte{0}
	var syms []byte
	addSym := func(name string, value, size uint64, info, other uint8, shndx int) int {
		n := uint32(0)
		if name != "" {
			n = strIndex(&strtab, name)
		}
		if b.is64 {
			syms = binary.LittleEndian.AppendUint32(syms, n)
			syms = append(syms, info, other)
			syms = binary.LittleEndian.AppendUint16(syms, uint16(shndx))
			syms = binary.LittleEndian.AppendUint64(syms, value)
			syms = binary.LittleEndian.AppendUint64(syms, size)
		} else {
			syms = binary.LittleEndian.AppendUint32(syms, n)
			syms = binary.LittleEndian.AppendUint32(syms, uint32(value))
			syms = binary.LittleEndian.AppendUint32(syms, uint32(size))
			syms = append(syms, info, other)
			syms = binary.LittleEndian.AppendUint16(syms, uint16(shndx))
		}
		return int(uint64(len(syms))/lay.symentsize) - 1
	}
	addSym("", 0, 0, 0, 0, 0)
	secSym := map[int]int{}
	for i := range m.Kernels {
		secSym[idx[i].text] = addSym(b.secs[idx[i].text].name, 0, 0, 3, 0, idx[i].text)
	}
	for _, c := range consts {
		secSym[c.sec] = addSym(b.secs[c.sec].name, 0, 0, 3, 0, c.sec)
	}
	firstGlobal := len(secSym) + 1
	funcSym := make([]int, len(m.Kernels))
	for i, k := range m.Kernels {
		funcSym[i] = addSym(k.Name, 0, uint64(len(k.Code)), 0x12, 0x10, idx[i].text)
		b.secs[idx[i].text].info = uint32(k.Registers)<<shiRegistersShift | uint32(funcSym[i])
	}
	b.secs[symIdx].data = syms
	b.secs[symIdx].info = uint32(firstGlobal)
	b.secs[strIdx].data = strtab

	// .nv.info: per-function resource records, as ptxas writes them.
	var info []byte
	for i, k := range m.Kernels {
		sym := uint32(funcSym[i])
		pair := func(v uint32) []byte {
			return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, sym), v)
		}
		info = appendAttr(info, Attr{Format: FmtSVal, ID: AttrRegCount, Data: pair(uint32(k.Registers))})
		info = appendAttr(info, Attr{Format: FmtSVal, ID: AttrMaxStackSize, Data: pair(0)})
		info = appendAttr(info, Attr{Format: FmtSVal, ID: AttrMinStackSize, Data: pair(0)})
		info = appendAttr(info, Attr{Format: FmtSVal, ID: AttrFrameSize, Data: pair(0)})
	}
	b.secs[infoIdx].data = info
	for i, k := range m.Kernels {
		var fi []byte
		size := paramSize(k)
		if size > 0xffff || k.ParamBase > 0xffff {
			return nil, fmt.Errorf("cubin.Write: kernel %s: parameter base 0x%x / size 0x%x do not fit 16 bits", k.Name, k.ParamBase, size)
		}
		if len(k.Params) > 0 || k.ParamSize > 0 {
			if m.SM >= 20 {
				if idx[i].const0 < 0 {
					return nil, fmt.Errorf("cubin.Write: kernel %s has parameters but no constant bank 0", k.Name)
				}
				d := binary.LittleEndian.AppendUint32(nil, uint32(secSym[idx[i].const0]))
				d = binary.LittleEndian.AppendUint32(d, k.ParamBase|size<<16)
				fi = appendAttr(fi, Attr{Format: FmtSVal, ID: AttrParamCBank, Data: d})
				fi = appendAttr(fi, Attr{Format: FmtHVal, ID: AttrCBankParamSize, Value: uint16(size)})
			} else {
				fi = appendAttr(fi, Attr{Format: FmtHVal, ID: AttrSMemParamSize, Value: uint16(size)})
			}
		}
		// ptxas lists the parameters last first
		for j := len(k.Params) - 1; j >= 0; j-- {
			p := k.Params[j]
			if p.Ordinal < 0 || p.Ordinal > 0xffff || p.Offset > 0xffff || p.Size >= 1<<14 {
				return nil, fmt.Errorf("cubin.Write: kernel %s: parameter %d (offset 0x%x, size %d) does not fit EIATTR_KPARAM_INFO", k.Name, p.Ordinal, p.Offset, p.Size)
			}
			fi = appendAttr(fi, Attr{Format: FmtSVal, ID: AttrKParamInfo, Data: p.payload()})
		}
		b.secs[idx[i].info].data = fi
	}

	// names
	b.shstrtab = []byte{0}
	names := make([]uint32, len(b.secs))
	for i := 1; i < len(b.secs); i++ {
		names[i] = strIndex(&b.shstrtab, b.secs[i].name)
	}
	b.secs[shstrIdx].data = b.shstrtab

	flags := uint32(m.SM) | uint32(m.VirtualSM)<<EFVirtualSMShift | m.Flags&^(EFSMMask|EFVirtualSMMask)
	return b.layout(names, flags, shstrIdx, lay), nil
}

func paramSize(k Kernel) uint32 {
	if k.ParamSize != 0 {
		return k.ParamSize
	}
	var end uint32
	for _, p := range k.Params {
		end = max(end, p.Offset+p.Size)
	}
	return end
}

// layout places the section data after the ELF header, then the section
// header table, and encodes everything.
func (b *elfBuilder) layout(names []uint32, flags uint32, shstrndx int, lay layout) []byte {
	out := make([]byte, lay.ehsize)
	offs := make([]uint64, len(b.secs))
	for i, s := range b.secs {
		if s.typ == SecNull || s.typ == SecNobits {
			continue
		}
		if a := max(s.align, 1); uint64(len(out))%a != 0 {
			out = append(out, make([]byte, a-uint64(len(out))%a)...)
		}
		offs[i] = uint64(len(out))
		out = append(out, s.data...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))
	le := binary.LittleEndian
	for i, s := range b.secs {
		size := uint64(len(s.data))
		if s.typ == SecNobits {
			size = s.size
		}
		out = le.AppendUint32(out, names[i])
		out = le.AppendUint32(out, s.typ)
		if b.is64 {
			out = le.AppendUint64(out, s.flags)
			out = le.AppendUint64(out, 0)
			out = le.AppendUint64(out, offs[i])
			out = le.AppendUint64(out, size)
			out = le.AppendUint32(out, s.link)
			out = le.AppendUint32(out, s.info)
			out = le.AppendUint64(out, s.align)
			out = le.AppendUint64(out, s.entsize)
		} else {
			out = le.AppendUint32(out, uint32(s.flags))
			out = le.AppendUint32(out, 0)
			out = le.AppendUint32(out, uint32(offs[i]))
			out = le.AppendUint32(out, uint32(size))
			out = le.AppendUint32(out, s.link)
			out = le.AppendUint32(out, s.info)
			out = le.AppendUint32(out, uint32(s.align))
			out = le.AppendUint32(out, uint32(s.entsize))
		}
	}
	// ELF header
	h := out[:lay.ehsize]
	copy(h, "\x7fELF")
	h[4] = 1
	if b.is64 {
		h[4] = 2
	}
	h[5], h[6], h[7], h[8] = 1, 1, 0x33, 7 // little-endian, EV_CURRENT, CUDA OS ABI, ABI version 7
	le.PutUint16(h[16:], ETExec)
	le.PutUint16(h[18:], EMCUDA)
	le.PutUint32(h[20:], cudaVersion)
	var p int
	if b.is64 {
		le.PutUint64(h[40:], shoff)
		p = 48
	} else {
		le.PutUint32(h[32:], uint32(shoff))
		p = 36
	}
	le.PutUint32(h[p:], flags)
	le.PutUint16(h[p+4:], uint16(lay.ehsize))
	if b.is64 {
		le.PutUint16(h[p+6:], 56) // e_phentsize
	} else {
		le.PutUint16(h[p+6:], 32)
	}
	le.PutUint16(h[p+10:], uint16(lay.shentsize))
	le.PutUint16(h[p+12:], uint16(len(b.secs)))
	le.PutUint16(h[p+14:], uint16(shstrndx))
	return out
}

// cudaVersion is what ptxas of CUDA 11.8 stores in e_version (118).
const cudaVersion = 0x76
