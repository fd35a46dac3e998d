package fermi

import (
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// Algorithms of the categories whose real kernels the TSV of ../shared
// does not hold whole (a sort, a merge, a sparse matrix-vector product, a
// multi-block scan; docs/fermi-launch.md has the survey's figures), as
// kernels of our own, checked against Go. Reductions and histograms of our
// own are in kernels_test.go (TestKernelBarrierReduction, TestKernelAtomics).

// bitonicSort: each block sorts its 256 keys in shared memory (a bitonic
// network: uniform loops, BAR between steps, predicated swaps).
const bitonicSort = `
	S2R R0, SR_TID.X;
	S2R R20, SR_CTAID.X;
	SHL R2, R0, 0x2;
	ISCADD R3, R20, R0, 0x8;
	ISCADD R3, R3, c[0x0][0x20], 0x2;
	LD R4, [R3];
	STS [R2], R4;
	MOV32I R5, 0x2;
kloop:
	SHR.U32 R6, R5, 0x1;
jloop:
	BAR.RED.POPC RZ, RZ;
	LOP.XOR R7, R0, R6;
	ISETP.GT.U32.AND P0, PT, R7, R0, PT;
	SHL R8, R7, 0x2;
	LDS R9, [R2];
	LDS R10, [R8];
	LOP.AND R11, R0, R5;
	ISETP.EQ.AND P1, PT, R11, RZ, PT;
	ISETP.GT.U32.AND P2, PT, R9, R10, PT;
	ISETP.LT.U32.AND P3, PT, R9, R10, PT;
	PSETP.AND.AND P4, PT, P1, P2, PT;
	PSETP.AND.OR P4, PT, !P1, P3, P4;
	PSETP.AND.AND P4, PT, P4, P0, PT;
	BAR.RED.POPC RZ, RZ;
	@P4 STS [R2], R10;
	@P4 STS [R8], R9;
	SHR.U32 R6, R6, 0x1;
	ISETP.NE.AND P5, PT, R6, RZ, PT;
	@P5 BRA jloop;
	SHL R5, R5, 0x1;
	ISETP.LE.U32.AND P5, PT, R5, 0x100, PT;
	@P5 BRA kloop;
	BAR.RED.POPC RZ, RZ;
	LDS R4, [R2];
	ST [R3], R4;
	EXIT;
`

func TestBitonicSort(t *testing.T) {
	const blocks = 24
	rng := rand.New(rand.NewSource(11))
	keys := make([]uint32, 256*blocks)
	for i := range keys {
		keys[i] = rng.Uint32() >> uint(rng.Intn(24))
	}
	d := newDevice()
	d.alloc("keys", fromU32(keys))
	if _, err := d.run(t, launch{program: []byte(bitonicSort), grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{256, 1, 1},
		shared: 1024, params: []any{buf("keys")}}); err != nil {
		t.Fatal(err)
	}
	for b := range blocks {
		sort.Slice(keys[256*b:256*(b+1)], func(i, j int) bool { return keys[256*b+i] < keys[256*b+j] })
	}
	if err := sameWords(u32s(d.bytes("keys")), keys); err != nil {
		t.Fatal(err)
	}
}

// mergeSorted merges sorted A and B into C: each thread places one
// element at its index plus its rank in the other array, found by a
// binary search (lower bound from A, upper bound from B, so equal keys
// keep A's first); the searches take different trip counts per lane.
const mergeSorted = `
	MOV R1, c[0x1][0x100];
	S2R R0, SR_TID.X;
	S2R R2, SR_CTAID.X;
	IMAD R0, R2, c[0x0][0x8], R0;
	MOV R3, c[0x0][0x24];
	IADD R4, R3, c[0x0][0x2c];
	ISETP.GE.U32.AND P0, PT, R0, R4, PT;
	@P0 EXIT;
	ISETP.LT.U32.AND P1, PT, R0, R3, PT;
	@P1 MOV R5, c[0x0][0x20];
	@P1 MOV R6, R0;
	@P1 MOV R7, c[0x0][0x28];
	@P1 MOV R8, c[0x0][0x2c];
	@!P1 MOV R5, c[0x0][0x28];
	@!P1 IADD R6, R0, -R3;
	@!P1 MOV R7, c[0x0][0x20];
	@!P1 MOV R8, c[0x0][0x24];
	ISCADD R9, R6, R5, 0x2;
	LD R10, [R9];
	MOV R11, RZ;
loop:
	ISETP.GE.U32.AND P2, PT, R11, R8, PT;
	@P2 BRA done;
	IADD R12, R11, R8;
	SHR.U32 R12, R12, 0x1;
	ISCADD R13, R12, R7, 0x2;
	LD R14, [R13];
	ISETP.LT.U32.AND P3, PT, R14, R10, PT;
	ISETP.LE.U32.AND P4, PT, R14, R10, PT;
	PSETP.AND.AND P5, PT, P1, P3, PT;
	PSETP.AND.OR P5, PT, !P1, P4, P5;
	@P5 IADD R11, R12, 0x1;
	@!P5 MOV R8, R12;
	BRA loop;
done:
	IADD R15, R6, R11;
	MOV R16, c[0x0][0x30];
	ISCADD R16, R15, R16, 0x2;
	ST [R16], R10;
	EXIT;
`

func TestMerge(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	for _, c := range []struct{ n, m int }{{5000, 3001}, {1, 700}, {640, 0}, {2048, 2048}} {
		a, b := make([]uint32, c.n), make([]uint32, c.m)
		for i := range a {
			a[i] = uint32(rng.Intn(4000))
		}
		for i := range b {
			b[i] = uint32(rng.Intn(4000))
		}
		sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
		sort.Slice(b, func(i, j int) bool { return b[i] < b[j] })
		d := newDevice()
		d.alloc("a", fromU32(a))
		d.alloc("b", fromU32(b))
		d.alloc("c", make([]byte, 4*(c.n+c.m)))
		total := c.n + c.m
		if _, err := d.run(t, launch{program: []byte(mergeSorted), grid: emu.Dim3{uint32((total + 127) / 128), 1, 1},
			block: emu.Dim3{128, 1, 1}, params: []any{buf("a"), uint32(c.n), buf("b"), uint32(c.m), buf("c")}}); err != nil {
			t.Fatal(err)
		}
		want := append(append([]uint32(nil), a...), b...)
		sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
		if err := sameWords(u32s(d.bytes("c")), want); err != nil {
			t.Errorf("merge %d + %d: %v", c.n, c.m, err)
		}
	}
}

// spmvCSR: y = A x for a CSR matrix, a row per thread, the products summed
// in order by FFMA; x is read through a buffer texture (TLD.LZ ... 1D, as
// tex1Dfetch compiles for sm_2x).
const spmvCSR = `
	MOV R1, c[0x1][0x100];
	S2R R0, SR_TID.X;
	S2R R2, SR_CTAID.X;
	IMAD R0, R2, c[0x0][0x8], R0;
	ISETP.GE.U32.AND P0, PT, R0, c[0x0][0x30], PT;
	@P0 EXIT;
	ISCADD R2, R0, c[0x0][0x20], 0x2;
	LD R4, [R2];
	LD R5, [R2+0x4];
	MOV R6, RZ;
	ISETP.GE.U32.AND P1, PT, R4, R5, PT;
	@P1 BRA store;
loop:
	ISCADD R7, R4, c[0x0][0x24], 0x2;
	LD R8, [R7];
	ISCADD R9, R4, c[0x0][0x28], 0x2;
	LD R10, [R9];
	TLD.LZ.T R11, R8, 0x0, 1D, 0x1;
	FFMA R6, R10, R11, R6;
	IADD R4, R4, 0x1;
	ISETP.LT.U32.AND P1, PT, R4, R5, PT;
	@P1 BRA loop;
store:
	ISCADD R12, R0, c[0x0][0x2c], 0x2;
	ST [R12], R6;
	EXIT;
`

func TestSpMV(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	const rows, cols = 3000, 2000
	rowptr := make([]uint32, rows+1)
	var col []uint32
	var val []float32
	for r := range rows {
		n := rng.Intn(40)
		if r%97 == 0 {
			n = 0
		}
		for range n {
			col = append(col, uint32(rng.Intn(cols)))
			val = append(val, float32(rng.NormFloat64()))
		}
		rowptr[r+1] = uint32(len(col))
	}
	x := make([]float32, cols)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	d := newDevice()
	d.alloc("rowptr", fromU32(rowptr))
	d.alloc("col", fromU32(col))
	d.alloc("val", fromF32(val))
	d.alloc("y", make([]byte, 4*rows))
	d.alloc("x", fromF32(x))
	if _, err := d.run(t, launch{program: []byte(spmvCSR), grid: emu.Dim3{(rows + 127) / 128, 1, 1}, block: emu.Dim3{128, 1, 1},
		params:   []any{buf("rowptr"), buf("col"), buf("val"), buf("y"), uint32(rows)},
		textures: []emu.TexImage{{Name: "xvec", Buffer: "x", Format: "r32f", Size: []int{cols}}}}); err != nil {
		t.Fatal(err)
	}
	got := f32s(d.bytes("y"))
	for r := range rows {
		acc := uint32(0)
		for k := rowptr[r]; k < rowptr[r+1]; k++ {
			acc = refFloat(2, math.Float32bits(val[k]), math.Float32bits(x[col[k]]), acc, 0, false, false)
		}
		if math.Float32bits(got[r]) != acc {
			t.Fatalf("row %d: %g, want %g (fused, in order)", r, got[r], math.Float32frombits(acc))
		}
	}
}

// blockScan: the inclusive scan of each block's 256 words in shared memory
// (Hillis-Steele: log2(256) steps, BAR between reading and writing), the
// block's total written by its last thread. scanAddOffsets adds to every
// word the scanned total of the blocks before its block. Together, with
// blockScan run again on the block totals, a scan over many blocks
// (mgpu's global scan in three launches, written by us).
const blockScan = `
	S2R R0, SR_TID.X;
	S2R R20, SR_CTAID.X;
	ISCADD R3, R20, R0, 0x8;
	ISCADD R4, R3, c[0x0][0x20], 0x2;
	LD R5, [R4];
	SHL R2, R0, 0x2;
	STS [R2], R5;
	MOV32I R7, 0x1;
step:
	BAR.RED.POPC RZ, RZ;
	ISETP.GE.U32.AND P0, PT, R0, R7, PT;
	SHL R8, R7, 0x2;
	IADD R8, R2, -R8;
	@P0 LDS R9, [R8];
	BAR.RED.POPC RZ, RZ;
	@P0 IADD R5, R5, R9;
	@P0 STS [R2], R5;
	SHL R7, R7, 0x1;
	ISETP.LT.U32.AND P1, PT, R7, 0x100, PT;
	@P1 BRA step;
	ISCADD R10, R3, c[0x0][0x24], 0x2;
	ST [R10], R5;
	ISETP.NE.AND P2, PT, R0, 0xff, PT;
	@P2 EXIT;
	ISCADD R11, R20, c[0x0][0x28], 0x2;
	ST [R11], R5;
	EXIT;
`

const scanAddOffsets = `
	S2R R0, SR_TID.X;
	S2R R20, SR_CTAID.X;
	ISETP.EQ.AND P0, PT, R20, RZ, PT;
	@P0 EXIT;
	ISCADD R3, R20, R0, 0x8;
	ISCADD R4, R3, c[0x0][0x20], 0x2;
	ISCADD R6, R20, c[0x0][0x24], 0x2;
	LD R5, [R4];
	LD R7, [R6+-0x4];
	IADD R5, R5, R7;
	ST [R4], R5;
	EXIT;
`

func TestScan(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for _, blocks := range []int{64, 3, 1, 256} {
		n := 256 * blocks
		in := make([]uint32, n)
		for i := range in {
			in[i] = rng.Uint32() >> uint(rng.Intn(32))
		}
		d := newDevice()
		d.alloc("in", fromU32(in))
		d.alloc("out", make([]byte, 4*n))
		d.alloc("totals", make([]byte, 4*256))
		d.alloc("scannedTotals", make([]byte, 4*256))
		d.alloc("grand", make([]byte, 4))
		block := emu.Dim3{256, 1, 1}
		for _, l := range []launch{
			{program: []byte(blockScan), grid: emu.Dim3{uint32(blocks), 1, 1}, block: block, shared: 1024,
				params: []any{buf("in"), buf("out"), buf("totals")}},
			{program: []byte(blockScan), block: block, shared: 1024, params: []any{buf("totals"), buf("scannedTotals"), buf("grand")}},
			{program: []byte(scanAddOffsets), grid: emu.Dim3{uint32(blocks), 1, 1}, block: block,
				params: []any{buf("out"), buf("scannedTotals")}},
		} {
			if _, err := d.run(t, l); err != nil {
				t.Fatal(err)
			}
		}
		want := make([]uint32, n)
		var sum uint32
		for i, v := range in {
			sum += v
			want[i] = sum
		}
		if err := sameWords(u32s(d.bytes("out")), want); err != nil {
			t.Errorf("%d blocks: %v", blocks, err)
		}
		if got := u32s(d.bytes("grand"))[0]; got != sum {
			t.Errorf("%d blocks: total %#x, want %#x", blocks, got, sum)
		}
	}
}
