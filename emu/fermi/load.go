package fermi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/internal/params"
	"github.com/gpuisa/gpuisa/isa/fermi"
)

// NumConstBanks is the number of constant banks an instruction can name
// (a 5-bit field: BRX reads c[0x10], where the compiler keeps its
// constants, jump tables among them).
const NumConstBanks = 32

// ConstBankBytes is the size of each constant bank.
const ConstBankBytes = 64 << 10

// zeroBank backs the constant banks a launch leaves empty; it is never written.
var zeroBank [ConstBankBytes]byte

// MaxSharedBytes is the shared memory a block may have on sm_2x (48 KiB,
// the larger of the two L1/shared splits).
const MaxSharedBytes = 48 << 10

// DefaultLocalBytes is the local memory per thread when neither the launch
// file nor the cubin says more (CUDA's default stack size on sm_2x).
const DefaultLocalBytes = 1 << 10

// MaxLocalPerBlock bounds the local memory of a block's threads together.
const MaxLocalPerBlock = 256 << 20

// The sm_2x launch convention (docs/fermi-launch.md): constant bank 0
// holds ntid.xyz at 0x8/0xc/0x10, nctaid.xyz at 0x14/0x18/0x1c and the
// parameters from 0x20; bank 1 holds the initial stack pointer at 0x100.
const (
	cbSharedWindow = 0x0
	cbLocalWindow  = 0x4
	cbNtid         = 0x8
	cbNctaid       = 0x14
	cbParamBase    = 0x20
	cbStackBank    = 1
	cbStack        = 0x100
)

// IsArch reports whether arch is one this package runs.
func IsArch(arch string) bool { return arch == "sm_20" || arch == "sm_21" }

// Image is a program ready to lower: machine code and what its container
// says about the launch.
type Image struct {
	Code       []byte
	Const      [NumConstBanks][]byte // .nv.constant<N> banks of a cubin (16: the compiler's constants)
	LocalBytes int                   // local memory per thread a cubin asks for
	SharedSize int                   // a cubin's static shared memory
	AddrBits   int                   // 32 or 64 when the container says; 0: from the code
	Params     []cubin.Param
	ParamBase  uint32

	lowerOnce sync.Once // the program is lowered once for all its launches
	prog      *Program
	lowerErr  error

	banksMu sync.Mutex
	banks   map[bankKey][]byte // constant banks of recent launches (Image.bank)
}

// bankKey names a constant bank by its number, size and the words before
// its trailing zeros.
type bankKey struct {
	bank, size int
	words      string
}

// maxBanks bounds the banks an image keeps (64 KiB each, or more).
const maxBanks = 16

// bank is constant bank i of size bytes that starts with words and holds
// zeros after them. Nothing writes a bank, so launches with the same words
// share one: a host loop's repeated launches then build no 64 KiB bank
// (its allocation and clearing were most of a small launch's cost).
func (img *Image) bank(i, size int, words []byte) []byte {
	key := bankKey{i, size, string(words)}
	img.banksMu.Lock()
	defer img.banksMu.Unlock()
	if data, ok := img.banks[key]; ok {
		return data
	}
	if len(img.banks) >= maxBanks || img.banks == nil {
		img.banks = map[bankKey][]byte{}
	}
	data := make([]byte, size)
	copy(data, words)
	img.banks[key] = data
	return data
}

// program lowers the image's code on first use.
func (img *Image) program() (*Program, error) {
	img.lowerOnce.Do(func() { img.prog, img.lowerErr = Lower(img.Code) })
	return img.prog, img.lowerErr
}

// ReadProgram reads the job's program: an ELF cubin or a fatbin (the
// function named by kernel, or the only one), a listing in our assembler's
// syntax (cuobjdump's too; kernel picks a "Function :" section), or raw
// machine code.
func ReadProgram(s *emu.Setup) (*Image, error) { return readProgram(s.Job.Program, s.Arch) }

func readProgram(p *emu.Program, arch string) (*Image, error) {
	return ProgramImage(p.Name, p.Data, p.Kernel, arch)
}

// ProgramImage turns program file contents into code and launch facts.
func ProgramImage(name string, data []byte, kernel, arch string) (*Image, error) {
	switch {
	case len(data) >= 4 && (string(data[:4]) == "\x7fELF" || binary.LittleEndian.Uint32(data) == fatbin.Magic):
		return cubinImage(name, data, kernel, arch)
	case isText(data):
		if kernel != "" {
			var err error
			if data, err = functionText(data, kernel); err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
		}
		code, err := fermi.Assemble(name, data)
		if err != nil {
			return nil, err
		}
		return &Image{Code: code, ParamBase: cbParamBase}, nil
	}
	return &Image{Code: data, ParamBase: cbParamBase}, nil
}

func cubinImage(name string, data []byte, kernel, arch string) (*Image, error) {
	f, fn, err := emu.OpenKernel(name, data, kernel, arch)
	if err != nil {
		return nil, err
	}
	img := &Image{Code: fn.Code, LocalBytes: int(fn.LocalSize), SharedSize: int(fn.SharedSize),
		Params: fn.Params, ParamBase: cbParamBase}
	if fn.ParamBank == 0 && fn.ParamBase != 0 {
		img.ParamBase = fn.ParamBase
	}
	switch {
	case f.Flags&cubin.EF64BitAddress != 0:
		img.AddrBits = 64
	case f.Class == 32:
		img.AddrBits = 32
	}
	for _, banks := range [][]cubin.ConstBank{f.Constants, fn.Constants} {
		for _, c := range banks {
			if c.Bank >= 0 && c.Bank < len(img.Const) {
				img.Const[c.Bank] = c.Data
			}
		}
	}
	return img, nil
}

// isText reports whether data looks like a listing rather than machine code.
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

// functionText keeps the lines of the listing's function kernel
// ("Function : kernel" up to the next function), blanking the others so
// error positions keep their line numbers. A listing without function
// headers is taken whole.
func functionText(data []byte, kernel string) ([]byte, error) {
	lines := bytes.Split(data, []byte("\n"))
	in, found, any := false, false, false
	for i, l := range lines {
		t := strings.TrimSpace(string(l))
		if rest, ok := strings.CutPrefix(t, "Function"); ok {
			if rest, ok = strings.CutPrefix(strings.TrimSpace(rest), ":"); ok {
				any = true
				in = strings.TrimSpace(rest) == kernel
				found = found || in
				lines[i] = nil
				continue
			}
		}
		if !in && any || strings.HasPrefix(t, "code for") || strings.HasPrefix(t, "....") || strings.HasPrefix(t, ".") && strings.Trim(t, ".") == "" {
			lines[i] = nil
		}
	}
	if !any {
		return data, nil
	}
	if !found {
		return nil, fmt.Errorf("no function %q in the listing", kernel)
	}
	return bytes.Join(lines, []byte("\n")), nil
}

// AddrBits is the program's address width: the container's, else 64 when
// a global access uses 64-bit addresses (.E), else 32 (the CUDA 3.x/4.x
// 32-bit builds of the oracle).
func (img *Image) addrBits(p *Program) int {
	if img.AddrBits != 0 {
		return img.AddrBits
	}
	if p.wide {
		return 64
	}
	return 32
}

// paramBytes packs the job's parameters for sm_2x: a pointer is as wide as
// the program's addresses; each value goes to the offset the cubin gives,
// else to the next naturally aligned offset.
func paramBytes(s *emu.Setup, img *Image, addrBits int) ([]byte, error) {
	return params.Pack(s, img.Params, addrBits/8, func(i int, a emu.Arg) (uint64, error) {
		if a.Kind != emu.ArgPtr {
			return 0, fmt.Errorf("sm_2x kernels take no texture or surface objects (textures are bound by slot)")
		}
		return params.BufferAddr(s, a)
	})
}

// NewKernel lowers the image's code and builds the launch's memory: bank 0
// gets the cubin's bank 0, the launch words and the parameters, bank 1 the
// stack pointer; the launch file's constant images go over everything.
func NewKernel(s *emu.Setup, img *Image) (*Kernel, error) {
	if !IsArch(s.Arch) {
		return nil, fmt.Errorf("arch %q is not a Fermi architecture (sm_20, sm_21)", s.Arch)
	}
	if lim, ok := emu.LimitsOf(s.Arch); ok { // sizes checked before anything is built
		if err := lim.CheckProgram(s, img.LocalBytes, img.SharedSize); err != nil {
			return nil, err
		}
	}
	prog, err := img.program()
	if err != nil {
		return nil, err
	}
	bitsA := img.addrBits(prog)
	params, err := paramBytes(s, img, bitsA)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Prog: prog, Shared: s.Shared, Grid: s.Grid, Block: s.Block, AddrBits: bitsA}
	// local memory: the kernel's frame (the cubin's local size, or the
	// highest [R1+offset] the code reaches) at the top, CUDA's default
	// stack of 1 KiB below it for calls; the stack pointer points at the
	// frame. local_bytes sets the total.
	frame := (max(prog.frame, img.LocalBytes) + 15) &^ 15
	k.LocalBytes = frame + DefaultLocalBytes
	if s.LocalBytes > 0 {
		if s.LocalBytes < frame {
			return nil, fmt.Errorf("local_bytes %d is less than the kernel's frame of %d bytes", s.LocalBytes, frame)
		}
		k.LocalBytes = s.LocalBytes
	}
	if !prog.local {
		k.LocalBytes = 0
	}
	if n := uint64(k.LocalBytes) * uint64(s.Block.Count()); n > MaxLocalPerBlock {
		return nil, fmt.Errorf("local memory of %d bytes per thread is %d bytes per block, more than %d", k.LocalBytes, n, MaxLocalPerBlock)
	}
	sp := uint32(max(k.LocalBytes-frame, 0))
	k.Global = s.GlobalMemory()
	for i := range k.Const {
		var launch []byte // the launch file's constant images (banks 0..15)
		if i < len(s.Const) {
			launch = s.Const[i]
		}
		if i > cbStackBank && len(img.Const[i]) == 0 && len(launch) == 0 {
			// an empty bank reads zeros: share one (nothing writes banks)
			k.Const[i] = emu.Memory{Space: emu.Constant, Data: zeroBank[:]}
			continue
		}
		size := max(ConstBankBytes, len(img.Const[i]), len(launch))
		// the words the cubin, the launch and the convention put in the
		// bank; zeros follow them
		used := max(len(img.Const[i]), len(launch))
		switch i {
		case 0:
			if int(img.ParamBase)+len(params) > size {
				return nil, fmt.Errorf("parameters do not fit in constant bank 0")
			}
			used = max(used, cbNctaid+12, int(img.ParamBase)+len(params))
		case cbStackBank:
			used = max(used, cbStack+4)
		}
		data := make([]byte, used)
		copy(data, img.Const[i])
		le := binary.LittleEndian
		switch i {
		case 0:
			// the generic addresses of shared and local memory (search.isa
			// adds 0x3180 to c[0x0][0x0] to store to a __shared__ array
			// through a generic ST)
			le.PutUint32(data[cbSharedWindow:], SharedWindow)
			le.PutUint32(data[cbLocalWindow:], LocalWindow)
			for j := range 3 {
				le.PutUint32(data[cbNtid+4*j:], s.Block[j])
				le.PutUint32(data[cbNctaid+4*j:], s.Grid[j])
			}
			copy(data[img.ParamBase:], params)
		case cbStackBank:
			le.PutUint32(data[cbStack:], sp)
		}
		copy(data, launch)
		data = img.bank(i, size, data)
		k.Const[i] = emu.Memory{Space: emu.Constant, Data: data}
	}
	if err := k.bindTextures(s); err != nil {
		return nil, err
	}
	if err := k.resolve(); err != nil {
		return nil, err
	}
	return k, nil
}

// bindTextures makes the job's textures buffer textures for TLD: slot i is
// the job's i-th texture; each must name a buffer and a format of 32-bit
// channels (r32f, rg32ui, rgba32i, ...).
func (k *Kernel) bindTextures(s *emu.Setup) error {
	if s.Job == nil {
		return nil
	}
	if len(s.Job.Surfaces) > 0 {
		return fmt.Errorf("surfaces are not supported on sm_2x")
	}
	for _, im := range s.Job.Textures {
		if im.Buffer == "" {
			return fmt.Errorf("texture %q: sm_2x textures here are buffer textures (tex1Dfetch): name a buffer", im.Name)
		}
		ch := map[string]int{"r32f": 1, "r32ui": 1, "r32i": 1, "rg32f": 2, "rg32ui": 2, "rg32i": 2,
			"rgba32f": 4, "rgba32ui": 4, "rgba32i": 4}[im.Format]
		if ch == 0 {
			return fmt.Errorf("texture %q: format %q is not one of 32-bit channels (r32f, rg32ui, rgba32i, ...)", im.Name, im.Format)
		}
		b, ok := s.Buffers[im.Buffer]
		if !ok {
			return fmt.Errorf("texture %q: no buffer %q", im.Name, im.Buffer)
		}
		elems := b.Bytes / uint64(4*ch)
		if len(im.Size) > 0 && im.Size[0] > 0 {
			elems = min(elems, uint64(im.Size[0]))
		}
		k.Textures = append(k.Textures, Texture{Name: im.Name, Addr: b.Addr, Elements: elems, Channels: ch})
	}
	return nil
}

// resolve gives constant operands (other than indexed ones) their values
// for this launch: 64 bits, of which 32-bit instructions read the low word
// (through a broadcast row shared by equal values). It also checks that
// every register operand names a row of the register file, which the
// interpreter then addresses without bounds checks (rowOf).
func (k *Kernel) resolve() error {
	// one op past the end, a zero op (no fast form), ends the fast
	// loop's stretches without a test of the program's end (fast.go)
	n := len(k.Prog.ops)
	k.ops = append(make([]op, 0, n+1), k.Prog.ops...)
	k.ops[:n+1][n] = op{}
	index := map[uint32]int32{}
	for i := range k.ops {
		o := &k.ops[i]
		for j := range o.s {
			x := &o.s[j]
			if x.kind == oConst {
				m := &k.Const[x.bank]
				lo, _ := m.Load32(uint32(x.imm))
				hi, _ := m.Load32(uint32(x.imm + 4))
				x.imm = int64(uint64(lo) | uint64(hi)<<32)
			}
			if x.kind != oImm && x.kind != oConst {
				continue
			}
			v := uint32(x.imm)
			bi, ok := index[v]
			if !ok {
				bi = int32(len(k.bcast))
				var row lanes
				for l := range row {
					row[l] = v
				}
				k.bcast = append(k.bcast, row)
				index[v] = bi
			}
			x.bc = bi
		}
		for _, x := range [...]*opnd{&o.d, &o.d2, &o.s[0], &o.s[1], &o.s[2], &o.s[3]} {
			if (x.kind == oReg || x.kind == oMem || x.kind == oCIdx) && int(x.row) >= numRows {
				addr, _ := k.Prog.Where(uint32(i))
				return fmt.Errorf("instruction at %#x: register row %d is past the register file", addr, x.row)
			}
		}
		o.fast = pickFast(o)
		o.uncond = o.guard == predPT && !o.gnot
	}
	return nil
}

// Config is the engine configuration for a setup: the kernel's static
// shared memory and the launch's dynamic part (48 KiB when neither is
// known, as for raw code).
func (k *Kernel) Config(s *emu.Setup, img *Image) emu.Config {
	shared := s.SharedBytes + img.SharedSize
	if shared == 0 {
		shared = MaxSharedBytes
	}
	for _, im := range s.Shared {
		shared = max(shared, int(im.Addr)+len(im.Data))
	}
	// local memory each warp holds, which bounds the parallel workers
	warps := (int64(s.Block.Count()) + emu.WarpSize - 1) / emu.WarpSize
	return emu.Config{Grid: s.Grid, Block: s.Block, SharedBytes: shared, MaxSteps: s.MaxSteps,
		TraceBlock: -1, TraceWarp: -1, BlockBytes: int64(k.LocalBytes) * emu.WarpSize * warps}
}

// Emulator is this package's entry in the registry of runnable
// architectures (emu/all).
func Emulator() emu.Emulator {
	kernel := func(s *emu.Setup, img *Image) (emu.Exec, emu.Config, error) {
		k, err := NewKernel(s, img)
		if err != nil {
			return nil, emu.Config{}, err
		}
		return k, k.Config(s, img), nil
	}
	return emu.Emulator{Family: "fermi", Archs: []string{"sm_20", "sm_21"}, Load: emu.Loader(readProgram, kernel)}
}
