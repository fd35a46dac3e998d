package tesla

import (
	"math"
	"math/big"
	"testing"
)

// Instruction-family tests. Expected values follow seed 002's pseudo-code
// (flags C/O/S/Z, widths, saturation) and are written out by hand or computed
// here with math/big, independently of the emulator's code.

const (
	cZ = flagZ
	cS = flagS
	cC = flagC
	cO = flagO
)

func f32b(x float32) uint32 { return math.Float32bits(x) }

type instCase struct {
	name  string
	src   string
	regs  map[int]uint32
	want  map[int]uint32 // register -> value (lane 0)
	flags int            // expected C0 flags, -1 = don't check
}

func TestInstructions(t *testing.T) {
	cases := []instCase{
		// --- integer add family (3.1) ---
		{"iadd carry zero", "IADD.C0 R1, R2, R3;", map[int]uint32{2: 0xffffffff, 3: 1}, map[int]uint32{1: 0}, cZ | cC},
		{"iadd overflow", "IADD.C0 R1, R2, R3;", map[int]uint32{2: 0x7fffffff, 3: 1}, map[int]uint32{1: 0x80000000}, cO | cS},
		{"iadd sat", "IADD.SAT R1, R2, R3;", map[int]uint32{2: 0x7fffffff, 3: 1}, map[int]uint32{1: 0x7fffffff}, -1},
		{"iadd sat negative", "IADD.SAT R1, R2, R3;", map[int]uint32{2: 0x80000000, 3: 0xffffffff}, map[int]uint32{1: 0x80000000}, -1},
		{"isub borrow", "IADD.C0 R1, R2, -R3;", map[int]uint32{2: 5, 3: 7}, map[int]uint32{1: 0xfffffffe}, cS},
		{"isub no borrow", "IADD.C0 R1, R2, -R3;", map[int]uint32{2: 7, 3: 5}, map[int]uint32{1: 2}, cC},
		{"isubr", "IADD R1, -R2, R3;", map[int]uint32{2: 7, 3: 5}, map[int]uint32{1: 0xfffffffe}, -1},
		{"iadd u16 halves", "IADD.U16.C0 R1L, R2L, R3H;", map[int]uint32{1: 0xabcd0000, 2: 0x1234ffff, 3: 0x00020000},
			map[int]uint32{1: 0xabcd0001}, cC},
		{"iadd32i", "IADD32I R1, R2, 0xfffffff0;", map[int]uint32{2: 0x20}, map[int]uint32{1: 0x10}, -1},
		{"iadd32 shared param", "IADD32 R1, g [0x4], R2;", map[int]uint32{2: 0x20}, map[int]uint32{1: 0x20 + 0x1234}, -1},
		// cuobjdump names the carry register pr+1: "(C1)" reads C0 (see spec.txt)
		{"addc uses C", "IADD.C0 o[0x7f], R2, R3;\nIADD R1 (C1), -R4, R5;",
			map[int]uint32{2: 0xffffffff, 3: 1, 4: 0, 5: 10}, map[int]uint32{1: 11}, -1},
		// --- multiplies (3.2, 3.3) ---
		{"imul u16", "IMUL.U16.U16 R1, R2L, R3L;", map[int]uint32{2: 0xffff, 3: 3}, map[int]uint32{1: 0x2fffd}, -1},
		{"imul s16", "IMUL.S16.S16 R1, R2L, R3H;", map[int]uint32{2: 0xffff, 3: 0x30000}, map[int]uint32{1: 0xfffffffd}, -1},
		{"imul s16 u16", "IMUL.S16.U16 R1, R2L, R3L;", map[int]uint32{2: 0xffff, 3: 0xffff}, map[int]uint32{1: 0xffff0001}, -1},
		{"imul32i s16 imm", "IMUL32I.S16.S16 R1, R2L, 0xfffffffc;", map[int]uint32{2: 3}, map[int]uint32{1: 0xfffffff4}, -1},
		{"imul s24", "IMUL.S24.S24 R1, R2, R3;", map[int]uint32{2: 0x00800000, 3: 2}, map[int]uint32{1: 0xff000000}, -1},
		{"imul hi s24", "IMUL.HI.S24.S24 R1, R2, R3;", map[int]uint32{2: 0x00800000, 3: 2}, map[int]uint32{1: 0xffffff00}, -1},
		{"imul u24 ignores high byte", "IMUL.U24.U24 R1, R2, R3;", map[int]uint32{2: 0xff000003, 3: 0x05000004}, map[int]uint32{1: 12}, -1},
		// --- multiply-add (3.4) ---
		{"imad u24 add", "IMAD.U24 R1, R2, R3, R4;", map[int]uint32{2: 3, 3: 4, 4: 5}, map[int]uint32{1: 17}, -1},
		{"imad u24 sub", "IMAD.U24 R1, R2, R3, -R4;", map[int]uint32{2: 3, 3: 4, 4: 5}, map[int]uint32{1: 7}, -1},
		{"imad u24 subr", "IMAD.U24 R1, -R2, R3, R4;", map[int]uint32{2: 3, 3: 4, 4: 5}, map[int]uint32{1: 0xfffffff9}, -1},
		{"imad u16 halves", "IMAD.U16 R1, R2H, R3L, R4;", map[int]uint32{2: 0x00070000, 3: 6, 4: 100}, map[int]uint32{1: 142}, -1},
		{"imad s16", "IMAD.S16 R1, R2L, R3L, R4;", map[int]uint32{2: 0xfffe, 3: 3, 4: 10}, map[int]uint32{1: 4}, -1},
		{"imad sat s24", "IMAD.SAT.S24.C0 R1, R2, R3, R4;", map[int]uint32{2: 0x1000, 3: 0x1000, 4: 0x7fffffff},
			map[int]uint32{1: 0x7fffffff}, cO},
		{"imad32i u16", "IMAD32I.U16 R1, R2L, 0x20, R1;", map[int]uint32{1: 5, 2: 3}, map[int]uint32{1: 101}, -1},
		// --- SAD (3.5), SET (3.7), MIN/MAX (3.6) ---
		{"isad s32", "ISAD.S32 R1, R2, R3, R4;", map[int]uint32{2: 0xfffffffd, 3: 4, 4: 10}, map[int]uint32{1: 17}, -1},
		{"isad u32", "ISAD.U32 R1, R2, R3, R4;", map[int]uint32{2: 3, 3: 10, 4: 1}, map[int]uint32{1: 8}, -1},
		{"iset s32 lt", "ISET.S32.C0 R1, R2, R3, LT;", map[int]uint32{2: 0xffffffff, 3: 1}, map[int]uint32{1: 0xffffffff}, cS},
		{"iset u32 lt", "ISET.C0 R1, R2, R3, LT;", map[int]uint32{2: 0xffffffff, 3: 1}, map[int]uint32{1: 0}, cZ},
		{"iset u16", "ISET.U16 R1L, R2L, R3H, GE;", map[int]uint32{2: 5, 3: 0x50000}, map[int]uint32{1: 0xffff}, -1},
		{"imin s32", "IMIN.S32 R1, R2, R3;", map[int]uint32{2: 0xfffffff0, 3: 3}, map[int]uint32{1: 0xfffffff0}, -1},
		{"imax u32", "IMAX R1, R2, R3;", map[int]uint32{2: 0xfffffff0, 3: 3}, map[int]uint32{1: 0xfffffff0}, -1},
		{"imax s16", "IMAX.S16 R1L, R2L, R3L;", map[int]uint32{2: 0x8000, 3: 3}, map[int]uint32{1: 3}, -1},
		// --- bit operations (4.1) and shifts (4.2) ---
		{"lop and not", "LOP.AND R1, ~R2, R3;", map[int]uint32{2: 0xff00ff00, 3: 0x12345678}, map[int]uint32{1: 0x00340078}, -1},
		{"lop xor", "LOP.XOR.C0 R1, R2, R3;", map[int]uint32{2: 0xf0, 3: 0xf0}, map[int]uint32{1: 0}, cZ},
		{"lop pass_b not", "LOP.PASS_B R1, R2, ~R3;", map[int]uint32{2: 1, 3: 0}, map[int]uint32{1: 0xffffffff}, -1},
		{"lop32i or", "LOP32I.OR R1, R2, 0x80000000;", map[int]uint32{2: 1}, map[int]uint32{1: 0x80000001}, -1},
		{"shl carry out", "SHL.C0 R1, R2, 0x1f;", map[int]uint32{2: 2}, map[int]uint32{1: 0}, cZ | cC},
		{"shl by 32: no carry", "SHL.C0 R1, R2, R3;", map[int]uint32{2: 1, 3: 32}, map[int]uint32{1: 0}, cZ},
		{"shl overflow by 1", "SHL.C0 R1, R2, 0x1;", map[int]uint32{2: 0x40000000}, map[int]uint32{1: 0x80000000}, cS | cO},
		{"shr s32 fill", "SHR.S32.C0 R1, R2, 0x4;", map[int]uint32{2: 0x80000010}, map[int]uint32{1: 0xf8000001}, cS},
		{"shr s32 by 40", "SHR.S32 R1, R2, R3;", map[int]uint32{2: 0x80000000, 3: 40}, map[int]uint32{1: 0xffffffff}, -1},
		{"shr carry", "SHR.C0 R1, R2, 0x1;", map[int]uint32{2: 3}, map[int]uint32{1: 1}, cC},
		{"shr u16", "SHR.U16 R1H, R2L, 0x4;", map[int]uint32{1: 0x1234, 2: 0xfff0}, map[int]uint32{1: 0x0fff1234}, -1},
		// --- moves, halves, R124, o[] ---
		{"mov half", "MOV.U16 R1H, R2L;", map[int]uint32{1: 0x1111, 2: 0xabcd}, map[int]uint32{1: 0xabcd1111}, -1},
		{"mov R124", "MOV R1, R124;", map[int]uint32{1: 5, 124: 7}, map[int]uint32{1: 0}, -1},
		{"mvi", "MVI R1, -0x3;", nil, map[int]uint32{1: 0xfffffffd}, -1},
		{"o[] bit bucket sets flags", "IADD.C0 o[0x7f], R2, -R3;", map[int]uint32{2: 3, 3: 3}, map[int]uint32{}, cZ | cC},
		{"mvc const", "MVC R1, c[0x1][0x1];", nil, map[int]uint32{1: 0xdeadbeef}, -1},
		{"const u16 in 16-bit op", "IADD.U16 R1L, R2L, c[0x1][0x2];", map[int]uint32{2: 1}, map[int]uint32{1: 0xbeef + 1}, -1},
		{"r2c", "R2C C1, R2;\nMOV R1 (C1.EQ), R3;", map[int]uint32{2: 0x1, 3: 9}, map[int]uint32{1: 9}, -1},
		{"r2c sign", "R2C C1, R2;\nMOV R1 (C1.EQ), R3;", map[int]uint32{2: 0x3, 3: 9}, map[int]uint32{1: 0}, -1},
		{"r2a a2r ada", "R2A A1, R2, 0x2;\nADA A2, A1, 0x10;\nA2R R1, A2;", map[int]uint32{2: 3}, map[int]uint32{1: 0x1c}, -1},
		// --- conversions ---
		{"i2i s16 sign extend", "I2I.S32.S16 R1, R2L;", map[int]uint32{2: 0x8001}, map[int]uint32{1: 0xffff8001}, -1},
		{"i2i abs", "I2I.U32.S32 R1, |R2|;", map[int]uint32{2: 0xfffffffb}, map[int]uint32{1: 5}, -1},
		{"i2i neg clamps", "I2I.S32.S32 R1, -R2;", map[int]uint32{2: 0x80000000}, map[int]uint32{1: 0x7fffffff}, -1},
		{"i2i u16 clamp", "I2I.U16.S32 R1L, R2;", map[int]uint32{1: 0x12340000, 2: 70000}, map[int]uint32{1: 0x1234ffff}, -1},
		{"i2i u16 negative clamps to 0", "I2I.U16.S32 R1L, R2;", map[int]uint32{1: 0x12345678, 2: 0xffffffff}, map[int]uint32{1: 0x12340000}, -1},
		{"i2i byte extract", "I2I.U32.U16.BEXT R1, R2H;", map[int]uint32{2: 0x12340000}, map[int]uint32{1: 0x34}, -1},
		{"i2f s32", "I2F.F32.S32 R1, R2;", map[int]uint32{2: 0xfffffff9}, map[int]uint32{1: f32b(-7)}, -1},
		{"i2f u32 trunc", "I2F.F32.U32.TRUNC R1, R2;", map[int]uint32{2: 0xffffffff}, map[int]uint32{1: f32b(4294967040)}, -1},
		{"i2f u32 nearest", "I2F.F32.U32 R1, R2;", map[int]uint32{2: 0xffffffff}, map[int]uint32{1: f32b(4294967296)}, -1},
		{"f2i nearest even", "F2I.S32.F32 R1, R2;", map[int]uint32{2: f32b(2.5)}, map[int]uint32{1: 2}, -1},
		{"f2i floor", "F2I.S32.F32.FLOOR R1, R2;", map[int]uint32{2: f32b(-2.5)}, map[int]uint32{1: 0xfffffffd}, -1},
		{"f2i u32 clamps negative", "F2I.U32.F32.TRUNC R1, R2;", map[int]uint32{2: f32b(-1.5)}, map[int]uint32{1: 0}, -1},
		{"f2i s32 clamps large", "F2I.S32.F32.TRUNC R1, R2;", map[int]uint32{2: f32b(1e10)}, map[int]uint32{1: 0x7fffffff}, -1},
		{"f2i nan is 0", "F2I.S32.F32 R1, R2;", map[int]uint32{2: 0x7fc00000}, map[int]uint32{1: 0}, -1},
		{"f2f abs", "F2F.F32.F32 R1, |R2|;", map[int]uint32{2: f32b(-3)}, map[int]uint32{1: f32b(3)}, -1},
		{"f2f ceil to integer", "F2F.F32.F32.CEIL.IR R1, R2;", map[int]uint32{2: f32b(1.25)}, map[int]uint32{1: f32b(2)}, -1},
		{"f2f floor to integer neg", "F2F.F32.F32.FLOOR.IR R1, -R2;", map[int]uint32{2: f32b(1.25)}, map[int]uint32{1: f32b(-2)}, -1},
		{"f2f sat", "F2F.F32.F32.SAT R1, R2;", map[int]uint32{2: f32b(1.25)}, map[int]uint32{1: f32b(1)}, -1},
		{"f2f f64 to f32 trunc", "F2F.F32.F64.TRUNC R1, R2;", map[int]uint32{2: 0x00000001, 3: 0x3ff00000}, map[int]uint32{1: f32b(1)}, -1},
		{"f2f f64 to f32 ceil", "F2F.F32.F64.CEIL R1, R2;", map[int]uint32{2: 0x00000001, 3: 0x3ff00000}, map[int]uint32{1: 0x3f800001}, -1},
		{"f2f f32 to f64", "F2F.F64.F32 R4, R2;", map[int]uint32{2: f32b(-1.5)}, map[int]uint32{4: 0, 5: 0xbff80000}, -1},
		{"f2i f64 to s32", "F2I.S32.F64.FLOOR R1, R2;", map[int]uint32{2: 0, 3: 0xc0040000}, map[int]uint32{1: 0xfffffffd}, -1},
		{"f2i f32 to u64", "F2I.U64.F32 R4, R2;", map[int]uint32{2: f32b(1e10)}, map[int]uint32{4: 0x540be400, 5: 0x2}, -1},
		{"i2f s64 to f64", "I2F.F64.S64 R4, R2;", map[int]uint32{2: 0xfffffffe, 3: 0xffffffff}, map[int]uint32{4: 0, 5: 0xc0000000}, -1},
		{"i2f u32 to f64", "I2F.F64.U32 R4, R2;", map[int]uint32{2: 0xffffffff}, map[int]uint32{4: 0xffe00000, 5: 0x41efffff}, -1},
		{"i2i to u8 clamps", "I2I.U8.S32 R1, R2;", map[int]uint32{2: 300}, map[int]uint32{1: 255}, -1},
		{"i2i to s8", "I2I.S8.S32 R1, R2;", map[int]uint32{2: 0xffffff00}, map[int]uint32{1: 0xffffff80}, -1},
		{"i2i u32 byte", "I2I.U32.U32.BEXT R1, R2;", map[int]uint32{2: 0x123456f0}, map[int]uint32{1: 0xf0}, -1},
		{"i2i s32 byte", "I2I.S32.S32.BEXT R1, R2;", map[int]uint32{2: 0x123456f0}, map[int]uint32{1: 0xfffffff0}, -1},
		{"f2f to f16", "F2F.F16.F32 R1L, R2;", map[int]uint32{2: f32b(1.5)}, map[int]uint32{1: 0x3e00}, -1},
		// --- single precision ---
		{"fadd", "FADD R1, R2, R3;", map[int]uint32{2: f32b(1.5), 3: f32b(2.25)}, map[int]uint32{1: f32b(3.75)}, -1},
		{"fadd neg", "FADD R1, R2, -R3;", map[int]uint32{2: f32b(1.5), 3: f32b(2.25)}, map[int]uint32{1: f32b(-0.75)}, -1},
		{"fadd32 nearest", "FADD32 R1, R2, R3;", map[int]uint32{2: f32b(1), 3: 0x33c00000}, map[int]uint32{1: 0x3f800001}, -1},
		{"fadd trunc", "FADD.TRUNC R1, R2, R3;", map[int]uint32{2: f32b(1), 3: 0x33c00000}, map[int]uint32{1: 0x3f800000}, -1},
		{"fadd32 sat", "FADD32.SAT R1, R2, R3;", map[int]uint32{2: f32b(0.75), 3: f32b(0.75)}, map[int]uint32{1: f32b(1)}, -1},
		{"fmul sat", "FMUL.SAT R1, R2, R3;", map[int]uint32{2: f32b(-0.75), 3: f32b(0.75)}, map[int]uint32{1: 0}, -1},
		{"fmad sat", "FMAD.SAT R1, R2, R3, R4;", map[int]uint32{2: f32b(2), 3: f32b(2), 4: f32b(-3.5)}, map[int]uint32{1: f32b(0.5)}, -1},
		{"ex2 sat", "EX2.SAT R1, R2;", map[int]uint32{2: f32b(3)}, map[int]uint32{1: f32b(1)}, -1},
		{"rcp abs neg", "RCP R1, -|R2|;", map[int]uint32{2: f32b(-4)}, map[int]uint32{1: f32b(-0.25)}, -1},
		{"fmax abs", "FMAX R1, |R2|, -|R3|;", map[int]uint32{2: f32b(-4), 3: f32b(-5)}, map[int]uint32{1: f32b(4)}, -1},
		{"dadd ceil", "DADD.CEIL R2, R4, R6;", map[int]uint32{4: 0, 5: 0x3ff00000, 6: 1, 7: 0x3c900000}, map[int]uint32{2: 1, 3: 0x3ff00000}, -1},
		{"dadd nearest", "DADD R2, R4, R6;", map[int]uint32{4: 0, 5: 0x3ff00000, 6: 1, 7: 0x3c900000}, map[int]uint32{2: 0, 3: 0x3ff00000}, -1},
		{"dmul trunc", "DMUL.TRUNC R2, R4, R6;", map[int]uint32{4: 0x55555555, 5: 0x3fd55555, 6: 0, 7: 0x40080000}, map[int]uint32{2: 0xffffffff, 3: 0x3fefffff}, -1},
		{"dmax abs", "DMAX R2, |R4|, R6;", map[int]uint32{4: 0, 5: 0xc0000000, 6: 0, 7: 0x3ff00000}, map[int]uint32{2: 0, 3: 0x40000000}, -1},
		{"dset lt", "DSET R1, R4, R6, LT;", map[int]uint32{4: 0, 5: 0xc0000000, 6: 0, 7: 0x3ff00000}, map[int]uint32{1: 0xffffffff}, -1},
		{"fadd sat", "FADD.SAT R1, R2, R3;", map[int]uint32{2: f32b(0.75), 3: f32b(0.75)}, map[int]uint32{1: f32b(1)}, -1},
		{"fadd flushes denormal", "FADD R1, R2, R3;", map[int]uint32{2: 0x00000100, 3: 0}, map[int]uint32{1: 0}, -1},
		{"fmul", "FMUL R1, R2, R3;", map[int]uint32{2: f32b(1.5), 3: f32b(-4)}, map[int]uint32{1: f32b(-6)}, -1},
		{"fmul denormal result flushed", "FMUL R1, R2, R3;", map[int]uint32{2: f32b(1e-30), 3: f32b(1e-10)}, map[int]uint32{1: 0}, -1},
		{"fmul32i", "FMUL32I R1, R2, 0x40000000;", map[int]uint32{2: f32b(1.25)}, map[int]uint32{1: f32b(2.5)}, -1},
		{"fmad 0*inf is nan", "FMAD R1, R2, R3, R4;", map[int]uint32{2: 0, 3: 0x7f800000, 4: f32b(1)}, map[int]uint32{1: 0x7fffffff}, -1},
		{"fmad denormal factor", "FMAD R1, R2, R3, R4;", map[int]uint32{2: 0x00000100, 3: f32b(2), 4: 0}, map[int]uint32{1: 0}, -1},
		{"fmad overflow truncates", "FMAD R1, R2, R3, R4;", map[int]uint32{2: f32b(3e38), 3: f32b(3e38), 4: 0}, map[int]uint32{1: 0x7f7fffff}, -1},
		{"fmad tiny product flushed", "FMAD R1, R2, R3, R4;", map[int]uint32{2: f32b(1e-30), 3: f32b(1e-20), 4: f32b(1)}, map[int]uint32{1: f32b(1)}, -1},
		{"fmad negative zero", "FMAD R1, R2, R3, R4;", map[int]uint32{2: 0x80000000, 3: f32b(5), 4: 0x80000000}, map[int]uint32{1: 0x80000000}, -1},
		{"fmad inf", "FMAD R1, R2, R3, R4;", map[int]uint32{2: 0xff800000, 3: f32b(2), 4: f32b(1)}, map[int]uint32{1: 0xff800000}, -1},
		{"fmad sum denormal flushed", "FMAD R1, R2, R3, R4;", map[int]uint32{2: f32b(1.5e-38), 3: f32b(1), 4: f32b(-1.4e-38)}, map[int]uint32{1: 0}, -1},
		{"fset lt", "FSET R1, R2, R3, LT;", map[int]uint32{2: f32b(1), 3: f32b(2)}, map[int]uint32{1: 0xffffffff}, -1},
		{"fset nan lt", "FSET R1, R2, R3, LT;", map[int]uint32{2: 0x7fc00000, 3: f32b(2)}, map[int]uint32{1: 0}, -1},
		{"fset nan ltu", "FSET R1, R2, R3, LTU;", map[int]uint32{2: 0x7fc00000, 3: f32b(2)}, map[int]uint32{1: 0xffffffff}, -1},
		{"fset abs", "FSET R1, |R2|, R3, GT;", map[int]uint32{2: f32b(-3), 3: f32b(2)}, map[int]uint32{1: 0xffffffff}, -1},
		{"fmax nan", "FMAX R1, R2, R3;", map[int]uint32{2: 0x7fc00000, 3: f32b(2)}, map[int]uint32{1: f32b(2)}, -1},
		{"fmin", "FMIN R1, R2, -R3;", map[int]uint32{2: f32b(1), 3: f32b(2)}, map[int]uint32{1: f32b(-2)}, -1},
		{"float flags", "FADD.C0 o[0x7f], R2, -R3;", map[int]uint32{2: f32b(1), 3: f32b(2)}, map[int]uint32{}, cS},
		{"float flags nan", "FADD.C0 o[0x7f], R2, R3;", map[int]uint32{2: 0x7fc00000, 3: f32b(2)}, map[int]uint32{}, cS | cZ},
		// --- special functions: special values ---
		{"rcp zero", "RCP R1, R2;", map[int]uint32{2: 0}, map[int]uint32{1: 0x7f800000}, -1},
		{"rcp -4", "RCP R1, R2;", map[int]uint32{2: f32b(-4)}, map[int]uint32{1: f32b(-0.25)}, -1},
		{"rcp32", "RCP32 R1, R2;", map[int]uint32{2: f32b(8)}, map[int]uint32{1: f32b(0.125)}, -1},
		{"rsq 4", "RSQ R1, R2;", map[int]uint32{2: f32b(4)}, map[int]uint32{1: f32b(0.5)}, -1},
		{"rsq negative", "RSQ R1, R2;", map[int]uint32{2: f32b(-4)}, map[int]uint32{1: 0x7fffffff}, -1},
		{"nan canonical", "FADD R1, R2, R3;", map[int]uint32{2: 0xffc00001, 3: 0}, map[int]uint32{1: 0x7fffffff}, -1},
		{"lg2 8", "LG2 R1, R2;", map[int]uint32{2: f32b(8)}, map[int]uint32{1: f32b(3)}, -1},
		{"lg2 0", "LG2 R1, R2;", map[int]uint32{2: 0}, map[int]uint32{1: 0xff800000}, -1},
		{"ex2 via rro", "RRO R1, R2, EX2;\nEX2 R1, R1;", map[int]uint32{2: f32b(-3)}, map[int]uint32{1: f32b(0.125)}, -1},
		{"sin via rro", "RRO R1, R2, SIN;\nSIN R1, R1;", map[int]uint32{2: 0}, map[int]uint32{1: 0}, -1},
		{"cos via rro", "RRO R1, R2, SIN;\nCOS R1, R1;", map[int]uint32{2: 0}, map[int]uint32{1: f32b(1)}, -1},
		// --- double precision (sm_13) ---
		{"dadd", "DADD R2, R4, R6;", map[int]uint32{4: 0, 5: 0x3ff80000, 6: 0, 7: 0x40000000}, map[int]uint32{2: 0, 3: 0x400c0000}, -1},
		{"dfma", "DFMA R2, R4, R6, R8;", map[int]uint32{4: 0, 5: 0x40000000, 6: 0, 7: 0x40080000, 8: 0, 9: 0x3ff00000},
			map[int]uint32{2: 0, 3: 0x401c0000}, -1},
		// --- guards ---
		// the guard tests the flags of the SET result: NE when the comparison held
		{"guard skips", "ISET.C0 o[0x7f], R2, R3, EQ;\nMVI R1, 0x5;\nMOV R1 (C0.NE), R124;", map[int]uint32{2: 1, 3: 2}, map[int]uint32{1: 5}, -1},
		{"guard runs", "ISET.C0 o[0x7f], R2, R3, EQ;\nMVI R1, 0x5;\nMOV R1 (C0.EQ), R124;", map[int]uint32{2: 1, 3: 2}, map[int]uint32{1: 0}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			consts := make([]byte, 64)
			copy(consts[4:], []byte{0xef, 0xbe, 0xad, 0xde})
			r := runKernel(t, kernelRun{src: c.src + "\nRET;\n", threads: 1, params: []uint32{0x1234},
				consts: map[int][]byte{1: consts}, init: regsInit(c.regs)})
			if r.err != nil {
				t.Fatal(r.err)
			}
			for reg, want := range c.want {
				if got := r.reg(t, 0, reg); got != want {
					t.Errorf("R%d = %#x, want %#x", reg, got, want)
				}
			}
			if c.flags >= 0 {
				if got := r.reg(t, 0, rowCond); got != uint32(c.flags) {
					t.Errorf("C0 = %#x, want %#x", got, c.flags)
				}
			}
		})
	}
}

// TestFMADTruncates checks G80's multiply-add: the product rounded toward
// zero to single precision, then the sum rounded to nearest (math/big).
func TestFMADTruncates(t *testing.T) {
	vals := []uint32{0x3f800801, 0x3fa5a5a5, 0xbf7fffff, 0x40490fdb, 0x3eaaaaab, 0xc2f6e979, 0x3f800001}
	for _, x := range vals {
		for _, y := range vals {
			for _, z := range vals {
				r := runKernel(t, kernelRun{src: "FMAD R1, R2, R3, R4;\nRET;\n", threads: 1,
					init: regsInit(map[int]uint32{2: x, 3: y, 4: z})})
				if r.err != nil {
					t.Fatal(r.err)
				}
				fx, fy, fz := big.NewFloat(float64(math.Float32frombits(x))), big.NewFloat(float64(math.Float32frombits(y))),
					big.NewFloat(float64(math.Float32frombits(z)))
				p := new(big.Float).SetPrec(24).SetMode(big.ToZero).Mul(fx, fy)
				s := new(big.Float).SetPrec(24).SetMode(big.ToNearestEven).Add(p, fz)
				want, _ := s.Float32()
				if got := r.reg(t, 0, 1); got != math.Float32bits(want) {
					t.Errorf("FMAD %#x*%#x+%#x = %#x, want %#x", x, y, z, got, math.Float32bits(want))
				}
			}
		}
	}
}

// TestConditions checks the 32 guard conditions against integer
// comparisons: after IADD.C0 o[0x7f], a, -b the signed, unsigned and
// equality tests must agree with Go's.
func TestConditions(t *testing.T) {
	vals := []uint32{0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 0xfffffffe, 12345}
	type test struct {
		cond string
		want func(a, b uint32) bool
	}
	tests := []test{
		{"LT", func(a, b uint32) bool { return int32(a) < int32(b) }},
		{"LE", func(a, b uint32) bool { return int32(a) <= int32(b) }},
		{"GT", func(a, b uint32) bool { return int32(a) > int32(b) }},
		{"GE", func(a, b uint32) bool { return int32(a) >= int32(b) }},
		{"EQ", func(a, b uint32) bool { return a == b }},
		{"NE", func(a, b uint32) bool { return a != b }},
		{"CARRY", func(a, b uint32) bool { return a >= b }},
		{"NOT_CARRY", func(a, b uint32) bool { return a < b }},
		{"ABOVE", func(a, b uint32) bool { return a > b }},
		{"NOT_ABOVE", func(a, b uint32) bool { return a <= b }},
		{"SIGN", func(a, b uint32) bool { return int32(a-b) < 0 }},
		{"NOT_SIGN", func(a, b uint32) bool { return int32(a-b) >= 0 }},
		{"OVERFLOW", func(a, b uint32) bool { d := int64(int32(a)) - int64(int32(b)); return d != int64(int32(d)) }},
		{"NOT_OVERFLOW", func(a, b uint32) bool { d := int64(int32(a)) - int64(int32(b)); return d == int64(int32(d)) }},
		{"TRUE", func(a, b uint32) bool { return true }},
		{"FALSE", func(a, b uint32) bool { return false }},
	}
	src := "IADD.C0 o[0x7f], R2, -R3;\n"
	for i, tc := range tests {
		src += "MOV R" + itoa(10+i) + " (C0." + tc.cond + "), R9;\n"
	}
	src += "RET;\n"
	for _, a := range vals {
		for _, b := range vals {
			r := runKernel(t, kernelRun{src: src, threads: 1, init: regsInit(map[int]uint32{2: a, 3: b, 9: 1})})
			if r.err != nil {
				t.Fatal(r.err)
			}
			for i, tc := range tests {
				got := r.reg(t, 0, 10+i) == 1
				if got != tc.want(a, b) {
					t.Errorf("%#x vs %#x: %s = %v, want %v", a, b, tc.cond, got, !got)
				}
			}
		}
	}
}

// TestFloatConditions checks the unordered conditions after a float compare.
func TestFloatConditions(t *testing.T) {
	nan := uint32(0x7fc00000)
	pairs := [][2]uint32{{f32b(1), f32b(2)}, {f32b(2), f32b(1)}, {f32b(1), f32b(1)}, {nan, f32b(1)}}
	conds := []string{"LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU"}
	src := "FADD.C0 o[0x7f], R2, -R3;\n"
	for i, c := range conds {
		src += "MOV R" + itoa(10+i) + " (C0." + c + "), R9;\n"
	}
	src += "RET;\n"
	for _, p := range pairs {
		r := runKernel(t, kernelRun{src: src, threads: 1, init: regsInit(map[int]uint32{2: p[0], 3: p[1], 9: 1})})
		if r.err != nil {
			t.Fatal(r.err)
		}
		x, y := float64(math.Float32frombits(p[0])), float64(math.Float32frombits(p[1]))
		u := x != x || y != y
		want := map[string]bool{"LT": !u && x < y, "EQ": !u && x == y, "LE": !u && x <= y, "GT": !u && x > y,
			"NE": !u && x != y, "GE": !u && x >= y, "NUM": !u, "NAN": u, "LTU": u || x < y, "EQU": u || x == y,
			"LEU": u || x <= y, "GTU": u || x > y, "NEU": u || x != y, "GEU": u || x >= y}
		for i, c := range conds {
			if got := r.reg(t, 0, 10+i) == 1; got != want[c] {
				t.Errorf("%v vs %v: %s = %v, want %v", x, y, c, got, want[c])
			}
		}
	}
}

func itoa(i int) string {
	if i >= 10 {
		return itoa(i/10) + string(rune('0'+i%10))
	}
	return string(rune('0' + i))
}
