package fermi

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/gpuisa/gpuisa/emu"
)

// cvt runs F2F, F2I, I2F and I2I. Sources of 8 or 16 bits take the byte or
// half the operand selects; |x| and -x apply to the source value; integer
// results of F2I (and of I2I with .SAT) clamp to the destination's range,
// NaN converting to 0 (PTX cvt); I2I without .SAT keeps the destination's
// low bits, sign- or zero-extended to 32.
func (k *Kernel) cvt(w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	s := &o.s[0]
	dt, st := o.size, o.size2
	var z, sg uint32
	var buf lanes
	src := k.row(regs, s, &buf)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		var raw uint64
		if typeBits(st) == 64 {
			raw = k.val64(regs, s, l)
		} else {
			raw = uint64(src[l])
			switch typeBits(st) {
			case 8:
				raw = raw >> (8 * uint(s.sel&3)) & 0xff
			case 16:
				raw = raw >> (16 * uint(s.sel&1)) & 0xffff
			}
		}
		var out uint64
		if isFloatType(st) {
			f := floatSource(raw, st, o.flags&fFTZ != 0)
			if s.abs {
				f = math.Abs(f)
			}
			if s.neg {
				f = -f
			}
			if o.kind == kF2F {
				out = f2f(f, dt, st, o)
			} else {
				out = f2i(f, dt, o.rnd)
			}
		} else {
			v := intSource(raw, st)
			if s.abs && isSignedType(st) && int64(v) < 0 {
				v = -v
			}
			if s.neg {
				v = -v
			}
			signed := isSignedType(st) || s.neg
			if o.kind == kI2F {
				out = i2f(v, signed, dt, o.rnd)
			} else {
				out = i2i(v, signed, dt, o.flags&fSAT != 0)
			}
		}
		regs[dstRow(&o.d, 0)*32+l] = uint32(out)
		if typeBits(dt) == 64 {
			regs[dstRow(&o.d, 1)*32+l] = uint32(out >> 32)
		}
		if o.flags&fCCOut != 0 {
			var zz, ss bool
			switch {
			case dt == tF64:
				zz, ss = fflags(math.Float64frombits(out))
			case dt == tF32:
				zz, ss = fflags(float64(math.Float32frombits(uint32(out))))
			default:
				zz, ss = uint32(out) == 0, int32(out) < 0
			}
			if zz {
				z |= 1 << l
			}
			if ss {
				sg |= 1 << l
			}
		}
	}
	if o.flags&fCCOut != 0 {
		setCC(regs, mask, z, sg, 0, 0)
	}
}

// floatSource is a float source's value (.FTZ flushes single denormals).
func floatSource(raw uint64, t uint8, ftz bool) float64 {
	switch t {
	case tF16:
		return float64(halfToFloat(uint16(raw)))
	case tF32:
		v := uint32(raw)
		if ftz {
			v = flush32(v)
		}
		return float64(math.Float32frombits(v))
	}
	return math.Float64frombits(raw)
}

// intSource is an integer source's value, extended to 64 bits by its type.
func intSource(raw uint64, t uint8) uint64 {
	switch t {
	case tU8:
		return raw & 0xff
	case tS8:
		return uint64(int64(int8(raw)))
	case tU16:
		return raw & 0xffff
	case tS16:
		return uint64(int64(int16(raw)))
	case tU32:
		return raw & 0xffffffff
	case tS32:
		return uint64(int64(int32(raw)))
	}
	return raw
}

// roundIntegral rounds x to an integral value in mode rnd.
func roundIntegral(x float64, rnd uint8) float64 {
	switch rnd & 3 {
	case 1:
		return math.Floor(x)
	case 2:
		return math.Ceil(x)
	case 3:
		return math.Trunc(x)
	}
	return math.RoundToEven(x)
}

// f2f converts between float types: same-type conversions pass the value
// (.PASS) or round it to an integral value; narrowing rounds in mode rnd.
func f2f(f float64, dt, st uint8, o *op) uint64 {
	if o.flags&fRoundInt != 0 {
		f = roundIntegral(f, o.rnd)
	}
	switch dt {
	case tF16:
		return uint64(floatToHalf(f, o.rnd))
	case tF32:
		var r float32
		if st == tF64 && o.flags&fRoundInt == 0 {
			r = round32(f, 0, o.rnd)
		} else {
			r = float32(f)
		}
		return uint64(fout(r, o.flags))
	}
	if o.flags&fSAT != 0 {
		switch {
		case f != f, f <= 0:
			f = 0
		case f > 1:
			f = 1
		}
	}
	if f != f {
		return canonicalNaN64
	}
	return math.Float64bits(f)
}

// f2i converts to an integer type, rounding in mode rnd and clamping.
func f2i(f float64, dt uint8, rnd uint8) uint64 {
	if f != f {
		return 0
	}
	x := roundIntegral(f, rnd)
	n := typeBits(dt)
	if isSignedType(dt) {
		lo, hi := -math.Ldexp(1, n-1), math.Ldexp(1, n-1)
		switch {
		case x < lo:
			x = lo
		case x >= hi:
			return uint64(1)<<(n-1) - 1
		}
		return uint64(int64(x))
	}
	hi := math.Ldexp(1, n)
	switch {
	case x <= 0:
		return 0
	case x >= hi:
		if n == 64 {
			return math.MaxUint64
		}
		return uint64(1)<<n - 1
	}
	return uint64(x)
}

// i2f converts a 64-bit integer (signed or not) to a float type in mode rnd.
func i2f(v uint64, signed bool, dt uint8, rnd uint8) uint64 {
	var x big.Float
	if signed {
		x.SetInt64(int64(v))
	} else {
		x.SetUint64(v)
	}
	mode := [4]big.RoundingMode{big.ToNearestEven, big.ToNegativeInf, big.ToPositiveInf, big.ToZero}[rnd&3]
	switch dt {
	case tF16:
		f, _ := new(big.Float).SetMode(mode).SetPrec(53).Set(&x).Float64()
		return uint64(floatToHalf(f, rnd))
	case tF32:
		if fits := signed && int64(v) >= -1<<24 && int64(v) <= 1<<24 || !signed && v <= 1<<24; fits {
			return uint64(math.Float32bits(float32(bigFloat64(&x))))
		}
		f, _ := new(big.Float).SetMode(mode).SetPrec(24).Set(&x).Float32()
		return uint64(math.Float32bits(f))
	}
	f, _ := new(big.Float).SetMode(mode).SetPrec(53).Set(&x).Float64()
	return math.Float64bits(f)
}

func bigFloat64(x *big.Float) float64 {
	f, _ := x.Float64()
	return f
}

// i2i converts between integer types: .SAT clamps to the destination's
// range; the result is extended to 32 bits (a 64-bit one fills two words).
func i2i(v uint64, signed bool, dt uint8, sat bool) uint64 {
	n := typeBits(dt)
	if sat {
		if isSignedType(dt) {
			lo, hi := -(int64(1) << (n - 1)), int64(1)<<(n-1)-1
			if n == 64 {
				lo, hi = math.MinInt64, math.MaxInt64
			}
			x := int64(v)
			switch {
			case !signed && v > uint64(hi):
				x = hi
			case signed && x < lo:
				x = lo
			case signed && x > hi:
				x = hi
			}
			v = uint64(x)
		} else {
			switch {
			case signed && int64(v) < 0:
				v = 0
			case n < 64 && v > uint64(1)<<n-1:
				v = uint64(1)<<n - 1
			}
		}
	}
	if n == 64 {
		return v
	}
	if isSignedType(dt) {
		return uint64(uint32(int32(int64(v<<(64-n)) >> (64 - n))))
	}
	return v & (uint64(1)<<n - 1)
}

// halfToFloat converts IEEE binary16 bits.
func halfToFloat(h uint16) float32 {
	sign := float32(1)
	if h>>15 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0x1f:
		if m != 0 {
			return float32(math.NaN())
		}
		return sign * float32(math.Inf(1))
	case 0:
		return sign * float32(math.Ldexp(m, -24))
	}
	return sign * float32(math.Ldexp(1024+m, e-25))
}

// floatToHalf rounds x to IEEE binary16 in mode rnd.
func floatToHalf(x float64, rnd uint8) uint16 {
	if x != x {
		return 0x7fff
	}
	var sign uint16
	if math.Signbit(x) {
		sign, x = 0x8000, -x
	}
	mode := [4]big.RoundingMode{big.ToNearestEven, big.ToNegativeInf, big.ToPositiveInf, big.ToZero}[rnd&3]
	if sign != 0 && (mode == big.ToNegativeInf || mode == big.ToPositiveInf) {
		mode ^= 1 // rounding the magnitude: down and up swap
	}
	if math.IsInf(x, 0) {
		return sign | 0x7c00
	}
	if x == 0 {
		return sign
	}
	// the value in units of the smallest subnormal (2^-24), rounded
	scaled := new(big.Float).SetFloat64(x)
	e := scaled.MantExp(nil) // x = m * 2^e, 0.5 <= m < 1
	prec := uint(11)
	if e-1 < -14 { // subnormal: fewer bits
		bitsLeft := e - 1 + 25
		if bitsLeft <= 0 {
			// below the smallest subnormal 2^-24: 0 or 2^-24
			switch {
			case mode == big.ToPositiveInf, mode == big.ToNearestEven && x > 0x1p-25:
				return sign | 1
			}
			return sign
		}
		prec = uint(bitsLeft)
	}
	r, _ := new(big.Float).SetMode(mode).SetPrec(prec).Set(scaled).Float64()
	if r >= 65520 || r > 65504 {
		if mode == big.ToZero || mode == big.ToNegativeInf {
			return sign | 0x7bff
		}
		return sign | 0x7c00
	}
	fe := math.Ilogb(r)
	if fe < -14 {
		return sign | uint16(math.Ldexp(r, 24))
	}
	mant := math.Ldexp(r, -fe)*1024 - 1024
	return sign | uint16(fe+15)<<10 | uint16(mant)
}
