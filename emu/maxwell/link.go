package maxwell

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
	"github.com/gpuisa/gpuisa/emu"
)

// Object is a cubin to link with a program: relocatable code (ptxas -c)
// defining functions the kernel calls, e.g. an extern .func. Data may also
// be a fatbin holding a cubin for the launch's arch.
type Object = emu.Object

// DataReloc is a pointer in the program's data (a global variable's
// initial value, a constant) to a global variable, whose address is known
// only at launch: Value (an offset in Image.Globals) plus the global
// variables' base goes into Size bytes at At, in Image.Globals (Bank -1) or
// in constant bank Bank.
type DataReloc struct {
	Bank  int
	At    uint64
	Size  int
	Value uint64
}

// LinkImage reads the kernel of a cubin (or fatbin) program and links it
// the way nvlink and the driver together do: the kernel's code goes first
// (address 0), then every function it reaches through relocations, from
// the program or from objs (global symbols; each defined once), each at a
// 32-byte boundary. Relocations are applied: code addresses (JCAL targets,
// function pointers in code and in data), constant-bank fields
// (R_CUDA_CONST_FIELD19_20 with each function's banks appended to the
// kernel's), and global variables (resolved at launch, see Image.Relocs).
// A symbol no object defines is an error naming it.
func LinkImage(name string, data []byte, kernel, arch string, objs []Object) (*Image, error) {
	f, fn, err := emu.OpenKernel(name, data, kernel, arch)
	if err != nil {
		return nil, err
	}
	img := &Image{LocalBytes: int(fn.LocalSize), SharedSize: int(fn.SharedSize),
		Params: fn.Params, ParamBase: fn.ParamBase, Symbols: map[string]uint64{}}
	if fn.ParamBank != 0 && fn.ParamBank != -1 {
		return nil, fmt.Errorf("%s: parameters in constant bank %d, not 0", name, fn.ParamBank)
	}
	if fn.ParamBank == -1 {
		img.ParamBase = cbParamBase
	}
	l := &linker{img: img, defs: map[string]symRef{}, code: map[secKey]uint64{},
		data: map[secKey]uint64{}}
	l.objs = append(l.objs, &linkObj{name: name, f: f})
	for _, o := range objs {
		lf, err := openObject(o.Name, o.Data, arch)
		if err != nil {
			return nil, err
		}
		l.objs = append(l.objs, &linkObj{name: o.Name, f: lf})
	}
	for i, o := range l.objs {
		if err := l.define(i, o); err != nil {
			return nil, err
		}
	}
	// the kernel's own constant banks (and the file's) sit at offset 0
	for _, banks := range [][]cubin.ConstBank{f.Constants, fn.Constants} {
		for _, c := range banks {
			if c.Bank >= 0 && c.Bank < len(img.Const) {
				img.Const[c.Bank] = append([]byte(nil), c.Data...) // relocations may write to it
				l.data[secKey{0, c.Section}] = 0
			}
		}
	}
	img.TexSlots = texSlots(f, fn)      // bound texture and surface references, bound at launch
	l.placeCode(0, fn.Section, fn.Name) // the kernel starts at address 0
	for _, banks := range [][]cubin.ConstBank{f.Constants, fn.Constants} {
		for _, c := range banks {
			if c.Bank >= 0 && c.Bank < len(img.Const) {
				if err := l.dataRelocs(0, c.Section, c.Bank, 0); err != nil {
					return nil, err // names the object
				}
			}
		}
	}
	for len(l.queue) > 0 {
		k := l.queue[0]
		l.queue = l.queue[1:]
		if err := l.codeRelocs(k); err != nil {
			return nil, fmt.Errorf("%s: function %s: %v", l.objs[k.obj].name, l.fnName(k), err)
		}
	}
	return img, nil
}

// openObject parses a cubin to link, or picks the arch's cubin of a fatbin.
func openObject(name string, data []byte, arch string) (*cubin.File, error) {
	f, err := cubin.Parse(data)
	if err != nil {
		entries, ferr := fatbin.Extract(data)
		if ferr != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		for _, e := range entries {
			if e.Kind == fatbin.KindELF && "sm_"+strconv.Itoa(e.SM) == arch {
				if f, err = cubin.Parse(e.Payload); err != nil {
					return nil, fmt.Errorf("%s: fatbin entry at %#x: %v", name, e.Offset, err)
				}
				break
			}
		}
		if f == nil {
			return nil, fmt.Errorf("%s: no %s cubin in the fatbin", name, arch)
		}
	}
	if sm := "sm_" + strconv.Itoa(f.SM()); sm != arch {
		return nil, fmt.Errorf("%s: the cubin is for %s, the launch says %s", name, sm, arch)
	}
	return f, nil
}

type linkObj struct {
	name string
	f    *cubin.File
}

// secKey is a section of one object.
type secKey struct{ obj, sec int }

// symRef is a symbol of one object.
type symRef struct{ obj, sym int }

type linker struct {
	img   *Image
	objs  []*linkObj
	defs  map[string]symRef // global and weak symbols with a definition
	code  map[secKey]uint64 // placed .text sections: their address
	data  map[secKey]uint64 // placed data sections: offset in Globals or in their bank
	queue []secKey          // placed code whose relocations are not applied yet
}

// define records the global symbols object i defines.
func (l *linker) define(i int, o *linkObj) error {
	for k, s := range o.f.Symbols {
		if k == 0 || s.Section == 0 || s.Name == "" || s.Bind() == 0 || s.Type() == 3 {
			continue
		}
		if prev, ok := l.defs[s.Name]; ok {
			prevWeak := l.objs[prev.obj].f.Symbols[prev.sym].Bind() == 2
			switch {
			case s.Bind() == 2:
				continue // a weak definition yields
			case !prevWeak:
				return fmt.Errorf("symbol %q is defined in %s and in %s", s.Name, l.objs[prev.obj].name, o.name)
			}
		}
		l.defs[s.Name] = symRef{i, k}
	}
	return nil
}

// resolve finds the definition of symbol k of object i.
func (l *linker) resolve(i, k int) (symRef, error) {
	f := l.objs[i].f
	if k <= 0 || k >= len(f.Symbols) {
		return symRef{}, fmt.Errorf("relocation against symbol %d of %d", k, len(f.Symbols))
	}
	if f.Symbols[k].Section != 0 {
		return symRef{i, k}, nil
	}
	name := f.Symbols[k].Name
	if d, ok := l.defs[name]; ok {
		return d, nil
	}
	return symRef{}, fmt.Errorf("undefined symbol %q: no object defines it (link one, e.g. the launch file's \"link\")", name)
}

func (l *linker) fnName(k secKey) string {
	return strings.TrimPrefix(l.objs[k.obj].f.Sections[k.sec].Name, ".text.")
}

// placeCode appends a .text section to the code at the next 32-byte bundle.
func (l *linker) placeCode(obj, sec int, name string) uint64 {
	k := secKey{obj, sec}
	if a, ok := l.code[k]; ok {
		return a
	}
	img := l.img
	at := uint64(len(img.Code)+31) &^ 31
	img.Code = append(img.Code, make([]byte, at-uint64(len(img.Code)))...)
	img.Code = append(img.Code, l.objs[obj].f.Sections[sec].Data...)
	if n := len(img.Code) % 32; n != 0 {
		img.Code = append(img.Code, make([]byte, 32-n)...)
	}
	l.code[k] = at
	img.Symbols[name] = at
	l.queue = append(l.queue, k)
	f := l.objs[obj].f
	if fn := f.Function(name); fn != nil {
		if len(l.code) > 1 { // the kernel's .nv.local is counted already
			img.LocalBytes += int(fn.LocalSize)
		}
		// every function placed adds its stack: an over-estimate, which is safe
		img.LocalBytes += emu.KernelStackBytes(f, fn.Symbol)
	}
	return at
}

// target is where a symbol is: code (Value is its address), a constant
// bank (Value is the offset in bank Bank) or a global variable (Value is
// the offset in Globals, the launch adds the base).
type target struct {
	kind  byte // 'c' code, 'k' constant, 'g' global
	bank  int
	value uint64
}

// locate places the section of a resolved symbol if needed and returns
// where the symbol is.
func (l *linker) locate(r symRef) (target, error) {
	o := l.objs[r.obj]
	sym := o.f.Symbols[r.sym]
	if int(sym.Section) >= len(o.f.Sections) {
		return target{}, fmt.Errorf("symbol %q in section %d of %d", sym.Name, sym.Section, len(o.f.Sections))
	}
	sec := &o.f.Sections[sym.Section]
	k := secKey{r.obj, int(sym.Section)}
	switch {
	case strings.HasPrefix(sec.Name, ".text."):
		return target{kind: 'c', value: l.placeCode(r.obj, int(sym.Section), strings.TrimPrefix(sec.Name, ".text.")) + sym.Value}, nil
	case sec.Name == ".nv.global" || sec.Name == ".nv.global.init":
		off, ok := l.data[k]
		if !ok {
			img := l.img
			off = (uint64(len(img.Globals)) + 255) &^ 255
			if off+sec.Size > 1<<28 {
				return target{}, fmt.Errorf("global variables of %d bytes", off+sec.Size)
			}
			img.Globals = append(img.Globals, make([]byte, off+sec.Size-uint64(len(img.Globals)))...)
			copy(img.Globals[off:], sec.Data)
			l.data[k] = off
			if err := l.dataRelocs(r.obj, int(sym.Section), -1, off); err != nil {
				return target{}, err
			}
		}
		return target{kind: 'g', value: off + sym.Value}, nil
	case strings.HasPrefix(sec.Name, ".nv.constant"):
		n, _, _ := strings.Cut(strings.TrimPrefix(sec.Name, ".nv.constant"), ".")
		bank, err := strconv.Atoi(n)
		if err != nil || bank < 0 || bank >= len(l.img.Const) {
			return target{}, fmt.Errorf("constant section %s", sec.Name)
		}
		off, ok := l.data[k]
		if !ok {
			// another function's bank: appended to the kernel's
			img := l.img
			off = (uint64(len(img.Const[bank])) + 15) &^ 15
			if off+uint64(len(sec.Data)) > ConstBankBytes {
				return target{}, fmt.Errorf("constant bank %d overflows when %s of %s is added", bank, sec.Name, o.name)
			}
			b := append([]byte(nil), img.Const[bank]...)
			b = append(b, make([]byte, off-uint64(len(b)))...)
			img.Const[bank] = append(b, sec.Data...)
			l.data[k] = off
			if err := l.dataRelocs(r.obj, int(sym.Section), bank, off); err != nil {
				return target{}, err
			}
		}
		return target{kind: 'k', bank: bank, value: off + sym.Value}, nil
	}
	return target{}, fmt.Errorf("symbol %q is in section %s, which the linker does not place", sym.Name, sec.Name)
}

// codeRelocs applies the relocations of a placed function.
func (l *linker) codeRelocs(k secKey) error {
	o := l.objs[k.obj]
	var rels []cubin.Reloc
	for _, fn := range o.f.Functions {
		if fn.Section == k.sec {
			rels = fn.Relocs
		}
	}
	base := l.code[k]
	for _, r := range rels {
		typ := cubin.RelocTypeName(r.Type)
		if int(r.Symbol) < len(o.f.Symbols) {
			// the driver's texture/surface descriptor sizes (tex_load.go)
			if v, ok := descSizeReloc(o.f.Symbols[r.Symbol].Name); ok && typ == "R_CUDA_ABS32_20" {
				at := base + r.Offset
				if r.Offset+8 > uint64(len(o.f.Sections[k.sec].Data)) {
					return fmt.Errorf("relocation at %#x outside the code", r.Offset)
				}
				w, err := patchWord(binary.LittleEndian.Uint64(l.img.Code[at:]), typ, v)
				if err != nil {
					return err
				}
				binary.LittleEndian.PutUint64(l.img.Code[at:], w)
				continue
			}
		}
		def, err := l.resolve(k.obj, int(r.Symbol))
		if err != nil {
			return err
		}
		t, err := l.locate(def)
		if err != nil {
			return fmt.Errorf("relocation %s at %#x: %v", typ, r.Offset, err)
		}
		at := base + r.Offset
		if r.Offset+8 > uint64(len(o.f.Sections[k.sec].Data)) {
			return fmt.Errorf("relocation at %#x outside the code", r.Offset)
		}
		v := t.value + uint64(r.Addend)
		switch t.kind {
		case 'g':
			if _, ok := fieldOf(typ); !ok || typ == "R_CUDA_CONST_FIELD19_20" {
				return fmt.Errorf("relocation type %s against global variable %q is not supported", typ, l.objs[def.obj].f.Symbols[def.sym].Name)
			}
			l.img.Relocs = append(l.img.Relocs, Reloc{Offset: at, Type: typ, Value: v})
			continue
		case 'k':
			if typ == "R_CUDA_CONST_FIELD19_20" {
				v |= uint64(t.bank) << 16
			}
		}
		code := l.img.Code // placing a callee may have moved it
		w, err := patchWord(binary.LittleEndian.Uint64(code[at:]), typ, v)
		if err != nil {
			return fmt.Errorf("relocation at %#x against %q: %v", r.Offset, l.objs[def.obj].f.Symbols[def.sym].Name, err)
		}
		binary.LittleEndian.PutUint64(code[at:], w)
	}
	return nil
}

// field is where a code relocation writes: width bits at shift, of the
// value shifted right by down; whole means the value must fit (the LO and
// HI halves of 64-bit addresses are cut).
type field struct {
	shift, width, down uint
	whole              bool
}

// fieldOf is the field of a code relocation type.
func fieldOf(typ string) (field, bool) {
	switch typ {
	case "R_CUDA_ABS32_20":
		return field{20, 32, 0, true}, true
	case "R_CUDA_ABS32_LO_20":
		return field{20, 32, 0, false}, true
	case "R_CUDA_ABS32_HI_20":
		return field{20, 32, 32, false}, true
	case "R_CUDA_ABS32_32":
		return field{32, 32, 0, true}, true
	case "R_CUDA_ABS32_LO_32":
		return field{32, 32, 0, false}, true
	case "R_CUDA_ABS32_HI_32":
		return field{32, 32, 32, false}, true
	case "R_CUDA_ABS24_20":
		return field{20, 24, 0, true}, true
	case "R_CUDA_ABS16_20":
		return field{20, 16, 0, true}, true
	case "R_CUDA_CONST_FIELD19_20":
		// c[bank][offset]: offset/4 in bits 20..33, the bank in 34..38
		// (the value carries the bank in bits 16..20)
		return field{20, 19, 2, true}, true
	}
	return field{}, false
}

// patchWord writes a relocation's value into an instruction word.
func patchWord(w uint64, typ string, v uint64) (uint64, error) {
	fl, ok := fieldOf(typ)
	if !ok {
		return w, fmt.Errorf("relocation type %s is not supported", typ)
	}
	part := v >> fl.down
	if fl.whole && (part>>fl.width != 0 || part<<fl.down != v) {
		return w, fmt.Errorf("value %#x does not fit %s", v, typ)
	}
	m := uint64(1)<<fl.width - 1
	return w&^(m<<fl.shift) | (part&m)<<fl.shift, nil
}

// dataRelocs applies the relocations of a placed data section (function
// pointers in a global variable's initial value or in a constant bank):
// bank -1 means Globals.
func (l *linker) dataRelocs(obj, sec, bank int, off uint64) error {
	o := l.objs[obj]
	for i, s := range o.f.Sections {
		if s.Type != cubin.SecRel && s.Type != cubin.SecRela || int(s.Info) != sec {
			continue
		}
		rels, err := readRelocs(o.f, i)
		if err != nil {
			return err
		}
		for _, r := range rels {
			typ := cubin.RelocTypeName(r.Type)
			if typ == "R_CUDA_TEX_HEADER_INDEX" || typ == "R_CUDA_SURF_HEADER_INDEX" {
				continue // a bound texture or surface: Image.TexSlots, bound at launch
			}
			size := map[string]int{"R_CUDA_32": 4, "R_CUDA_64": 8}[typ]
			if size == 0 {
				return fmt.Errorf("%s: relocation type %s in %s is not supported", o.name, typ, o.f.Sections[sec].Name)
			}
			def, err := l.resolve(obj, int(r.Symbol))
			if err != nil {
				return fmt.Errorf("%s: %s: %v", o.name, o.f.Sections[sec].Name, err)
			}
			t, err := l.locate(def)
			if err != nil {
				return err
			}
			v := t.value + uint64(r.Addend)
			at := off + r.Offset
			buf := l.img.Globals
			if bank >= 0 {
				buf = l.img.Const[bank]
			}
			if at < off || at > uint64(len(buf)) || uint64(len(buf))-at < uint64(size) { // wraps or runs past
				return fmt.Errorf("%s: relocation at %#x outside %s", o.name, r.Offset, o.f.Sections[sec].Name)
			}
			switch t.kind {
			case 'g':
				l.img.DataRelocs = append(l.img.DataRelocs, DataReloc{Bank: bank, At: at, Size: size, Value: v})
				continue
			case 'k':
				return fmt.Errorf("%s: a pointer to a constant in %s is not supported", o.name, o.f.Sections[sec].Name)
			}
			if size == 4 {
				binary.LittleEndian.PutUint32(buf[at:], uint32(v))
			} else {
				binary.LittleEndian.PutUint64(buf[at:], v)
			}
		}
	}
	return nil
}

// readRelocs reads a REL or RELA section of a 64-bit cubin (the package
// cubin attaches only the code's relocations to functions).
func readRelocs(f *cubin.File, idx int) ([]cubin.Reloc, error) {
	s := &f.Sections[idx]
	size := uint64(16)
	if s.Type == cubin.SecRela {
		size = 24
	}
	if f.Class != 64 || uint64(len(s.Data))%size != 0 {
		return nil, fmt.Errorf("relocation section %s: %d bytes, not %d-byte ELF64 entries", s.Name, len(s.Data), size)
	}
	le := binary.LittleEndian
	var out []cubin.Reloc
	for o := uint64(0); o < uint64(len(s.Data)); o += size {
		info := le.Uint64(s.Data[o+8:])
		r := cubin.Reloc{Offset: le.Uint64(s.Data[o:]), Symbol: uint32(info >> 32), Type: uint32(info)}
		if size == 24 {
			r.Addend = int64(le.Uint64(s.Data[o+16:]))
		}
		out = append(out, r)
	}
	return out, nil
}
