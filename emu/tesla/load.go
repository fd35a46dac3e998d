package tesla

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/tesla"
)

// SharedBytes is the shared memory of a G80 multiprocessor, which holds the
// launch words, the parameters and the kernel's shared arrays.
const SharedBytes = 16 << 10

// ConstBankBytes is the size of each constant bank.
const ConstBankBytes = emu.ConstBankBytes

// MaxLocalPerBlock bounds the local memory of a block's threads together.
const MaxLocalPerBlock = 256 << 20

// zeroBank backs the constant banks a launch leaves empty; it is never written.
var zeroBank [ConstBankBytes]byte

// DefaultLocalBytes is the local memory per thread when the launch file does
// not say.
const DefaultLocalBytes = 1 << 10

// Image is a program ready to lower: machine code and what its container
// adds to the launch.
type Image struct {
	Code       []byte
	Const      [16][]byte // constant banks from a cubin (.nv.constant<N>)
	LocalBytes int        // local memory per thread a cubin asks for
	// Params are the cubin's parameters (nil for raw code and listings),
	// which the launch's must match.
	Params []cubin.Param
}

// ReadProgram reads the job's program: an ELF cubin or a fatbin (the
// function named by kernel, or the only one), a listing in our assembler's
// syntax (text), or raw machine code.
func ReadProgram(s *emu.Setup) (*Image, error) {
	p := s.Job.Program
	return ProgramImage(p.Name, p.Data, p.Kernel, s.Arch)
}

// ProgramImage turns program file contents into machine code.
func ProgramImage(name string, data []byte, kernel, arch string) (*Image, error) {
	switch {
	case bytes.HasPrefix(data, []byte("\x7fELF")) || len(data) >= 4 && binary.LittleEndian.Uint32(data) == fatbin.Magic:
		return cubinImage(name, data, kernel, arch)
	case isText(data):
		if kernel != "" {
			var err error
			if data, err = functionText(data, kernel); err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
		}
		code, err := tesla.Assemble(name, data)
		if err != nil {
			return nil, err
		}
		return &Image{Code: code}, nil
	}
	return &Image{Code: data}, nil
}

// functionText keeps the lines of a listing's function kernel ("Function :
// kernel" up to the next function), blanking the others so that error
// positions keep their line numbers. A listing without function headers is
// taken whole.
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
			}
		}
		if any && !in {
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

func cubinImage(name string, data []byte, kernel, arch string) (*Image, error) {
	f, fn, err := emu.OpenKernel(name, data, kernel, arch)
	if err != nil {
		return nil, err
	}
	img := &Image{Code: fn.Code, LocalBytes: int(fn.LocalSize), Params: fn.Params}
	if img.Params == nil {
		img.Params = []cubin.Param{} // a cubin says it takes none
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

// isText reports whether data looks like a listing rather than machine code:
// valid UTF-8 with no control bytes other than white space.
func isText(data []byte) bool {
	if len(data) == 0 || !utf8.Valid(data) {
		return false
	}
	for _, c := range data {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// NewKernelImage is NewKernel for a program image: a cubin's constant banks
// come first, then the launch file's images over them.
func NewKernelImage(s *emu.Setup, img *Image) (*Kernel, error) {
	if err := checkLaunch(s, img.Params); err != nil {
		return nil, err
	}
	k, err := NewKernel(s, img.Code)
	if err != nil {
		return nil, err
	}
	for i, c := range img.Const {
		if len(c) == 0 {
			continue
		}
		data := make([]byte, max(ConstBankBytes, len(c), len(s.Const[i])))
		copy(data, c)
		copy(data, s.Const[i])
		k.Const[i].Data = data
	}
	if img.LocalBytes > k.LocalBytes && s.LocalBytes == 0 && k.Prog.local {
		k.LocalBytes = img.LocalBytes
	}
	return k, nil
}

// NewKernel lowers code and attaches the launch's memory.
func NewKernel(s *emu.Setup, code []byte) (*Kernel, error) {
	if !IsArch(s.Arch) {
		return nil, fmt.Errorf("arch %q is not a Tesla architecture (sm_10..sm_13)", s.Arch)
	}
	if err := checkLaunch(s, nil); err != nil {
		return nil, err
	}
	sm, _ := strconv.Atoi(strings.TrimPrefix(s.Arch, "sm_"))
	prog, err := LowerFor(code, sm)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Prog: prog, Params: s.Params, Shared: s.Shared, Grid: s.Grid, Block: s.Block,
		LocalBytes: DefaultLocalBytes}
	if s.LocalBytes > 0 {
		k.LocalBytes = s.LocalBytes
	}
	if !prog.local {
		k.LocalBytes = 0 // nothing to allocate and clear for every block
	}
	if n := uint64(k.LocalBytes) * uint64(s.Block.Count()); n > MaxLocalPerBlock {
		return nil, fmt.Errorf("local memory of %d bytes per thread is %d bytes per block, more than %d", k.LocalBytes, n, MaxLocalPerBlock)
	}
	k.Global = s.GlobalMemory()
	for i := range k.Const {
		data := zeroBank[:] // read-only: nothing stores to constant memory
		if len(s.Const[i]) > 0 {
			data = make([]byte, max(ConstBankBytes, len(s.Const[i])))
			copy(data, s.Const[i])
		}
		k.Const[i] = emu.Memory{Space: emu.Constant, Data: data}
	}
	return k, nil
}

// Config is the engine configuration for a setup.
func (k *Kernel) Config(s *emu.Setup) emu.Config {
	shared := SharedBytes
	if need := 0x10 + len(s.Params) + s.SharedBytes; s.SharedBytes > 0 && need > shared {
		shared = need
	}
	for _, img := range s.Shared {
		shared = max(shared, int(img.Addr)+len(img.Data))
	}
	warps := (s.Block.Count() + emu.WarpSize - 1) / emu.WarpSize
	return emu.Config{Grid: s.Grid, Block: s.Block, SharedBytes: shared, MaxSteps: s.MaxSteps,
		TraceBlock: -1, TraceWarp: -1, BlockBytes: int64(k.LocalBytes) * emu.WarpSize * int64(warps)}
}

// Outcome is a finished launch.
type Outcome struct {
	Setup  *emu.Setup
	Kernel *Kernel
	Stats  emu.Stats
	Result *emu.Result
}

// RunSetup lowers the launch's program and runs it; adjust, when not nil,
// may change the engine configuration (workers, trace, limits). A fault is
// returned with the outcome so far.
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
