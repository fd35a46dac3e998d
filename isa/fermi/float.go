package fermi

import (
	"math"
	"math/bits"
	"strconv"
)

// appendFloat prints a float immediate as CUDA 5+ tools do: C's %.20g
// (0.10000000149011611938), %.20e from 1e17 on (1.84467440737095516160e+19),
// +INF/-INF. The digits are exact (Go's strconv.AppendFloat with the same
// format, which for 20 digits takes its slow multiprecision path): they are
// found with fixed-size integer arithmetic instead.
func appendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "+INF"...)
	case math.IsInf(f, -1):
		return append(dst, "-INF"...)
	}
	e := math.Abs(f) >= 1e17
	prec := 20 // significant digits: %.20g
	if e {
		prec = 21 // %.20e: one before the point, 20 after
	}
	var digits [24]byte
	nd, dp, ok := exactDigits(&digits, f, prec)
	if !ok {
		// not reached for the float32 and 20-bit float64 immediates the
		// printer passes; kept for any other value
		if e {
			return strconv.AppendFloat(dst, f, 'e', 20, 64)
		}
		return strconv.AppendFloat(dst, f, 'g', 20, 64)
	}
	if math.Signbit(f) {
		dst = append(dst, '-')
	}
	d := digits[:nd]
	if e {
		return appendExp(dst, d, dp, 20)
	}
	// %g: %e when the exponent is below -4 or at least the precision,
	// trailing zeros dropped either way (strconv's formatDigits)
	eprec := prec
	if eprec > nd && nd >= dp {
		eprec = nd
	}
	if exp := dp - 1; exp < -4 || exp >= eprec {
		return appendExp(dst, d, dp, min(prec, nd)-1)
	}
	frac := 0
	if prec > dp {
		frac = max(nd-dp, 0)
	}
	// integer part, then frac digits
	if dp > 0 {
		m := min(nd, dp)
		dst = append(dst, d[:m]...)
		for ; m < dp; m++ {
			dst = append(dst, '0')
		}
	} else {
		dst = append(dst, '0')
	}
	if frac > 0 {
		dst = append(dst, '.')
		for i := 1; i <= frac; i++ {
			ch := byte('0')
			if j := dp + i - 1; 0 <= j && j < nd {
				ch = d[j]
			}
			dst = append(dst, ch)
		}
	}
	return dst
}

// appendExp prints digits d (the value 0.d × 10^dp) as d.ddde±XX with prec
// digits after the point, padded with zeros.
func appendExp(dst []byte, d []byte, dp, prec int) []byte {
	ch := byte('0')
	if len(d) != 0 {
		ch = d[0]
	}
	dst = append(dst, ch)
	if prec > 0 {
		dst = append(dst, '.')
		i := 1
		if m := min(len(d), prec+1); i < m {
			dst = append(dst, d[i:m]...)
			i = m
		}
		for ; i <= prec; i++ {
			dst = append(dst, '0')
		}
	}
	exp := dp - 1
	if len(d) == 0 {
		exp = 0
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
		exp = -exp
	} else {
		dst = append(dst, '+')
	}
	switch {
	case exp < 10:
		return append(dst, '0', byte(exp)+'0')
	case exp < 100:
		return append(dst, byte(exp/10)+'0', byte(exp%10)+'0')
	}
	return append(dst, byte(exp/100)+'0', byte(exp/10%10)+'0', byte(exp%10)+'0')
}

// natWords bounds the integers exactDigits works with: 1280 bits hold
// every float64 scaled as it needs (2^1024, or a 53-bit mantissa times
// 5^340).
const natWords = 20

// nat is a fixed-size unsigned integer, least significant word first.
type nat struct {
	w [natWords]uint64
	n int // words in use
}

// mul multiplies x by m; false when the product does not fit.
func (x *nat) mul(m uint64) bool {
	var carry uint64
	for i := 0; i < x.n; i++ {
		hi, lo := bits.Mul64(x.w[i], m)
		var c uint64
		x.w[i], c = bits.Add64(lo, carry, 0)
		carry = hi + c
	}
	if carry != 0 {
		if x.n == natWords {
			return false
		}
		x.w[x.n] = carry
		x.n++
	}
	return true
}

// div divides x by d (non-zero) and returns the remainder.
func (x *nat) div(d uint64) uint64 {
	var rem uint64
	for i := x.n - 1; i >= 0; i-- {
		x.w[i], rem = bits.Div64(rem, x.w[i], d)
	}
	for x.n > 0 && x.w[x.n-1] == 0 {
		x.n--
	}
	return rem
}

// u128 returns x when it fits in 128 bits.
func (x *nat) u128() (hi, lo uint64, ok bool) {
	switch x.n {
	case 0:
		return 0, 0, true
	case 1:
		return 0, x.w[0], true
	case 2:
		return x.w[1], x.w[0], true
	}
	return 0, 0, false
}

// bit reports bit k of x.
func (x *nat) bit(k int) bool {
	if k/64 >= x.n {
		return false
	}
	return x.w[k/64]>>(k%64)&1 != 0
}

// anyBelow reports whether a bit below k is set.
func (x *nat) anyBelow(k int) bool {
	for i := 0; i < k/64 && i < x.n; i++ {
		if x.w[i] != 0 {
			return true
		}
	}
	if i := k / 64; i < x.n && k%64 != 0 {
		return x.w[i]<<(64-k%64) != 0
	}
	return false
}

// bitLen is the number of bits of x.
func (x *nat) bitLen() int {
	if x.n == 0 {
		return 0
	}
	return 64*(x.n-1) + bits.Len64(x.w[x.n-1])
}

// shr returns x >> k (k > 0) when it fits in 128 bits.
func (x *nat) shr(k int) (hi, lo uint64, ok bool) {
	if x.bitLen()-k > 128 {
		return 0, 0, false
	}
	word := func(j int) uint64 {
		if j < x.n {
			return x.w[j]
		}
		return 0
	}
	i, s := k/64, uint(k%64)
	if s == 0 {
		return word(i + 1), word(i), true
	}
	lo = word(i)>>s | word(i+1)<<(64-s)
	hi = word(i+1)>>s | word(i+2)<<(64-s)
	return hi, lo, true
}

// shl sets x to m << k; false when it does not fit.
func (x *nat) shl(m uint64, k int) bool {
	i, s := k/64, uint(k%64)
	if i+2 > natWords {
		return false
	}
	*x = nat{}
	x.w[i] = m << s
	if s != 0 {
		x.w[i+1] = m >> (64 - s)
	}
	x.n = i + 2
	for x.n > 0 && x.w[x.n-1] == 0 {
		x.n--
	}
	return true
}

var pow10lo = func() (p [22]uint64) {
	p[0] = 1
	for i := 1; i < 20; i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// pow10u128 is 10^k (k <= 21) as 128 bits.
func pow10u128(k int) (hi, lo uint64) {
	if k < 20 {
		return 0, pow10lo[k]
	}
	hi, lo = bits.Mul64(pow10lo[19], 10)
	if k == 21 {
		h2, l2 := bits.Mul64(lo, 10)
		hi, lo = hi*10+h2, l2
	}
	return hi, lo
}

func less128(ah, al, bh, bl uint64) bool { return ah < bh || ah == bh && al < bl }

// exactDigits writes the first prec (at most 21) significant digits of |f|,
// rounded half to even from its exact binary value, without trailing
// zeros, as strconv does: |f| = 0.d × 10^dp. ok is false when the value
// needs more room than nat has.
func exactDigits(d *[24]byte, f float64, prec int) (nd, dp int, ok bool) {
	b := math.Float64bits(f)
	mant, exp := b&(1<<52-1), int(b>>52&0x7ff)
	switch exp {
	case 0:
		exp = -1074
	case 0x7ff:
		return 0, 0, false
	default:
		mant |= 1 << 52
		exp -= 1075
	}
	if mant == 0 {
		return 0, 0, true // zero: no digits
	}
	tz := bits.TrailingZeros64(mant)
	mant >>= tz
	exp += tz
	// |f| = mant × 2^exp; its decimal exponent is est or est+1
	est := (exp + bits.Len64(mant) - 1) * 78913 >> 18
	for try := 0; try < 2; try++ {
		e10 := est + try
		hi, lo, up, fits := scaled(mant, exp, prec-1-e10)
		if !fits {
			return 0, 0, false
		}
		ph, pl := pow10u128(prec)
		if !less128(hi, lo, ph, pl) {
			continue // the estimate was one low
		}
		if up {
			var c uint64
			lo, c = bits.Add64(lo, 1, 0)
			hi += c
			if hi == ph && lo == pl { // 9.99… rounded to 10.0…
				hi, lo = pow10u128(prec - 1)
				e10++
			}
		}
		return putDigits(d, hi, lo, prec), e10 + 1, true
	}
	return 0, 0, false
}

// scaled returns mant × 2^exp × 10^s rounded half to even to an integer
// (the truncated value and whether to add one), when it fits in 128 bits.
func scaled(mant uint64, exp, s int) (hi, lo uint64, up, ok bool) {
	var x nat
	if s >= 0 {
		// mant × 5^s × 2^(exp+s)
		x.w[0], x.n = mant, 1
		for k := s; k > 0; k -= 27 {
			if !x.mul(pow5(min(k, 27))) {
				return 0, 0, false, false
			}
		}
		k := exp + s
		if k >= 0 {
			if x.bitLen()+k > 128 {
				return 0, 0, false, false
			}
			h, l, _ := x.u128()
			switch {
			case k >= 64:
				h, l = l<<(k-64), 0
			case k > 0:
				h, l = h<<k|l>>(64-k), l<<k
			}
			return h, l, false, true
		}
		hi, lo, ok = x.shr(-k)
		if !ok {
			return 0, 0, false, false
		}
		half, sticky := x.bit(-k-1), x.anyBelow(-k-1)
		return hi, lo, half && (sticky || lo&1 != 0), true
	}
	// mant × 2^exp / 10^t, exp >= 0 here (the value is above 10^prec)
	t := -s
	if exp < 0 || !x.shl(mant, exp) {
		return 0, 0, false, false
	}
	sticky := false
	for ; t > 19; t -= 19 {
		sticky = x.div(pow10lo[19]) != 0 || sticky
	}
	rem := x.div(pow10lo[t])
	hi, lo, ok = x.u128()
	if !ok {
		return 0, 0, false, false
	}
	half := pow10lo[t] / 2
	up = rem > half || rem == half && (sticky || lo&1 != 0)
	return hi, lo, up, true
}

// pow5 is 5^k for k <= 27.
func pow5(k int) uint64 { return pow5s[k] }

var pow5s = func() (p [28]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 5
	}
	return
}()

// putDigits writes the prec digits of v (10^(prec-1) <= v < 10^prec) and
// returns how many remain once trailing zeros are dropped.
func putDigits(d *[24]byte, hi, lo uint64, prec int) int {
	q, r := bits.Div64(hi, lo, pow10lo[19]) // q < 100 for prec <= 21
	for i := prec - 1; i >= prec-19 && i >= 0; i-- {
		d[i] = byte('0' + r%10)
		r /= 10
	}
	for i := prec - 20; i >= 0; i-- {
		d[i] = byte('0' + q%10)
		q /= 10
	}
	nd := prec
	for nd > 0 && d[nd-1] == '0' {
		nd--
	}
	return nd
}
