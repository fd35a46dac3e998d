package fermi

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"testing"
)

// ---- double precision

func d64(lo, hi uint32) float64 { return math.Float64frombits(uint64(hi)<<32 | uint64(lo)) }

func split64(f float64) [2]uint32 {
	if f != f {
		return [2]uint32{0, 0xfff80000}
	}
	b := math.Float64bits(f)
	return [2]uint32{uint32(b), uint32(b >> 32)}
}

// refDouble is x op y (0 add, 1 mul) or x*y+z rounded in mode m, exactly.
func refDouble(op int, x, y, z float64, m int) float64 {
	var native float64
	switch op {
	case 0:
		native = x + y
	case 1:
		native = x * y
	default:
		native = math.FMA(x, y, z)
	}
	if m == 0 || native != native || math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsInf(z, 0) {
		return native
	}
	const prec = 4400
	e := new(big.Float).SetPrec(prec).SetFloat64(x)
	switch op {
	case 0:
		e.Add(e, new(big.Float).SetFloat64(y))
	case 1:
		e.Mul(e, new(big.Float).SetFloat64(y))
	default:
		e.Mul(e, new(big.Float).SetFloat64(y))
		e.Add(e, new(big.Float).SetFloat64(z))
	}
	if e.Sign() == 0 {
		if m == 1 && op != 1 && native == 0 {
			a, b := x, y
			if op == 2 {
				a, b = x*y, z
			}
			if !(a == 0 && b == 0 && !math.Signbit(a) && !math.Signbit(b)) {
				return math.Copysign(0, -1)
			}
		}
		return native
	}
	f, _ := e.Float64() // nearest even, subnormals included
	if math.IsInf(f, 0) {
		if e.Sign() > 0 && (m == 1 || m == 3) {
			return math.MaxFloat64
		}
		if e.Sign() < 0 && (m == 2 || m == 3) {
			return -math.MaxFloat64
		}
		return f
	}
	c := new(big.Float).SetPrec(prec).SetFloat64(f).Cmp(e)
	switch {
	case m == 1 && c > 0, m == 3 && c > 0 && e.Sign() > 0:
		return math.Nextafter(f, math.Inf(-1))
	case m == 2 && c < 0, m == 3 && c < 0 && e.Sign() < 0:
		return math.Nextafter(f, math.Inf(1))
	}
	return f
}

func TestInstDouble(t *testing.T) {
	var cases []instCase
	for m, rn := range []string{"", ".RM", ".RP", ".RZ"} {
		m := m
		cases = append(cases,
			instCase{name: "DADD" + rn, text: fmt.Sprintf("DADD%s R8, R4, R6;", rn), gen: doubleGen, ref: func(in [4]uint32) [2]uint32 {
				return split64(refDouble(0, d64(in[0], in[1]), d64(in[2], in[3]), 0, m))
			}},
			instCase{name: "DMUL" + rn, text: fmt.Sprintf("DMUL%s R8, R4, -R6;", rn), gen: doubleGen, ref: func(in [4]uint32) [2]uint32 {
				return split64(refDouble(1, d64(in[0], in[1]), -d64(in[2], in[3]), 0, m))
			}},
			instCase{name: "DFMA" + rn, text: fmt.Sprintf("DFMA%s R8, R4, R6, R4;", rn), gen: doubleGen, ref: func(in [4]uint32) [2]uint32 {
				x := d64(in[0], in[1])
				return split64(refDouble(2, x, d64(in[2], in[3]), x, m))
			}})
	}
	cases = append(cases,
		instCase{name: "DMNMX", text: "DMNMX R8, R4, R6, PT;", gen: doubleGen, ref: func(in [4]uint32) [2]uint32 {
			x, y := d64(in[0], in[1]), d64(in[2], in[3])
			switch {
			case x != x && y != y:
				return split64(math.NaN())
			case x != x:
				return split64(y)
			case y != y:
				return split64(x)
			case x == y && math.Signbit(x):
				return split64(x)
			case x == y:
				return split64(y)
			}
			return split64(math.Min(x, y))
		}},
		instCase{name: "DSETP", text: "DSETP.LT.AND P1, P2, R4, R6, PT;\n DSETP.NEU.AND P3, PT, R4, R6, PT;\n P2R R8, PR, RZ, 0x7f;", gen: doubleGen,
			ref: func(in [4]uint32) [2]uint32 {
				x, y := d64(in[0], in[1]), d64(in[2], in[3])
				return one(b32(x < y)<<1 | b32(!(x < y))<<2 | b32(!(x == y))<<3)
			}, mask: [2]uint32{0xe, 0}},
		instCase{name: "DADD imm", text: "DADD R8, R4, 0.5;", gen: doubleGen, ref: func(in [4]uint32) [2]uint32 {
			return split64(d64(in[0], in[1]) + 0.5)
		}},
	)
	runInstCases(t, cases)
}

// ---- conversions

func TestInstConvert(t *testing.T) {
	clampF := func(x float64, lo, hi float64) float64 {
		switch {
		case x != x:
			return 0
		case x < lo:
			return lo
		case x > hi:
			return hi
		}
		return x
	}
	runInstCases(t, []instCase{
		{name: "F2I.S32", text: "F2I.S32.F32.TRUNC R8, R4;\n F2I.S32.F32 R9, R4;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			x := float64(f32of(in[0]))
			return [2]uint32{uint32(int32(clampF(math.Trunc(x), math.MinInt32, math.MaxInt32))),
				uint32(int32(clampF(math.RoundToEven(x), math.MinInt32, math.MaxInt32)))}
		}},
		{name: "F2I.U32", text: "F2I.U32.F32.FLOOR R8, R4;\n F2I.U16.F32.CEIL R9, R4;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			x := float64(f32of(in[0]))
			return [2]uint32{uint32(clampF(math.Floor(x), 0, math.MaxUint32)), uint32(clampF(math.Ceil(x), 0, 65535))}
		}},
		{name: "F2I.S64", text: "F2I.S64.F64.TRUNC R8, R4;", gen: doubleGen, ref: func(in [4]uint32) [2]uint32 {
			x := math.Trunc(d64(in[0], in[1]))
			var v int64
			switch {
			case x != x:
			case x <= math.MinInt64:
				v = math.MinInt64
			case x >= math.MaxInt64:
				v = math.MaxInt64
			default:
				v = int64(x)
			}
			return [2]uint32{uint32(v), uint32(uint64(v) >> 32)}
		}},
		{name: "I2F.F32", text: "I2F.F32.S32 R8, R4;\n I2F.F32.U32.RZ R9, R4;", ref: func(in [4]uint32) [2]uint32 {
			z := new(big.Float).SetUint64(uint64(in[0]))
			return [2]uint32{math.Float32bits(float32(int32(in[0]))), math.Float32bits(exactF32(z, 3))}
		}},
		{name: "I2F.F64", text: "I2F.F64.S32 R8, -|R4|;", ref: func(in [4]uint32) [2]uint32 {
			v := int64(int32(in[0]))
			if v < 0 {
				v = -v
			}
			return split64(float64(-v))
		}},
		{name: "I2F bytes", text: "I2F.F32.S8 R8, R4.B2;\n I2F.F32.U16 R9, R4.H1;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{math.Float32bits(float32(int8(in[0] >> 16))), math.Float32bits(float32(in[0] >> 16))}
		}},
		{name: "I2I", text: "I2I.S32.S8 R8, R4.B1;\n I2I.U8.S32.SAT R9, R4;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{uint32(int32(int8(in[0] >> 8))), uint32(min(max(int64(int32(in[0])), 0), 255))}
		}},
		{name: "I2I neg", text: "I2I.S32.S32 R8, -R4;\n I2I.S16.S32.SAT R9, R4;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{-in[0], uint32(int32(min(max(int64(int32(in[0])), -32768), 32767)))}
		}},
		{name: "F2F", text: "F2F.F64.F32 R8, R4;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			return split64(float64(f32of(in[0])))
		}},
		{name: "F2F narrow", text: "F2F.F32.F64.RM R8, R4;\n F2F.F32.F64 R9, R4;", gen: doubleGen, ref: func(in [4]uint32) [2]uint32 {
			x := d64(in[0], in[1])
			if x != x {
				return [2]uint32{0x7fffffff, 0x7fffffff}
			}
			e := new(big.Float).SetFloat64(x)
			if math.IsInf(x, 0) {
				return [2]uint32{math.Float32bits(float32(x)), math.Float32bits(float32(x))}
			}
			return [2]uint32{math.Float32bits(exactF32(e, 1)), math.Float32bits(float32(x))}
		}},
		{name: "F2F round", text: "F2F.F32.F32.FLOOR R8, R4;\n F2F.F32.F32.ROUND R9, |R4|;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			x := float64(f32of(in[0]))
			return [2]uint32{refF32(float32(math.Floor(x)), false, false), refF32(float32(math.RoundToEven(math.Abs(x))), false, false)}
		}},
		{name: "F2F.SAT", text: "F2F.F32.F32.SAT R8, -R4;\n F2F.FTZ.F32.F32 R9, R4;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{refF32(-f32of(in[0]), false, true), refF32(f32of(ftzIn(in[0])), true, false)}
		}},
		{name: "F16", text: "F2F.F16.F32 R8, R4;\n F2F.F32.F16 R9, R8;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			h := refHalf(float64(f32of(in[0])))
			return [2]uint32{uint32(h), refF32(halfValue(h), false, false)}
		}},
	})
}

// refHalf rounds x to binary16 (nearest even) by searching the ordered
// table of positive encodings.
func refHalf(x float64) uint16 {
	if x != x {
		return 0x7fff
	}
	a := math.Abs(x)
	i := sort.Search(0x7c00, func(h int) bool { return float64(halfValue(uint16(h))) >= a })
	var best uint16
	switch {
	case a >= 65520:
		best = 0x7c00
	case i == 0:
		best = 0
	default:
		lo, hi := float64(halfValue(uint16(i-1))), float64(halfValue(uint16(i)))
		switch {
		case a-lo < hi-a, a-lo == hi-a && (i-1)&1 == 0:
			best = uint16(i - 1)
		default:
			best = uint16(i)
		}
	}
	if math.Signbit(x) {
		best |= 0x8000
	}
	return best
}

func halfValue(h uint16) float32 {
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	var v float64
	switch e {
	case 0:
		v = math.Ldexp(m, -24)
	case 31:
		v = math.Inf(1)
		if m != 0 {
			v = math.NaN()
		}
	default:
		v = math.Ldexp(1024+m, e-25)
	}
	if h>>15 != 0 {
		v = -v
	}
	return float32(v)
}

// ---- predicates and the condition code

func TestInstPredicates(t *testing.T) {
	runInstCases(t, []instCase{
		{name: "PSETP", text: `
	LOP.AND R9, R6, 0xf;
	R2P PR, R9, 0xf;
	PSETP.AND.OR P4, P5, P0, !P1, P2;
	PSETP.XOR.AND P6, PT, P3, P0, PT;
	P2R R8, PR, RZ, 0x7f;`, ref: func(in [4]uint32) [2]uint32 {
			p := in[2] & 0xf
			bit := func(i uint) bool { return p>>i&1 != 0 }
			x := bit(0) && !bit(1)
			r := p | b32(x || bit(2))<<4 | b32(!x || bit(2))<<5 | b32(bit(3) != bit(0))<<6
			return [2]uint32{r, p}
		}, mask: [2]uint32{0x7f, 0}},
		{name: "PSET", text: `
	LOP.AND R9, R6, 0x3;
	R2P PR, R9, 0x3;
	PSET.BF.OR.AND R8, P0, P1, PT;`, ref: func(in [4]uint32) [2]uint32 {
			if in[2]&3 != 0 {
				return [2]uint32{0x3f800000, in[2] & 3}
			}
			return [2]uint32{0, in[2] & 3}
		}},
		{name: "CSETP", text: `
	IADD RZ.CC, R4, -R5;
	CSETP.LT.AND P1, PT, CC, PT;
	CSETP.EQ.AND P2, PT, CC, PT;
	CSETP.HS.AND P3, PT, CC, PT;
	CSETP.LO.AND P4, PT, CC, PT;
	P2R R8, PR, RZ, 0x7f;`, ref: func(in [4]uint32) [2]uint32 {
			lt := int32(in[0]) < int32(in[1])
			return one(b32(lt)<<1 | b32(in[0] == in[1])<<2 | b32(in[0] >= in[1])<<3 | b32(in[0] < in[1])<<4)
		}, mask: [2]uint32{0x1e, 0}},
		{name: "BRA CC", text: `
	IADD RZ.CC, R4, -R5;
	BRA CC.GT, done;
	MOV32I R8, 0x1;
	MOV32I R9, 0x2;`, ref: func(in [4]uint32) [2]uint32 {
			if int32(in[0]) > int32(in[1]) {
				return [2]uint32{0, 0}
			}
			return [2]uint32{1, 2}
		}},
	})
}
