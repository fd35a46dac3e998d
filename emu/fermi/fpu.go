package fermi

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/internal/fp"
)

// falu runs the single-precision instructions.
func (k *Kernel) falu(w *emu.Warp, o *op, mask uint32, sc *scratch) {
	regs := w.Regs
	ftz := o.flags&fFTZ != 0
	a := k.row(regs, &o.s[0], &sc.a)
	var b, c *lanes
	if o.s[1].kind != oNone {
		b = k.row(regs, &o.s[1], &sc.b)
	}
	if o.s[2].kind != oNone && o.s[2].kind != oPred {
		c = k.row(regs, &o.s[2], &sc.c)
	}
	r := &sc.r
	switch o.kind {
	case kFsetp, kFset:
		var t uint32
		for l := range 32 {
			x, y := fin(a[l], &o.s[0], ftz), fin(b[l], &o.s[1], ftz)
			if fcmpRel(float64(x), float64(y))&o.sub != 0 {
				t |= 1 << l
			}
		}
		p := pred(regs, &o.s[2])
		if o.kind == kFsetp {
			setPred(regs, &o.d, mask, bop(o.sub2, t, p))
			setPred(regs, &o.d2, mask, bop(o.sub2, ^t, p))
			return
		}
		t = bop(o.sub2, t, p)
		on := ^uint32(0)
		if o.flags&fBF != 0 {
			on = 0x3f800000
		}
		for l := range r {
			r[l] = 0
			if t>>l&1 != 0 {
				r[l] = on
			}
		}
		k.writeF(regs, o, mask, r)
		return
	}
	plainRN := o.rnd == 0 && o.flags&(fFTZ|fSAT|fFMZ) == 0 && !o.s[0].abs && !o.s[1].abs
	switch o.kind {
	case kFadd:
		if plainRN && !o.s[0].neg && !o.s[1].neg {
			// float32 arithmetic rounds to nearest as the double sum
			// rounded once more would (53 bits hold any such sum exactly
			// enough: no double-rounding error for +, -, *)
			faddRN(r, a, b)
			break
		}
		for l := range r {
			r[l] = fout(fadd32(fin(a[l], &o.s[0], ftz), fin(b[l], &o.s[1], ftz), o.rnd), o.flags)
		}
	case kFmul:
		scale := fmulScale[o.sub&7]
		if plainRN && scale == 1 && !o.s[0].neg && !o.s[1].neg {
			fmulRN(r, a, b)
			break
		}
		for l := range r {
			x, y := fin(a[l], &o.s[0], ftz), fin(b[l], &o.s[1], ftz)
			if o.flags&fFMZ != 0 && (x == 0 || y == 0) {
				r[l] = fout(0, o.flags)
				continue
			}
			r[l] = fout(fmul32(x, y, scale, o.rnd), o.flags)
		}
	case kFfma:
		if plainRN && !o.s[2].abs {
			ffmaRN(r, a, b, c, signMask(o.s[0].neg != o.s[1].neg), signMask(o.s[2].neg))
			break
		}
		for l := range r {
			x, y, z := fin(a[l], &o.s[0], ftz), fin(b[l], &o.s[1], ftz), fin(c[l], &o.s[2], ftz)
			if o.flags&fFMZ != 0 && (x == 0 || y == 0) {
				x, y = 0, 0
			}
			r[l] = fout(ffma32(x, y, z, o.rnd), o.flags)
		}
	case kFmnmx:
		p := pred(regs, &o.s[2])
		for l := range r {
			x, y := fin(a[l], &o.s[0], ftz), fin(b[l], &o.s[1], ftz)
			r[l] = fout(fminmax(x, y, p>>l&1 != 0), o.flags)
		}
	case kFcmp:
		for l := range r {
			z := fin(c[l], &o.s[2], ftz)
			if fcmpRel(float64(z), 0)&o.sub != 0 {
				r[l] = a[l]
			} else {
				r[l] = b[l]
			}
		}
	case kMufu:
		for l := range r {
			r[l] = mufu(o.sub, a[l], &o.s[0], o.flags)
		}
	case kRro:
		// MUFU reads RRO's output as the plain value (RRO's fixed-point
		// form is the hardware's internal business)
		for l := range r {
			r[l] = math.Float32bits(fin(a[l], &o.s[0], false))
		}
	}
	k.writeF(regs, o, mask, r)
}

// fnan makes a NaN result canonical.
func fnan(f float32) uint32 {
	if f != f {
		return canonicalNaN32
	}
	return math.Float32bits(f)
}

// fminmax is FMNMX: the minimum when min holds, else the maximum; a NaN
// operand yields the other one.
func fminmax(x, y float32, min bool) float32 {
	switch {
	case x != x:
		return y
	case y != y:
		return x
	}
	if x == y { // -0 is below +0
		if math.Signbit(float64(x)) == min {
			return x
		}
		return y
	}
	if (x < y) == min {
		return x
	}
	return y
}

// writeF writes a single result row and, with .CC, its flags.
func (k *Kernel) writeF(regs []uint32, o *op, mask uint32, r *lanes) {
	write(regs, dstRow(&o.d, 0), mask, r)
	if o.flags&fCCOut != 0 {
		var z, s uint32
		for l := range r {
			zz, ss := fflags(float64(math.Float32frombits(r[l])))
			if zz {
				z |= 1 << l
			}
			if ss {
				s |= 1 << l
			}
		}
		setCC(regs, mask, z, s, 0, 0)
	}
}

// mufu is the special function unit (fn: the mufu field, whose codes are
// package fp's): the correctly rounded function of the flushed input
// (fp.SFU; the hardware's results are within a few ulp: PTX
// allows sin/cos 2^-20.9 absolute, ex2 2 ulp, lg2 2^-22.6, rcp and rsqrt
// 1 ulp). RCP64H and RSQ64H take and give the high word of a double.
func mufu(fn uint8, v uint32, s *opnd, flags uint32) uint32 {
	if fn == fp.Rcp64H || fn == fp.Rsq64H {
		if s.abs {
			v &^= 1 << 31
		}
		if s.neg {
			v ^= 1 << 31
		}
		r := fp.High64(fn, v)
		if r != r {
			return uint32(canonicalNaN64 >> 32)
		}
		return uint32(math.Float64bits(r) >> 32)
	}
	r := fp.SFU(fn, float64(fin(v, s, true)))
	return flush32(fout(float32(r), flags))
}

// dalu runs the double-precision instructions.
func (k *Kernel) dalu(w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	din := func(s *opnd, l int) float64 {
		v := k.val64(regs, s, l)
		if s.abs {
			v &^= 1 << 63
		}
		if s.neg {
			v ^= 1 << 63
		}
		return math.Float64frombits(v)
	}
	var t, z, sg uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		x, y := din(&o.s[0], l), din(&o.s[1], l)
		var r float64
		switch o.kind {
		case kDadd:
			r = fp.Round64(fp.Add, x, y, 0, o.rnd)
		case kDmul:
			r = fp.Round64(fp.Mul, x, y, 0, o.rnd)
		case kDfma:
			r = fp.Round64(fp.FMA, x, y, din(&o.s[2], l), o.rnd)
		case kDmnmx:
			r = dminmax(x, y, pred(regs, &o.s[2])>>l&1 != 0)
		case kDset, kDsetp:
			if fcmpRel(x, y)&o.sub != 0 {
				t |= 1 << l
			}
			continue
		}
		bitsOut := math.Float64bits(r)
		if r != r {
			bitsOut = canonicalNaN64
		}
		zz, ss := fflags(r)
		if zz {
			z |= 1 << l
		}
		if ss {
			sg |= 1 << l
		}
		regs[dstRow(&o.d, 0)*32+l] = uint32(bitsOut)
		regs[dstRow(&o.d, 1)*32+l] = uint32(bitsOut >> 32)
	}
	switch o.kind {
	case kDsetp:
		p := pred(regs, &o.s[2])
		setPred(regs, &o.d, mask, bop(o.sub2, t, p))
		setPred(regs, &o.d2, mask, bop(o.sub2, ^t, p))
		return
	case kDset:
		t = bop(o.sub2, t, pred(regs, &o.s[2]))
		on := ^uint32(0)
		if o.flags&fBF != 0 {
			on = 0x3f800000
		}
		z, sg = 0, 0
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			v := uint32(0)
			if t>>l&1 != 0 {
				v = on
			} else {
				z |= 1 << l
			}
			if int32(v) < 0 {
				sg |= 1 << l
			}
			regs[dstRow(&o.d, 0)*32+l] = v
		}
	}
	if o.flags&fCCOut != 0 {
		setCC(regs, mask, z, sg, 0, 0)
	}
}

// dminmax is DMNMX (as fminmax).
func dminmax(x, y float64, min bool) float64 {
	switch {
	case x != x:
		return y
	case y != y:
		return x
	}
	if x == y {
		if math.Signbit(x) == min {
			return x
		}
		return y
	}
	if (x < y) == min {
		return x
	}
	return y
}

// signMask is the sign bit when neg holds (a negated float source).
func signMask(neg bool) uint32 { return negMask(neg) & (1 << 31) }

// ffmaRN is FFMA rounding to nearest without FTZ, SAT or FMZ: np negates
// the product, nc the addend. The product of two singles is exact in a
// double, so the double sum is rounded once; rounding it again to a
// single gives the single-rounded result unless the sum lies halfway
// between two singles, which needs its low 28 bits zero (as a zero does):
// those lanes take ffma32.
func ffmaRN(r, a, b, c *lanes, np, nc uint32) {
	var m uint32
	for l := range r {
		x := math.Float32frombits(a[l] ^ np)
		y := math.Float32frombits(b[l])
		z := math.Float32frombits(c[l] ^ nc)
		s := float64(x)*float64(y) + float64(z)
		v := math.Float32bits(float32(s))
		if math.Float64bits(s)&(1<<28-1) == 0 {
			v = math.Float32bits(ffma32(x, y, z, 0))
		}
		r[l] = v
		m = max(m, v&^(1<<31))
	}
	canonicalNaNs(r, m)
}

// faddRN and fmulRN are FADD and FMUL rounding to nearest without
// modifiers: single arithmetic (a double result rounded once more would
// round the same: 53 bits hold the sum or product exactly enough), NaNs
// made canonical afterwards.
func faddRN(r, a, b *lanes) { floatRowRN(r, a, b, false) }

func fmulRN(r, a, b *lanes) { floatRowRN(r, a, b, true) }

// floatRowRN is faddRN (mul false) or fmulRN, four lanes at a time.
func floatRowRN(r, a, b *lanes, mul bool) {
	fr, fa, fb := f32Lanes(r), f32Lanes(a), f32Lanes(b)
	var acc float32
	for g := 0; g < 32; g += 4 {
		var x0, x1, x2, x3 float32
		if mul {
			x0, x1, x2, x3 = fa[g]*fb[g], fa[g+1]*fb[g+1], fa[g+2]*fb[g+2], fa[g+3]*fb[g+3]
		} else {
			x0, x1, x2, x3 = fa[g]+fb[g], fa[g+1]+fb[g+1], fa[g+2]+fb[g+2], fa[g+3]+fb[g+3]
		}
		fr[g], fr[g+1], fr[g+2], fr[g+3] = x0, x1, x2, x3
		acc += (x0 - x0) + (x1 - x1) + (x2 - x2) + (x3 - x3)
	}
	if acc != acc { // a NaN or an infinity somewhere
		canonicalNaNs(r, 0x7f800001)
	}
}

// f32Lanes is a row seen as singles (the host is little-endian and
// IEEE, as math.Float32frombits assumes).
func f32Lanes(x *lanes) *[32]float32 { return (*[32]float32)(unsafe.Pointer(x)) }

// canonicalNaNs makes every NaN of r canonical, given the largest magnitude
// bits m among r's words (NaNs are the magnitudes above infinity's).
func canonicalNaNs(r *lanes, m uint32) {
	if m <= 0x7f800000 {
		return
	}
	for l := range r {
		if r[l]&^(1<<31) > 0x7f800000 {
			r[l] = canonicalNaN32
		}
	}
}
