package fermi

import (
	"math/rand"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestSharedStartsZero: every block sees all 48 KiB of its shared memory
// zero, although Start clears only up to the high-water mark of the last
// block's writes (emu.SharedExtent) and block k before it in the same block
// slot wrote the top of shared memory in way k of those a kernel has
// (full-warp runs, scattered and partial stores, bytes, halves, 64- and
// 128-bit stores, ST, ATOM and RED through the shared window, STSUL): a
// way that did not raise the mark leaves the next block nonzero words.
func TestSharedStartsZero(t *testing.T) {
	prog := `
	MOV R1, c[0x1][0x100];
	S2R R3, SR_TID.X;
	SHL R4, R3, 0x2;
	MOV R5, RZ;                   // the OR of every word the thread reads
	MOV R6, R4;
scan:
	LDS R7, [R6];
	LOP.OR R5, R5, R7;
	IADD R6, R6, 0x100;           // 64 threads of one word
	ISETP.LT.U32.AND P0, PT, R6, 0xc000, PT;
	@P0 BRA scan;
	BAR.RED.POPC RZ, RZ;
	S2R R8, SR_CTAID.X;
	SHL R8, R8, 0x6;
	IADD R8, R8, R3;
	SHL R8, R8, 0x2;
	IADD R8, R8, c[0x0][0x20];
	ST [R8], R5;
	IADD R9, R3, 0x1;             // nonzero in every lane
	MOV R10, R9;
	MOV R11, R9;
	MOV R12, R9;
	SHL R13, R3, 0x6;
	SHL R14, R3, 0x4;
	S2R R15, SR_SWINLO;           // the generic window onto shared memory
	IADD R15, R15, R4;
	S2R R20, SR_CTAID.X;          // block k writes the top of shared memory in way k
	ISETP.EQ.U32.AND P3, PT, R20, 0x0, PT;
	@P3 STS [R4+0xbf00], R9;      // one run per warp
	ISETP.EQ.U32.AND P3, PT, R20, 0x1, PT;
	@P3 STS [R13+0xb000], R9;     // scattered
	ISETP.EQ.U32.AND P3, PT, R20, 0x2, PT;
	ISETP.LT.U32.AND P4, PT, R3, 0x5, P3;
	@P4 STS [R13+0xb000], R9;     // some lanes
	ISETP.EQ.U32.AND P3, PT, R20, 0x3, PT;
	@P3 STS.U8 [R3+0xbfc0], R9;
	ISETP.EQ.U32.AND P3, PT, R20, 0x4, PT;
	@P3 STS.U16 [R4+0xbf00], R9;
	ISETP.EQ.U32.AND P3, PT, R20, 0x5, PT;
	@P3 STS.64 [R14+0xbc00], R10;
	ISETP.EQ.U32.AND P3, PT, R20, 0x6, PT;
	@P3 STS.128 [R14+0xbc00], R9;
	ISETP.EQ.U32.AND P3, PT, R20, 0x7, PT;
	@P3 ST [R15+0xbf00], R9;
	ISETP.EQ.U32.AND P3, PT, R20, 0x8, PT;
	@P3 ST.U8 [R15+0xbf00], R9;
	ISETP.EQ.U32.AND P3, PT, R20, 0x9, PT;
	@P3 ATOM.ADD R16, [R15+0xbf00], R9;
	ISETP.EQ.U32.AND P3, PT, R20, 0xa, PT;
	@P3 RED.ADD [R15+0xbf00], R9;
	ISETP.EQ.U32.AND P3, PT, R20, 0xb, PT;
	@P3 LDSLK P2, R17, [R4+0xbf00];
	PSETP.AND.AND P2, PT, P2, P3, PT;
	@P2 STSUL [R4+0xbf00], R9;
	ISETP.EQ.U32.AND P3, PT, R20, 0xc, PT;
	@P3 STS [R4], R9;             // low, and an image of the lot
	@P3 STS [R13+0x1000], R9;
	@P3 STS.128 [R14+0x4000], R9;
	@P3 ST [R15+0x5000], R9;
	EXIT;
`
	const blocks, threads = 14, 64
	d := newDevice()
	d.alloc("out", make([]byte, 4*blocks*threads))
	// one worker: the blocks take turns in one block slot
	if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{threads, 1, 1},
		params: []any{buf("out")}, serial: true}); err != nil {
		t.Fatal(err)
	}
	for i, v := range u32s(d.bytes("out")) {
		if v != 0 {
			t.Fatalf("block %d thread %d found nonzero shared memory at its start (OR of its words %#x)", i/threads, i%threads, v)
		}
	}
}

// TestBarrierReductionAfterExits: a BAR.RED whose block lost warps before
// it completes when the live warps have arrived, and counts their
// predicates only (bar's count of live warps, which stops once they
// outnumber the arrivals).
func TestBarrierReductionAfterExits(t *testing.T) {
	prog := gtid + `
	S2R R3, SR_TID.X;
	ISETP.GE.U32.AND P0, PT, R3, c[0x0][0x24], PT;
	@P0 EXIT;                     // the warps past the first ones leave
	LOP.AND R4, R3, 0x3;
	ISETP.EQ.AND P2, PT, R4, RZ, PT;
	BAR.RED.POPC P3, R12, 0x0, RZ, P2;
	BAR.RED.POPC P3, R13, 0x0, RZ, P2;
	SHL R5, R0, 0x2;
	IADD R5, R5, c[0x0][0x20];
	IADD R12, R12, R13;
	ST [R5], R12;
	EXIT;
`
	const blocks, threads = 3, 512
	for _, keep := range []int{32, 96, 256, 480, 512} {
		d := newDevice()
		d.alloc("out", make([]byte, 4*blocks*threads))
		if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{threads, 1, 1},
			params: []any{buf("out"), uint32(keep)}}); err != nil {
			t.Fatalf("%d threads kept: %v", keep, err)
		}
		for i, v := range u32s(d.bytes("out")) {
			want := uint32(0)
			if i%threads < keep {
				want = uint32(2 * keep / 4)
			}
			if v != want {
				t.Fatalf("%d threads kept: thread %d of block %d counted %d, want %d", keep, i%threads, i/threads, v, want)
			}
		}
	}
}

// TestPrmtFewLanes: PRMT run by a few lanes (each by the table) gives what
// the whole warp's PRMT gives in them, in every mode, and leaves the
// others alone.
func TestPrmtFewLanes(t *testing.T) {
	prog := gtid + `
	SHL R3, R0, 0x4;
	IADD R3, R3, c[0x0][0x20];
	LD.128 R4, [R3];              // a, selector, b
	S2R R9, SR_TID.X;
	LOP.AND R9, R9, 0x1f;
	ISETP.LT.U32.AND P0, PT, R9, 0x3, PT;
	MOV32I R12, 0x77;
	MOV32I R13, 0x77;
	PRMT R10, R4, R5, R6;
	@P0 PRMT R12, R4, R5, R6;
	PRMT.B4E R11, R4, R5, R6;
	@P0 PRMT.B4E R13, R4, R5, R6;
	SHL R14, R0, 0x4;
	IADD R14, R14, c[0x0][0x24];
	ST.128 [R14], R10;
	EXIT;
`
	const n = 64
	rng := rand.New(rand.NewSource(12))
	in := make([]uint32, 4*n)
	for i := range in {
		in[i] = rng.Uint32()
		if i%4 == 1 && i%8 == 1 {
			in[i] = uint32(rng.Intn(4))*0x1111 + 0x0123 // a window
		}
	}
	d := newDevice()
	d.alloc("in", fromU32(in))
	d.alloc("out", make([]byte, 16*n))
	if _, err := d.run(t, launch{program: []byte(prog), block: emu.Dim3{n, 1, 1}, params: []any{buf("in"), buf("out")}}); err != nil {
		t.Fatal(err)
	}
	out := u32s(d.bytes("out"))
	for i := range n {
		o := out[4*i:]
		few := i%32 < 3
		if few && (o[2] != o[0] || o[3] != o[1]) || !few && (o[2] != 0x77 || o[3] != 0x77) {
			t.Fatalf("thread %d: whole warp %#x %#x, few lanes %#x %#x", i, o[0], o[1], o[2], o[3])
		}
		if want := prmt(in[4*i], in[4*i+1], in[4*i+2], 0); o[0] != want {
			t.Fatalf("thread %d: PRMT %#x, want %#x", i, o[0], want)
		}
	}
}
