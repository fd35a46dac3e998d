package fermi

import (
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestKernelBlockUniform runs a start of block-uniform arithmetic (kept by
// one warp, copied by the others: uniform.go) mixed with rows that are not
// uniform (the thread index, a guarded write, a partial last warp, lanes
// that leave), then a loop whose branch goes back into the start, which
// must not be taken for uniform: each warp counts its own trips.
func TestKernelBlockUniform(t *testing.T) {
	prog := gtid + `
	MOV R3, c[0x0][0x24];
	IADD R3, R3, 0x7;
	SHL R4, R3, 0x2;
	ISCADD R5, R2, R4, 0x3;
	S2R R11, SR_TID.X;
	ISETP.GE.U32.AND P0, PT, R11, 0x20, PT;
	@P0 IADD R4, R4, 0x1;
	IADD R6, R4, R5;
	IADD R7, R5, R11;
	LOP.XOR R8, R5, 0x55;
	ISETP.EQ.U32.AND P1, PT, R11, 0x45, PT;
	@P1 EXIT;
	ISCADD R9, R0, c[0x0][0x20], 0x4;
	MOV R12, RZ;
loop:
	IADD R12, R12, 0x1;
	ISETP.LT.U32.AND P2, PT, R12, R11, PT;
	@P2 BRA loop;
	ST.128 [R9], R5;
	ISCADD R13, R0, c[0x0][0x28], 0x2;
	ST [R13], R12;
	EXIT;
`
	const block, grid, k = 80, 3, 5
	d := newDevice()
	d.alloc("out", make([]byte, 16*block*grid))
	d.alloc("trips", make([]byte, 4*block*grid))
	if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{grid, 1, 1}, block: emu.Dim3{block, 1, 1},
		params: []any{buf("out"), uint32(k), buf("trips")}}); err != nil {
		t.Fatal(err)
	}
	out, trips := u32s(d.bytes("out")), u32s(d.bytes("trips"))
	for c := range uint32(grid) {
		for tid := range uint32(block) {
			i := c*block + tid
			r3 := uint32(k + 7)
			r4 := r3 << 2
			r5 := c<<3 + r4
			if tid >= 0x20 {
				r4++
			}
			want, wantTrips := []uint32{r5, r4 + r5, r5 + tid, r5 ^ 0x55}, max(tid, 1)
			if tid == 0x45 {
				want, wantTrips = make([]uint32, 4), 0 // it left before its stores
			}
			if err := sameWords(out[4*i:4*i+4], want); err != nil {
				t.Fatalf("block %d thread %d: %v", c, tid, err)
			}
			if trips[i] != wantTrips {
				t.Fatalf("block %d thread %d: %d trips, want %d", c, tid, trips[i], wantTrips)
			}
		}
	}
}
