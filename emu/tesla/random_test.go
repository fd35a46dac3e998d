package tesla

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// Randomized checks of the integer families against seed 002's pseudo-code,
// transcribed here a second time (infinite precision in int64/uint64) so a
// slip in either copy shows. Each run gives 32 lanes 32 random operand pairs.

type refResult struct{ res, flags uint32 }

func s16or32(x uint64, b32 bool) bool { // S(x)
	if b32 {
		return x>>31&1 != 0
	}
	return x>>15&1 != 0
}

func refFlags(res uint64, c, o bool, b32 bool) uint32 {
	var f uint32
	if res == 0 {
		f |= cZ
	}
	if s16or32(res, b32) {
		f |= cS
	}
	if c {
		f |= cC
	}
	if o {
		f |= cO
	}
	return f
}

// refAdd is 3.1 (add, sub, subr; sat).
func refAdd(op int, src1, src2 uint64, b32, sat bool) refResult {
	mask := uint64(0xffff)
	if b32 {
		mask = 0xffffffff
	}
	var s1, s2, c uint64
	switch op {
	case 0:
		s1, s2 = src1, src2
	case 1:
		s1, s2, c = src1, ^src2&mask, 1
	case 2:
		s1, s2, c = ^src1&mask, src2, 1
	}
	res := s1 + s2 + c
	width := uint(16)
	if b32 {
		width = 32
	}
	carry := res>>width != 0
	res &= mask
	ov := s16or32(s1, b32) == s16or32(s2, b32) && s16or32(s1, b32) != s16or32(res, b32)
	if sat && ov {
		if s16or32(res, b32) {
			res = mask >> 1
		} else {
			res = mask>>1 + 1
		}
	}
	return refResult{uint32(res), refFlags(res, carry, ov, b32)}
}

// refShift is 4.2.
func refShift(shl, signed bool, src1, src2 uint64, b32 bool) refResult {
	size := uint64(16)
	mask := uint64(0xffff)
	if b32 {
		size, mask = 32, 0xffffffff
	}
	var res uint64
	carry := false
	if shl {
		if src2 < 64 {
			res = src1 << src2
		}
		if src2 < size {
			carry = (res>>size)&1 != 0
		}
		res &= mask
	} else {
		if src2 < 64 {
			res = src1 >> src2
		}
		if signed && s16or32(src1, b32) {
			if src2 < size {
				res |= (1 << size) - (1 << (size - src2))
			} else {
				res |= (1 << size) - 1
			}
		}
		if src2 < size && src2 > 0 {
			carry = (src1>>(src2-1))&1 != 0
		}
	}
	ov := src2 == 1 && s16or32(src1, b32) != s16or32(res, b32)
	return refResult{uint32(res), refFlags(res, carry, ov, b32)}
}

func TestRandomIntegerOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	interesting := []uint32{0, 1, 2, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 31, 32, 33}
	val := func() uint32 {
		if rng.IntN(3) == 0 {
			return interesting[rng.IntN(len(interesting))]
		}
		return rng.Uint32() >> (rng.IntN(4) * 8)
	}
	type opCase struct {
		text string
		ref  func(a, b uint32) refResult
	}
	cases := []opCase{
		{"IADD.C0 R1, R2, R3;", func(a, b uint32) refResult { return refAdd(0, uint64(a), uint64(b), true, false) }},
		{"IADD.C0 R1, R2, -R3;", func(a, b uint32) refResult { return refAdd(1, uint64(a), uint64(b), true, false) }},
		{"IADD.C0 R1, -R2, R3;", func(a, b uint32) refResult { return refAdd(2, uint64(a), uint64(b), true, false) }},
		{"IADD.SAT.C0 R1, R2, R3;", func(a, b uint32) refResult { return refAdd(0, uint64(a), uint64(b), true, true) }},
		{"IADD.SAT.C0 R1, R2, -R3;", func(a, b uint32) refResult { return refAdd(1, uint64(a), uint64(b), true, true) }},
		{"IADD.U16.C0 R1L, R2L, R3L;", func(a, b uint32) refResult {
			return refAdd(0, uint64(a&0xffff), uint64(b&0xffff), false, false)
		}},
		{"IADD.U16.SAT.C0 R1L, R2L, -R3L;", func(a, b uint32) refResult {
			return refAdd(1, uint64(a&0xffff), uint64(b&0xffff), false, true)
		}},
		{"SHL.C0 R1, R2, R3;", func(a, b uint32) refResult { return refShift(true, false, uint64(a), uint64(b), true) }},
		{"SHR.C0 R1, R2, R3;", func(a, b uint32) refResult { return refShift(false, false, uint64(a), uint64(b), true) }},
		{"SHR.S32.C0 R1, R2, R3;", func(a, b uint32) refResult { return refShift(false, true, uint64(a), uint64(b), true) }},
		{"SHL.U16.C0 R1L, R2L, R3L;", func(a, b uint32) refResult {
			return refShift(true, false, uint64(a&0xffff), uint64(b&0xffff), false)
		}},
		{"SHR.S16.C0 R1L, R2L, R3L;", func(a, b uint32) refResult {
			return refShift(false, true, uint64(a&0xffff), uint64(b&0xffff), false)
		}},
	}
	for _, c := range cases {
		for round := range 20 {
			a, b := make([]uint32, 32), make([]uint32, 32)
			for l := range a {
				a[l], b[l] = val(), val()
				if strings.HasPrefix(c.text, "SH") {
					b[l] %= 40 // counts around the width
				}
			}
			r := runKernel(t, kernelRun{src: c.text + "\nRET;\n", init: func(tid int, regs []uint32) {
				regs[1], regs[2], regs[3] = 0, a[tid], b[tid]
			}})
			if r.err != nil {
				t.Fatal(r.err)
			}
			for l := range 32 {
				want := c.ref(a[l], b[l])
				got := r.reg(t, l, 1)
				if strings.Contains(c.text, "R1L") {
					got &= 0xffff
				}
				flags := r.reg(t, l, rowCond)
				if got != want.res || flags != want.flags {
					t.Fatalf("%s round %d: %#x, %#x -> %#x flags %s, want %#x flags %s", c.text, round, a[l], b[l],
						got, flagText(flags), want.res, flagText(want.flags))
				}
			}
		}
	}
}

func flagText(f uint32) string {
	return fmt.Sprintf("%c%c%c%c", "-Z"[f&1], "-S"[f>>1&1], "-C"[f>>2&1], "-O"[f>>3&1])
}

// refMad is 3.4: the multiply kinds and the add operations (no carry in).
func refMad(kind string, hi, sat bool, addop int, src1, src2, src3 uint32) refResult {
	var mres uint32
	switch kind {
	case "u16":
		mres = uint32(uint64(src1&0xffff) * uint64(src2&0xffff))
	case "s16":
		mres = uint32(int64(int16(src1)) * int64(int16(src2)))
	case "u24", "s24":
		var m int64
		if kind == "s24" {
			m = int64(int32(src1<<8)>>8) * int64(int32(src2<<8)>>8)
		} else {
			m = int64(src1&0xffffff) * int64(src2&0xffffff)
		}
		m48 := uint64(m) & (1<<48 - 1)
		if hi {
			mres = uint32(m48 >> 16)
		} else {
			mres = uint32(m48)
		}
	}
	var s1, s2, c uint64
	switch addop {
	case 0:
		s1, s2 = uint64(mres), uint64(src3)
	case 1:
		s1, s2, c = uint64(mres), uint64(^src3), 1
	case 2:
		s1, s2, c = uint64(^mres), uint64(src3), 1
	}
	res := s1 + s2 + c
	carry := res>>32 != 0
	res &= 0xffffffff
	ov := s16or32(s1, true) == s16or32(s2, true) && s16or32(s1, true) != s16or32(res, true)
	if sat && ov {
		if s16or32(res, true) {
			res = 0x7fffffff
		} else {
			res = 0x80000000
		}
	}
	return refResult{uint32(res), refFlags(res, carry, ov, true)}
}

// refSad is 3.5 at 32 bits.
func refSad(signed bool, src1, src2, src3 uint32) refResult {
	var d int64
	if signed {
		d = int64(int32(src1)) - int64(int32(src2))
	} else {
		d = int64(src1) - int64(src2)
	}
	if d < 0 {
		d = -d
	}
	mres := uint64(uint32(d))
	res := mres + uint64(src3)
	carry := res>>32 != 0
	res &= 0xffffffff
	ov := s16or32(mres, true) == s16or32(uint64(src3), true) && s16or32(mres, true) != s16or32(res, true)
	return refResult{uint32(res), refFlags(res, carry, ov, true)}
}

func TestRandomMultiplyAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	cases := []struct {
		text  string
		kind  string
		hi    bool
		sat   bool
		addop int
		sad   int // 1 unsigned SAD, 2 signed SAD
	}{
		{"IMAD.U16.C0 R1, R2L, R3L, R4;", "u16", false, false, 0, 0},
		{"IMAD.S16.C0 R1, R2L, R3L, -R4;", "s16", false, false, 1, 0},
		{"IMAD.U24.C0 R1, -R2, R3, R4;", "u24", false, false, 2, 0},
		{"IMAD.S24.C0 R1, R2, R3, R4;", "s24", false, false, 0, 0},
		{"IMAD.HI.U24.C0 R1, R2, R3, -R4;", "u24", true, false, 1, 0},
		{"IMAD.HI.S24.C0 R1, R2, R3, R4;", "s24", true, false, 0, 0},
		{"IMAD.SAT.S24.C0 R1, R2, R3, R4;", "s24", false, true, 0, 0},
		{"IMAD.SAT.HI.S24.C0 R1, R2, R3, -R4;", "s24", true, true, 1, 0},
		{"IMAD.SAT.S16.C0 R1, R2L, R3L, R4;", "s16", false, true, 0, 0},
		{"ISAD.U32.C0 R1, R2, R3, R4;", "", false, false, 0, 1},
		{"ISAD.S32.C0 R1, R2, R3, R4;", "", false, false, 0, 2},
	}
	for _, c := range cases {
		for round := range 10 {
			var v [3][32]uint32
			for i := range v {
				for l := range v[i] {
					v[i][l] = rng.Uint32()
					if rng.IntN(4) == 0 {
						v[i][l] = 0x7fffffff ^ uint32(rng.IntN(3))
					}
				}
			}
			r := runKernel(t, kernelRun{src: c.text + "\nRET;\n", init: func(tid int, regs []uint32) {
				regs[2], regs[3], regs[4] = v[0][tid], v[1][tid], v[2][tid]
			}})
			if r.err != nil {
				t.Fatal(r.err)
			}
			for l := range 32 {
				var want refResult
				switch c.sad {
				case 0:
					want = refMad(c.kind, c.hi, c.sat, c.addop, v[0][l], v[1][l], v[2][l])
				default:
					want = refSad(c.sad == 2, v[0][l], v[1][l], v[2][l])
				}
				got, flags := r.reg(t, l, 1), r.reg(t, l, rowCond)
				if got != want.res || flags != want.flags {
					t.Fatalf("%s round %d: %#x, %#x, %#x -> %#x %s, want %#x %s", c.text, round, v[0][l], v[1][l], v[2][l],
						got, flagText(flags), want.res, flagText(want.flags))
				}
			}
		}
	}
}

// refFloat computes x op y in single precision with math/big (exact, then
// one rounding), flushing denormal inputs and results to zero as G80 does.
func refFloat(mul bool, x, y uint32, mode big.RoundingMode) uint32 {
	flush := func(b uint32) uint32 {
		if b&0x7f800000 == 0 {
			return b & 0x80000000
		}
		return b
	}
	fx, fy := math.Float32frombits(flush(x)), math.Float32frombits(flush(y))
	if fx != fx || fy != fy || math.IsInf(float64(fx), 0) || math.IsInf(float64(fy), 0) {
		var r float32
		if mul {
			r = fx * fy
		} else {
			r = fx + fy
		}
		if r != r {
			return 0x7fffffff
		}
		return math.Float32bits(r)
	}
	z := new(big.Float).SetPrec(24).SetMode(mode)
	if mul {
		z.Mul(big.NewFloat(float64(fx)), big.NewFloat(float64(fy)))
	} else {
		z.Add(big.NewFloat(float64(fx)), big.NewFloat(float64(fy)))
	}
	r, _ := z.Float32() // rounds again only for results outside single range
	if z.Sign() == 0 {
		// exact zero: +0 unless both addends are -0 (or the product's sign)
		if mul {
			return (x ^ y) & 0x80000000
		}
		return flush(x) & flush(y) & 0x80000000
	}
	if mode == big.ToZero && math.IsInf(float64(r), 0) {
		r = float32(math.Copysign(math.MaxFloat32, float64(r)))
	}
	return flush(math.Float32bits(r))
}

func TestRandomFloatOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	val := func() uint32 {
		switch rng.IntN(8) {
		case 0:
			return rng.Uint32() & 0x807fffff // denormal or zero
		case 1:
			return rng.Uint32()&0x80000000 | 0x7f000000 | rng.Uint32()&0x7fffff // huge
		case 2:
			return rng.Uint32()&0x80000000 | 0x00800000 | rng.Uint32()&0x7fffff // tiny normal
		}
		// moderate values close to each other, so sums cancel
		return rng.Uint32()&0x80000000 | uint32(120+rng.IntN(16))<<23 | rng.Uint32()&0x7fffff
	}
	cases := []struct {
		text string
		mul  bool
		mode big.RoundingMode
	}{
		{"FADD R1, R2, R3;", false, big.ToNearestEven},
		{"FADD.TRUNC R1, R2, R3;", false, big.ToZero},
		{"FMUL R1, R2, R3;", true, big.ToNearestEven},
		{"FMUL.TRUNC R1, R2, R3;", true, big.ToZero},
	}
	for _, c := range cases {
		for round := range 30 {
			var a, b [32]uint32
			for l := range a {
				a[l], b[l] = val(), val()
			}
			r := runKernel(t, kernelRun{src: c.text + "\nRET;\n", init: func(tid int, regs []uint32) {
				regs[2], regs[3] = a[tid], b[tid]
			}})
			if r.err != nil {
				t.Fatal(r.err)
			}
			for l := range 32 {
				want := refFloat(c.mul, a[l], b[l], c.mode)
				if got := r.reg(t, l, 1); got != want {
					t.Fatalf("%s round %d: %#x, %#x -> %#x, want %#x", c.text, round, a[l], b[l], got, want)
				}
			}
		}
	}
}

func TestRandomConversions(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	modes := []struct {
		mod  string
		big  big.RoundingMode
		fint func(float64) float64
	}{
		{"", big.ToNearestEven, math.RoundToEven},
		{".FLOOR", big.ToNegativeInf, math.Floor},
		{".CEIL", big.ToPositiveInf, math.Ceil},
		{".TRUNC", big.ToZero, math.Trunc},
	}
	for _, m := range modes {
		var ints, floats [32]uint32
		for l := range ints {
			ints[l] = rng.Uint32() >> rng.IntN(20)
			if rng.IntN(2) == 0 {
				ints[l] = -ints[l]
			}
			floats[l] = math.Float32bits(float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)))))
		}
		src := "I2F.F32.S32" + m.mod + " R4, R2;\nF2I.S32.F32" + m.mod + " R5, R3;\nF2I.U16.F32" + m.mod + " R6L, R3;\nRET;\n"
		r := runKernel(t, kernelRun{src: src, init: func(tid int, regs []uint32) {
			regs[2], regs[3] = ints[tid], floats[tid]
		}})
		if r.err != nil {
			t.Fatal(r.err)
		}
		for l := range 32 {
			f, _ := new(big.Float).SetPrec(24).SetMode(m.big).SetInt64(int64(int32(ints[l]))).Float32()
			if got := r.reg(t, l, 4); got != math.Float32bits(f) {
				t.Errorf("I2F.F32.S32%s %d = %#x, want %#x", m.mod, int32(ints[l]), got, math.Float32bits(f))
			}
			x := m.fint(float64(math.Float32frombits(floats[l])))
			want := int64(min(max(x, math.MinInt32), math.MaxInt32))
			if got := r.reg(t, l, 5); int32(got) != int32(want) {
				t.Errorf("F2I.S32.F32%s %v = %d, want %d", m.mod, math.Float32frombits(floats[l]), int32(got), want)
			}
			want16 := uint32(min(max(x, 0), 0xffff))
			if got := r.reg(t, l, 6) & 0xffff; got != want16 {
				t.Errorf("F2I.U16.F32%s %v = %d, want %d", m.mod, math.Float32frombits(floats[l]), got, want16)
			}
		}
	}
}

// TestFMADUniformPath: the FMAD loop for a warp-uniform factor gives what
// the general loop gives (checked against math/big in TestFMADTruncates),
// also when the result row is the addend's.
func TestFMADUniformPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	special := []uint32{0, 0x80000000, 1, 0x807fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f7fffff, 0x00800000, 0x3f800000}
	val := func() uint32 {
		if rng.IntN(5) == 0 {
			return special[rng.IntN(len(special))]
		}
		return rng.Uint32()&0x80000000 | uint32(60+rng.IntN(130))<<23 | rng.Uint32()&0x7fffff
	}
	for range 2000 {
		x := val()
		var a, b, c, r1 lanes
		for l := range a {
			a[l], b[l], c[l] = x, val(), val()
		}
		fmadLanes(&a, &b, &c, &r1)
		r2 := c // aliasing: the result overwrites the addend
		fmadLanesUniform(x, &b, &r2, &r2)
		if r1 != r2 {
			for l := range r1 {
				if r1[l] != r2[l] {
					t.Fatalf("%#x*%#x+%#x: general %#x, uniform %#x", x, b[l], c[l], r1[l], r2[l])
				}
			}
		}
	}
}
