package maxwell

import (
	"math"
	"math/bits"

	"github.com/gpuisa/gpuisa/emu"
)

func isWide(t uint8) bool   { return t == tU64 || t == tS64 || t == tF64 }
func isSigned(t uint8) bool { return t == tS8 || t == tS16 || t == tS32 || t == tS64 }

// intRange is the range of an integer type.
func intRange(t uint8) (float64, float64) {
	switch t {
	case tU8:
		return 0, 255
	case tS8:
		return -128, 127
	case tU16:
		return 0, 65535
	case tS16:
		return -32768, 32767
	case tU32:
		return 0, 4294967295
	case tS32:
		return -2147483648, 2147483647
	case tU64:
		return 0, 18446744073709551615
	}
	return -9223372036854775808, 9223372036854775807
}

// roundInt rounds x to an integer: 0 RN (even), 1/5 down, 2/6 up, 3/7 toward zero, 4 nearest even.
func roundInt(x float64, rnd uint8) float64 {
	switch rnd {
	case 1, 5:
		return math.Floor(x)
	case 2, 6:
		return math.Ceil(x)
	case 3, 7:
		return math.Trunc(x)
	}
	return math.RoundToEven(x)
}

// halfToFloat converts IEEE binary16 bits.
func halfToFloat(h uint16) float32 {
	s := uint32(h>>15) << 31
	e := uint32(h >> 10 & 0x1f)
	m := uint32(h & 0x3ff)
	switch {
	case e == 0x1f:
		return math.Float32frombits(s | 0x7f800000 | m<<13)
	case e == 0:
		f := float32(m) / 1024 / 16384
		if s != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(s | (e+112)<<23 | m<<13)
}

// floatToHalf rounds x to binary16 in mode rnd.
func floatToHalf(x float64, rnd uint8) uint16 {
	if x != x {
		return 0x7fff
	}
	var s uint16
	if math.Signbit(x) {
		s, x = 0x8000, -x
		if rnd == 1 {
			rnd = 2
		} else if rnd == 2 {
			rnd = 1
		}
	}
	if math.IsInf(x, 0) {
		return s | 0x7c00
	}
	// scale to units of the last place: normal exponents >= -14, denormals 2^-24
	e := math.Ilogb(x)
	if x == 0 {
		return s
	}
	e = max(e, -14)
	ulp := math.Ldexp(1, e-10)
	q := x / ulp // exact (power of two scaling)
	var n float64
	switch rnd {
	case 1:
		n = math.Floor(q)
	case 2:
		n = math.Ceil(q)
	case 3:
		n = math.Trunc(q)
	default:
		n = math.RoundToEven(q)
	}
	v := n * ulp
	if v >= 65520 || (v > 65504 && rnd != 0) {
		if rnd == 0 || rnd == 2 {
			return s | 0x7c00
		}
		return s | 0x7bff
	}
	if v > 65504 {
		return s | 0x7c00
	}
	if v < math.Ldexp(1, -14) {
		return s | uint16(math.Round(v/math.Ldexp(1, -24)))
	}
	fe := math.Ilogb(v)
	m := uint16(math.Round(v/math.Ldexp(1, fe-10))) & 0x3ff
	return s | uint16(fe+15)<<10 | m
}

// intToFloat rounds an integer to float32 or float64 (dt) in mode rnd
// (0 nearest even, 1 down, 2 up, 3 toward zero) and returns the bits.
func intToFloat(v uint64, signed bool, dt uint8, rnd uint8) uint64 {
	neg := signed && int64(v) < 0
	mag := v
	if neg {
		mag = -v
	}
	mbits := 24
	if dt == tF64 {
		mbits = 53
	}
	var f float64
	if n := bits.Len64(mag); n <= mbits {
		f = float64(mag) // exact
	} else {
		sh := uint(n - mbits)
		q, rem, half := mag>>sh, mag&(1<<sh-1), uint64(1)<<(sh-1)
		switch rnd & 3 {
		case 0:
			if rem > half || rem == half && q&1 == 1 {
				q++
			}
		case 1:
			if neg && rem != 0 {
				q++
			}
		case 2:
			if !neg && rem != 0 {
				q++
			}
		}
		f = math.Ldexp(float64(q), int(sh))
	}
	if neg {
		f = -f
	}
	if dt == tF64 {
		return math.Float64bits(f)
	}
	return uint64(math.Float32bits(float32(f))) // exact: f has at most 24 significant bits
}

func (k *Kernel) cvt(w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	d := int(o.d.row) * 32
	a := &o.s[0]
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		// read the source
		var raw uint64
		if isWide(o.st) {
			raw = k.val64(regs, a, l)
			if a.kind == oImm {
				raw = a.imm // 64-bit integer immediates are rare; keep the value
			}
		} else {
			raw = uint64(selected(k.val(regs, a, l), a.sel))
		}
		var f float64 // float source value
		var ival uint64
		switch o.st {
		case tF16:
			f = float64(halfToFloat(uint16(raw)))
		case tF32:
			v := uint32(raw)
			if o.flags&fFTZ != 0 {
				v = flush(v)
			}
			f = float64(math.Float32frombits(v))
		case tF64:
			f = math.Float64frombits(raw)
		case tU8:
			ival = raw & 0xff
		case tS8:
			ival = uint64(int64(int8(raw)))
		case tU16:
			ival = raw & 0xffff
		case tS16:
			ival = uint64(int64(int16(raw)))
		case tU32:
			ival = raw & 0xffffffff
		case tS32:
			ival = uint64(int64(int32(raw)))
		default:
			ival = raw
		}
		if o.st >= tF16 && (a.abs || a.neg) {
			if a.abs {
				f = math.Abs(f)
			}
			if a.neg {
				f = -f
			}
		} else if o.st < tF16 {
			if a.abs && isSigned(o.st) && int64(ival) < 0 {
				ival = -ival
			}
			if a.neg {
				ival = -ival
			}
		}
		var out uint64
		switch o.kind {
		case kF2F:
			if o.rnd >= 4 || (o.st == o.dt && o.rnd != 0) {
				f = roundInt(f, o.rnd)
			}
			switch o.dt {
			case tF16:
				out = uint64(floatToHalf(f, o.rnd&3))
			case tF32:
				var r float32
				if o.st == tF64 {
					r = round32(f, o.rnd&3)
					if o.rnd >= 4 {
						r = float32(f)
					}
				} else {
					r = float32(f)
				}
				out = uint64(fout(r, o))
			default:
				out = math.Float64bits(f)
				if f != f {
					out = 0xfff8000000000000
				}
			}
		case kF2I:
			lo, hi := intRange(o.dt)
			x := roundInt(f, o.rnd)
			var iv int64
			var uv uint64
			switch {
			case x != x:
				iv, uv = 0, 0
			case x <= lo:
				iv, uv = int64(lo), 0
			case x >= hi:
				switch o.dt {
				case tU64:
					uv = math.MaxUint64
				case tS64: // float64 has no 2^63-1: hi is 2^63, past int64
					iv = math.MaxInt64
				default:
					iv, uv = int64(hi), uint64(hi)
				}
			default:
				if isSigned(o.dt) {
					iv = int64(x)
				} else {
					uv = uint64(x)
				}
			}
			if isSigned(o.dt) {
				out = uint64(iv)
			} else {
				out = uv
			}
			if f != f {
				out = 0 // PTX: NaN converts to 0
			}
		case kI2F:
			signed := isSigned(o.st)
			out = intToFloat(ival, signed, o.dt, o.rnd)
			if o.dt == tF16 {
				var x float64
				if signed {
					x = float64(int64(ival))
				} else {
					x = float64(ival)
				}
				out = uint64(floatToHalf(x, o.rnd&3))
			}
		case kI2I:
			lo, hi := intRange(o.dt)
			if o.flags&fSAT != 0 {
				var x float64
				if isSigned(o.st) {
					x = float64(int64(ival))
				} else {
					x = float64(ival)
				}
				switch {
				case x < lo:
					ival = uint64(int64(lo))
				case x > hi:
					ival = uint64(hi)
				}
			}
			switch o.dt {
			case tU8:
				out = ival & 0xff
			case tS8:
				out = uint64(int64(int8(ival)))
			case tU16:
				out = ival & 0xffff
			case tS16:
				out = uint64(int64(int16(ival)))
			default:
				out = ival
			}
		}
		regs[d+l] = uint32(out)
		if isWide(o.dt) {
			regs[d+32+l] = uint32(out >> 32)
		}
	}
	if o.flags&fCC != 0 {
		writeCC(regs, k.Prog.rowCC()*32, mask, d, 0, 0)
	}
}
