package tesla

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/gpuisa/gpuisa/emu"
)

// Single precision as G80 computes it: denormal inputs and results flushed
// to zero (sign kept), round to nearest even unless .TRUNC asks for round
// toward zero. Go rounds every float32 operation to float32 when the result
// is converted explicitly, which also keeps the compiler from fusing a
// multiply and an add.

func ftz(x uint32) uint32 {
	if x&0x7f800000 == 0 {
		return x & 0x80000000
	}
	return x
}

func f32(x uint32) float32 { return math.Float32frombits(ftz(x)) }

// bitsOut flushes a denormal result and makes NaNs G80's canonical 0x7fffffff.
func bitsOut(x float32) uint32 {
	b := math.Float32bits(x)
	switch b & 0x7f800000 {
	case 0:
		return b & 0x80000000
	case 0x7f800000:
		if b&0x7fffff != 0 {
			return 0x7fffffff
		}
	}
	return b
}

// towardZero steps r one ulp toward zero when it is farther from zero than
// the exact value (given by its sign of error: exactSmaller).
func towardZero(r float32) float32 {
	b := math.Float32bits(r)
	if b&0x7fffffff == 0 {
		return r
	}
	return math.Float32frombits(b - 1)
}

func mulRZ(x, y float32) float32 {
	p := float64(x) * float64(y) // exact: 24+24 bits
	r := float32(p)
	if math.IsNaN(p) {
		return r
	}
	if math.Abs(float64(r)) > math.Abs(p) {
		r = towardZero(r)
	}
	return r
}

// fmadLanes is the common FMAD (no negation, nearest sum) for all lanes,
// written out for speed: most of a matrix multiply's time is here. The
// product of two singles is exact in float64 (24+24 bits < 53); cutting its
// mantissa to 23 bits rounds it toward zero to single precision whenever it
// is a normal single, and float32 then holds it exactly. The exponents tell
// beforehand which lanes need no care: two normal factors with biased
// exponents ex+ey in [152, 380] have a product in [2^-102, 2^128), and
// added to zero or to a normal addend of at least 2^-102 (biased exponent
// 25) the sum is zero or a multiple of 2^-125: never denormal, and never NaN.
// A zero or denormal factor makes the product a signed zero. What is left
// (infinite or NaN operands, products or addends below 2^-102 or beyond
// single range) takes fmadRef.
func fmadLanes(a, b, c, r *lanes) {
	var slow uint32 // lanes that need the general path
	for l := range r {
		x, y := a[l], b[l]
		ex, ey := x>>23&0xff, y>>23&0xff
		var p float32
		if ex-1 < 254 && ey-1 < 254 && ex+ey-152 <= 380-152 {
			pb := math.Float64bits(float64(math.Float32frombits(x)) * float64(math.Float32frombits(y)))
			p = float32(math.Float64frombits(pb &^ (1<<29 - 1)))
		} else if (ex == 0 || ey == 0) && ex != 255 && ey != 255 {
			p = math.Float32frombits((x ^ y) & 0x80000000)
		} else {
			slow |= 1 << l // r may be a source's row: leave it for the second pass
			continue
		}
		z := c[l]
		if z>>23&0xff-25 >= 254-24 {
			if z&0x7f800000 != 0 {
				slow |= 1 << l // z is tiny, infinite or NaN
				continue
			}
			z &= 0x80000000 // zero or flushed
		}
		r[l] = math.Float32bits(p + math.Float32frombits(z))
	}
	for ; slow != 0; slow &= slow - 1 {
		l := bits.TrailingZeros32(slow)
		r[l] = fmadRef(a[l], b[l], c[l])
	}
}

// fmadLanesUniform is fmadLanes when every lane's first factor is x: the
// exponents of y that keep the product normal are one range.
func fmadLanesUniform(x uint32, b, c, r *lanes) {
	ex := x >> 23 & 0xff
	lo, hi := max(1, 152-int(ex)), min(254, 380-int(ex)) // ey giving a product in [2^-102, 2^128)
	switch ex {
	case 0: // x is zero or flushed: every finite product is a signed zero
		x &= 0x80000000
		lo, hi = 1, 254
	case 255: // infinite or NaN: the general path
		lo, hi = 1, 0
	}
	xf := float64(math.Float32frombits(x))
	span := uint32(hi - lo + 1) // 0 when empty
	var slow uint32
	for l := range r {
		y := b[l]
		if y>>23&0xff-uint32(lo) >= span {
			if y&0x7f800000 != 0 || ex == 255 {
				slow |= 1 << l // r may be a source's row: leave it for the second pass
				continue
			}
			y &= 0x80000000 // zero or denormal y: a signed zero product
		}
		pb := math.Float64bits(xf * float64(math.Float32frombits(y)))
		p := float32(math.Float64frombits(pb &^ (1<<29 - 1)))
		z := c[l]
		if z>>23&0xff-25 >= 254-24 {
			if z&0x7f800000 != 0 {
				slow |= 1 << l // z is tiny, infinite or NaN
				continue
			}
			z &= 0x80000000 // zero or flushed
		}
		r[l] = math.Float32bits(p + math.Float32frombits(z))
	}
	for ; slow != 0; slow &= slow - 1 {
		l := bits.TrailingZeros32(slow)
		r[l] = fmadRef(x, b[l], c[l])
	}
}

// fmadRef is FMAD for one lane by the general route: the product truncated
// by mulTrunc, the sum rounded to nearest, denormals flushed.
func fmadRef(x, y, z uint32) uint32 {
	return bitsOut(math.Float32frombits(mulTrunc(f32(x), f32(y))) + f32(z))
}

// ftzFast flushes a denormal to zero without a branch.
func ftzFast(x uint32) uint32 {
	return x & (uint32(int32(-(x&0x7f800000))>>31) | 0x80000000)
}

// mulTrunc is the product rounded toward zero with denormals flushed, as
// bits: the exact float64 product with its mantissa cut to 23 bits when the
// result is a normal single, mulRZ otherwise.
func mulTrunc(x, y float32) uint32 {
	b := math.Float64bits(float64(x) * float64(y))
	e := int(b>>52&0x7ff) - 1023 + 127
	if e >= 1 && e <= 254 {
		return uint32(b>>63)<<31 | uint32(e)<<23 | uint32(b>>29)&0x7fffff
	}
	if b<<1 == 0 || e < 1 && b>>52&0x7ff != 0x7ff {
		return uint32(b>>63) << 31 // zero, or too small for a normal single: flushed
	}
	return bitsOut(mulRZ(x, y))
}

func addRZ(x, y float32) float32 {
	s := float32(x + y)
	if math.IsInf(float64(s), 0) {
		if math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) {
			return s
		}
		return towardZero(s) // overflow rounds to the largest finite value
	}
	if s != s {
		return s
	}
	// TwoSum: s + e == x + y exactly
	bb := float32(s - x)
	e := float32(float32(x-float32(s-bb)) + float32(y-bb))
	if e != 0 && (e < 0) != (s < 0) && s != 0 {
		s = towardZero(s)
	}
	return s
}

func neg32(x uint32, n bool) uint32 {
	if n {
		return x ^ 0x80000000
	}
	return x
}

func abs32(x uint32, a bool) uint32 {
	if a {
		return x &^ 0x80000000
	}
	return x
}

func fsetTest(x, y float64, cond uint8) bool {
	var bit uint8
	switch {
	case x != x || y != y:
		bit = 8
	case x < y:
		bit = 1
	case x == y:
		bit = 2
	default:
		bit = 4
	}
	return cond&bit != 0
}

func fminmax(x, y float64, isMax bool) float64 {
	switch {
	case x != x:
		return y
	case y != y:
		return x
	case x == y:
		// -0 < +0
		if isMax == math.Signbit(x) {
			return y
		}
		return x
	case (x > y) == isMax:
		return x
	}
	return y
}

func sfu(kind opKind, x float64) float64 {
	switch kind {
	case opRcp:
		return 1 / x
	case opRsq:
		return 1 / math.Sqrt(x)
	case opLg2:
		return math.Log2(x)
	case opSin:
		return math.Sin(x)
	case opCos:
		return math.Cos(x)
	case opEx2:
		return math.Exp2(x)
	}
	return x
}

// fin reads a float source with its |x| and -x modifiers, denormals flushed.
func fin(x uint32, s *src) float32 {
	if s.abs {
		x &^= 0x80000000
	}
	if s.neg {
		x ^= 0x80000000
	}
	return f32(x)
}

func (k *Kernel) falu(o *op, mask uint32, a, b, c *lanes, r, f *lanes, w *emu.Warp) bool {
	s0, s1, s2 := &o.s[0], &o.s[1], &o.s[2]
	out := func(l int, x float32) {
		if o.sat {
			x = sat01(x)
		}
		r[l] = bitsOut(x)
	}
	switch o.kind {
	case opFAdd:
		for l := range r {
			x, y := fin(a[l], s0), fin(b[l], s1)
			if o.mode == 1 {
				out(l, addRZ(x, y))
			} else {
				out(l, float32(x+y))
			}
		}
	case opFMul:
		for l := range r {
			x, y := fin(a[l], s0), fin(b[l], s1)
			if o.mode == 1 {
				out(l, mulRZ(x, y))
			} else {
				out(l, float32(x*y))
			}
		}
	case opFMad:
		// G80: the product is truncated to single precision (round toward
		// zero, denormals flushed), then added with rounding to nearest.
		if o.mode == 0 && !s0.neg && !s2.neg && !o.sat {
			if s0.kind == sShared && (s0.areg == 0 || w.Regs[rowUni*32+int(s0.areg)] == addrUniform) {
				fmadLanesUniform(a[0], b, c, r) // one g[] word for the whole warp
			} else {
				fmadLanes(a, b, c, r)
			}
			break
		}
		for l := range r {
			x, y, z := fin(a[l], s0), fin(b[l], s1), fin(c[l], s2)
			p := math.Float32frombits(bitsOut(mulRZ(x, y)))
			if o.mode == 1 {
				out(l, addRZ(p, z))
			} else {
				out(l, float32(p+z))
			}
		}
	case opFSet:
		for l := range r {
			if fsetTest(float64(fin(a[l], s0)), float64(fin(b[l], s1)), o.mode) {
				r[l] = 0xffffffff
			} else {
				r[l] = 0
			}
		}
		if o.ccw {
			for l := range f {
				f[l] = intFlags(r[l], true)
			}
		}
		return true
	case opFMax, opFMin:
		for l := range r {
			x, y := fin(a[l], s0), fin(b[l], s1)
			r[l] = bitsOut(float32(fminmax(float64(x), float64(y), o.kind == opFMax)))
		}
	case opRRO:
		// The hardware converts to an internal fixed-point form; SIN, COS
		// and EX2 here take the plain value, so RRO passes it through.
		for l := range r {
			r[l] = math.Float32bits(fin(a[l], s0))
		}
	case opRcp, opRsq, opLg2, opSin, opCos, opEx2:
		for l := range r {
			out(l, float32(sfu(o.kind, float64(fin(a[l], s0)))))
		}
	case opSlct:
		// source 1 when the float source 3 is positive or zero, else source 2
		// (negative or NaN), seed 002
		for l := range r {
			if fin(c[l], s2) >= 0 {
				r[l] = a[l]
			} else {
				r[l] = b[l]
			}
		}
		if o.ccw {
			for l := range f {
				f[l] = intFlags(r[l], true)
			}
		}
		return true
	case opDFma, opDAdd, opDMul, opDMin, opDMax, opDSet:
		k.dalu(o, mask, r, f, w)
		return true
	default:
		return false
	}
	if o.ccw {
		for l := range f {
			f[l] = floatFlags(r[l])
		}
	}
	return true
}

func sat01(x float32) float32 {
	switch {
	case x != x || x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	return x
}

// pair reads a 64-bit register pair (low word in the even register) with
// the operand's |x| and -x.
func pair(w *emu.Warp, s *src, l int) float64 {
	if s.kind != sReg || int(s.row)+1 >= numGPR {
		return 0
	}
	lo := uint64(w.Regs[int(s.row)*32+l])
	hi := uint64(w.Regs[(int(s.row)+1)*32+l])
	x := math.Float64frombits(hi<<32 | lo)
	if s.abs {
		x = math.Abs(x)
	}
	if s.neg {
		x = -x
	}
	return x
}

// roundModes are math/big's versions of the rounding modifiers (0 nearest,
// 1 FLOOR, 2 CEIL, 3 TRUNC).
var roundModes = [4]big.RoundingMode{big.ToNearestEven, big.ToNegativeInf, big.ToPositiveInf, big.ToZero}

// directed computes x*y+z (mul: z unused; add: y unused) in double precision
// with a directed rounding; infinities and NaNs take the native result.
func directed(kind opKind, x, y, z float64, rnd uint8, native float64) float64 {
	if math.IsInf(native, 0) || native != native || math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsInf(z, 0) {
		return native
	}
	bx, by, bz := big.NewFloat(x), big.NewFloat(y), big.NewFloat(z)
	res := new(big.Float).SetPrec(53).SetMode(roundModes[rnd&3])
	switch kind {
	case opDAdd:
		res.Add(bx, bz)
	case opDMul:
		res.Mul(bx, by)
	default:
		res.Add(new(big.Float).SetPrec(106).Mul(bx, by), bz)
	}
	v, _ := res.Float64()
	return v
}

// dalu runs the sm_13 double-precision instructions on register pairs; it
// writes the high words itself and leaves the low words in r.
func (k *Kernel) dalu(o *op, mask uint32, r, f *lanes, w *emu.Warp) {
	for l := range r {
		if mask&(1<<l) == 0 {
			continue
		}
		x, y := pair(w, &o.s[0], l), pair(w, &o.s[1], l)
		var v float64
		switch o.kind {
		case opDFma:
			z := pair(w, &o.s[2], l)
			v = math.FMA(x, y, z)
			if o.mode2 != 0 {
				v = directed(opDFma, x, y, z, o.mode2, v)
			}
		case opDAdd:
			v = x + y
			if o.mode2 != 0 {
				v = directed(opDAdd, x, 0, y, o.mode2, v)
			}
		case opDMul:
			v = x * y
			if o.mode2 != 0 {
				v = directed(opDMul, x, y, 0, o.mode2, v)
			}
		case opDMin, opDMax:
			v = fminmax(x, y, o.kind == opDMax)
		case opDSet:
			if fsetTest(x, y, o.mode) {
				r[l] = 0xffffffff
			} else {
				r[l] = 0
			}
			f[l] = intFlags(r[l], true)
			continue
		}
		bits := math.Float64bits(v)
		if v != v {
			bits = 0x7fffffffffffffff
		}
		r[l] = uint32(bits)
		if o.dst == dReg && int(o.drow)+1 < numGPR {
			w.Regs[(int(o.drow)+1)*32+l] = uint32(bits >> 32)
		}
		f[l] = 0
		if v == 0 {
			f[l] = flagZ
		} else if v < 0 {
			f[l] = flagS
		} else if v != v {
			f[l] = flagZ | flagS
		}
	}
}
