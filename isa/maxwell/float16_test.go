package maxwell

import (
	"math"
	"testing"
)

func TestF16to64Exact(t *testing.T) {
	for b := 0; b < 1<<16; b++ {
		if b>>10&0x1f == 0x1f {
			continue
		}
		sign := 1.0
		if b&0x8000 != 0 {
			sign = -1
		}
		e := b >> 10 & 0x1f
		m := float64(b & 0x3ff)
		var want float64
		if e == 0 {
			want = sign * math.Ldexp(m, -24)
		} else {
			want = sign * math.Ldexp(1024+m, e-25)
		}
		if got := f16to64(uint16(b)); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%#04x: got %v want %v", b, got, want)
		}
	}
}
