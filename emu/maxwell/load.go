package maxwell

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/internal/params"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// ConstBankBytes is the size of each constant bank.
const ConstBankBytes = emu.ConstBankBytes

// DefaultLocalBytes is the local memory (stack) per thread when neither the
// launch file nor the cubin says more.
const DefaultLocalBytes = 1 << 10

// MaxLocalPerBlock bounds the local memory of a block's threads together.
const MaxLocalPerBlock = 256 << 20

// MaxSharedBytes is the shared memory a block may have (sm_5x: 48 KiB).
const MaxSharedBytes = 48 << 10

// SharedAllocUnit is the granule sm_5x allocates a block's shared memory
// in (the CUDA occupancy calculator's "shared memory allocation unit size"
// for compute capability 5.0, 5.2 and 5.3): a block may access its whole
// last granule, as ptxas's vectorised loads past the declared size do
// (LDS.U.128 R4, [0x80] reading three words of a 0x8c-byte allocation).
const SharedAllocUnit = 256

// LocalAllocUnit rounds the per-thread local memory (the stack) so that
// the widest access, 16 bytes, fits at its aligned end.
const LocalAllocUnit = 16

// Bank 0 offsets ptxas reads.
const (
	cbShared    = 0x0 // generic address of shared memory (cvta.shared adds it, isspacep.shared tests it)
	cbNtid      = 0x8
	cbNctaid    = 0x14
	cbStack     = 0x20
	cbParamBase = 0x140
)

// Image is a program ready to lower.
type Image struct {
	Code       []byte
	Const      [16][]byte // .nv.constant<N> banks of the cubin
	LocalBytes int
	SharedSize int
	Params     []cubin.Param // nil for raw code: parameters packed in order
	ParamBase  uint32
	// Globals is the cubin's global variables (.nv.global.init contents,
	// then zeros for .nv.global), placed after the launch's global memory;
	// Relocs point code at them.
	Globals []byte
	Relocs  []Reloc
	// DataRelocs are pointers to global variables in Globals and in the
	// constant banks.
	DataRelocs []DataReloc
	// Symbols is the code address of every function linked in (the
	// kernel at 0).
	Symbols map[string]uint64
	// TexSlots are the bound texture and surface references (tex_load.go).
	TexSlots []TexSlot

	// what launches of the image share (reuse.go)
	once  sync.Once
	reuse *reuse
}

// Reloc is a code relocation against a global variable: the variable's
// offset in Globals (plus the addend) goes into the instruction word at Offset.
type Reloc struct {
	Offset uint64
	Type   string // R_CUDA_ABS32_LO_20, _HI_20, _LO_32, _HI_32
	Value  uint64 // offset in Globals
}

// ReadProgram reads the job's program: a cubin or fatbin (the function
// named by kernel, or the only one), a listing in our assembler's syntax, or
// raw code. A cubin is linked with the job's Link objects.
func ReadProgram(s *emu.Setup) (*Image, error) {
	return readProgram(s.Job.Program, s.Arch)
}

func readProgram(p *emu.Program, arch string) (*Image, error) {
	if len(p.Link) == 0 {
		return ProgramImage(p.Name, p.Data, p.Kernel, arch)
	}
	return LinkImage(p.Name, p.Data, p.Kernel, arch, p.Link)
}

// ProgramImage turns program file contents into code and launch facts; a
// cubin is linked on its own (LinkImage with no other object).
func ProgramImage(name string, data []byte, kernel, arch string) (*Image, error) {
	sm, _ := strconv.Atoi(strings.TrimPrefix(arch, "sm_"))
	switch {
	case len(data) >= 4 && (string(data[:4]) == "\x7fELF" || binary.LittleEndian.Uint32(data) == fatbin.Magic):
		return cubinImage(name, data, kernel, arch)
	case isText(data):
		code, err := maxwell.Assemble(name, data, sm)
		if err != nil {
			return nil, err
		}
		return &Image{Code: code, ParamBase: cbParamBase}, nil
	}
	return &Image{Code: data, ParamBase: cbParamBase}, nil
}

func isText(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	for _, c := range data {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func cubinImage(name string, data []byte, kernel, arch string) (*Image, error) {
	return LinkImage(name, data, kernel, arch, nil)
}

// relocate copies code with the relocations applied for global variables
// at device address addr.
func relocate(code []byte, relocs []Reloc, addr uint64) ([]byte, error) {
	if len(relocs) == 0 {
		return code, nil
	}
	code = append([]byte(nil), code...)
	for _, r := range relocs {
		w, err := patchWord(binary.LittleEndian.Uint64(code[r.Offset:]), r.Type, addr+r.Value)
		if err != nil {
			return nil, fmt.Errorf("relocation at %#x: %v", r.Offset, err)
		}
		binary.LittleEndian.PutUint64(code[r.Offset:], w)
	}
	return code, nil
}

// paramBytes packs the job's parameters for sm_5x: pointers are 64-bit;
// each value goes to the offset the cubin gives, else to the next naturally
// aligned offset.
func paramBytes(s *emu.Setup, img *Image) ([]byte, error) {
	return params.Pack(s, img.Params, 8, func(i int, a emu.Arg) (uint64, error) {
		if a.Kind == emu.ArgPtr {
			addr, err := params.BufferAddr(s, a)
			return addr + GlobalBase, err
		}
		return s.Job.ImageHandle(a)
	})
}

// NewKernel lowers the image's code and builds the launch's memory: bank 0
// gets the cubin's bank 0, the driver words and the parameters; the launch
// file's constant images go over everything.
func NewKernel(s *emu.Setup, img *Image) (*Kernel, error) {
	if !IsArch(s.Arch) {
		return nil, fmt.Errorf("arch %q is not a Maxwell architecture (sm_50, sm_52, sm_53)", s.Arch)
	}
	if err := checkLaunch(s, img); err != nil {
		return nil, err
	}
	sm, _ := strconv.Atoi(strings.TrimPrefix(s.Arch, "sm_"))
	gm := s.GlobalMemory()
	var globalsAt uint64 // device address of the cubin's global variables
	placedAt, constAt, placed := img.placed(s.Memory)
	fresh := false // the variables were placed by this launch
	if len(img.Globals) > 0 {
		if placed {
			globalsAt = placedAt // on a device, they keep their place and values
		} else {
			// the cubin's variables go after the launch's memory
			at, err := reserve(gm, uint64(len(img.Globals)), "global variables")
			if err != nil {
				return nil, err
			}
			copy(gm.Data[at:], img.Globals)
			globalsAt, fresh = GlobalBase+at, true
		}
	}
	prog, err := img.lower(sm, globalsAt)
	if err != nil {
		return nil, err
	}
	global := gm.Data
	params, err := paramBytes(s, img)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Prog: prog, Shared: s.Shared, Grid: s.Grid, Block: s.Block, LocalBytes: DefaultLocalBytes}
	k.LocalBytes = max(k.LocalBytes, img.LocalBytes)
	if s.LocalBytes > 0 {
		k.LocalBytes = s.LocalBytes
	}
	k.LocalBytes = roundUp(k.LocalBytes, LocalAllocUnit)
	if !prog.usesLocal() {
		k.LocalBytes = 0
	}
	k.buffers = placeList(s.Buffers)
	if n := uint64(k.LocalBytes) * uint64(s.Block.Count()); n > MaxLocalPerBlock {
		return nil, fmt.Errorf("local memory of %d bytes per thread is %d bytes per block, more than %d", k.LocalBytes, n, MaxLocalPerBlock)
	}
	gm.Data = global
	if len(gm.Segments) > 0 && gm.Segments[0].Addr < uint64(len(global)) {
		return nil, fmt.Errorf("global memory image at %#x overlaps the dense region (%#x bytes with the cubin's variables)",
			gm.Segments[0].Addr, len(global))
	}
	k.Global = gm
	k.launchRegions(s)
	k.sharedDeclared = s.SharedBytes + img.SharedSize
	if len(img.Globals) > 0 {
		k.regions = append(k.regions, emu.Region{Name: "the cubin's global variables", Addr: globalsAt - GlobalBase, Size: uint64(len(img.Globals))})
	}
	for i := range k.Const {
		// a bank holds what the cubin and the launch put there (LDC reads
		// zeros past it, up to ConstBankBytes); bank 0 the driver's words
		// and the parameters too
		size := max(len(img.Const[i]), len(s.Const[i]))
		if i == 0 {
			size = max(size, cbDriverWords, int(img.ParamBase)+len(params))
		}
		for _, sl := range img.TexSlots {
			if sl.Bank == i {
				size = max(size, int(sl.Offset)+4)
			}
		}
		if size == 0 {
			k.Const[i] = emu.Memory{Space: emu.Constant}
			continue
		}
		data := make([]byte, size)
		copy(data, img.Const[i])
		if i == 0 {
			le := binary.LittleEndian
			for j := range 3 {
				le.PutUint32(data[cbNtid+4*j:], s.Block[j])
				le.PutUint32(data[cbNctaid+4*j:], s.Grid[j])
			}
			le.PutUint32(data[cbStack:], uint32(k.LocalBytes))
			le.PutUint32(data[cbShared:], SharedWindow) // local's window (0x4) is 0
			if int(img.ParamBase)+len(params) > len(data) {
				return nil, fmt.Errorf("parameters do not fit in constant bank 0")
			}
			copy(data[img.ParamBase:], params)
		}
		copy(data, s.Const[i])
		k.Const[i] = emu.Memory{Space: emu.Constant, Data: data}
	}
	// pointers to global variables in their initial values and constants
	for _, r := range img.DataRelocs {
		if r.Bank < 0 && !fresh {
			continue // variables already placed keep the values the kernels left
		}
		buf := global[globalsAt-GlobalBase:]
		if r.Bank >= 0 {
			buf = k.Const[r.Bank].Data
		}
		if r.Size == 4 {
			binary.LittleEndian.PutUint32(buf[r.At:], uint32(globalsAt+r.Value))
		} else {
			binary.LittleEndian.PutUint64(buf[r.At:], globalsAt+r.Value)
		}
	}
	if constAt, err = k.mapConstBank(img, constAt); err != nil {
		return nil, err
	}
	img.place(s.Memory, globalsAt, constAt)
	if err := k.bindImages(s, img); err != nil {
		return nil, err
	}
	k.resolveShared(img)
	return k, nil
}

// resolve gives constant operands (other than LDC's address) their values
// for this launch: 64 bits, of which 32-bit instructions read the low word.
func (k *Kernel) resolve() {
	k.ops = append([]op(nil), k.Prog.ops...)
	var vals []uint32 // k.bcast's values: few, a scan beats a map
	for i := range k.ops {
		o := &k.ops[i]
		if o.kind == kLdc {
			continue
		}
		for j := range o.s {
			x := &o.s[j]
			if x.kind == oConst {
				x.imm = k.constValue(x)
			}
			if x.kind != oImm && x.kind != oConst {
				continue
			}
			// a row of the value for every lane, shared by equal values
			v := uint32(x.imm)
			bi := int32(slices.Index(vals, v))
			if bi < 0 {
				bi = int32(len(k.bcast))
				var row lanes
				for l := range row {
					row[l] = v
				}
				k.bcast = append(k.bcast, row)
				vals = append(vals, v)
			}
			x.bc = bi
		}
	}
}

// usesLocal reports whether the program touches local memory.
func (p *Program) usesLocal() bool {
	for i := range p.ops {
		switch p.ops[i].kind {
		case kLdl, kStl, kLd, kSt:
			return true
		}
	}
	return false
}

// Config is the engine configuration for a setup.
func (k *Kernel) Config(s *emu.Setup, img *Image) emu.Config {
	// the kernel's static shared memory and the launch's dynamic part; more
	// would only cost clearing for every block
	shared := s.SharedBytes + img.SharedSize
	for _, im := range s.Shared {
		shared = max(shared, int(im.Addr)+len(im.Data))
	}
	shared = min(shared, max(MaxSharedBytes, s.SharedBytes+img.SharedSize))
	shared = roundUp(shared, SharedAllocUnit) // what the hardware allocates
	return emu.Config{Grid: s.Grid, Block: s.Block, SharedBytes: shared, MaxSteps: s.MaxSteps,
		TraceBlock: -1, TraceWarp: -1, BlockBytes: k.blockBytes()}
}

// Outcome is a finished launch.
type Outcome struct {
	Setup  *emu.Setup
	Kernel *Kernel
	Stats  emu.Stats
	Result *emu.Result
}

// RunSetup lowers the launch's program and runs it; adjust, when not nil,
// may change the engine configuration. A fault is returned with the outcome
// so far.
func RunSetup(s *emu.Setup, adjust func(*emu.Config)) (*Outcome, error) {
	img, err := ReadProgram(s)
	if err != nil {
		return nil, err
	}
	k, cfg, err := prepare(s, img)
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		adjust(&cfg)
	}
	st, err := emu.Run(cfg, k)
	return &Outcome{Setup: s, Kernel: k, Stats: st, Result: &emu.Result{Global: k.Global.Data, Segments: k.Global.Segments,
		Buffers: s.Buffers, Arch: s.Arch, Stats: st}}, err
}

func roundUp(n, unit int) int { return (n + unit - 1) / unit * unit }
