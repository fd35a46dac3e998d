package maxwell

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestMemFastSameAsGeneral runs loads and stores of 4, 8 and 16 bytes to
// global and shared memory with per-warp address patterns (coalesced runs,
// reversed, uniform, strided, random, runs crossing the end of memory,
// lanes meeting on one word, runs but for two lanes, the same
// addresses again) under per-lane guards, once with the fast
// paths (memfast.go), once by the general path (generalOnly) and once
// in parallel rounds, and wants the same registers, memory and faults.
func TestMemFastSameAsGeneral(t *testing.T) {
	const prog = `S2R R0, SR_CTAID.X ;
S2R R1, SR_TID.X ;
ISCADD R0, R0, R1, 0x8 ;
SHL R1, R0, 0x4 ;
IADD R2.CC, R1, c[0x0][0x140] ;
IADD.X R3, RZ, c[0x0][0x144] ;
LDG.E.128 R4, [R2] ;
R2P PR, R6, 0x7f ;
IADD R8.CC, R4, c[0x0][0x148] ;
IADD.X R9, R7, c[0x0][0x14c] ;
LOP32I.AND R10, R8, 0xfffffff8 ;
LOP32I.AND R20, R8, 0xfffffff0 ;
MOV R12, RZ ;
MOV R13, RZ ;
MOV R14, RZ ;
MOV R15, RZ ;
MOV R11, R9 ;
MOV R21, R9 ;
LOP32I.AND R22, R4, 0x3fc ;
LOP32I.AND R23, R4, 0x3f8 ;
LOP32I.AND R24, R4, 0x3f0 ;
@P0 LDG.E R12, [R8] ;
@P1 STG.E [R8+0x4], R5 ;
@P2 LDG.E.64 R14, [R10] ;
@P3 STS [R22], R5 ;
@P4 LDS R13, [R22+0x4] ;
@P5 STG.E.64 [R10], R4 ;
@P5 LDG.E.64 R26, [R10] ;
IADD R10.CC, R10, 0x8 ;
@P5 LDG.E.64 R28, [R10] ;
@P6 LDG.E.128 R16, [R20] ;
@P6 STG.E.128 [R20+0x10], R4 ;
@!P6 LDS.64 R16, [R23] ;
@P0 STS.128 [R24], R12 ;
IADD3 R12, R12, R16, R26 ;
IADD3 R13, R13, R17, R27 ;
IADD R14, R14, R28 ;
IADD R15, R15, R29 ;
IADD R14, R14, R18 ;
IADD R15, R15, R19 ;
IADD R2.CC, R1, c[0x0][0x150] ;
IADD.X R3, RZ, c[0x0][0x154] ;
STG.E.128 [R2], R12 ;
EXIT ;
`
	const (
		block    = 256
		blocks   = 4
		dataSize = 16 << 10
		shared   = 2 << 10
	)
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 7))
		in := make([]uint32, 4*block*blocks)
		faulty := -1 // a warp whose addresses fault, in one seed of four
		if seed%4 == 3 {
			faulty = rng.IntN(block * blocks / 32)
		}
		for wp := range block * blocks / 32 {
			kind := rng.IntN(8)
			if wp == faulty {
				kind = 8 + rng.IntN(3)
			}
			base := rng.Uint32N(dataSize/16-64) * 16
			stride := []uint32{0, 4, 8, 12, 16, 32, 1040}[rng.IntN(7)]
			full := rng.IntN(3) != 0 // some warps with every guard true
			for l := range 32 {
				i := 4 * (32*wp + l)
				var off, hi uint32
				switch kind {
				case 0, 1, 2: // coalesced
					off = base + 4*uint32(l)
				case 3:
					off = base + 4*31 - 4*uint32(l)
				case 4:
					off = base
				case 5:
					off = base + stride*uint32(l)
				case 6:
					off = rng.Uint32N(dataSize/16) * 16
				case 7: // a run but for two middle lanes swapped
					off = base + 4*uint32(l)
					if l == 10 || l == 11 {
						off = base + 4*uint32(l^1)
					}
				case 8: // past the end for some lanes (the next buffer or a fault)
					off = dataSize - 64 + 16*uint32(l)
				case 9: // misaligned
					off = base + uint32(l)*[]uint32{1, 2, 6}[rng.IntN(3)]
				case 10: // far
					off = base + 4*uint32(l)
					hi = uint32(l & 1)
				}
				off %= dataSize + 4096
				preds := uint32(0x7f)
				if !full {
					preds = rng.Uint32() & 0x7f
					if rng.IntN(2) == 0 { // most lanes on
						preds |= rng.Uint32() & rng.Uint32() & 0x7f
					}
				}
				in[i], in[i+1], in[i+2], in[i+3] = off, rng.Uint32(), preds, hi
			}
		}
		data := make([]byte, dataSize)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		r := run{program: []byte(prog), arch: "sm_52", grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{block, 1, 1}, shared: shared, serial: true,
			args: []arg{fromU32(in), data, make([]byte, 16*block*blocks)}}
		var mem [3][]byte
		var outcome [3]string
		for i, mode := range []string{"general", "fast", "parallel rounds"} {
			k, cfg, _ := r.prepare(t)
			switch mode {
			case "general":
				k.generalOnly()
			case "parallel rounds":
				// the warps of a block on two cores from the start: the
				// fast paths record the accesses; overlapping ones send
				// the block back to the usual schedule
				cfg.WarpCores, cfg.WarpCoresAfter = 2, 1
			}
			st, err := emu.Run(cfg, k)
			mem[i], outcome[i] = k.Global.Data, fmt.Sprintf("%d %d %v", st.WarpInsts, st.ThreadInsts, err)
			if i == 0 {
				continue
			}
			if outcome[i] != outcome[0] {
				t.Errorf("seed %d: %s %s\ngeneral %s", seed, mode, outcome[i], outcome[0])
			}
			if !bytes.Equal(mem[i], mem[0]) {
				t.Errorf("seed %d: %s: memory differs", seed, mode)
			}
		}
		if seed%4 == 3 {
			t.Logf("seed %d: %s", seed, outcome[0])
		}
	}
}

// TestRunPairsExact: the two-lanes-at-a-time comparisons (runPairs,
// equalWords) accept exactly the rows they should: any one bit changed
// anywhere is seen.
func TestRunPairsExact(t *testing.T) {
	if !hostLE {
		t.Skip("runPairs runs on little-endian hosts only")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		step := []uint32{0, 4, 8, 16}[rng.IntN(4)]
		want, h := rng.Uint32N(1<<30), rng.Uint32()
		var lo, hi lanes
		for l := range 32 {
			lo[l], hi[l] = want+uint32(l)*step, h
		}
		if !runPairs(&lo, &hi, want, step, h) {
			t.Fatalf("a run from %#x by %d (high %#x) not seen", want, step, h)
		}
		words := append(append([]uint32{}, lo[:]...), hi[:]...)
		if !equalWords(words, append(lo[:], hi[:]...)) {
			t.Fatal("equal words not seen")
		}
		l, bit := rng.IntN(32), uint32(1)<<rng.IntN(32)
		if rng.IntN(2) == 0 {
			lo[l] ^= bit
		} else {
			hi[l] ^= bit
		}
		if runPairs(&lo, &hi, want, step, h) {
			t.Fatalf("lane %d changed by %#x: still a run", l, bit)
		}
		if equalWords(words, append(lo[:], hi[:]...)) {
			t.Fatalf("lane %d changed by %#x: still equal", l, bit)
		}
	}
}
