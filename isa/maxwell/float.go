package maxwell

import (
	"math"
	"strconv"
)

// Float immediates print in decimal the way nvdisasm does: C's %.20g, or
// %.20e from 1e9 up; infinities and NaNs by name followed by a blank.

func appendF32(dst []byte, b uint32) []byte {
	if b>>23&0xff == 0xff {
		return appendSpecial(dst, b>>31 != 0, b&0x7fffff == 0, b>>22&1 != 0)
	}
	return appendFloat(dst, float64(math.Float32frombits(b)))
}

func appendF64(dst []byte, b uint64) []byte {
	if b>>52&0x7ff == 0x7ff {
		return appendSpecial(dst, b>>63 != 0, b&(1<<52-1) == 0, b>>51&1 != 0)
	}
	return appendFloat(dst, math.Float64frombits(b))
}

func appendF16(dst []byte, b uint16) []byte {
	if b>>10&0x1f == 0x1f {
		return appendSpecial(dst, b>>15 != 0, b&0x3ff == 0, b>>9&1 != 0)
	}
	return appendFloat(dst, f16to64(b))
}

func appendSpecial(dst []byte, neg, inf, quiet bool) []byte {
	if neg {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	switch {
	case inf:
		return append(dst, "INF "...)
	}
	// nvdisasm names every NaN QNAN, whatever its quiet bit
	_ = quiet
	return append(dst, "QNAN "...)
}

func f16to64(b uint16) float64 {
	sign := 1.0
	if b&0x8000 != 0 {
		sign = -1
	}
	e := int(b>>10) & 0x1f
	m := float64(b & 0x3ff)
	if e == 0 {
		return sign * math.Ldexp(m, -24)
	}
	return sign * math.Ldexp(1024+m, e-25)
}

func appendFloat(dst []byte, x float64) []byte {
	if x == 0 && math.Signbit(x) {
		return append(dst, "-0.0 "...)
	}
	if math.Abs(x) >= 1e9 {
		return strconv.AppendFloat(dst, x, 'e', 20, 64)
	}
	return strconv.AppendFloat(dst, x, 'g', 20, 64)
}
