package tesla

import (
	"math"

	"github.com/gpuisa/gpuisa/emu"
)

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
