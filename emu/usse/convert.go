package usse

import "math"

// toFloat reads the bits of one channel of format f as a value. With scale,
// integer formats are normalised (u8 /255, s8 /127, u16 /65535, s16
// /32767); fx10 is a signed 10-bit fixed-point value with 8 fraction bits
// read as v/255 (Vita3K's unpack of three FX10 channels per word).
func toFloat(v uint32, f fmtID, scale bool) float32 {
	switch f {
	case fF32:
		return f32(v)
	case fF16:
		return halfToFloat(v & 0xffff)
	case fFX10:
		return float32(int32(v<<22)>>22) / 255
	case fU8:
		x := float32(v & 0xff)
		if scale {
			x /= 255
		}
		return x
	case fS8:
		x := float32(int8(v))
		if scale {
			x = max(x/127, -1)
		}
		return x
	case fO8:
		x := float32(int32(v&0xff) - 128)
		if scale {
			x = max(x/127, -1)
		}
		return x
	case fU16:
		x := float32(v & 0xffff)
		if scale {
			x /= 65535
		}
		return x
	case fS16:
		x := float32(int16(v))
		if scale {
			x = max(x/32767, -1)
		}
		return x
	case fU32:
		return float32(v)
	case fS32:
		return float32(int32(v))
	}
	return 0
}

// fromFloat converts a value to the bits of format f: floats round to
// nearest, integers round to nearest and saturate (with scale, from the
// normalised range). NaN converts to 0 for integer formats.
func fromFloat(x float32, f fmtID, scale bool) uint32 {
	switch f {
	case fF32:
		return bits(x)
	case fF16:
		return floatToHalf(x)
	case fFX10:
		return uint32(satRound(float64(x)*255, -512, 511)) & 0x3ff
	case fU8:
		if scale {
			x *= 255
		}
		return uint32(satRound(float64(x), 0, 255))
	case fS8:
		if scale {
			x *= 127
		}
		return uint32(satRound(float64(x), -128, 127)) & 0xff
	case fO8:
		if scale {
			x *= 127
		}
		return uint32(satRound(float64(x), -128, 127)+128) & 0xff
	case fU16:
		if scale {
			x *= 65535
		}
		return uint32(satRound(float64(x), 0, 65535))
	case fS16:
		if scale {
			x *= 32767
		}
		return uint32(satRound(float64(x), -32768, 32767)) & 0xffff
	case fU32:
		return uint32(satRound(float64(x), 0, math.MaxUint32))
	case fS32:
		return uint32(satRound(float64(x), math.MinInt32, math.MaxInt32))
	}
	return 0
}

func satRound(x, lo, hi float64) int64 {
	if math.IsNaN(x) {
		return 0
	}
	x = math.RoundToEven(x)
	return int64(math.Max(lo, math.Min(hi, x)))
}
