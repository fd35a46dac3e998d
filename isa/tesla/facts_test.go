package tesla

import "testing"

// Encodings whose meaning comes from outside our own golden corpus: words of
// decuda's CUDA 1.x test kernels (whose PTX says what they do) and values
// built from envytools' opcode tables. They pin the bit positions the spec
// takes from those sources; the texts are our spelling where cuobjdump's is
// unknown (see spec.txt).
func TestDocumentedEncodings(t *testing.T) {
	const (
		always = 0xf << 39 // guard: always
		ne     = 5 << 39   // guard: NE
	)
	for _, c := range []struct {
		v    uint64
		want string
	}{
		// decuda test11: mul.sat.f32 is FMUL32I then a saturating F2F (bit 51)
		{0xc4084780a0000001, "F2F.F32.F32.SAT R0, R0;"},
		// decuda test26c: frc.f32 is F2F with integer rounding (bit 59) toward -inf
		{0xcc224780a000cc05, "F2F.F32.F32.FLOOR.IR R1, g [0x6];"},
		// decuda test8div: slct (op 0xc, op2 2)
		{0x40000780c0020201, "SLCT R0, R1, R2, R0;"},
		// decuda test28: texture fetches, write mask split over bits 25-26 and 46-47
		{0x0000c784f2840411, "TEX.LIVE R4, 0x2, 0x2, 0x2, 0xd, 0x0;"},
		{0x00000784f4000005, "TEX.LIVE R1, 0x0, 0x0, 0x0, 0x2, 0x0;"},
		// envytools: vote any (word0 bit 9), result in $c1, predicate input C0.NE
		{0x6000000010000201 | 1<<36 | 1<<38 | ne, "VOTE.ANY C1 (C0.NE);"},
		{0x6000000010000401 | 1<<38 | always, "VOTE.ALL C0;"},
		// envytools: atom cas b32 ($r1 = cas(g14[$r2], $r3, $r4)): op 0xd op2 7, op 2 in bits 34-37
		{0xe0c00000d0000001 | 1<<2 | 2<<9 | 3<<16 | 14<<23 | 2<<34 | 4<<46 | always,
			"GATOM.CAS.U32 R1, global14[R2], R3, R4;"},
		// envytools: red add u32 (g14[$r2] += $r1): op2 6, segment in bits 16-19
		{0xc0c00000d0000001 | 1<<2 | 2<<9 | 14<<16 | always, "GRED.IADD.U32 global14[R2], R1;"},
		// envytools: ld lock b32 from s[] (sm_12), result in $c0
		{0x4480c04010000001 | 1<<2 | 1<<9 | 1<<26 | always, "G2R.LCK.U32.U32.C0 R1, g[A1+0x1];"},
		// envytools: cvt f32 from f64 (bit 54 with bit 46), rounding bits 49-50
		{0xc0404000a0000001 | 2<<2 | 4<<9 | 1<<49 | always, "F2F.F32.F64.FLOOR R2, R4;"},
		// envytools: fma f64 rounding in bits 54-55
		{0x40c00000e0000001 | 2<<2 | 4<<9 | 6<<16 | 8<<46 | always, "DFMA.TRUNC R2, R4, R6, R8;"},
	} {
		inst, err := DecodeValue(c.v, 0)
		if err != nil {
			t.Errorf("%#x: %v", c.v, err)
			continue
		}
		if got := Print(inst, 0); got != c.want {
			t.Errorf("%#x prints %q, want %q", c.v, got, c.want)
		}
		if v, _, err := AssembleInst(c.want); err != nil || v != c.v {
			t.Errorf("%q assembles to %#x %v, want %#x", c.want, v, err, c.v)
		}
	}
}
