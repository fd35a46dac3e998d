package tesla

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"

	"gpuisa/emu"
	"gpuisa/isa/tesla"
)

// SharedBytes is the shared memory of a G80 multiprocessor, which holds the
// launch words, the parameters and the kernel's shared arrays.
const SharedBytes = 16 << 10

// ConstBankBytes is the size of each constant bank.
const ConstBankBytes = 64 << 10

// zeroBank backs the constant banks a launch leaves empty; it is never written.
var zeroBank [ConstBankBytes]byte

// DefaultLocalBytes is the local memory per thread when the launch file does
// not say.
const DefaultLocalBytes = 1 << 10

// IsArch reports whether arch is one this package runs.
func IsArch(arch string) bool {
	switch arch {
	case "sm_10", "sm_11", "sm_12", "sm_13":
		return true
	}
	return false
}

// ReadProgram reads the launch's program: an ELF cubin (not supported yet),
// a listing in our assembler's syntax (text), or raw machine code.
func ReadProgram(s *emu.Setup) ([]byte, error) {
	p := s.Launch.Program
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.Dir, p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return ProgramCode(p, data)
}

// ProgramCode turns program file contents into machine code.
func ProgramCode(name string, data []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(data, []byte("\x7fELF")):
		return nil, fmt.Errorf("%s: ELF cubins are not supported yet; give a raw binary or a listing", name)
	case isText(data):
		code, err := tesla.Assemble(name, data)
		if err != nil {
			return nil, err
		}
		return code, nil
	}
	return data, nil
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

// NewKernel lowers code and attaches the launch's memory.
func NewKernel(s *emu.Setup, code []byte) (*Kernel, error) {
	if !IsArch(s.Launch.Arch) {
		return nil, fmt.Errorf("arch %q is not a Tesla architecture (sm_10..sm_13)", s.Launch.Arch)
	}
	prog, err := Lower(code)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Prog: prog, Params: s.Params, Shared: s.Shared, Grid: s.Grid, Block: s.Block,
		LocalBytes: DefaultLocalBytes}
	if s.LocalBytes > 0 {
		k.LocalBytes = s.LocalBytes
	}
	k.Global = &emu.Memory{Space: emu.Global, Data: append([]byte(nil), s.Global...)}
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
	return emu.Config{Grid: s.Grid, Block: s.Block, SharedBytes: shared, MaxSteps: s.MaxSteps,
		TraceBlock: -1, TraceWarp: -1}
}

// ErrNotTesla reports a launch for another architecture.
var ErrNotTesla = errors.New("not a Tesla architecture")

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
	code, err := ReadProgram(s)
	if err != nil {
		return nil, err
	}
	k, err := NewKernel(s, code)
	if err != nil {
		return nil, err
	}
	cfg := k.Config(s)
	if adjust != nil {
		adjust(&cfg)
	}
	st, err := emu.Run(cfg, k)
	return &Outcome{Setup: s, Kernel: k, Stats: st, Result: &emu.Result{Global: k.Global.Data}}, err
}
