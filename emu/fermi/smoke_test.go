package fermi

import (
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

const vecAdd = `
	MOV R1, c[0x1][0x100];
	S2R R0, SR_CTAID.X;
	S2R R2, SR_TID.X;
	IMAD R0, R0, c[0x0][0x8], R2;
	ISETP.GE.AND P0, PT, R0, c[0x0][0x2c], PT;
	@P0 EXIT;
	SHL R3, R0, 0x2;
	IADD R4, R3, c[0x0][0x20];
	IADD R5, R3, c[0x0][0x24];
	LD R6, [R4];
	LD R7, [R5];
	IADD R8, R6, R7;
	IADD R9, R3, c[0x0][0x28];
	ST [R9], R8;
	EXIT;
`

func TestSmokeVecAdd(t *testing.T) {
	const n = 1000
	a, b := make([]uint32, n), make([]uint32, n)
	for i := range a {
		a[i], b[i] = uint32(i*7), uint32(3*i+1)
	}
	d := newDevice()
	d.alloc("a", fromU32(a))
	d.alloc("b", fromU32(b))
	d.alloc("c", make([]byte, 4*n))
	_, err := d.run(t, launch{program: []byte(vecAdd), grid: emu.Dim3{8, 1, 1}, block: emu.Dim3{128, 1, 1},
		params: []any{buf("a"), buf("b"), buf("c"), n}})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint32, n)
	for i := range want {
		want[i] = a[i] + b[i]
	}
	if err := sameWords(u32s(d.bytes("c")), want); err != nil {
		t.Fatal(err)
	}
}
