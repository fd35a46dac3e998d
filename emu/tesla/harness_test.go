package tesla

import (
	"encoding/binary"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/tesla"
)

// testExec runs a Kernel with extra initial registers and keeps every
// warp's registers when it finishes.
type testExec struct {
	*Kernel
	init  func(lane int, regs []uint32) // regs[r] of one lane
	final map[int][]uint32              // warp index -> Regs copy
}

func (t *testExec) InitWarp(b *emu.Block, w *emu.Warp) {
	t.Kernel.InitWarp(b, w)
	if t.init == nil {
		return
	}
	row := make([]uint32, numRows)
	for l := range emu.WarpSize {
		if w.Index*emu.WarpSize+l >= b.Dim.Count() {
			break
		}
		for r := range row {
			row[r] = w.Regs[r*32+l]
		}
		t.init(w.Index*emu.WarpSize+l, row)
		for r := range row {
			w.Regs[r*32+l] = row[r]
		}
	}
}

func (t *testExec) Run(b *emu.Block, w *emu.Warp, budget int64) error {
	err := t.Kernel.Run(b, w, budget)
	if w.Done && t.final != nil {
		t.final[b.Index*1000+w.Index] = append([]uint32(nil), w.Regs...)
	}
	return err
}

// kernelRun is one test launch.
type kernelRun struct {
	src     string
	threads int // block size (x); default 32
	blocks  int // grid size (x); default 1
	params  []uint32
	global  []byte
	consts  map[int][]byte
	init    func(lane int, regs []uint32)
	steps   int64
	arch    string // default sm_13, which has every instruction
}

type runResult struct {
	k      *Kernel
	exec   *testExec
	stats  emu.Stats
	err    error
	global []byte
}

// reg returns register r of thread t of block 0 at the end.
func (r *runResult) reg(tb testing.TB, t, reg int) uint32 {
	tb.Helper()
	regs, ok := r.exec.final[t/32]
	if !ok {
		tb.Fatalf("warp %d did not finish", t/32)
	}
	return regs[reg*32+t%32]
}

func (r *runResult) word(addr int) uint32 { return binary.LittleEndian.Uint32(r.global[addr:]) }

func runKernel(tb testing.TB, kr kernelRun) *runResult {
	tb.Helper()
	code, err := tesla.Assemble("test.s", []byte(kr.src))
	if err != nil {
		tb.Fatalf("assemble: %v", err)
	}
	return runCode(tb, kr, code)
}

func runCode(tb testing.TB, kr kernelRun, code []byte) *runResult {
	tb.Helper()
	if kr.threads == 0 {
		kr.threads = 32
	}
	if kr.blocks == 0 {
		kr.blocks = 1
	}
	if kr.global == nil {
		kr.global = make([]byte, 1<<16)
	}
	params := make([]byte, 4*len(kr.params))
	for i, p := range kr.params {
		binary.LittleEndian.PutUint32(params[4*i:], p)
	}
	if kr.arch == "" {
		kr.arch = "sm_13"
	}
	s := &emu.Setup{Arch: kr.arch, Grid: emu.Dim3{uint32(kr.blocks), 1, 1},
		Block: emu.Dim3{uint32(kr.threads), 1, 1}, Global: kr.global, Params: params, MaxSteps: kr.steps}
	for b, c := range kr.consts {
		s.Const[b] = c
	}
	k, err := NewKernel(s, code)
	if err != nil {
		tb.Fatalf("NewKernel: %v", err)
	}
	te := &testExec{Kernel: k, init: kr.init, final: map[int][]uint32{}}
	cfg := k.Config(s)
	cfg.Workers = 1
	st, err := emu.Run(cfg, te)
	return &runResult{k: k, exec: te, stats: st, err: err, global: k.Global.Data}
}

// regsInit sets the same registers in every lane.
func regsInit(vals map[int]uint32) func(int, []uint32) {
	return func(_ int, regs []uint32) {
		for r, v := range vals {
			regs[r] = v
		}
	}
}
