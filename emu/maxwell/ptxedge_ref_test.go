package maxwell

import (
	"math"
	"math/big"
	"math/bits"
)

// Reference semantics of PTX instructions (NVIDIA's PTX ISA, written from
// its definitions, independent of the emulator's code) for the edge-value
// check (edge_test.go).

// The reference rounds with edgeref_test.go's (roundBin, fop32, dop,
// f2iRef, i2fRef, the binary16 helpers) and its mode numbering (rRN,
// rRM, rRP, rRZ); PTX's modifiers in table order map onto it.
var ptxModes = [4]int{rRN, rRZ, rRM, rRP} // .rn .rz .rm .rp

// floatFormat is an IEEE binary format: significand bits with the
// implicit one, the smallest and largest normal exponents.
type floatFormat struct{ mant, emin, emax int }

var (
	fmt16 = floatFormat{11, -14, 15}
	fmt32 = floatFormat{24, -126, 127}
	fmt64 = floatFormat{53, -1022, 1023}
)

// roundBig rounds an exact value to the format in the mode.
func roundBig(x *big.Float, f floatFormat, mode int) float64 {
	return roundBin(x, f.mant, f.emin, f.emax, mode)
}

func bigOf(v float64) *big.Float { return xbig().SetFloat64(v) }

// ieeeOp is a+b ('+'), a*b ('*') or a*b+c ('f') rounded once in binary32
// or binary64.
func ieeeOp(kind byte, a, b, c float64, f floatFormat, mode int) float64 {
	if f == fmt32 {
		return float64(f32(fop32{kind: kind, mode: mode}.eval(b32(float32(a)), b32(float32(b)), b32(float32(c)))))
	}
	return math.Float64frombits(dop(kind, mode, a, b, c))
}

// quoBig is a/b (or sqrt a when b is NaN) correctly rounded: the quotient
// truncated at 300 bits with a sticky bit when inexact.
func quoSqrt(a, b float64, sqrt bool, f floatFormat, mode int) float64 {
	x := new(big.Float).SetPrec(300).SetMode(big.ToZero)
	if sqrt {
		x.Sqrt(bigOf(a))
		sq := new(big.Float).SetPrec(0).Mul(x, x)
		if sq.Cmp(bigOf(a)) != 0 {
			x = sticky(x)
		}
	} else {
		x.Quo(bigOf(a), bigOf(b))
		if x.Acc() != big.Exact {
			x = sticky(x)
		}
	}
	return roundBig(x, f, mode)
}

// sticky adds a bit below x's 300 bits: the value is strictly beyond x.
func sticky(x *big.Float) *big.Float {
	e := x.MantExp(nil)
	t := new(big.Float).SetMantExp(big.NewFloat(1), e-400)
	if x.Signbit() {
		t.Neg(t)
	}
	return new(big.Float).SetPrec(0).Add(x, t)
}

// ieeeDiv is a/b in the format and mode.
func ieeeDiv(a, b float64, f floatFormat, mode int) float64 {
	if a == 0 || b == 0 || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return a / b
	}
	return quoSqrt(a, b, false, f, mode)
}

// ieeeSqrt is sqrt(a) in the format and mode.
func ieeeSqrt(a float64, f floatFormat, mode int) float64 {
	if a <= 0 || math.IsInf(a, 0) || math.IsNaN(a) {
		return math.Sqrt(a)
	}
	return quoSqrt(a, 0, true, f, mode)
}

// ptxRoundInt rounds to an integral value (cvt.rXi.fN.fN).
func ptxRoundInt(x float64, mode int) float64 { return intRoundings[mode](x) }

// cvtInt is cvt.rXi.sN/uN.fM: rounded, clamped, NaN 0.
func cvtInt(x float64, mode int, signed bool, width uint) uint64 {
	return f2iRef(x, mode, signed, int(width))
}

// ptxIntToFloat is cvt.rX.fM.sN/uN.
func ptxIntToFloat(v uint64, signed bool, f floatFormat, mode int) float64 {
	x := xbig()
	if signed {
		x.SetInt64(int64(v))
	} else {
		x.SetUint64(v)
	}
	return roundBig(x, f, mode)
}

// ptxCmp are setp's comparisons as FCMP codes (bit 0 less, 1 equal,
// 2 greater, 3 unordered).
var ptxCmp = map[string]uint8{"lt": 1, "eq": 2, "le": 3, "gt": 4, "ne": 5, "ge": 6, "num": 7, "nan": 8,
	"ltu": 9, "equ": 10, "leu": 11, "gtu": 12, "neu": 13, "geu": 14}

func fcompare(cmp string, x, y float64) bool { return fcmpRef(ptxCmp[cmp], x, y) }

// testp is testp.<kind>.
func ptxTestp(kind string, x float64, f floatFormat) bool {
	ax := math.Abs(x)
	switch kind {
	case "finite":
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case "infinite":
		return math.IsInf(x, 0)
	case "number":
		return !math.IsNaN(x)
	case "notanumber":
		return math.IsNaN(x)
	case "normal": // PTX counts zeros as normal
		return (ax == 0 || ax >= math.Ldexp(1, f.emin)) && !math.IsInf(x, 0) && !math.IsNaN(x)
	}
	return ax != 0 && ax < math.Ldexp(1, f.emin) // subnormal
}

// bfe is bfe.u/sN: the field a[pos, pos+len) (pos, len: the low bytes of
// b and c), sign-extended from its top bit for the signed type.
func ptxBfeN(a uint64, b, c uint64, width uint, signed bool) uint64 {
	msb := int(width) - 1
	pos, n := int(b&0xff), int(c&0xff)
	var sbit uint64
	if signed && n > 0 {
		sbit = a >> uint(min(pos+n-1, msb)) & 1
	}
	var d uint64
	for i := 0; i <= msb; i++ {
		bit := sbit
		if i < n && pos+i <= msb {
			bit = a >> uint(pos+i) & 1
		}
		d |= bit << uint(i)
	}
	return d
}

// bfi inserts the low len bits of a into b at pos.
func ptxBfiN(a, b uint64, pos, n int, width uint) uint64 {
	d := b
	for i := 0; i < n && pos+i < int(width); i++ {
		d = d&^(1<<uint(pos+i)) | (a>>uint(i)&1)<<uint(pos+i)
	}
	return d
}

// bfind is the position of the most significant bit (for signed values:
// the most significant bit unlike the sign), 0xffffffff if none.
func ptxBfindN(a uint64, width uint, signed, shiftamt bool) uint64 {
	if signed && a>>(width-1)&1 != 0 {
		a = ^a & (1<<width - 1)
	}
	if a == 0 {
		return 0xffffffff
	}
	p := uint64(bits.Len64(a) - 1)
	if shiftamt {
		return uint64(width) - 1 - p
	}
	return p
}

// prmt is prmt.b32 in its default mode (a selector nibble per byte: the
// index of a byte of {b, a}, bit 3 replicates that byte's sign) and the
// named modes (the selector's low 2 bits).
func ptxPrmtN(a, b, c uint32, mode string) uint32 {
	src := uint64(b)<<32 | uint64(a)
	byteOf := func(i uint32) uint32 { return uint32(src>>(8*(i&7))) & 0xff }
	var sel [4]uint32
	sign := [4]bool{}
	s := c & 3
	switch mode {
	case "":
		for i := range 4 {
			n := c >> (4 * i) & 0xf
			sel[i], sign[i] = n&7, n&8 != 0
		}
	case "f4e":
		for i := range 4 {
			sel[i] = (s + uint32(i)) & 7
		}
	case "b4e":
		for i := range 4 {
			sel[i] = (s + 8 - uint32(i)) & 7
		}
	case "rc8":
		sel = [4]uint32{s, s, s, s}
	case "ecl":
		for i := range 4 {
			sel[i] = max(s, uint32(i))
		}
	case "ecr":
		for i := range 4 {
			sel[i] = min(s, uint32(i))
		}
	case "rc16":
		lo := (s & 1) * 2
		sel = [4]uint32{lo, lo + 1, lo, lo + 1}
	}
	var d uint32
	for i := range 4 {
		v := byteOf(sel[i])
		if sign[i] {
			v = 0
			if byteOf(sel[i])&0x80 != 0 {
				v = 0xff
			}
		}
		d |= v << (8 * i)
	}
	return d
}

// f32ToHalf rounds to binary16 bits (cvt.rX.f16.f32).
func f32ToHalf(x float32, mode int) uint16 {
	v := float64(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return f16bits(v)
	}
	return f16bits(roundBig(bigOf(v), fmt16, mode))
}

// halfToF32 widens binary16 bits exactly.
func halfToF32(h uint16) float32 { return float32(f16val(h)) }
