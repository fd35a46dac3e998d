package maxwell

import (
	"math"
	"strconv"
)

// Float immediates print in decimal the way nvdisasm does.

func appendF32(dst []byte, b uint32) []byte {
	return appendFloat(dst, float64(math.Float32frombits(b)))
}

func appendF64(dst []byte, b uint64) []byte {
	return appendFloat(dst, math.Float64frombits(b))
}

func appendF16(dst []byte, b uint16) []byte {
	return appendFloat(dst, f16to64(b))
}

func f16to64(b uint16) float64 {
	sign := 1.0
	if b&0x8000 != 0 {
		sign = -1
	}
	e := int(b>>10) & 0x1f
	m := float64(b & 0x3ff)
	switch e {
	case 0:
		return sign * m * math.Pow(2, -24)
	case 31:
		if m == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	return sign * (1 + m/1024) * math.Pow(2, float64(e-15))
}

func appendFloat(dst []byte, x float64) []byte {
	switch {
	case math.IsInf(x, 1):
		return append(dst, "+INF"...)
	case math.IsInf(x, -1):
		return append(dst, "-INF"...)
	case math.IsNaN(x):
		return append(dst, "+QNAN"...)
	}
	return strconv.AppendFloat(dst, x, 'g', -1, 64)
}
