package fermi

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// Kernels of our own, in our assembler's syntax, for the memory, atomic,
// control-flow and synchronisation families; each result is checked
// against what the algorithm defines.

// gtid is the prologue every kernel here starts with: R0 = global thread
// index (x), R1 = stack pointer.
const gtid = `
	MOV R1, c[0x1][0x100];
	S2R R0, SR_TID.X;
	S2R R2, SR_CTAID.X;
	IMAD R0, R2, c[0x0][0x8], R0;
`

func TestKernelMemorySizes(t *testing.T) {
	// every thread copies its 16 bytes with each access size and the
	// signed narrow loads, through global, shared and local memory
	prog := gtid + `
	SHL R3, R0, 0x4;
	IADD R4, R3, c[0x0][0x20];      // in
	IADD R5, R3, c[0x0][0x24];      // out: 4 records of 16 bytes per thread
	SHL R5, R0, 0x6;
	IADD R5, R5, c[0x0][0x24];
	LD.U8 R6, [R4+0x1];
	LD.S8 R7, [R4+0x2];
	LD.U16 R8, [R4+0x2];
	LD.S16 R9, [R4+0x6];
	ST.128 [R5], R6;
	LD.64 R6, [R4];
	LD R8, [R4+0xc];
	LDU R9, [R4+0x8];
	ST.128 [R5+0x10], R6;
	S2R R10, SR_TID.X;
	SHL R10, R10, 0x4;
	LD.128 R12, [R4];
	STS.128 [R10], R12;
	STS.U8 [R10+0x3], RZ;
	STS.U16 [R10+0x4], R12;
	LDS.S8 R16, [R10+0x1];
	LDS.U16 R17, [R10+0x4];
	LDS.64 R18, [R10+0x8];
	ST.128 [R5+0x20], R16;
	STL.64 [R1+0x8], R12;
	STL [R1], R15;
	STL.U8 [R1+0x4], R14;
	LDL.S8 R16, [R1+0x4];
	LDL.64 R18, [R1+0x8];
	LDL R17, [R1];
	ST.128 [R5+0x30], R16;
	EXIT;
`
	const n = 4 * 64
	rng := rand.New(rand.NewSource(3))
	in := make([]byte, 16*n)
	rng.Read(in)
	d := newDevice()
	d.alloc("in", in)
	d.alloc("out", make([]byte, 64*n))
	if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{4, 1, 1}, block: emu.Dim3{64, 1, 1},
		params: []any{buf("in"), buf("out")}}); err != nil {
		t.Fatal(err)
	}
	out := u32s(d.bytes("out"))
	le := binary.LittleEndian
	for i := range n {
		b := in[16*i:]
		w := func(k int) uint32 { return le.Uint32(b[4*k:]) }
		want := []uint32{
			uint32(b[1]), uint32(int32(int8(b[2]))), uint32(le.Uint16(b[2:])), uint32(int32(int16(le.Uint16(b[6:])))),
			w(0), w(1), w(3), w(2),
			uint32(int32(int8(b[1]))), uint32(le.Uint16(b[0:])), w(2), w(3),
			uint32(int32(int8(b[8]))), w(3), w(0), w(1),
		}
		if err := sameWords(out[16*i:16*i+16], want); err != nil {
			t.Fatalf("thread %d: %v", i, err)
		}
	}
}

func TestKernelGenericAndConstant(t *testing.T) {
	// generic stores through the shared window (c[0x0][0x0], as CUDA 4's
	// code reads it) and the local window (S2R SR_LWINLO); LDC with a
	// register index into bank 0's parameters; LD_LDU and LDS_LDU
	prog := gtid + `
	S2R R3, SR_TID.X;
	SHL R3, R3, 0x2;
	MOV R4, c[0x0][0x0];
	IADD R4, R4, R3;
	ST [R4+0x100], R0;
	S2R R5, SR_LWINLO;
	IADD R5, R5, R1;
	ST [R5+-0x4], R0;
	LD R6, [R5+-0x4];
	LDS R7, [R3+0x100];
	LOP.AND R8, R0, 0x3;
	SHL R8, R8, 0x2;
	LDC R9, c[0x0][R8+0x28];
	MOV R10, c[0x0][0x24];
	MOV R21, c[0x0][0x20];
	SHL R11, R0, 0x5;
	IADD R11, R11, R10;
	LD_LDU.32.32 R12, [R11+0x4], R13, [R21+0x4];
	LDS_LDU.32.32 R14, [R3+0x100], R15, [R21+0x8];
	ST.128 [R11], R6;
	ST.128 [R11+0x10], R12;
	EXIT;
`
	const n = 128
	d := newDevice()
	d.alloc("in", fromU32([]uint32{7, 8, 9, 10}))
	d.alloc("out", make([]byte, 32*n))
	if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{64, 1, 1},
		params: []any{buf("in"), buf("out"), uint32(11), uint32(22), uint32(33), uint32(44)}}); err != nil {
		t.Fatal(err)
	}
	out := u32s(d.bytes("out"))
	for i := range n {
		// LD_LDU's LD reads word 1 of the thread's own record before it is
		// written (0), its LDU in[1]; LDS_LDU's LDS the thread's shared
		// word, its LDU in[2]
		want := []uint32{uint32(i), uint32(i), uint32(i%4) * 4, []uint32{11, 22, 33, 44}[i%4], 0, 8, uint32(i), 9}
		if err := sameWords(out[8*i:8*i+8], want); err != nil {
			t.Fatalf("thread %d: %v", i, err)
		}
	}
}

func TestKernelWideAddresses(t *testing.T) {
	// a 64-bit build: pointers are register pairs, accesses .E
	prog := gtid + `
	SHL R3, R0, 0x2;
	IADD R4.CC, R3, c[0x0][0x20];
	IADD.X R5, RZ, c[0x0][0x24];
	IADD R6.CC, R3, c[0x0][0x28];
	IADD.X R7, RZ, c[0x0][0x2c];
	LD.E R8, [R4];
	IMUL R8, R8, R8;
	ST.E [R6], R8;
	EXIT;
`
	const n = 256
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i*3 + 1)
	}
	d := newDevice()
	d.alloc("in", fromU32(in))
	d.alloc("out", make([]byte, 4*n))
	if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{4, 1, 1}, block: emu.Dim3{64, 1, 1},
		params: []any{buf("in"), buf("out")}}); err != nil {
		t.Fatal(err)
	}
	out := u32s(d.bytes("out"))
	for i, v := range in {
		if out[i] != v*v {
			t.Fatalf("out[%d] = %d, want %d", i, out[i], v*v)
		}
	}
}

func TestKernelAtomics(t *testing.T) {
	// a histogram with ATOM.ADD and RED.ADD over many blocks, a max with
	// signed ATOM.MAX, a counter with INC, a CAS loop adding floats, a
	// 64-bit add and an exchange
	prog := gtid + `
	SHL R3, R0, 0x2;
	IADD R3, R3, c[0x0][0x20];
	LD R4, [R3];                  // value
	LOP.AND R5, R4, 0xf;          // bucket
	SHL R5, R5, 0x2;
	IADD R6, R5, c[0x0][0x24];
	MOV32I R7, 0x1;
	ATOM.ADD R7, [R6], R7;
	RED.ADD [R6+0x40], R4;
	MOV R8, c[0x0][0x28];
	ATOM.MAX.S32 R9, [R8], R4;
	ATOM.MIN R9, [R8+0x4], R4;
	MOV32I R10, 0x7;
	ATOM.INC R9, [R8+0x8], R10;
	I2F.F32.U32 R11, R5;
	RED.ADD.F32.FTZ.RN [R8+0xc], R11;
	MOV R12, R4;
	MOV R13, RZ;
	ATOM.ADD.U64 R14, [R8+0x10], R12;
	ATOM.EXCH R9, [R8+0x18], R4;
	LD R16, [R8+0x1c];
cas:
	IADD R17, R16, 0x1;
	ATOM.CAS R18, [R8+0x1c], R16, R17;
	ISETP.NE.AND P0, PT, R18, R16, PT;
	MOV R16, R18;
	@P0 BRA cas;
	EXIT;
`
	const blocks, threads = 16, 96
	n := blocks * threads
	rng := rand.New(rand.NewSource(5))
	vals := make([]uint32, n)
	for i := range vals {
		vals[i] = rng.Uint32()
	}
	d := newDevice()
	d.alloc("vals", fromU32(vals))
	d.alloc("hist", make([]byte, 4*32))
	d.alloc("misc", fromU32([]uint32{0x80000000, 0xffffffff, 0, 0, 0, 0, 0, 0}))
	if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{threads, 1, 1},
		params: []any{buf("vals"), buf("hist"), buf("misc")}}); err != nil {
		t.Fatal(err)
	}
	hist := u32s(d.bytes("hist"))
	misc := u32s(d.bytes("misc"))
	var cnt, sum [16]uint32
	maxS, minU := int32(math.MinInt32), ^uint32(0)
	var fsum float64
	var s64 uint64
	for _, v := range vals {
		cnt[v&15]++
		sum[v&15] += v
		maxS = max(maxS, int32(v))
		minU = min(minU, v)
		fsum += float64(v & 15 * 4)
		s64 += uint64(v)
	}
	for b := range 16 {
		if hist[b] != cnt[b] || hist[16+b] != sum[b] {
			t.Errorf("bucket %d: count %d sum %#x, want %d %#x", b, hist[b], hist[16+b], cnt[b], sum[b])
		}
	}
	// INC wraps at 7: n increments from 0 leave n mod 8
	if int32(misc[0]) != maxS || misc[1] != minU || misc[2] != uint32(n%8) {
		t.Errorf("max %d min %#x inc %d, want %d %#x %d", int32(misc[0]), misc[1], misc[2], maxS, minU, n%8)
	}
	if got := float64(math.Float32frombits(misc[3])); got != fsum { // sums of small integers are exact
		t.Errorf("float sum %g, want %g", got, fsum)
	}
	if got := uint64(misc[5])<<32 | uint64(misc[4]); got != s64 {
		t.Errorf("64-bit sum %#x, want %#x", got, s64)
	}
	found := false
	for _, v := range vals {
		found = found || v == misc[6]
	}
	if !found || misc[7] != uint32(n) {
		t.Errorf("exchange left %#x (one of the values?), CAS counter %d want %d", misc[6], misc[7], n)
	}
}

func TestKernelSharedLock(t *testing.T) {
	// shared-memory atomics as sm_2x code makes them: LDSLK takes the
	// lock (P0), STSUL stores and releases; lanes that missed it retry
	prog := gtid + `
	S2R R3, SR_TID.X;
	LOP.AND R4, R3, 0x7;
	SHL R4, R4, 0x2;              // 8 counters
	ISETP.GE.U32.AND P1, PT, R3, 0x8, PT;
	@!P1 STS [R4], RZ;
	BAR.RED.POPC RZ, RZ;
	SSY done;
retry:
	LDSLK P0, R5, [R4];
	@P0 IADD R5, R5, 0x1;
	@P0 STSUL [R4], R5;
	@!P0 BRA retry;
	NOP.S;
done:
	BAR.RED.POPC RZ, RZ;
	@P1 EXIT;
	LDS R6, [R4];
	S2R R7, SR_CTAID.X;
	SHL R7, R7, 0x5;
	IADD R7, R7, R4;
	IADD R7, R7, c[0x0][0x20];
	ST [R7], R6;
	EXIT;
`
	d := newDevice()
	d.alloc("out", make([]byte, 4*8*4))
	if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{4, 1, 1}, block: emu.Dim3{200, 1, 1},
		params: []any{buf("out")}}); err != nil {
		t.Fatal(err)
	}
	for i, v := range u32s(d.bytes("out")) {
		want := uint32(200 / 8)
		if v != want {
			t.Fatalf("block %d counter %d = %d, want %d", i/8, i%8, v, want)
		}
	}
}

func TestKernelControlFlow(t *testing.T) {
	// per lane: an if/else under SSY, a loop left by BRK whose trip count
	// differs per lane, CONT skipping odd iterations, a subroutine called
	// with CAL, an indirect branch through a register, and lanes that exit
	// early
	prog := gtid + `
	SHL R20, R0, 0x2;
	IADD R20, R20, c[0x0][0x20];
	LOP.AND R3, R0, 0x1f;         // lane
	MOV R8, RZ;
	SSY endif;
	ISETP.LT.U32.AND P0, PT, R3, 0xa, PT;
	@P0 BRA then;
	IADD32I R8, R8, 0x100;
	NOP.S;
then:
	IADD32I R8, R8, 0x200;
	NOP.S;
endif:
	MOV R9, RZ;                   // loop: i = 0..lane, sum of even i
	MOV R10, RZ;
	PBK brkout;
loop:
	PCNT next;
	ISETP.GT.U32.AND P0, PT, R9, R3, PT;
	@P0 BRK;
	LOP.AND R11, R9, 0x1;
	ISETP.NE.AND P1, PT, R11, RZ, PT;
	@P1 CONT;
	IADD R10, R10, R9;
	CONT;
next:
	IADD R9, R9, 0x1;
	BRA loop;
brkout:
	MOV R12, R3;
	CAL square;
	LOP.AND R14, R3, 0x3;         // branch to one of 4 blocks of 2 instructions
	SHL R14, R14, 0x4;
	SSY joined;
	BRX R14 0x0;
	IADD32I R15, RZ, 0x11;
	BRA.S joined;
	IADD32I R15, RZ, 0x22;
	BRA.S joined;
	IADD32I R15, RZ, 0x33;
	BRA.S joined;
	IADD32I R15, RZ, 0x44;
	NOP.S;
joined:
	ISETP.EQ.U32.AND P2, PT, R3, 0x1f, PT;
	@P2 EXIT;
	IADD R8, R8, R10;
	IADD R8, R8, R13;
	IADD R8, R8, R15;
	ST [R20], R8;
	EXIT;
square:
	IMUL R13, R12, R12;
	RET;
`
	prog = strings.Replace(prog, "BRA.S joined;", "NOP.S;", -1)
	d := newDevice()
	d.alloc("out", fromU32(make([]uint32, 256)))
	if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{4, 1, 1}, block: emu.Dim3{64, 1, 1},
		params: []any{buf("out")}}); err != nil {
		t.Fatal(err)
	}
	out := u32s(d.bytes("out"))
	for i, got := range out {
		lane := uint32(i % 32)
		if lane == 31 {
			if got != 0 {
				t.Errorf("thread %d exited early but wrote %#x", i, got)
			}
			continue
		}
		want := uint32(0x200)
		if lane >= 10 {
			want = 0x100
		}
		for j := uint32(0); j <= lane; j += 2 {
			want += j
		}
		want += lane * lane
		want += []uint32{0x11, 0x22, 0x33, 0x44}[lane%4]
		if got != want {
			t.Errorf("thread %d: %#x, want %#x", i, got, want)
		}
	}
}

func TestKernelBarrierReduction(t *testing.T) {
	// a block sum in shared memory (tree, BAR.RED.POPC RZ, RZ between
	// steps), __syncthreads_count, _and and _or through BAR.RED with
	// results, and VOTE ballots
	prog := gtid + `
	SHL R3, R0, 0x2;
	IADD R3, R3, c[0x0][0x20];
	LD R4, [R3];
	S2R R5, SR_TID.X;
	SHL R6, R5, 0x2;
	STS [R6], R4;
	MOV32I R7, 0x80;              // stride in threads
tree:
	BAR.RED.POPC RZ, RZ;
	ISETP.LT.U32.AND P0, PT, R5, R7, PT;
	SHL R8, R7, 0x2;
	IADD R8, R8, R6;
	@P0 LDS R9, [R8];
	@P0 LDS R10, [R6];
	@P0 IADD R10, R10, R9;
	@P0 STS [R6], R10;
	SHR.U32 R7, R7, 0x1;
	ISETP.NE.AND P1, PT, R7, RZ, PT;
	@P1 BRA tree;
	BAR.RED.POPC RZ, RZ;
	LOP.AND R11, R4, 0x1;
	ISETP.NE.AND P2, PT, R11, RZ, PT;
	BAR.RED.POPC P3, R12, 0x0, RZ, P2;
	BAR.RED.AND P4, R13, 0x1, RZ, P2;
	BAR.RED.OR P5, R14, 0x2, RZ, P2;
	VOTE.ANY R15, P6, P2;
	VOTE.ALL R16, P6, P2;
	P2R R17, PR, RZ, 0x7f;
	LDS R18, [RZ];
	SHL R19, R0, 0x5;
	IADD R19, R19, c[0x0][0x24];
	ST.128 [R19], R12;
	ST.128 [R19+0x10], R16;
	EXIT;
`
	const blocks, threads = 8, 256
	rng := rand.New(rand.NewSource(9))
	vals := make([]uint32, blocks*threads)
	for i := range vals {
		vals[i] = rng.Uint32() >> 4
		if i/threads == 3 {
			vals[i] |= 1 // block 3: every predicate true
		}
		if i/threads == 4 {
			vals[i] &^= 1 // block 4: every predicate false
		}
	}
	d := newDevice()
	d.alloc("vals", fromU32(vals))
	d.alloc("out", make([]byte, 32*len(vals)))
	if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{threads, 1, 1},
		params: []any{buf("vals"), buf("out")}}); err != nil {
		t.Fatal(err)
	}
	out := u32s(d.bytes("out"))
	for b := range blocks {
		var sum, count uint32
		for _, v := range vals[b*threads : (b+1)*threads] {
			sum += v
			count += v & 1
		}
		for t0 := range threads {
			i := b*threads + t0
			o := out[8*i : 8*i+8]
			var ballot uint32
			for l := range 32 {
				ballot |= (vals[i&^31+l] & 1) << l
			}
			p := o[5] // P2R: P2 own, P3 count!=0, P4 all, P5 any, P6 vote.all
			wantP := (vals[i]&1)<<2 | b32(count != 0)<<3 | b32(count == threads)<<4 | b32(count != 0)<<5 | b32(ballot == ^uint32(0))<<6
			if o[0] != count || o[1] != b32(count == threads) || o[2] != b32(count != 0) || o[3] != ballot ||
				o[4] != ballot || p&0x7c != wantP || o[6] != sum {
				t.Fatalf("block %d thread %d: got %#x, want count %d all %v any %v ballot %#x P %#x sum %#x",
					b, t0, o, count, count == threads, count != 0, ballot, wantP, sum)
			}
		}
	}
}

func TestKernelSpecialRegisters(t *testing.T) {
	prog := `
	S2R R0, SR_TID.X;
	S2R R1, SR_TID.Y;
	S2R R2, SR_TID.Z;
	S2R R3, SR_CTAID.X;
	S2R R4, SR_CTAID.Y;
	S2R R5, SR_NTID.X;
	S2R R6, SR_NCTAID.Y;
	S2R R7, SR_LANEID;
	S2R R8, SR_LTMASK;
	MOV R9, c[0x0][0x8];
	MOV R10, c[0x0][0x18];
	S2R R11, SR_TID;
	// linear index: ((ctaid.y*nctaid.x + ctaid.x)*ntid.z + tid.z)*ntid.y + tid.y)*ntid.x + tid.x
	MOV R12, c[0x0][0x14];
	IMAD R12, R4, R12, R3;
	IMAD R12, R12, c[0x0][0x10], R2;
	IMAD R12, R12, c[0x0][0xc], R1;
	IMAD R12, R12, c[0x0][0x8], R0;
	SHL R12, R12, 0x6;
	IADD R12, R12, c[0x0][0x20];
	ST.128 [R12], R0;
	ST.128 [R12+0x10], R4;
	ST.128 [R12+0x20], R8;
	EXIT;
`
	grid, block := emu.Dim3{3, 2, 1}, emu.Dim3{8, 4, 2}
	n := grid.Count() * block.Count()
	d := newDevice()
	d.alloc("out", make([]byte, 64*n))
	if _, err := d.run(t, launch{program: []byte(prog), grid: grid, block: block, params: []any{buf("out")}}); err != nil {
		t.Fatal(err)
	}
	out := u32s(d.bytes("out"))
	for bi := range grid.Count() {
		bid := grid.At(bi)
		for ti := range block.Count() {
			tid := block.At(ti)
			i := bi*block.Count() + ti
			o := out[16*i : 16*i+12]
			lane := uint32(ti % 32)
			want := []uint32{tid[0], tid[1], tid[2], bid[0], bid[1], block[0], grid[1], lane, 1<<lane - 1, block[0], grid[1],
				tid[0] | tid[1]<<16 | tid[2]<<26}
			if err := sameWords(o, want); err != nil {
				t.Fatalf("block %v thread %v: %v", bid, tid, err)
			}
		}
	}
}

func TestKernelFaults(t *testing.T) {
	for _, c := range []struct {
		prog string
		want string
	}{
		{"MOV R2, c[0x0][0x20];\n LD R3, [R2+0x7fff0];\n EXIT;", "out of bounds"},
		{"IADD32I R2, RZ, 0x102;\n ST [R2], R2;\n EXIT;", "misaligned"},
		// the 8- and 16-bit fast paths leave these to the general path
		{"IADD32I R2, RZ, 0x101;\n STS.U16 [R2], R2;\n EXIT;", "misaligned"},
		{"IADD32I R2, RZ, 0x103;\n LDS.S16 R3, [R2];\n EXIT;", "misaligned"},
		{"MOV R2, c[0x0][0x20];\n LD.U8 R3, [R2+0x7ffff];\n EXIT;", "out of bounds"},
		{"S2R R2, SR_TID.X;\n SHL R2, R2, 0xa;\n STS.U8 [R2], R2;\n EXIT;", "out of bounds"},
		{"TEX.T R0, R2, 0x0, 0x0, 2D, 0x1;\n EXIT;", "TEX"},
		{rawWords(0x8800000000001c07, 0x8000000000001de7), "long-jump stack are not documented"},
		{rawWords(0x4800000000001c00, 0x8000000000001de7), "pixel quad"},
		{"BPT.TRAP 0x1;", "trap"},
		{"loop:\n BRA loop;", "step limit"},
		{"S2R R0, SR_TID.X;\n ISETP.EQ.AND P0, PT, R0, RZ, PT;\n @P0 EXIT;\n BAR.RED.POPC RZ, RZ;\n BAR.SYNC 0x1, 0x40;\n EXIT;", ""},
		{"LDL R0, [RZ];\n EXIT;", ""},
	} {
		d := newDevice()
		d.alloc("x", make([]byte, 64))
		_, err := d.run(t, launch{program: []byte(c.prog), block: emu.Dim3{64, 1, 1}, params: []any{buf("x")}, steps: 10000})
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.prog, err)
			}
			continue
		}
		var f *emu.Fault
		if !errors.As(err, &f) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want a fault mentioning %q", c.prog, err, c.want)
			continue
		}
		if f.Inst == "" && c.want != "step limit" {
			t.Errorf("%q: fault names no instruction: %v", c.prog, f)
		}
	}
}

// rawWords is raw code of the given canonical words.
func rawWords(ws ...uint64) string {
	var b []byte
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return string(b)
}

// bitsOf is used by the tests' references.
var _ = bits.OnesCount32
