package tesla

import (
	"math"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/tesla"
)

// PBK/BRK, KIL and SLCT driven with hand-built lowered ops: the execution
// alone, independent of the assembler and the decoder.

func runOps(t *testing.T, p *Program, threads int, init func(int, []uint32)) *runResult {
	t.Helper()
	p.errs = make([]error, len(p.ops))
	p.insts = make([]tesla.Inst, len(p.ops))
	for i := range p.ops {
		p.ops[i].addr = uint32(8 * i)
		if p.ops[i].cond == 0 && p.ops[i].kind != opBrk && p.ops[i].kind != opKil {
			p.ops[i].cond = condAlway
		}
	}
	s := &emu.Setup{Arch: "sm_10", Grid: emu.Dim3{1, 1, 1}, Block: emu.Dim3{uint32(threads), 1, 1},
		Global: make([]byte, 1<<12)}
	k, err := NewKernel(s, []byte{0x01, 0, 0, 0, 0, 0, 0, 0x80}) // any valid code; replaced below
	if err != nil {
		t.Fatal(err)
	}
	k.Prog = p
	te := &testExec{Kernel: k, init: init, final: map[int][]uint32{}}
	cfg := k.Config(s)
	cfg.Workers = 1
	st, err := emu.Run(cfg, te)
	return &runResult{k: k, exec: te, stats: st, err: err}
}

func regSrc(r uint16) src { return src{kind: sReg, row: r} }

func TestBreakLoop(t *testing.T) {
	p := &Program{}
	one := src{kind: sImm, row: p.imm(1)}
	p.ops = []op{
		{kind: opPBK, target: 6},
		{kind: opIAdd, b32: true, dst: dReg, drow: 2, s: [3]src{regSrc(2), one}},                   // R2++
		{kind: opIAdd, b32: true, mode: 1, ccw: true, dst: dNone, s: [3]src{regSrc(2), regSrc(1)}}, // C0 = R2 - tid
		{kind: opBrk, pred: 0, cond: 6},                                          // break if R2 >= tid
		{kind: opIAdd, b32: true, dst: dReg, drow: 5, s: [3]src{regSrc(5), one}}, // iterations
		{kind: opBra, cond: condAlway, target: 1},
		{kind: opIAdd, b32: true, dst: dReg, drow: 4, s: [3]src{regSrc(4), one}}, // after the loop, once
		{kind: opRet, cond: condAlway},
	}
	r := runOps(t, p, 32, tidInit(nil))
	checkRegs(t, r, 32, 2, func(tid int) uint32 { return uint32(max(tid, 1)) })
	checkRegs(t, r, 32, 5, func(tid int) uint32 { return uint32(max(tid, 1) - 1) })
	checkRegs(t, r, 32, 4, func(int) uint32 { return 1 })
}

func TestKill(t *testing.T) {
	p := &Program{}
	p.ops = []op{
		{kind: opIAdd, b32: true, mode: 1, ccw: true, dst: dNone, s: [3]src{regSrc(1), regSrc(2)}}, // C0 = tid - 10
		{kind: opKil, pred: 0, cond: 1}, // kill tid < 10
		{kind: opIAdd, b32: true, dst: dReg, drow: 3, s: [3]src{regSrc(1), regSrc(1)}},
		{kind: opRet, cond: condAlway},
	}
	r := runOps(t, p, 32, tidInit(map[int]uint32{2: 10}))
	checkRegs(t, r, 32, 3, func(tid int) uint32 {
		if tid < 10 {
			return 0
		}
		return uint32(2 * tid)
	})
}

func TestSlct(t *testing.T) {
	p := &Program{}
	p.ops = []op{
		{kind: opSlct, dst: dReg, drow: 4, s: [3]src{regSrc(1), regSrc(2), regSrc(3)}},
		{kind: opRet, cond: condAlway},
	}
	vals := []float32{1, 0, float32(math.Copysign(0, -1)), -2, float32(math.NaN())}
	r := runOps(t, p, len(vals), func(tid int, regs []uint32) {
		regs[1], regs[2], regs[3] = 111, 222, math.Float32bits(vals[tid])
	})
	for i, v := range vals {
		want := uint32(222)
		if v >= 0 {
			want = 111
		}
		if got := r.reg(t, i, 4); got != want {
			t.Errorf("SLCT with %v = %d, want %d", v, got, want)
		}
	}
}
