package maxwell

import (
	"math"
	"math/bits"
)

// Fast exact digits for the float immediates random code is full of (f16,
// f32 and the 20-bit double forms): |x| = mant·2^e2 is scaled to the integer
// D = ⌊|x|·10^q⌋ (sig or sig+1 digits) with a few fixed-size multiplications,
// and rounded half to even from the bits D leaves behind. Values whose scaled
// mantissa needs more than 256 bits fall back to the general digit loops.

// buildPow5w makes pow5w (in inittables.go): pow5w[q] is 5^q as four
// little-endian words (5^100 < 2^233).
func buildPow5w() (p [101][4]uint64) {
	p[0][0] = 1
	for q := 1; q < len(p); q++ {
		var carry uint64
		for i := range 4 {
			hi, lo := bits.Mul64(p[q-1][i], 5)
			lo, c := bits.Add64(lo, carry, 0)
			p[q][i], carry = lo, hi+c
		}
	}
	return
}

// u128 is hi:lo.
type u128 struct{ hi, lo uint64 }

func (a u128) less(b u128) bool { return a.hi < b.hi || a.hi == b.hi && a.lo < b.lo }

// buildPow10w makes pow10w (in inittables.go): pow10w[p] is 10^p for
// p ≤ 38.
func buildPow10w() (p [39]u128) {
	p[0].lo = 1
	for i := 1; i < len(p); i++ {
		hi, lo := bits.Mul64(p[i-1].lo, 10)
		p[i] = u128{p[i-1].hi*10 + hi, lo}
	}
	return
}

// log10Floor2 is ⌊n·log10 2⌋ or one less, for |n| < 2000.
func log10Floor2(n int) int {
	return int(math.Floor(float64(n) * 0.30102999566398120))
}

// fastDigits is exactDigits for mant odd, mant < 2^53; ok is false when the
// value is outside the fixed-size range.
func fastDigits(mant uint64, e2, sig int) (decimal, bool) {
	if e2 >= 0 {
		if d, ok := intDigits(mant, e2, sig); ok {
			return d, true
		}
		return hugeDigits(mant, e2, sig)
	}
	k := -e2
	est := log10Floor2(bits.Len64(mant) - 1 - k) // the first digit's exponent, or one less
	q := sig - 1 - est
	if q < 0 || q >= len(pow5w) || bits.Len64(mant)+q*7/3+1 > 250 {
		return decimal{}, false
	}
	// N = mant·5^q, so |x|·10^q = N·2^(q-k)
	var n [8]uint64
	var carry uint64
	for i := range 4 {
		hi, lo := bits.Mul64(pow5w[q][i], mant)
		lo, c := bits.Add64(lo, carry, 0)
		n[i], carry = lo, hi+c
	}
	n[4] = carry
	var d u128
	half, sticky := false, false
	if s := k - q; s <= 0 {
		if n[2]|n[3]|n[4] != 0 || -s >= 64 {
			return decimal{}, false
		}
		d = u128{n[1], n[0]}
		if -s > 0 {
			if bits.Len64(d.hi)-s > 64 {
				return decimal{}, false
			}
			d = u128{d.hi<<uint(-s) | d.lo>>uint(64+s), d.lo << uint(-s)}
		}
	} else {
		w, b := s/64, uint(s%64)
		if w > 4 {
			return decimal{}, false
		}
		if b == 0 {
			d = u128{n[w+1], n[w]}
		} else {
			d = u128{n[w+1]>>b | n[w+2]<<(64-b), n[w]>>b | n[w+1]<<(64-b)}
		}
		if n[w+2]>>b != 0 || b == 0 && n[w+2] != 0 || w+3 < len(n) && n[w+3] != 0 {
			return decimal{}, false // more than 128 bits: the estimate was off
		}
		hw, hb := (s-1)/64, uint((s-1)%64)
		half = n[hw]>>hb&1 != 0
		sticky = n[hw]&(1<<hb-1) != 0
		for i := 0; i < hw && !sticky; i++ {
			sticky = n[i] != 0
		}
	}
	return roundDigits(d, half, sticky, sig, q)
}

// roundDigits rounds d = ⌊|x|·10^q⌋ (plus the binary fraction half/sticky)
// to sig digits.
func roundDigits(d u128, half, sticky bool, sig, q int) (decimal, bool) {
	if sig+1 >= len(pow10w) || d.less(pow10w[sig-1]) || !d.less(pow10w[sig+1]) {
		return decimal{}, false
	}
	var up bool
	if !d.less(pow10w[sig]) { // one digit too many: drop it
		var r uint64
		d, r = div10(d)
		q--
		up = r > 5 || r == 5 && (half || sticky || d.lo&1 == 1)
	} else {
		up = half && (sticky || d.lo&1 == 1)
	}
	if up {
		lo, c := bits.Add64(d.lo, 1, 0)
		d = u128{d.hi + c, lo}
		if d == pow10w[sig] {
			d = pow10w[sig-1]
			q--
		}
	}
	var r decimal
	r.n = sig
	r.exp = sig - 1 - q
	putDigits(r.d[:sig], d)
	return r, true
}

func div10(d u128) (u128, uint64) {
	hi, rem := d.hi/10, d.hi%10
	lo, r := bits.Div64(rem, d.lo, 10)
	return u128{hi, lo}, r
}

// intDigits handles |x| = mant<<e2 below 2^126: exact, then rounded to sig
// digits by one division by a power of ten.
func intDigits(mant uint64, e2, sig int) (decimal, bool) {
	if bits.Len64(mant)+e2 > 126 { // below 10^38, the last power in pow10w
		return decimal{}, false
	}
	var v u128
	if e2 >= 64 {
		v = u128{mant << uint(e2-64), 0}
	} else if e2 > 0 {
		v = u128{mant >> uint(64-e2), mant << uint(e2)}
	} else {
		v = u128{0, mant}
	}
	digits := log10Floor2(len128(v)-1) + 1
	if !v.less(pow10w[digits]) {
		digits++
	}
	p := digits - sig
	if p <= 0 { // exact: append zeros
		for range -p {
			hi, lo := bits.Mul64(v.lo, 10)
			v = u128{v.hi*10 + hi, lo}
		}
		return roundDigits(v, false, false, sig, -p)
	}
	// D = ⌊v/10^p⌋ (p ≤ 19: 10^p is one word), remainder decides the rounding
	div := pow10w[p].lo
	hi, rem := v.hi/div, v.hi%div
	lo, r := bits.Div64(rem, v.lo, div)
	halfway := div / 2
	return roundDigits(u128{hi, lo}, r >= halfway, r != halfway && r != 0, sig, -p)
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

// putDigits writes d (exactly len(dst) digits, ≤ 38) into dst.
func putDigits(dst []byte, d u128) {
	i := len(dst)
	for d.hi != 0 {
		var r uint64
		d.hi, r = d.hi/1e19, d.hi%1e19
		d.lo, r = bits.Div64(r, d.lo, 1e19)
		i = putChunk(dst, i, r, 19)
	}
	putChunk(dst, i, d.lo, i)
}

// putChunk writes v's last n digits ending before dst[i] and returns where
// they begin.
func putChunk(dst []byte, i int, v uint64, n int) int {
	end := i - n
	for i-end >= 2 {
		p := v % 100 * 2
		v /= 100
		i -= 2
		dst[i], dst[i+1] = digitPairs[p], digitPairs[p+1]
	}
	if i > end {
		i--
		dst[i] = byte('0' + v%10)
	}
	return end
}

func len128(v u128) int {
	if v.hi != 0 {
		return 64 + bits.Len64(v.hi)
	}
	return bits.Len64(v.lo)
}

// hugeDigits handles integers mant<<e2 of up to 1088 bits (doubles up to
// their largest): D = ⌊mant·2^e2 / 10^p⌋ = ⌊(mant<<(e2-p)) / 5^p⌋, dividing by
// 5^27 at a time. 5^p is odd, so the discarded fraction is never exactly one
// half: the remainders, most significant first, decide the rounding.
func hugeDigits(mant uint64, e2, sig int) (decimal, bool) {
	digits := log10Floor2(bits.Len64(mant)+e2-1) + 1 // or one less than the true count
	for _, p := range [2]int{digits - sig, digits - sig + 1} {
		sh := e2 - p
		if p <= 0 || sh < 0 || bits.Len64(mant)+sh > 17*64 {
			return decimal{}, false
		}
		var a [18]uint64
		w, b := sh/64, uint(sh%64)
		a[w] = mant << b
		if b != 0 {
			a[w+1] = mant >> (64 - b)
		}
		top := w + 1
		// divide by 5^p, 27 powers at a time; keep each step's remainder and divisor
		var rems, divs [12]uint64
		steps := 0
		for left := p; left > 0; steps++ {
			k := min(left, 27)
			left -= k
			d := pow5[k]
			var r uint64
			for i := top; i >= 0; i-- {
				a[i], r = bits.Div64(r, a[i], d)
			}
			for top > 0 && a[top] == 0 {
				top--
			}
			rems[steps], divs[steps] = r, d
		}
		if top > 1 {
			continue // the estimate was one digit short: more than 128 bits left
		}
		d := u128{a[1], a[0]}
		if !d.less(pow10w[sig]) {
			continue
		}
		if d.less(pow10w[sig-1]) {
			return decimal{}, false
		}
		// the fraction (r_last + lower)/d_last > 1/2?
		up := false
		for i := steps - 1; i >= 0; i-- {
			half := (divs[i] - 1) / 2
			if rems[i] != half {
				up = rems[i] > half
				break
			}
			// exactly (d-1)/2: the lower remainders decide; all zero means below half
		}
		return roundDigits(d, up, up, sig, -p)
	}
	return decimal{}, false
}
