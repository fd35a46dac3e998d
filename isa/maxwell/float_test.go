package maxwell

import (
	"math"
	"strconv"
	"testing"
)

// slowFloat is the reference: strconv's exact big-decimal formatting.
func slowFloat(x float64) string {
	if math.Abs(x) >= 1e9 {
		return strconv.FormatFloat(x, 'e', 20, 64)
	}
	return strconv.FormatFloat(x, 'g', 20, 64)
}

// TestFastFloat checks the fixed-size digit generator against strconv on every
// half, many float32 values and the 20-bit double immediates.
func TestFastFloat(t *testing.T) {
	check := func(x float64) {
		if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return
		}
		if got, want := string(appendFloat(nil, x)), slowFloat(x); got != want {
			t.Fatalf("%v (%#x): got %s want %s", x, math.Float64bits(x), got, want)
		}
	}
	for b := 0; b < 1<<16; b++ {
		check(f16to64(uint16(b)))
	}
	for b := uint32(0); b < 1<<20; b++ {
		check(float64(math.Float32frombits(b << 12)))
	}
	s := splitmixT(1)
	for i := 0; i < 60000; i++ {
		check(float64(math.Float32frombits(uint32(s.next()))))
		check(math.Float64frombits(s.next() >> 44 << 44))
		check(math.Float64frombits(s.next()))
	}
	for e := -1074; e < -100; e++ {
		check(math.Ldexp(1, e))
		check(math.Ldexp(511, e-8))
	}
}

type splitmixT uint64

func (s *splitmixT) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// TestShortDigits aims at shortDigits' edges: random mantissas of every
// length with exponents around where mant*5^k or mant<<e stops fitting in 64
// bits, where the digit count passes 20 or 21, and below 1 (tinyDigits),
// against strconv.
func TestShortDigits(t *testing.T) {
	n := 2000000
	if testing.Short() {
		n = 200000
	}
	s := splitmixT(7)
	for i := 0; i < n; i++ {
		r := s.next()
		bitsLen := 1 + int(r%53)
		mant := s.next()>>uint(64-bitsLen) | 1<<uint(bitsLen-1) | 1
		e := int(r>>8%300) - 200
		x := math.Ldexp(float64(mant), e)
		if r>>20&1 != 0 {
			x = -x
		}
		if got, want := string(appendFloat(nil, x)), slowFloat(x); got != want {
			t.Fatalf("%v (%#x): got %s want %s", x, math.Float64bits(x), got, want)
		}
	}
}
