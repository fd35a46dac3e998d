package fermi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/fermi"
)

// ConstBankBytes is the size of each constant bank.
const ConstBankBytes = 64 << 10

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
	Const      [16][]byte // .nv.constant<N> banks of a cubin
	LocalBytes int        // local memory per thread a cubin asks for
	SharedSize int        // a cubin's static shared memory
	AddrBits   int        // 32 or 64 when the container says; 0: from the code
	Params     []cubin.Param
	ParamBase  uint32
}

// ReadProgram reads the launch's program: an ELF cubin or a fatbin (the
// function named by kernel, or the only one), a listing in our assembler's
// syntax (cuobjdump's too; kernel picks a "Function :" section), or raw
// machine code.
func ReadProgram(s *emu.Setup) (*Image, error) {
	p := s.Launch.Program
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.Dir, p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return ProgramImage(p, data, s.Launch.Kernel, s.Launch.Arch)
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

// paramBytes packs the launch's parameters for sm_2x: a pointer is as wide
// as the program's addresses; each value goes to the offset the cubin
// gives, else to the next naturally aligned offset.
func paramBytes(s *emu.Setup, img *Image, addrBits int) ([]byte, error) {
	var out []byte
	off := 0
	for i, p := range s.Launch.Params {
		var b []byte
		le := func(v uint64, n int) {
			b = make([]byte, n)
			for j := range b {
				b[j] = byte(v >> (8 * j))
			}
		}
		switch {
		case p.Ptr != nil:
			place, ok := s.Buffers[*p.Ptr]
			if !ok {
				return nil, fmt.Errorf("params[%d]: unknown buffer %q", i, *p.Ptr)
			}
			le(place.Addr, addrBits/8)
		case p.Tex != nil, p.Surf != nil:
			return nil, fmt.Errorf("params[%d]: sm_2x kernels take no texture or surface objects (bind a texture by name)", i)
		case p.U32 != nil, p.S32 != nil:
			n := p.U32
			if n == nil {
				n = p.S32
			}
			v, err := n.Int()
			if err != nil {
				return nil, fmt.Errorf("params[%d]: %v", i, err)
			}
			le(uint64(v), 4)
		case p.U64 != nil:
			v, err := p.U64.Int()
			if err != nil {
				return nil, fmt.Errorf("params[%d]: %v", i, err)
			}
			le(uint64(v), 8)
		case p.F32 != nil:
			f, err := p.F32.Float()
			if err != nil {
				return nil, fmt.Errorf("params[%d]: %v", i, err)
			}
			le(uint64(math.Float32bits(float32(f))), 4)
		case p.F64 != nil:
			f, err := p.F64.Float()
			if err != nil {
				return nil, fmt.Errorf("params[%d]: %v", i, err)
			}
			le(math.Float64bits(f), 8)
		default:
			return nil, fmt.Errorf("params[%d]: no value", i)
		}
		if img.Params != nil {
			if i >= len(img.Params) {
				return nil, fmt.Errorf("the launch gives %d parameters, the kernel takes %d", len(s.Launch.Params), len(img.Params))
			}
			cp := img.Params[i]
			if int(cp.Size) != len(b) {
				return nil, fmt.Errorf("params[%d]: %d bytes, the kernel's parameter %d has %d", i, len(b), i, cp.Size)
			}
			off = int(cp.Offset)
		} else {
			off = (off + len(b) - 1) &^ (len(b) - 1)
		}
		if need := off + len(b); len(out) < need {
			out = append(out, make([]byte, need-len(out))...)
		}
		copy(out[off:], b)
		off += len(b)
	}
	if img.Params != nil && len(s.Launch.Params) != len(img.Params) {
		return nil, fmt.Errorf("the launch gives %d parameters, the kernel takes %d", len(s.Launch.Params), len(img.Params))
	}
	return out, nil
}

// NewKernel lowers the image's code and builds the launch's memory: bank 0
// gets the cubin's bank 0, the launch words and the parameters, bank 1 the
// stack pointer; the launch file's constant images go over everything.
func NewKernel(s *emu.Setup, img *Image) (*Kernel, error) {
	if !IsArch(s.Launch.Arch) {
		return nil, fmt.Errorf("arch %q is not a Fermi architecture (sm_20, sm_21)", s.Launch.Arch)
	}
	prog, err := Lower(img.Code)
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
		size := max(ConstBankBytes, len(img.Const[i]), len(s.Const[i]))
		data := make([]byte, size)
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
			if int(img.ParamBase)+len(params) > len(data) {
				return nil, fmt.Errorf("parameters do not fit in constant bank 0")
			}
			copy(data[img.ParamBase:], params)
		case cbStackBank:
			le.PutUint32(data[cbStack:], sp)
		}
		copy(data, s.Const[i])
		k.Const[i] = emu.Memory{Space: emu.Constant, Data: data}
	}
	if err := k.bindTextures(s); err != nil {
		return nil, err
	}
	k.resolve()
	return k, nil
}

// bindTextures makes the launch's textures buffer textures for TLD: slot i
// is the i-th texture by name; each must name a buffer and a format of
// 32-bit channels (r32f, rg32ui, rgba32i, ...).
func (k *Kernel) bindTextures(s *emu.Setup) error {
	if len(s.Launch.Surfaces) > 0 {
		return fmt.Errorf("surfaces are not supported on sm_2x")
	}
	names := make([]string, 0, len(s.Launch.Textures))
	for n := range s.Launch.Textures {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		im := s.Launch.Textures[n]
		if im.Buffer == "" {
			return fmt.Errorf("texture %q: sm_2x textures here are buffer textures (tex1Dfetch): name a buffer", n)
		}
		ch := map[string]int{"r32f": 1, "r32ui": 1, "r32i": 1, "rg32f": 2, "rg32ui": 2, "rg32i": 2,
			"rgba32f": 4, "rgba32ui": 4, "rgba32i": 4}[im.Format]
		if ch == 0 {
			return fmt.Errorf("texture %q: format %q is not one of 32-bit channels (r32f, rg32ui, rgba32i, ...)", n, im.Format)
		}
		b := s.Buffers[im.Buffer]
		elems := b.Bytes / uint64(4*ch)
		if len(im.Size) > 0 {
			v, err := im.Size[0].Uint(0)
			if err != nil {
				return fmt.Errorf("texture %q: %v", n, err)
			}
			elems = min(elems, v)
		}
		k.Textures = append(k.Textures, Texture{Name: n, Addr: b.Addr, Elements: elems, Channels: ch})
	}
	return nil
}

// resolve gives constant operands (other than indexed ones) their values
// for this launch: 64 bits, of which 32-bit instructions read the low word
// (through a broadcast row shared by equal values).
func (k *Kernel) resolve() {
	k.ops = append([]op(nil), k.Prog.ops...)
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
	}
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
	return emu.Config{Grid: s.Grid, Block: s.Block, SharedBytes: shared, MaxSteps: s.MaxSteps,
		TraceBlock: -1, TraceWarp: -1}
}

// Outcome is a finished launch.
type Outcome struct {
	Setup  *emu.Setup
	Kernel *Kernel
	Stats  emu.Stats
	Result *emu.Result
}

// RunSetup lowers the launch's program and runs it; adjust, when not nil,
// may change the engine configuration. A fault is returned with the
// outcome so far.
func RunSetup(s *emu.Setup, adjust func(*emu.Config)) (*Outcome, error) {
	img, err := ReadProgram(s)
	if err != nil {
		return nil, err
	}
	k, err := NewKernel(s, img)
	if err != nil {
		return nil, err
	}
	cfg := k.Config(s, img)
	if adjust != nil {
		adjust(&cfg)
	}
	st, err := emu.Run(cfg, k)
	return &Outcome{Setup: s, Kernel: k, Stats: st, Result: &emu.Result{Global: k.Global.Data, Segments: k.Global.Segments}}, err
}
