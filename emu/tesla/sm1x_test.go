package tesla

import (
	"encoding/binary"
	"sort"
	"strings"
	"testing"
)

// Instructions of sm_11..sm_13 and GT200: global atomics, VOTE, G2R,
// MOV lane masks, indirect branches, PRET.

func TestGlobalAtomics(t *testing.T) {
	src := `
		GATOM.IADD.U32 R3, global14[R2], R4;
		GRED.IADD.U32 global14[R5], R1;
		GATOM.IMAX.S32 R6, global14[R7], R8;
		GRED.INC.U32 global14[R9], R10;
		RET;
	`
	r := runKernel(t, kernelRun{src: src, threads: 64, blocks: 2, init: func(tid int, regs []uint32) {
		regs[1], regs[2], regs[4], regs[5] = uint32(tid), 0x100, 1, 0x104
		regs[7], regs[8] = 0x108, uint32(int32(tid-40))
		regs[9], regs[10] = 0x10c, 9
	}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.word(0x100); got != 128 {
		t.Errorf("counter = %d, want 128", got)
	}
	if got := r.word(0x104); got != 2*(63*64/2) {
		t.Errorf("sum = %d, want %d", got, 2*(63*64/2))
	}
	if got := int32(r.word(0x108)); got != 23 {
		t.Errorf("max = %d, want 23", got)
	}
	if got := r.word(0x10c); got != 128%10 {
		t.Errorf("wrapping increment = %d, want %d", got, 128%10)
	}
	// block 0 ran first: its old values are 0..63 in lane order
	var olds []int
	for tid := range 64 {
		olds = append(olds, int(r.reg(t, tid, 3)))
	}
	if !sort.IntsAreSorted(olds) || olds[0] != 0 || olds[63] != 63 {
		t.Errorf("old values %v", olds)
	}
}

func TestAtomicCAS(t *testing.T) {
	g := make([]byte, 1<<16)
	binary.LittleEndian.PutUint32(g[0x200:], 7)
	src := "GATOM.CAS.U32 R3, global14[R2], R4, R5;\nRET;\n"
	r := runKernel(t, kernelRun{src: src, threads: 2, global: g, init: func(tid int, regs []uint32) {
		regs[2], regs[4], regs[5] = 0x200, 7, uint32(100+tid)
	}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	// lane 0 swaps 7 for 100; lane 1 then sees 100 and fails
	if r.reg(t, 0, 3) != 7 || r.reg(t, 1, 3) != 100 || r.word(0x200) != 100 {
		t.Errorf("CAS: old %d, %d; memory %d", r.reg(t, 0, 3), r.reg(t, 1, 3), r.word(0x200))
	}
}

func TestVote(t *testing.T) {
	src := `
		ISET.S32.C0 o[0x7f], R1, R2, LT;
		VOTE.ANY C1 (C0.NE);
		VOTE.ALL C2 (C0.NE);
		MOV R5 (C1.NE), R9;
		MOV R6 (C2.NE), R9;
		RET;
	`
	for _, c := range []struct {
		limit    uint32
		any, all uint32
	}{{0, 0, 0}, {5, 1, 0}, {32, 1, 1}} {
		r := runKernel(t, kernelRun{src: src, init: tidInit(map[int]uint32{2: c.limit, 9: 1})})
		checkRegs(t, r, 32, 5, func(int) uint32 { return c.any })
		checkRegs(t, r, 32, 6, func(int) uint32 { return c.all })
	}
}

func TestG2RAndLaneMask(t *testing.T) {
	src := `
		R2A A1, R2;
		G2R.U32.U32 R3, g[A1+0x1];
		G2R.U16.S16 R4L, g[A1+0x3];
		MOV.L02 R6, R7;
		RET;
	`
	r := runKernel(t, kernelRun{src: src, params: []uint32{0x11, 0x8000abcd}, init: tidInit(map[int]uint32{2: 0x10, 7: 9})})
	checkRegs(t, r, 32, 3, func(int) uint32 { return 0x8000abcd })
	checkRegs(t, r, 32, 4, func(int) uint32 { return 0x8000 }) // s16 into a half
	checkRegs(t, r, 32, 6, func(tid int) uint32 {
		if tid%4 == 0 || tid%4 == 2 {
			return 9
		}
		return 0
	})
}

func TestIndirectBranch(t *testing.T) {
	// every instruction is 8 bytes: BRX reads 0x10 or 0x20 from c[1]
	src := `
		R2A A1, R2;
		BRX c[0x1][A1+0x0];
		MVI R3, 0x1;
		BRA 0x28;
		MVI R3, 0x2;
		IADD R4, R3, R3;
		RET;
	`
	consts := make([]byte, 8)
	binary.LittleEndian.PutUint32(consts[0:], 0x10)
	binary.LittleEndian.PutUint32(consts[4:], 0x20)
	r := runKernel(t, kernelRun{src: src, consts: map[int][]byte{1: consts},
		init: func(tid int, regs []uint32) { regs[2] = uint32(tid%2) * 4 }})
	checkRegs(t, r, 32, 4, func(tid int) uint32 { return uint32(2 * (1 + tid%2)) })
	if r.stats.Divergent != 1 {
		t.Errorf("divergent = %d", r.stats.Divergent)
	}
}

func TestPret(t *testing.T) {
	src := `
		PRET 0x18;
		MVI R3, 0x5;
		RET;
		IADD R4, R3, R3;
		RET;
	`
	r := runKernel(t, kernelRun{src: src})
	checkRegs(t, r, 32, 4, func(int) uint32 { return 10 })
}

func TestBreakAndKill(t *testing.T) {
	src := `
		PBK done;
	loop:
		IADD32I R2, R2, 0x1;
		IADD.C0 o[0x7f], R2, -R1;
		BRK C0.GE;
		BRA loop;
	done:
		IADD R4, R2, R2;
		ISET.S32.C1 o[0x7f], R1, R5, LT;
		KIL C1.NE;
		MVI R6, 0x7;
		RET;
	`
	r := runKernel(t, kernelRun{src: src, init: tidInit(map[int]uint32{5: 8})})
	checkRegs(t, r, 32, 4, func(tid int) uint32 { return uint32(2 * max(tid, 1)) })
	checkRegs(t, r, 32, 6, func(tid int) uint32 {
		if tid < 8 {
			return 0 // killed
		}
		return 7
	})
}

// TestSharedLock: a shared-memory atomic increment the way nouveau builds it
// on sm_12 (lock, branch on LT to the update, unlock), by 64 threads.
func TestSharedLock(t *testing.T) {
	src := `
		R2A A1, R2;
	retry:
		G2R.LCK.U32.U32.C0 R3, g[A1+0x20];
		BRA C0.LT, locked;
		BRA retry;
	locked:
		IADD32I R3, R3, 0x1;
		R2G.UNL.U32.U32 g[A1+0x20], R3;
		RET;
	`
	r := runKernel(t, kernelRun{src: src, threads: 64, init: tidInit(nil)})
	if r.err != nil {
		t.Fatal(r.err)
	}
	seen := map[uint32]bool{}
	for tid := range 64 {
		seen[r.reg(t, tid, 3)] = true
	}
	if len(seen) != 64 || !seen[1] || !seen[64] {
		t.Errorf("the increments did not serialise: %d distinct results", len(seen))
	}
}

// TestArchitectureGates: an sm_10 launch has no atomics, votes or doubles.
func TestArchitectureGates(t *testing.T) {
	for src, arch := range map[string]string{
		"GRED.IADD.U32 global14[R2], R3;\nRET;\n": "sm_10",
		"VOTE.ANY C1 (C0.NE);\nRET;\n":            "sm_11",
		"DADD R2, R4, R6;\nRET;\n":                "sm_12",
	} {
		r := runKernel(t, kernelRun{src: src, arch: arch, threads: 1})
		if r.err == nil || !strings.Contains(r.err.Error(), "needs sm_1") || !strings.Contains(r.err.Error(), "the launch is "+arch) {
			t.Errorf("%s on %s: %v", strings.SplitN(src, "\n", 2)[0], arch, r.err)
		}
		if r := runKernel(t, kernelRun{src: src, threads: 1, init: regsInit(map[int]uint32{2: 0x100})}); r.err != nil {
			t.Errorf("%s on sm_13: %v", strings.SplitN(src, "\n", 2)[0], r.err)
		}
	}
}
