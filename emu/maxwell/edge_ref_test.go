package maxwell

import (
	"math"
	"math/big"
	"math/bits"
)

// Reference semantics of PTX instructions (NVIDIA's PTX ISA, written from
// its definitions, independent of the emulator's code) for the edge-value
// check (edge_test.go).

// rounding modes of PTX: .rn, .rz, .rm, .rp
const (
	rn = iota
	rz
	rm
	rp
)

var bigModes = [4]big.RoundingMode{big.ToNearestEven, big.ToZero, big.ToNegativeInf, big.ToPositiveInf}

// floatFormat is an IEEE binary format: mantissa bits with the implicit
// one, the smallest normal exponent, the largest finite value.
type floatFormat struct {
	prec   uint
	emin   int // the smallest normal is 2^emin
	maxVal float64
}

var (
	fmt16 = floatFormat{11, -14, 65504}
	fmt32 = floatFormat{24, -126, math.MaxFloat32}
	fmt64 = floatFormat{53, -1022, math.MaxFloat64}
)

// roundBig rounds an exact non-zero value to the format in the mode,
// subnormals and overflow included; the result is exact in float64.
func roundBig(x *big.Float, f floatFormat, mode int) float64 {
	neg := x.Signbit()
	ax := new(big.Float).SetPrec(0).Abs(x)
	// the quantum: 2^(exponent - prec) for normals, 2^(emin+1-prec) below
	exp := ax.MantExp(nil) - 1 // ax in [2^exp, 2^(exp+1))
	q := max(exp, f.emin) + 1 - int(f.prec)
	scaled := new(big.Float).SetPrec(0).SetMantExp(ax, -q)
	// round scaled to an integer in the mode (mirrored for negatives)
	m := mode
	if neg {
		switch mode {
		case rm:
			m = rp
		case rp:
			m = rm
		}
	}
	i, acc := scaled.Int(nil) // truncates
	if acc != big.Exact {
		frac := new(big.Float).Sub(scaled, new(big.Float).SetInt(i))
		up := false
		switch m {
		case rn:
			c := frac.Cmp(big.NewFloat(0.5))
			up = c > 0 || c == 0 && i.Bit(0) == 1
		case rp:
			up = true
		}
		if up {
			i.Add(i, big.NewInt(1))
		}
	}
	r, _ := new(big.Float).SetMantExp(new(big.Float).SetInt(i), q).Float64()
	if r > f.maxVal {
		// overflow: to infinity, or to the largest value when the mode
		// rounds towards zero
		if m == rz || m == rm {
			r = f.maxVal
		} else {
			r = math.Inf(1)
		}
	}
	if neg {
		r = -r
	}
	return r
}

// exactSum is a+b (or a*b+c) as a big value; zero reports an exact zero.
func bigOf(v float64) *big.Float { return new(big.Float).SetPrec(2200).SetFloat64(v) }

// ieeeOp computes a+b (kind '+'), a*b ('*') or a*b+c ('f') in the format,
// rounded once in the mode: special values through float64 (their
// results are exact), finite values exactly.
func ieeeOp(kind byte, a, b, c float64, f floatFormat, mode int) float64 {
	var native float64
	switch kind {
	case '+':
		native = a + b
	case '*':
		native = a * b
	default:
		native = math.FMA(a, b, c)
	}
	finite := func(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }
	if !finite(a) || !finite(b) || kind == 'f' && !finite(c) {
		if kind == 'f' && finite(a) && finite(b) {
			return c // a finite product plus an infinity or NaN
		}
		return native
	}
	x := bigOf(a)
	switch kind {
	case '+':
		x.Add(x, bigOf(b))
	case '*':
		x.Mul(x, bigOf(b))
	default:
		x.Mul(x, bigOf(b))
		x.Add(x, bigOf(c))
	}
	if x.Sign() == 0 {
		// an exact zero: a product's sign is the signs' xor; a sum of
		// opposite signs is +0, or -0 rounding down
		var s, t float64
		switch kind {
		case '+':
			s, t = a, b
		case '*':
			return math.Copysign(0, a*b)
		default:
			s, t = math.Copysign(0, a)*math.Copysign(0, b), c
			if a*b != 0 {
				s = a * b
			}
		}
		if math.Signbit(s) == math.Signbit(t) {
			return math.Copysign(0, s)
		}
		if mode == rm {
			return math.Copysign(0, -1)
		}
		return 0
	}
	return roundBig(x, f, mode)
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

// roundInt rounds a float64 to an integral value in the mode.
func ptxRoundInt(x float64, mode int) float64 {
	switch mode {
	case rn:
		return math.RoundToEven(x)
	case rz:
		return math.Trunc(x)
	case rm:
		return math.Floor(x)
	}
	return math.Ceil(x)
}

// cvtInt is cvt.rXi.sN/uN.fM: rounded, clamped to the type's range, NaN 0.
func cvtInt(x float64, mode int, signed bool, width uint) uint64 {
	if math.IsNaN(x) {
		return 0
	}
	r := ptxRoundInt(x, mode)
	if signed {
		lo, hi := -math.Ldexp(1, int(width)-1), math.Ldexp(1, int(width)-1)
		switch {
		case r >= hi:
			return 1<<(width-1) - 1
		case r < lo:
			return 1 << (width - 1) & (1<<width - 1) // the most negative value's bits
		}
		return uint64(int64(r)) & (1<<width - 1)
	}
	if r <= 0 {
		return 0
	}
	if r >= math.Ldexp(1, int(width)) {
		return 1<<width - 1
	}
	return uint64(r)
}

// intToFloat is cvt.rX.fM.sN/uN.
func ptxIntToFloat(v uint64, signed bool, f floatFormat, mode int) float64 {
	x := new(big.Float).SetPrec(0)
	if signed {
		x.SetInt64(int64(v))
	} else {
		x.SetUint64(v)
	}
	if x.Sign() == 0 {
		return 0
	}
	return roundBig(x, f, mode)
}

// sat01 is .sat: clamped to [0, 1], NaN to 0.
func sat01(x float64) float64 {
	switch {
	case math.IsNaN(x), x <= 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// fcompare is setp's float comparisons; the u forms are also true when
// either operand is NaN.
func fcompare(cmp string, x, y float64) bool {
	nan := math.IsNaN(x) || math.IsNaN(y)
	switch cmp {
	case "num":
		return !nan
	case "nan":
		return nan
	}
	if cmp[len(cmp)-1] == 'u' && len(cmp) == 3 {
		if nan {
			return true
		}
		cmp = cmp[:2]
	}
	if nan {
		return false
	}
	switch cmp {
	case "eq":
		return x == y
	case "ne":
		return x != y
	case "lt":
		return x < y
	case "le":
		return x <= y
	case "gt":
		return x > y
	}
	return x >= y
}

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
	sign := uint16(0)
	if math.Signbit(v) {
		sign = 0x8000
	}
	switch {
	case math.IsNaN(v):
		return 0x7fff
	case math.IsInf(v, 0):
		return sign | 0x7c00
	case v == 0:
		return sign
	}
	r := math.Abs(roundBig(bigOf(v), fmt16, mode))
	if math.IsInf(r, 0) {
		return sign | 0x7c00
	}
	if r < 0x1p-14 { // subnormal: multiples of 2^-24
		return sign | uint16(r*0x1p24)
	}
	frac, exp := math.Frexp(r) // r = frac * 2^exp, frac in [0.5, 1)
	return sign | uint16(exp-1+15)<<10 | uint16((frac*2-1)*1024)
}

// halfToF32 widens binary16 bits exactly.
func halfToF32(h uint16) float32 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return float32(sign * m * 0x1p-24)
	case 31:
		if m != 0 {
			return float32(math.NaN())
		}
		return float32(math.Inf(int(sign)))
	}
	return float32(sign * (1 + m/1024) * math.Ldexp(1, e-15))
}
