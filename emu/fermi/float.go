package fermi

import (
	"math"
)

// Floating point as sm_2x computes it: IEEE 754-2008 single and double
// precision with the four rounding modes, denormals kept unless .FTZ, a
// fused multiply-add in both precisions, NaN results canonical.

// canonicalNaN32 and canonicalNaN64 are the NaN results (as the Maxwell
// emulator's; the hardware's NaN payloads are not documented for sm_2x).
const (
	canonicalNaN32 = 0x7fffffff
	canonicalNaN64 = 0xfff8000000000000
)

// twoSum returns s = fl(x+y) and the exact error e: x+y = s+e.
func twoSum(x, y float64) (s, e float64) {
	s = x + y
	v := s - x
	e = (x - (s - v)) + (y - v)
	return s, e
}

// round32 rounds the exact value s+e (s the float64 nearest to it, |e| at
// most half an ulp of s) to single precision in mode rnd (0 nearest even,
// 1 down, 2 up, 3 toward zero).
func round32(s, e float64, rnd uint8) float32 {
	f := float32(s)
	if s != s || math.IsInf(s, 0) {
		return f
	}
	if rnd == 0 {
		if e == 0 || !midpoint32(s) {
			return f
		}
		// s lies halfway between two singles: the true value is on e's side
		up, down := math.Nextafter32(f, float32(math.Inf(1))), math.Nextafter32(f, float32(math.Inf(-1)))
		lo, hi := f, up
		if float64(f) > s {
			lo, hi = down, f
		}
		if e > 0 {
			return hi
		}
		return lo
	}
	// where the true value lies relative to f: -1 below, 0 equal, 1 above
	side := 0
	switch {
	case math.IsInf(float64(f), 0):
		// overflow: directed modes may stop at the largest finite value
		max := float32(math.MaxFloat32)
		switch {
		case rnd == 3, rnd == 1 && s > 0:
			return float32(math.Copysign(float64(max), s))
		case rnd == 2 && s < 0:
			return -max
		}
		return f
	case float64(f) < s, float64(f) == s && e > 0:
		side = 1
	case float64(f) > s, float64(f) == s && e < 0:
		side = -1
	}
	switch {
	case rnd == 1 && side < 0:
		return math.Nextafter32(f, float32(math.Inf(-1)))
	case rnd == 2 && side > 0:
		return math.Nextafter32(f, float32(math.Inf(1)))
	case rnd == 3 && (side < 0 && f > 0 || side > 0 && f < 0):
		return math.Nextafter32(f, 0)
	case rnd == 3 && f == 0 && side != 0:
		return f
	}
	return f
}

// midpoint32 reports whether s lies exactly halfway between two singles.
func midpoint32(s float64) bool {
	f := float32(s)
	if float64(f) == s {
		return false
	}
	var other float32
	if float64(f) > s {
		other = math.Nextafter32(f, float32(math.Inf(-1)))
	} else {
		other = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return (float64(f)+float64(other))/2 == s
}

// flush32 turns a single denormal into a zero of its sign.
func flush32(v uint32) uint32 {
	if v&0x7f800000 == 0 {
		return v & 0x80000000
	}
	return v
}

// fin reads a single-precision source: |x| and -x, then .FTZ's flush.
func fin(v uint32, s *opnd, ftz bool) float32 {
	if s.abs {
		v &^= 1 << 31
	}
	if s.neg {
		v ^= 1 << 31
	}
	if ftz {
		v = flush32(v)
	}
	return math.Float32frombits(v)
}

// fout is the bits written for a single result: .SAT clamps to [0, 1]
// (NaN to 0), .FTZ flushes denormals, NaN is canonical.
func fout(f float32, flags uint32) uint32 {
	if flags&fSAT != 0 {
		switch {
		case f != f, f <= 0:
			f = 0
		case f > 1:
			f = 1
		}
	}
	if f != f {
		return canonicalNaN32
	}
	v := math.Float32bits(f)
	if flags&fFTZ != 0 {
		v = flush32(v)
	}
	return v
}

// fadd32, fmul32 and ffma32 are single-precision results rounded once.
func fadd32(x, y float32, rnd uint8) float32 {
	s, e := twoSum(float64(x), float64(y))
	if s == 0 && e == 0 {
		return zeroSum32(float64(x), float64(y), rnd)
	}
	return round32(s, e, rnd)
}

// zeroSum32 is an exact zero sum's sign: -0 when both summands are -0, or
// when rounding down unless both are +0; +0 otherwise.
func zeroSum32(x, y float64, rnd uint8) float32 {
	neg := math.Signbit(x) && math.Signbit(y) && x == 0 && y == 0
	if rnd == 1 && !(x == 0 && y == 0 && !math.Signbit(x) && !math.Signbit(y)) {
		neg = true
	}
	if neg {
		return float32(math.Copysign(0, -1))
	}
	return 0
}

func fmul32(x, y float32, scale float64, rnd uint8) float32 {
	p := float64(x) * float64(y) * scale // exact: 48 bits, scaled by a power of two
	return round32(p, 0, rnd)
}

func ffma32(x, y, z float32, rnd uint8) float32 {
	p := float64(x) * float64(y) // exact
	s, e := twoSum(p, float64(z))
	if s == 0 && e == 0 {
		return zeroSum32(p, float64(z), rnd)
	}
	return round32(s, e, rnd)
}

// fmulScale is FMUL's result scaling (.D2 .D4 .D8 .M8 .M4 .M2).
var fmulScale = [8]float64{1, 0.5, 0.25, 0.125, 8, 4, 2, 1}

// fcmpRel is a comparison's relation bits: 1 less, 2 equal, 4 greater, 8
// unordered; a test of the fcmp table holds when it shares a bit.
func fcmpRel(x, y float64) uint8 {
	switch {
	case x != x || y != y:
		return 8
	case x < y:
		return 1
	case x == y:
		return 2
	}
	return 4
}

// fflags are the condition code flags of a float result (Tesla's
// convention): zero Z, negative S, NaN both.
func fflags(x float64) (z, s bool) {
	switch {
	case x != x:
		return true, true
	case x == 0:
		return true, false
	}
	return false, x < 0
}
