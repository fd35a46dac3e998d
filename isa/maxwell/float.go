package maxwell

import (
	"math"
	"math/bits"
	"strconv"
)

// Float immediates print in decimal the way nvdisasm does: C's %.20g, or
// %.20e from 1e9 up; zero as 0 or "-0.0 ", infinities and NaNs by name
// followed by a blank (QNAN, except for signalling double NaNs).

func appendF32(dst []byte, b uint32) []byte {
	if b>>23&0xff == 0xff {
		return appendSpecial(dst, b>>31 != 0, b&0x7fffff == 0)
	}
	return appendFloat(dst, float64(math.Float32frombits(b)))
}

func appendF64(dst []byte, b uint64) []byte {
	if b>>52&0x7ff == 0x7ff {
		if b&(1<<52-1) != 0 && b>>51&1 == 0 { // doubles keep the signalling NaN apart
			if b>>63 != 0 {
				return append(dst, "-SNAN "...)
			}
			return append(dst, "+SNAN "...)
		}
		return appendSpecial(dst, b>>63 != 0, b&(1<<52-1) == 0)
	}
	return appendFloat(dst, math.Float64frombits(b))
}

func appendF16(dst []byte, b uint16) []byte {
	if b>>10&0x1f == 0x1f {
		return appendSpecial(dst, b>>15 != 0, b&0x3ff == 0)
	}
	return appendFloat(dst, f16to64(b))
}

func appendSpecial(dst []byte, neg, inf bool) []byte {
	if neg {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	if inf {
		return append(dst, "INF "...)
	}
	return append(dst, "QNAN "...)
}

// f16to64 widens a finite half exactly, building the double's bits directly
// (math.Ldexp costs more than the rest of a short float's printing).
func f16to64(b uint16) float64 {
	sign := uint64(b>>15) << 63
	e := uint64(b>>10) & 0x1f
	m := uint64(b & 0x3ff)
	if e == 0 {
		if m == 0 {
			return math.Float64frombits(sign)
		}
		// subnormal: m·2^-24; normalize so the leading one is bit 10
		n := uint64(bits.LeadingZeros64(m) - 53) // shifts to bring the top bit to bit 10
		m <<= n
		return math.Float64frombits(sign | (1023-14-n)<<52 | (m&0x3ff)<<42)
	}
	return math.Float64frombits(sign | (e+1023-15)<<52 | m<<42)
}

func appendFloat(dst []byte, x float64) []byte {
	if x == 0 {
		if math.Signbit(x) {
			return append(dst, "-0.0 "...)
		}
		return append(dst, '0')
	}
	if math.Abs(x) >= 1e9 {
		if d, ok := exactDigits(x, 21); ok {
			return appendE(dst, x < 0, &d, 20, false)
		}
		return strconv.AppendFloat(dst, x, 'e', 20, 64)
	}
	if d, ok := exactDigits(x, 20); ok {
		if d.exp < -4 {
			return appendE(dst, x < 0, &d, 19, true)
		}
		return appendFixed(dst, x < 0, &d)
	}
	return strconv.AppendFloat(dst, x, 'g', 20, 64)
}

// decimal holds n correctly rounded significant digits of |x| = 0.d1d2... * 10^(exp+1),
// i.e. the first digit has weight 10^exp.
type decimal struct {
	d   [24]byte
	n   int
	exp int
}

// exactDigits computes the first sig (≤ 21) significant digits of |x|,
// rounded half to even, using fixed-size integer arithmetic (the slow
// big-decimal path of strconv is what %.20g costs otherwise). It reports false
// when x is out of the range it handles.
func exactDigits(x float64, sig int) (decimal, bool) {
	var r decimal
	b := math.Float64bits(x)
	e2 := int(b>>52&0x7ff) - 1075
	mant := b & (1<<52 - 1)
	if b>>52&0x7ff == 0 {
		e2++
	} else {
		mant |= 1 << 52
	}
	tz := bits.TrailingZeros64(mant)
	mant >>= uint(tz)
	e2 += tz
	if d, ok := shortDigits(mant, e2, sig); ok {
		return d, true
	}
	if d, ok := fastDigits(mant, e2, sig); ok {
		return d, true
	}
	// all digits, until sig+1 significant ones and a sticky flag are known
	var all [48]byte
	n := 0
	intDigits := 0
	var frac [3]uint64 // fraction F/2^k, k = -e2 bits
	k := 0
	if e2 >= 0 {
		if e2 > 255-53 {
			return r, false
		}
		n, intDigits = bigIntDigits(&all, mant, uint(e2))
	} else {
		k = -e2
		if k >= 64 { // below 1: 19 digits per multiword product
			return tinyDigits(mant, k, sig)
		}
		var ip uint64
		if k < 64 {
			ip = mant >> k
			frac[0] = mant & (1<<k - 1)
		} else {
			frac[0] = mant
		}
		if ip != 0 {
			v := strconv.AppendUint(all[:0], ip, 10)
			n = len(v)
			intDigits = n
		}
	}
	// leading zeros of a number below 1 are not significant
	lead := 0
	sigSeen := n > 0
	for k > 0 && n < sig+1 {
		// frac *= 10; the digit is what rises above bit k
		var carry uint64
		for i := 0; i < 3; i++ {
			hi, lo := bits.Mul64(frac[i], 10)
			lo, c := bits.Add64(lo, carry, 0)
			frac[i] = lo
			carry = hi + c
		}
		// the value is carry:frac[2]:frac[1]:frac[0]; the digit is what lies above bit k
		lim := [4]uint64{frac[0], frac[1], frac[2], carry}
		word, bit := k/64, uint(k%64)
		dgt := lim[word] >> bit
		if bit != 0 && word+1 < 4 {
			dgt |= lim[word+1] << (64 - bit)
		}
		lim[word] &= 1<<bit - 1
		for i := word + 1; i < 4; i++ {
			lim[i] = 0
		}
		frac = [3]uint64{lim[0], lim[1], lim[2]}
		if !sigSeen && dgt == 0 {
			lead++
			continue
		}
		sigSeen = true
		all[n] = byte('0' + dgt)
		n++
	}
	sticky := frac[0]|frac[1]|frac[2] != 0
	// exponent of the first significant digit
	if intDigits > 0 {
		r.exp = intDigits - 1
	} else {
		r.exp = -lead - 1
	}
	if n > sig {
		for _, c := range all[sig+1 : n] {
			if c != '0' {
				sticky = true
			}
		}
		up := all[sig] > '5' || all[sig] == '5' && (sticky || (all[sig-1]-'0')&1 == 1)
		n = sig
		if up {
			i := n - 1
			for ; i >= 0 && all[i] == '9'; i-- {
				all[i] = '0'
			}
			if i < 0 {
				copy(all[1:n], all[:n-1])
				all[0] = '1'
				r.exp++
			} else {
				all[i]++
			}
		}
	}
	for n < sig {
		all[n] = '0'
		n++
	}
	copy(r.d[:], all[:n])
	r.n = n
	return r, true
}

// appendE prints d.ddd…e±XX with prec digits after the point; trim drops
// trailing zeros (%g style).
func appendE(dst []byte, neg bool, d *decimal, prec int, trim bool) []byte {
	if neg {
		dst = append(dst, '-')
	}
	digits := d.d[:prec+1]
	if trim {
		for len(digits) > 1 && digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
		}
	}
	dst = append(dst, digits[0])
	if len(digits) > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	e := d.exp
	if e < 0 {
		dst = append(dst, '-')
		e = -e
	} else {
		dst = append(dst, '+')
	}
	if e < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(e), 10)
}

// appendFixed prints %g's fixed notation (-4 ≤ exp < 20), trailing zeros dropped.
func appendFixed(dst []byte, neg bool, d *decimal) []byte {
	if neg {
		dst = append(dst, '-')
	}
	digits := d.d[:d.n]
	for len(digits) > 1 && digits[len(digits)-1] == '0' && len(digits) > d.exp+1 {
		digits = digits[:len(digits)-1]
	}
	if d.exp < 0 {
		dst = append(dst, "0."...)
		for i := -1; i > d.exp; i-- {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	if len(digits) <= d.exp+1 {
		dst = append(dst, digits...)
		for i := len(digits); i <= d.exp; i++ {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, digits[:d.exp+1]...)
	dst = append(dst, '.')
	return append(dst, digits[d.exp+1:]...)
}

// bigIntDigits writes the decimal digits of mant<<sh (< 2^256) into all,
// most significant first (at most 48 of them), and returns how many it kept and
// how many there are.
func bigIntDigits(all *[48]byte, mant uint64, sh uint) (kept, total int) {
	var lim [4]uint64
	w, b := sh/64, sh%64
	lim[w] = mant << b
	if b != 0 && w+1 < 4 {
		lim[w+1] = mant >> (64 - b)
	}
	// peel off 19 decimal digits at a time
	var chunks [5]uint64
	nc := 0
	for lim[0]|lim[1]|lim[2]|lim[3] != 0 {
		var rem uint64
		for i := 3; i >= 0; i-- {
			lim[i], rem = bits.Div64(rem, lim[i], 1e19)
		}
		chunks[nc] = rem
		nc++
	}
	var buf [100]byte
	out := strconv.AppendUint(buf[:0], chunks[nc-1], 10)
	for i := nc - 2; i >= 0; i-- {
		var pad [19]byte
		v := strconv.AppendUint(pad[:0], chunks[i], 10)
		for j := len(v); j < 19; j++ {
			out = append(out, '0')
		}
		out = append(out, v...)
	}
	if len(out) > len(all) {
		copy(all[:], out)
		// only the leading digits are needed, plus whether the rest is zero:
		// fold the tail into the last kept digit's sticky information
		nz := false
		for _, c := range out[len(all):] {
			if c != '0' {
				nz = true
			}
		}
		if nz && all[len(all)-1] == '0' {
			all[len(all)-1] = '1' // beyond the rounding digit: only its non-zeroness matters
		}
		return len(all), len(out)
	}
	return copy(all[:], out), len(out)
}

// tinyDigits handles |x| = mant/2^k for large k (tiny doubles): the fraction
// is multiplied by 10^19 at a time, so long runs of leading zeros cost one
// multiword product per 19 digits.
func tinyDigits(mant uint64, k, sig int) (decimal, bool) {
	var r decimal
	if k > 1200 {
		return r, false
	}
	var lim [20]uint64 // the fraction, little-endian, k bits below the point
	nl := k/64 + 2
	lim[0] = mant
	var all [64]byte
	n := 0
	lead := 0 // zero digits after the point before the first significant one
	for n < sig+1 {
		// lim *= 1e19; the chunk is what rises above bit k
		var carry uint64
		for i := 0; i < nl; i++ {
			hi, lo := bits.Mul64(lim[i], 1e19)
			lo, c := bits.Add64(lo, carry, 0)
			lim[i] = lo
			carry = hi + c
		}
		word, bit := k/64, uint(k%64)
		chunk := lim[word] >> bit
		if bit != 0 {
			chunk |= lim[word+1] << (64 - bit)
		}
		lim[word] &= 1<<bit - 1
		for i := word + 1; i < nl; i++ {
			lim[i] = 0
		}
		if n == 0 && chunk == 0 {
			lead += 19
			continue
		}
		var d [19]byte
		for i := 18; i >= 0; i-- {
			d[i] = byte('0' + chunk%10)
			chunk /= 10
		}
		i := 0
		if n == 0 {
			for d[i] == '0' {
				i++
				lead++
			}
		}
		n += copy(all[n:], d[i:])
	}
	sticky := false
	for _, l := range lim[:nl] {
		if l != 0 {
			sticky = true
		}
	}
	for _, c := range all[sig+1 : n] {
		if c != '0' {
			sticky = true
		}
	}
	r.exp = -lead - 1
	up := all[sig] > '5' || all[sig] == '5' && (sticky || (all[sig-1]-'0')&1 == 1)
	if up {
		i := sig - 1
		for ; i >= 0 && all[i] == '9'; i-- {
			all[i] = '0'
		}
		if i < 0 {
			copy(all[1:sig], all[:sig-1])
			all[0] = '1'
			r.exp++
		} else {
			all[i]++
		}
	}
	copy(r.d[:], all[:sig])
	r.n = sig
	return r, true
}

// buildPow5 makes pow5 (in inittables.go): 5^k for every k whose power
// fits in 64 bits.
func buildPow5() (p [28]uint64) {
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = p[k-1] * 5
	}
	return
}

// shortDigits is the common case of exactDigits: when |x| = mant*2^e2 is
// N/10^k with N = mant*5^k (or mant<<e2) below 2^64, N's digits are exact and
// there are at most 20 of them, so no rounding is needed when sig covers them.
func shortDigits(mant uint64, e2, sig int) (decimal, bool) {
	var r decimal
	var n uint64
	k := 0
	switch {
	case e2 >= 0:
		if e2 >= 64 || bits.Len64(mant)+e2 > 64 {
			return r, false
		}
		n = mant << uint(e2)
	default:
		k = -e2
		if k >= len(pow5) {
			return r, false
		}
		hi, lo := bits.Mul64(mant, pow5[k])
		if hi != 0 {
			return r, false
		}
		n = lo
	}
	var buf [20]byte
	i := len(buf)
	for n >= 10 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	i--
	buf[i] = byte('0' + n)
	digits := len(buf) - i
	if digits > sig {
		return r, false
	}
	copy(r.d[:], buf[i:])
	for j := digits; j < sig; j++ {
		r.d[j] = '0'
	}
	r.n = sig
	r.exp = digits - 1 - k
	return r, true
}
