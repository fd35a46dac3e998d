package maxwell

import (
	"math"
	"math/bits"
	"unsafe"
)

// Fast paths for the integer instructions ptxas emits most (MOV, IADD,
// XMAD, ISETP, shifts, ISCADD, LOP, SEL): one loop per instruction kind with
// operands fetched once, instead of the general per-lane switch.

// ialuFast runs o if it has a fast path and reports whether it did.
func (k *Kernel) ialuFast(o *op, mask uint32, regs []uint32, sc *scratch) bool {
	a, b, c := &o.s[0], &o.s[1], &o.s[2]
	switch o.kind {
	case kMov, kIAdd, kXmad, kIsetp, kShl, kShr, kIscadd, kLop, kSel:
	default:
		return false
	}
	if o.flags&(fCC|fX) != 0 && (o.kind == kIAdd || o.kind == kIscadd) && o.flags&fSAT == 0 && !a.neg && !b.neg && o.sub == 0 {
		return k.addCarry(o, mask, regs, sc)
	}
	if o.flags&(fCC|fX|fSAT) != 0 || a.not && o.kind != kLop || b.not && o.kind != kLop {
		return false
	}
	av := k.row(regs, a, mask, &sc.a)
	bv := k.row(regs, b, mask, &sc.b)
	dr := int(o.d.row) * 32
	out := regLanes(regs, dr)
	// ALU results have no side effects: compute every lane (into the
	// destination itself when all lanes run), then keep the masked ones
	d := out
	if mask != ^uint32(0) && o.kind != kIsetp { // ISETP writes predicates
		d = &sc.r // blended into out at the end (not when falling back)
	}
	switch o.kind {
	case kMov:
		*d = *av
	case kIAdd:
		if o.sub != 0 {
			return false
		}
		var na, nb uint32 // 0 or all ones: x^n - n negates when n is all ones
		if a.neg {
			na = ^uint32(0)
		}
		if b.neg {
			nb = ^uint32(0)
		}
		addRowsNeg(d, av, bv, na, nb)
	case kXmad:
		if o.flags&fCSFU != 0 {
			return false
		}
		cv := k.row(regs, c, mask, &sc.c)
		// every mode as shifts and masks, so that the lane loop has no
		// branches: halves, sign extension, product shift, c modes, merge
		var ash, bsh, psl uint32
		if a.sel == 2 {
			ash = 16
		}
		if b.sel == 2 {
			bsh = 16
		}
		var sgnA, sgnB uint32 // all ones: sign-extend the half
		if o.flags&fS16A != 0 {
			sgnA = ^uint32(0)
		}
		if o.flags&fS16B != 0 {
			sgnB = ^uint32(0)
		}
		if o.flags&fPSL != 0 {
			psl = 16
		}
		csh, cmask, cbcc := uint32(0), ^uint32(0), uint32(0)
		switch {
		case o.flags&fCLO != 0:
			cmask = 0xffff
		case o.flags&fCHI != 0:
			csh = 16
		case o.flags&fCBCC != 0:
			cbcc = ^uint32(0)
		}
		lo, hi := ^uint32(0), uint32(0)
		if o.flags&fMRG != 0 {
			lo, hi = 0xffff, 0xffff0000
		}
		// the unsigned forms of ptxas's 32-bit multiplies (XMAD, XMAD.MRG,
		// XMAD.PSL.CBCC) have loops with fewer operations per lane
		switch o.flags & (fS16A | fS16B | fCLO | fCHI | fPSL | fMRG | fCBCC) {
		case 0:
			for l := range 32 {
				d[l] = (av[l]>>ash&0xffff)*(bv[l]>>bsh&0xffff) + cv[l]
			}
		case fMRG:
			for l := range 32 {
				d[l] = ((av[l]>>ash&0xffff)*(bv[l]>>bsh&0xffff)+cv[l])&0xffff | bv[l]<<16
			}
		case fPSL | fCBCC:
			for l := range 32 {
				d[l] = (av[l]>>ash&0xffff)*(bv[l]>>bsh&0xffff)<<16 + cv[l] + bv[l]<<16
			}
		default:
			for l := range 32 {
				x16, y16 := av[l]>>ash<<16, bv[l]>>bsh<<16
				x := uint32(int32(x16)>>16)&sgnA | x16>>16&^sgnA
				y := uint32(int32(y16)>>16)&sgnB | y16>>16&^sgnB
				r := x*y<<psl + (cv[l]>>csh)&cmask + bv[l]<<16&cbcc
				d[l] = r&lo | bv[l]<<16&hi
			}
		}
	case kIsetp:
		if o.d2.kind == oPred && o.d2.row != uint16(k.Prog.rowPSink()) {
			return false
		}
		pc := pred(regs, c)
		// without branches: flipping the sign bits makes a signed
		// comparison unsigned; the condition's bits (icmp's LT, EQ, GT)
		// pick from the lanes less and equal
		var flip uint32
		if o.flags&fU32 == 0 {
			flip = 1 << 31
		}
		lt, eq := cmpRows(av, bv, flip)
		var res uint32
		if o.sub&1 != 0 {
			res |= lt
		}
		if o.sub&2 != 0 {
			res |= eq
		}
		if o.sub&4 != 0 {
			res |= ^(lt | eq)
		}
		res &= mask
		switch o.bop {
		case 0:
			res &= pc
		case 1:
			res |= pc
		default:
			res ^= pc
		}
		setPred(regs, &o.d, mask, res)
	case kShl:
		if o.flags&fW != 0 {
			return false
		}
		for l := range 32 {
			if n := bv[l]; n < 32 {
				d[l] = av[l] << n
			} else {
				d[l] = 0
			}
		}
	case kShr:
		if o.flags&(fW|fBREV) != 0 {
			return false
		}
		signed := o.flags&fSigned != 0
		for l := range 32 {
			n := bv[l]
			switch {
			case signed:
				d[l] = uint32(int32(av[l]) >> min(n, 31))
			case n < 32:
				d[l] = av[l] >> n
			default:
				d[l] = 0
			}
		}
	case kIscadd:
		if a.neg || b.neg {
			return false
		}
		shlAddRows(d, av, bv, uint32(c.imm&31))
	case kLop:
		if o.d2.kind == oPred || o.flags&(fNZ|fZ) != 0 {
			return false
		}
		var na, nb uint32
		if a.not {
			na = ^uint32(0)
		}
		if b.not {
			nb = ^uint32(0)
		}
		for l := range 32 {
			x, y := av[l]^na, bv[l]^nb
			switch o.sub {
			case 0:
				d[l] = x & y
			case 1:
				d[l] = x | y
			case 2:
				d[l] = x ^ y
			default:
				d[l] = y
			}
		}
	case kSel:
		p := pred(regs, c)
		for l := range 32 {
			if p>>l&1 != 0 {
				d[l] = av[l]
			} else {
				d[l] = bv[l]
			}
		}
	}
	if d != out {
		blend(out, d, mask)
	}
	return true
}

// addCarry is IADD and ISCADD with .CC and .X (the 64-bit address
// arithmetic before every global access).
func (k *Kernel) addCarry(o *op, mask uint32, regs []uint32, sc *scratch) bool {
	av := k.row(regs, &o.s[0], mask, &sc.a)
	bv := k.row(regs, &o.s[1], mask, &sc.b)
	dr := int(o.d.row) * 32
	d := regLanes(regs, dr)
	ccRow := k.Prog.rowCC() * 32
	cin := regs[ccRow]
	if o.flags&fX == 0 {
		cin = 0
	}
	var sh uint32
	if o.kind == kIscadd {
		sh = uint32(o.s[2].imm & 31)
	}
	var carry, ov uint32
	if mask == ^uint32(0) && o.flags&fCC == 0 { // IADD.X: the high word of a 64-bit add
		for l := range 32 {
			d[l] = av[l]<<(sh&31) + bv[l] + cin>>l&1
		}
		return true
	}
	if o.flags&fCC != 0 && o.ccLive&^ccRowC == 0 && !sc.ccAll {
		// only the carry is read later (by the IADD.X of a 64-bit add)
		for l := range 32 {
			if mask>>l&1 != 0 {
				s := uint64(av[l]<<(sh&31)) + uint64(bv[l]) + uint64(cin>>l&1)
				d[l] = uint32(s)
				carry |= uint32(s>>32) << l
			}
		}
		cc := &regs[ccRow]
		*cc = *cc&^mask | carry&mask
		return true
	}
	if mask == ^uint32(0) {
		// every lane (the usual case): no lane tests, and the zero and
		// sign flags in the same pass
		var z, sg uint32
		for l := range 32 {
			x, y := av[l]<<(sh&31), bv[l]
			s := uint64(x) + uint64(y) + uint64(cin>>l&1)
			r := uint32(s)
			d[l] = r
			carry |= uint32(s>>32) << l
			ov |= ((x ^ r) & (y ^ r) >> 31) << l
			z |= b2u32(r == 0) << l
			sg |= r >> 31 << l
		}
		if o.flags&fCC != 0 {
			cc := (*[4]uint32)(regs[ccRow : ccRow+4])
			cc[0], cc[1], cc[2], cc[3] = carry, z, sg, ov
		}
		return true
	}
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		x, y := av[l]<<(sh&31), bv[l]
		s := uint64(x) + uint64(y) + uint64(cin>>l&1)
		r := uint32(s)
		d[l] = r
		carry |= uint32(s>>32) << l
		ov |= ((x ^ r) & (y ^ r) >> 31) << l
	}
	if o.flags&fCC != 0 {
		writeCC(regs, ccRow, mask, dr, carry, ov)
	}
	return true
}

// faluFast runs FADD, FMUL and FFMA in the default mode (round to nearest,
// denormals kept, no saturation) and reports whether it did.
func (k *Kernel) faluFast(o *op, mask uint32, regs []uint32, sc *scratch) bool {
	if o.rnd != 0 || o.flags&(fFTZ|fSAT) != 0 || o.sub != 0 {
		return false
	}
	a, b, c := &o.s[0], &o.s[1], &o.s[2]
	av := k.row(regs, a, mask, &sc.a)
	bv := k.row(regs, b, mask, &sc.b)
	dr := int(o.d.row) * 32
	d := regLanes(regs, dr)
	var na, nb, aa, ab uint32 // sign flips and clears
	if a.neg {
		na = 1 << 31
	}
	if b.neg {
		nb = 1 << 31
	}
	if a.abs {
		aa = 1 << 31
	}
	if b.abs {
		ab = 1 << 31
	}
	out := func(f float32) uint32 {
		if f != f {
			return 0x7fffffff
		}
		return math.Float32bits(f)
	}
	switch o.kind {
	case kFadd:
		for l := range 32 {
			if mask>>l&1 != 0 {
				x := math.Float32frombits(av[l]&^aa ^ na)
				y := math.Float32frombits(bv[l]&^ab ^ nb)
				d[l] = out(x + y)
			}
		}
	case kFmul:
		for l := range 32 {
			if mask>>l&1 != 0 {
				d[l] = out(math.Float32frombits(av[l]^na) * math.Float32frombits(bv[l]^nb))
			}
		}
	case kFfma:
		cv := k.row(regs, c, mask, &sc.c)
		var nc uint32
		if c.neg {
			nc = 1 << 31
		}
		if na|nb|nc == 0 && contiguous(mask) { // every lane, or a range
			ffmaLanes(d, av, bv, cv, bits.TrailingZeros32(mask), bits.OnesCount32(mask))
			return true
		}
		for l := range 32 {
			if mask>>l&1 == 0 {
				continue
			}
			x, y, z := math.Float32frombits(av[l]^na), math.Float32frombits(bv[l]^nb), math.Float32frombits(cv[l]^nc)
			// x*y is exact in float64, so the float64 sum is rounded once;
			// rounding it to float32 is then right unless it could be a
			// float32 tie (or infinite, NaN, zero): each of those has its
			// low 28 bits clear and takes fma32's careful path
			if s := float64(x)*float64(y) + float64(z); math.Float64bits(s)&(1<<28-1) != 0 {
				d[l] = math.Float32bits(float32(s))
				continue
			}
			d[l] = ffmaCareful(x, y, z)
		}
	default:
		return false
	}
	return true
}

// ffmaLanes is FFMA d = a*b + c in n lanes from first (round to nearest, no
// negations): the float64 sum, rounded once (x*y is exact in float64), is
// rounded again to float32 unless it could be a float32 midpoint (or
// infinite, NaN, zero; each has its low 28 bits clear), where fma32 takes
// the careful path.
func ffmaLanes(d, a, b, c *lanes, first, n int) {
	if n == 32 { // every lane: ffmaRows, then the careful lanes
		for m := ffmaRows(d, a, b, c); m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			d[l] = ffmaCareful(rowF32(a)[l], rowF32(b)[l], rowF32(c)[l])
		}
		return
	}
	// the lanes first..first+n-1 (a range of lanes: no lane tests), as
	// slices of one length (no bounds checks in the loop)
	// seen as float32 (the same bits), which the conversions read in place
	ds := d[first : first+n]
	as, bs, cs := rowF32(a)[first:first+n], rowF32(b)[first:first+n], rowF32(c)[first:first+n]
	as, bs, cs = as[:len(ds)], bs[:len(ds)], cs[:len(ds)]
	for l := range ds {
		x, y, z := as[l], bs[l], cs[l]
		s := float64(x)*float64(y) + float64(z)
		if math.Float64bits(s)&(1<<28-1) == 0 {
			ds[l] = ffmaCareful(x, y, z)
			continue
		}
		ds[l] = math.Float32bits(float32(s))
	}
}

// ffmaCareful is FFMA's result by fma32, NaN canonical.
func ffmaCareful(x, y, z float32) uint32 {
	// a zero sum is exact in float64 (a nonzero x*y + z is at least
	// 2^-298 in magnitude), with its sign as IEEE rounds to nearest: a
	// kernel on zeros (padding, cleared buffers) need not take fma32
	if s := float64(x)*float64(y) + float64(z); s == 0 {
		return math.Float32bits(float32(s))
	}
	f := fma32(x, y, z, 0)
	if f != f {
		return 0x7fffffff
	}
	return math.Float32bits(f)
}

// rowF32 is a row's lanes seen as float32 values of the same bits.
func rowF32(r *lanes) *[32]float32 { return (*[32]float32)(unsafe.Pointer(r)) }

func b2u32(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// blend copies the lanes in mask from src to dst.
func blend(dst, src *lanes, mask uint32) {
	for l := range 32 {
		if mask>>l&1 != 0 {
			dst[l] = src[l]
		}
	}
}
