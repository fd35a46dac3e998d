package tesla

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// tidInit puts the thread index in R1 (the kernels' own copy of tid.x).
func tidInit(extra map[int]uint32) func(int, []uint32) {
	return func(t int, regs []uint32) {
		regs[1] = uint32(t)
		for r, v := range extra {
			regs[r] = v
		}
	}
}

func checkRegs(t *testing.T, r *runResult, n int, reg int, want func(tid int) uint32) {
	t.Helper()
	if r.err != nil {
		t.Fatal(r.err)
	}
	for tid := range n {
		if got := r.reg(t, tid, reg); got != want(tid) {
			t.Fatalf("thread %d: R%d = %#x, want %#x", tid, reg, got, want(tid))
		}
	}
}

func TestIfElseJoin(t *testing.T) {
	src := `
		ISET.S32.C0 o[0x7f], R1, R2, LT;
		SSY join;
		BRA C0.NE, low;
		IADD32I R3, R1, 0x100;
		BRA join;
	low:
		IADD32I R3, R1, 0x200;
	join:
		NOP.S;
		IADD32I R5, R5, 0x1;
		RET;
	`
	r := runKernel(t, kernelRun{src: src, init: tidInit(map[int]uint32{2: 16})})
	checkRegs(t, r, 32, 3, func(tid int) uint32 {
		if tid < 16 {
			return uint32(tid + 0x200)
		}
		return uint32(tid + 0x100)
	})
	// the code after the join runs once per thread, with the warp rejoined
	checkRegs(t, r, 32, 5, func(int) uint32 { return 1 })
	if r.stats.Divergent != 1 {
		t.Errorf("divergent branches = %d, want 1", r.stats.Divergent)
	}
	if want := int64(9); r.stats.WarpInsts != want {
		t.Errorf("warp-instructions = %d, want %d", r.stats.WarpInsts, want)
	}
}

func TestNestedDivergence(t *testing.T) {
	// R3 = tid<16 ? (tid<8 ? 1 : 2) : (tid<24 ? 3 : 4), then R4 = R3*2 after both joins
	src := `
		ISET.S32.C0 o[0x7f], R1, R2, LT;
		SSY outer;
		BRA C0.NE, low;
		ISET.S32.C1 o[0x7f], R1, R6, LT;
		SSY inner1;
		BRA C1.NE, three;
		MVI R3, 0x4;
		BRA inner1;
	three:
		MVI R3, 0x3;
	inner1:
		NOP.S;
		BRA outer;
	low:
		ISET.S32.C1 o[0x7f], R1, R7, LT;
		SSY inner2;
		BRA C1.NE, one;
		MVI R3, 0x2;
		BRA inner2;
	one:
		MVI R3, 0x1;
	inner2:
		NOP.S;
	outer:
		IADD.S R4, R3, R3;
		IADD32I R5, R5, 0x1;
		RET;
	`
	r := runKernel(t, kernelRun{src: src, init: tidInit(map[int]uint32{2: 16, 6: 24, 7: 8})})
	want := func(tid int) uint32 {
		switch {
		case tid < 8:
			return 1
		case tid < 16:
			return 2
		case tid < 24:
			return 3
		}
		return 4
	}
	checkRegs(t, r, 32, 3, want)
	checkRegs(t, r, 32, 4, func(tid int) uint32 { return 2 * want(tid) })
	checkRegs(t, r, 32, 5, func(int) uint32 { return 1 })
	if r.stats.Divergent != 3 {
		t.Errorf("divergent branches = %d, want 3", r.stats.Divergent)
	}
}

func TestDivergentLoop(t *testing.T) {
	// every thread loops max(tid,1) times without SSY (as nvcc's reduction does)
	src := `
		MOV R3, R124;
	loop:
		IADD32I R3, R3, 0x2;
		IADD32I R1, R1, 0xffffffff;
		ISET.S32.C0 o[0x7f], R1, R124, GT;
		BRA C0.NE, loop;
		IADD32I R4, R3, 0x1;
		RET;
	`
	r := runKernel(t, kernelRun{src: src, init: tidInit(nil)})
	checkRegs(t, r, 32, 4, func(tid int) uint32 { return uint32(2*max(tid, 1) + 1) })
}

func TestCallReturn(t *testing.T) {
	src := `
		CAL sub;
		CAL sub;
		RET;
	sub:
		IADD R3, R3, R3;
		ISET.S32.C0 o[0x7f], R1, R2, LT;
		RET C0.NE;
		IADD32I R3, R3, 0x1;
		RET;
	`
	r := runKernel(t, kernelRun{src: src, init: tidInit(map[int]uint32{2: 8, 3: 1})})
	checkRegs(t, r, 32, 3, func(tid int) uint32 {
		if tid < 8 {
			return 4
		}
		return 7
	})
}

func TestExitMarkerAndPartialRet(t *testing.T) {
	// threads >= 20 leave early with RET; the rest end at the exit marker
	// that the assembler puts on the last (long) instruction
	src := `
		ISET.S32.C0 o[0x7f], R1, R2, GE;
		RET C0.NE;
		IADD32I R3, R1, 0x7;
		IADD R4, R3, R3;
	`
	r := runKernel(t, kernelRun{src: src, init: tidInit(map[int]uint32{2: 20})})
	checkRegs(t, r, 32, 4, func(tid int) uint32 {
		if tid >= 20 {
			return 0
		}
		return uint32(2 * (tid + 7))
	})
}

func TestBarrierAcrossWarps(t *testing.T) {
	// each thread stores tid to shared memory, waits, then reads its partner's
	// word in the other warp; without the barrier warp 0 would read zeros
	src := `
		R2A A1, R1, 0x2;
		R2G.U32.U32 g[A1+0x10], R1;
		BAR.ARV.WAIT b0, 0xfff;
		LOP32I.XOR R5, R1, 0x20;
		R2A A2, R5, 0x2;
		MOV R6, g [A2+0x10];
		RET;
	`
	r := runKernel(t, kernelRun{src: src, threads: 64, init: tidInit(nil)})
	checkRegs(t, r, 64, 6, func(tid int) uint32 { return uint32(tid ^ 32) })
}

func TestSharedAddressing(t *testing.T) {
	// u16/s16/u8 shared operands, an address register, and post-increment
	// (address first, then the register advances by the offset)
	src := `
		MOV.U16 R3L, g [0x1].U16;
		MOV R4, g [0x9].S16;
		MOV R5, g [0x14].U8;
		R2A A1, R2;
		MOV R6, g [A1+++0x1];
		MOV R7, g [A1+++0x1];
		A2R R8, A1;
		RET;
	`
	// launch words: ntid.x at byte 2; params from 0x10: 0x8000fffe, then 0x11223344
	r := runKernel(t, kernelRun{src: src, threads: 1, params: []uint32{0x8000fffe, 0x11223344},
		init: regsInit(map[int]uint32{2: 0x10})})
	want := map[int]uint32{3: 1, 4: 0xffff8000, 5: 0x44, 6: 0x8000fffe, 7: 0x11223344, 8: 0x18}
	for reg, w := range want {
		if got := r.reg(t, 0, reg); got != w {
			t.Errorf("R%d = %#x, want %#x", reg, got, w)
		}
	}
}

func TestGlobalAndLocal(t *testing.T) {
	g := make([]byte, 1<<16)
	copy(g[0x100:], []byte{0x80, 0xff, 0x34, 0x12})
	copy(g[0x110:], []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	src := `
		GLD.S8 R3, global14[R2];
		GLD.U8 R4, global14[R2];
		GLD.S16 R5, global14[R2];
		GLD.U16 R6, global14[R2];
		GLD.S128 R8, global14[R7];
		GST.S64 global14[R12], R8;
		GST.U16 global14[R13], R5;
		LST.U32 local [0x3], R6;
		LLD.U32 R14, local [0x3];
		RET;
	`
	r := runKernel(t, kernelRun{src: src, threads: 1, global: g,
		init: regsInit(map[int]uint32{2: 0x100, 7: 0x110, 12: 0x200, 13: 0x20a})})
	want := map[int]uint32{3: 0xffffff80, 4: 0x80, 5: 0xffffff80, 6: 0xff80, 8: 0x04030201, 9: 0x08070605,
		10: 0x0c0b0a09, 11: 0x100f0e0d, 14: 0xff80}
	for reg, w := range want {
		if got := r.reg(t, 0, reg); got != w {
			t.Errorf("R%d = %#x, want %#x", reg, got, w)
		}
	}
	if got := r.word(0x200); got != 0x04030201 {
		t.Errorf("global[0x200] = %#x", got)
	}
	if got := r.word(0x204); got != 0x08070605 {
		t.Errorf("global[0x204] = %#x", got)
	}
	if got := binary.LittleEndian.Uint16(r.global[0x20a:]); got != 0xff80 {
		t.Errorf("global[0x20a] = %#x", got)
	}
}

func TestFaults(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		init    map[int]uint32
		steps   int64
		threads int
		want    []string
		is      error
	}{
		{"global out of bounds", "GLD.U32 R3, global14[R2];\nRET;", map[int]uint32{2: 0x100000}, 0, 0,
			[]string{"block (0,0,0)", "thread (0,0,0)", "pc 0x0000", "GLD.U32 R3, global14[R2]", "out of bounds"}, nil},
		{"misaligned", "GST.U32 global14[R2], R3;\nRET;", map[int]uint32{2: 0x102}, 0, 0,
			[]string{"misaligned 4-byte global write at 0x102"}, nil},
		{"shared out of bounds", "R2A A1, R2;\nMOV R3, g [A1+0x0];\nRET;", map[int]uint32{2: 0x10000}, 0, 0,
			[]string{"pc 0x0008", "shared read at 0x10000 is out of bounds"}, nil},
		{"step limit", "loop:\nIADD32I R1, R1, 0x1;\nBRA loop;", nil, 1000, 0,
			[]string{"step limit", "1000 warp-instructions"}, emu.ErrStepLimit},
		{"trap", "TRAP;", nil, 0, 0, []string{"trap"}, errTrap},
		{"past the end", "IADD32 R1, R1, R1;", nil, 0, 0, []string{"past the end"}, errPastEnd},
		{"stack overflow", "sub:\nCAL sub;", nil, 0, 0, []string{"divergence stack overflow"}, nil},
		{"barrier deadlock", `
			ISET.S32.C0 o[0x7f], R1, R2, LT;
			BRA C0.NE, w0;
			BAR.ARV.WAIT b1, 0xfff;
			RET;
		w0:
			BAR.ARV.WAIT b0, 0xfff;
			RET;`, map[int]uint32{2: 32}, 0, 64, []string{"barrier deadlock"}, emu.ErrDeadlock},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			init := regsInit(c.init)
			if c.threads > 0 {
				init = tidInit(c.init)
			}
			r := runKernel(t, kernelRun{src: c.src, threads: max(c.threads, 1), steps: c.steps, init: init})
			if r.err == nil {
				t.Fatal("no fault")
			}
			var f *emu.Fault
			if !errors.As(r.err, &f) {
				t.Fatalf("error %v is not a *emu.Fault", r.err)
			}
			for _, w := range c.want {
				if !strings.Contains(r.err.Error(), w) {
					t.Errorf("fault %q does not mention %q", r.err, w)
				}
			}
			if c.is != nil && !errors.Is(r.err, c.is) {
				t.Errorf("fault %v is not %v", r.err, c.is)
			}
		})
	}
}

func TestFaultNamesTheLane(t *testing.T) {
	// only thread 5 has a bad address
	src := "GLD.U32 R3, global14[R2];\nRET;"
	r := runKernel(t, kernelRun{src: src, init: func(tid int, regs []uint32) {
		regs[2] = 0x100
		if tid == 5 {
			regs[2] = 0xfffffff0
		}
	}})
	if r.err == nil || !strings.Contains(r.err.Error(), "thread (5,0,0) (warp 0 lane 5)") {
		t.Fatalf("fault = %v", r.err)
	}
}

func TestBadCode(t *testing.T) {
	// a long instruction cut in half, and a word of the reserved class 2
	for name, code := range map[string][]byte{
		"truncated": {0x01, 0x00, 0x00, 0x00},
		"invalid":   {0x02, 0x00, 0x00, 0x00},
	} {
		t.Run(name, func(t *testing.T) {
			r := runCode(t, kernelRun{threads: 1}, code)
			if r.err == nil || !strings.Contains(r.err.Error(), "pc 0x0000") {
				t.Fatalf("fault = %v", r.err)
			}
			if !strings.Contains(r.err.Error(), map[string]string{"truncated": "truncated", "invalid": "invalid"}[name]) {
				t.Errorf("fault %v does not say why", r.err)
			}
		})
	}
}

// TestUniformAddressRegister: a warp-uniform address register read as one
// load, then advanced by only some lanes, must be read per lane again.
func TestUniformAddressRegister(t *testing.T) {
	src := `
		R2A A1, R2;
		MOV R5, g [A1+0x0];
		ISET.S32.C0 o[0x7f], R1, R6, LT;
		SSY join;
		BRA C0.EQ, join;
		MOV R3, g [A1+++0x1];
	join:
		NOP.S;
		MOV R4, g [A1+0x0];
		RET;
	`
	r := runKernel(t, kernelRun{src: src, params: []uint32{0x1111, 0x2222}, init: tidInit(map[int]uint32{2: 0x10, 6: 16})})
	checkRegs(t, r, 32, 5, func(int) uint32 { return 0x1111 })
	checkRegs(t, r, 32, 4, func(tid int) uint32 {
		if tid < 16 {
			return 0x2222
		}
		return 0x1111
	})
}

// TestFMADInPlace: a full warp writes its FMAD result straight into the
// destination row, which here is also a source; lanes with a zero product
// take the general path and must still see their source.
func TestFMADInPlace(t *testing.T) {
	r := runKernel(t, kernelRun{src: "FMAD R2, R2, R3, R2;\nFMAD R4, R5, R6, R4;\nRET;\n", init: func(tid int, regs []uint32) {
		regs[2], regs[3] = f32b(float32(tid%2)*1.5), f32b(2)
		regs[4], regs[5], regs[6] = f32b(7), f32b(float32(tid)), 0x00000001 // a denormal: flushed to zero
	}})
	checkRegs(t, r, 32, 2, func(tid int) uint32 { return f32b(float32(tid%2) * 1.5 * 3) })
	checkRegs(t, r, 32, 4, func(int) uint32 { return f32b(7) })
}

// TestRegistersStartZero: a warp that reuses a block slot sees zeros in the
// registers its program uses, whatever the previous block left.
func TestRegistersStartZero(t *testing.T) {
	src := "MOV R3, R5;\nMVI R5, 0x7;\nIADD R4, R3, R5;\nRET;\n"
	r := runKernel(t, kernelRun{src: src, blocks: 3})
	if r.err != nil {
		t.Fatal(r.err)
	}
	for blk := range 3 {
		regs := r.exec.final[blk*1000]
		for l := range 32 {
			if got := regs[4*32+l]; got != 7 {
				t.Fatalf("block %d lane %d: R4 = %d, want 7", blk, l, got)
			}
		}
	}
}

// TestBarrierCount: a barrier for 64 threads lets warps 0 and 1 go on while
// warp 2 is still busy, so warp 2 sees what warp 0 stored after it.
func TestBarrierCount(t *testing.T) {
	src := `
		ISET.S32.C0 o[0x7f], R1, R2, GE;
		BRA C0.NE, busy;
		BAR.ARV.WAIT b0, 0x40;
		MVI R3, 0x1;
		R2G.U32.U32 g[A0+0x10], R3;
		RET;
	busy:
		MVI R5, 0x1000;
	loop:
		IADD32I R5, R5, 0xffffffff;
		ISET.C1 o[0x7f], R5, R124, NE;
		BRA C1.NE, loop;
		MOV R6, g [0x10];
		RET;
	`
	r := runKernel(t, kernelRun{src: src, threads: 96, init: tidInit(map[int]uint32{2: 64})})
	checkRegs(t, r, 96, 6, func(tid int) uint32 {
		if tid >= 64 {
			return 1
		}
		return 0
	})
}

// TestBarrierArrive: BAR.ARV counts a warp without stopping it.
func TestBarrierArrive(t *testing.T) {
	src := `
		ISET.S32.C0 o[0x7f], R1, R2, LT;
		BRA C0.NE, consumer;
		MVI R3, 0x9;
		R2G.U32.U32 g[A0+0x10], R3;
		BAR.ARV b1, 0x40;
		MVI R7, 0x1;
		RET;
	consumer:
		BAR.ARV.WAIT b1, 0x40;
		MOV R6, g [0x10];
		RET;
	`
	r := runKernel(t, kernelRun{src: src, threads: 64, init: tidInit(map[int]uint32{2: 32})})
	checkRegs(t, r, 32, 6, func(int) uint32 { return 9 })
	checkRegs(t, r, 64, 7, func(tid int) uint32 {
		if tid >= 32 {
			return 1
		}
		return 0
	})
}

// TestConsecutiveAddressRegister: A1 = base + 4*tid reads 32 consecutive
// words; past the end of shared memory the fault names the first bad lane.
func TestConsecutiveAddressRegister(t *testing.T) {
	src := "R2A A1, R3, 0x2;\nMOV R4, g [A1+0x0];\nRET;\n"
	r := runKernel(t, kernelRun{src: src, params: []uint32{11, 22, 33}, init: func(tid int, regs []uint32) {
		regs[3] = uint32(4 + tid) // words 4.. = parameters from 0x10
	}})
	checkRegs(t, r, 3, 4, func(tid int) uint32 { return uint32(11 * (tid + 1)) })
	r = runKernel(t, kernelRun{src: src, init: func(tid int, regs []uint32) {
		regs[3] = uint32(SharedBytes/4 - 20 + tid)
	}})
	if r.err == nil || !strings.Contains(r.err.Error(), "lane 20") {
		t.Fatalf("fault = %v", r.err)
	}
}
