package tesla

import (
	"math"
	"math/big"
	"math/bits"

	"gpuisa/emu"
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
// truncated product of two normal singles is computed on the integer
// mantissas (float conversions would chain through false register
// dependencies); zeros, denormals, infinities, NaNs and results outside the
// normal range take mulTrunc.
func fmadLanes(a, b, c, r *lanes) {
	var slow uint32 // lanes whose product or sum needs the general path
	for l := range r {
		x, y, z := a[l], b[l], c[l]
		ex, ey := x>>23&0xff, y>>23&0xff
		m := uint64(x&0x7fffff|0x800000) * uint64(y&0x7fffff|0x800000) // in [2^46, 2^48)
		hi := uint32(m >> 47)
		e := ex + ey - 127 + hi
		nz := uint32(int32(-(ex * ey)) >> 31) // 0 when a factor is zero or denormal (flushed)
		p := (x^y)&0x80000000 | (e<<23|uint32(m>>(23+hi))&0x7fffff)&nz
		if z&0x7f800000 == 0 {
			z &= 0x80000000
		}
		s := math.Float32bits(math.Float32frombits(p) + math.Float32frombits(z))
		sa := s & 0x7fffffff
		// general path: a product outside the normal range (unsigned tests
		// also catch exponents below 1), an infinite or NaN factor, a
		// denormal or NaN sum
		if max(e-1, ex-1, ey-1)&nz >= 254 || max(ex, ey) == 255 || sa-1 < 0x7fffff || sa > 0x7f800000 {
			slow |= 1 << l // r may be a source's row: leave it for the second pass
		} else {
			r[l] = s
		}
	}
	for ; slow != 0; slow &= slow - 1 {
		l := bits.TrailingZeros32(slow)
		p := math.Float32frombits(mulTrunc(f32(a[l]), f32(b[l])))
		r[l] = bitsOut(p + f32(c[l]))
	}
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
			fmadLanes(a, b, c, r)
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

// cvt converts between the integer and float types (I2I, I2F, F2I, F2F),
// 64-bit operands being register pairs. Integer results clamp to the
// destination's range; F2F rounds to an integer only with .IR.
func cvt(o *op, a, r, f *lanes, w *emu.Warp) {
	dt, st := cvtType(o.mode), cvtType(o.mode2)
	rnd := o.size
	for l := range r {
		x := uint64(a[l])
		if st.wide() {
			x = pairBits(w, &o.s[0], l)
		}
		var iv int64
		var fv float64
		isFloat := false
		switch st {
		case tU16:
			iv = int64(x & 0xffff)
		case tS16:
			iv = sext(uint32(x)&0xffff, 16)
		case tU8:
			iv = int64(x & 0xff)
		case tS8:
			iv = sext(uint32(x)&0xff, 8)
		case tU32:
			iv = int64(uint32(x))
		case tS32:
			iv = int64(int32(x))
		case tU64:
			iv = int64(x) // above 2^63 handled as float below
			if int64(x) < 0 {
				fv, isFloat = float64(x), true
			}
		case tS64:
			iv = int64(x)
		case tF16:
			fv, isFloat = float64(halfToFloat(uint16(x))), true
		case tF32:
			fv, isFloat = float64(f32(uint32(x))), true
		case tF64:
			fv, isFloat = math.Float64frombits(x), true
		}
		if isFloat {
			if o.s[0].abs {
				fv = math.Abs(fv)
			}
			if o.s[0].neg {
				fv = -fv
			}
		} else {
			if o.s[0].abs && iv < 0 {
				iv = -iv
			}
			if o.s[0].neg {
				iv = -iv
			}
		}
		if dt.float() {
			if !isFloat {
				fv = float64(iv)
			} else if o.hi {
				fv = roundInt(fv, rnd)
			}
			var bits uint64
			switch dt {
			case tF64:
				if o.sat {
					fv = float64(sat01f64(fv))
				}
				bits = math.Float64bits(fv)
				if fv != fv {
					bits = 0x7fffffffffffffff
				}
				f[l] = floatFlags64(fv)
			case tF32:
				y := roundF32(fv, rnd)
				if o.hi {
					y = float32(fv) // already integral
				}
				if o.sat {
					y = sat01(y)
				}
				bits = uint64(bitsOut(y))
				f[l] = floatFlags(uint32(bits))
			default: // F16
				y := roundF32(fv, rnd)
				if o.sat {
					y = sat01(y)
				}
				bits = uint64(floatToHalf(y))
				f[l] = intFlags(uint32(bits), false)
			}
			r[l] = uint32(bits)
			writeHigh(w, o, l, dt, bits)
			continue
		}
		if isFloat {
			if fv != fv {
				iv = 0
			} else {
				fv = roundInt(fv, rnd)
				switch {
				case fv >= 1<<63:
					iv = math.MaxInt64
					if dt == tU64 {
						iv = -1 // all ones
					}
				case fv <= -(1 << 63):
					iv = math.MinInt64
				default:
					iv = int64(fv)
				}
			}
		}
		var res uint64
		switch dt {
		case tU64:
			if isFloat && fv >= 1<<63 {
				res = math.MaxUint64
			} else {
				res = uint64(max(iv, 0))
			}
		case tS64:
			res = uint64(iv)
		default:
			lo, hi := cvtRange(dt)
			res = uint64(min(max(iv, lo), hi))
		}
		r[l] = uint32(res)
		writeHigh(w, o, l, dt, res)
		f[l] = intFlags(uint32(res), o.dst == dReg || o.dst == dNone)
	}
}

// cvtRange is the range an integer conversion result clamps to.
func cvtRange(t cvtType) (int64, int64) {
	switch t {
	case tU8:
		return 0, 0xff
	case tS8:
		return -0x80, 0x7f
	case tU16:
		return 0, 0xffff
	case tS16:
		return -0x8000, 0x7fff
	case tU32:
		return 0, 0xffffffff
	}
	return -0x80000000, 0x7fffffff
}

// pairBits reads a 64-bit register pair.
func pairBits(w *emu.Warp, s *src, l int) uint64 {
	if s.kind != sReg || int(s.row)+1 >= numGPR {
		return 0
	}
	return uint64(w.Regs[(int(s.row)+1)*32+l])<<32 | uint64(w.Regs[int(s.row)*32+l])
}

// writeHigh stores the high word of a 64-bit conversion result.
func writeHigh(w *emu.Warp, o *op, l int, dt cvtType, bits uint64) {
	if dt.wide() && o.dst == dReg && int(o.drow)+1 < numGPR {
		w.Regs[(int(o.drow)+1)*32+l] = uint32(bits >> 32)
	}
}

func sat01f64(x float64) float64 {
	switch {
	case x != x || x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	return x
}

func floatFlags64(v float64) uint32 {
	switch {
	case v != v:
		return flagZ | flagS
	case v == 0:
		return flagZ
	case v < 0:
		return flagS
	}
	return 0
}

// roundInt rounds to an integral value: 0 nearest even, 1 floor, 2 ceil,
// 3 trunc.
func roundInt(x float64, rnd uint8) float64 {
	switch rnd {
	case 1:
		return math.Floor(x)
	case 2:
		return math.Ceil(x)
	case 3:
		return math.Trunc(x)
	}
	return math.RoundToEven(x)
}

// roundF32 rounds a float64 to float32 with a rounding mode (0 nearest,
// 1 down, 2 up, 3 toward zero), flushing denormals.
func roundF32(x float64, rnd uint8) float32 {
	y := float32(x)
	if x != x || math.IsInf(x, 0) {
		return y
	}
	d := float64(y)
	switch rnd {
	case 1:
		if d > x {
			y = math.Nextafter32(y, float32(math.Inf(-1)))
		}
	case 2:
		if d < x {
			y = math.Nextafter32(y, float32(math.Inf(1)))
		}
	case 3:
		if math.Abs(d) > math.Abs(x) {
			y = towardZero(y)
		}
	}
	return math.Float32frombits(ftz(math.Float32bits(y)))
}

func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	e := int(h >> 10 & 0x1f)
	m := uint32(h & 0x3ff)
	switch {
	case e == 0:
		return math.Float32frombits(sign) // denormal halves flush to zero
	case e == 31:
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	}
	return math.Float32frombits(sign | uint32(e-15+127)<<23 | m<<13)
}

func floatToHalf(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	switch {
	case x != x:
		return sign | 0x7e00
	case math.IsInf(float64(x), 0) || math.Abs(float64(x)) >= 65520:
		return sign | 0x7c00
	case math.Abs(float64(x)) < 6.103515625e-05:
		return sign // flush
	}
	e := int(b>>23&0xff) - 127 + 15
	m := b & 0x7fffff
	// round to nearest even on the 13 dropped bits
	h := uint32(e)<<10 | m>>13
	rest := m & 0x1fff
	if rest > 0x1000 || rest == 0x1000 && h&1 != 0 {
		h++
	}
	return sign | uint16(h)
}
