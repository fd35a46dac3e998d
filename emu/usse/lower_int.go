package usse

import "fmt"

// Dual issue (op1 0x04, 0x05): two operations in one word, their operands
// from the dual-issue view of the spec (usse.Inst.Dual). Both read their
// sources before either writes (Vita3K: "dual instructions are async").
var dualVops = map[string]int{"mad": -1, "dot": -2, "ssq": -3, "mul": vMul, "add": vAdd, "mov": vMov,
	"rsq": vRsq, "rcp": vRcp, "exp": vExp, "log": vLog, "subflr": vSubflr}

const (
	dualMad = -1
	dualDot = -2
	dualSsq = -3
)

func lowerDual(l *lowerer) {
	ops, ok := l.in.Dual()
	if !ok {
		l.fail("dual issue: no operation for these fields")
		return
	}
	f := fF32
	if l.field("f16") != 0 {
		f = fF16
	}
	var d [2]dualOp
	for k, x := range ops {
		v, ok := dualVops[x.Name]
		if !ok {
			l.fail("dual operation %q: %w", x.Name, errUnsupported)
			return
		}
		o := &d[k]
		o.vop, o.nsrc = v, uint8(len(x.Src))
		var chans []int
		for c := 0; c < 4; c++ {
			if x.Mask>>c&1 != 0 {
				chans = append(chans, c)
			}
		}
		o.n = uint8(len(chans))
		for i, c := range chans {
			o.dst[i] = l.dstChan(x.Dst, f, c, 0)
		}
		switch {
		case v == dualDot || v == dualSsq:
			o.nch = uint8(x.SrcChans)
			for s, src := range x.Src {
				for c := 0; c < x.SrcChans; c++ {
					o.src[s][c] = l.floatSrc(src, f, swz(src.Swizzle, c), 0)
				}
				o.mods[s] = mods(src)
			}
		default:
			for s, src := range x.Src {
				for i, c := range chans {
					sel := swz(src.Swizzle, c)
					if !x.Vector {
						sel = swz(src.Swizzle, 0) // scalar: one channel for all
					}
					o.src[s][i] = l.floatSrc(src, f, sel, 0)
				}
				o.mods[s] = mods(src)
			}
		}
	}
	l.emit(op{kind: kDual, fmt: f, dual: &d})
}

// dual runs both operations of a dual-issue word.
func (t *Instance) dual(o *op) {
	var res [2][4]float32
	for k := range o.dual {
		d := &o.dual[k]
		rd := func(s, i int) float32 { return applyMods(t.readF(&d.src[s][i]), d.mods[s]) }
		switch d.vop {
		case dualDot, dualSsq:
			var sum float32
			for c := 0; c < int(d.nch); c++ {
				a := rd(0, c)
				b := a
				if d.vop == dualDot {
					b = rd(1, c)
				}
				sum += float32(a * b)
			}
			for i := 0; i < int(d.n); i++ {
				res[k][i] = sum
			}
		case dualMad:
			for i := 0; i < int(d.n); i++ {
				res[k][i] = float32(rd(0, i)*rd(1, i)) + rd(2, i)
			}
		default:
			for i := 0; i < int(d.n); i++ {
				var b float32
				if d.nsrc > 1 {
					b = rd(1, i)
				}
				res[k][i] = vop(d.vop, rd(0, i), b)
			}
		}
	}
	for k := range o.dual {
		d := &o.dual[k]
		for i := 0; i < int(d.n); i++ {
			t.writeF(&d.dst[i], res[k][i])
		}
	}
}

// Sum-of-products (op1 0x10, 0x12): blend arithmetic on 8-bit colour
// channels (bytes 0..2 colour, byte 3 alpha), after Vita3K's reading:
// result = OP(factor1 * source1, factor2 * source2) / 255, each factor a
// selected source channel or its complement (255 - x). Register numbers
// are not doubled.
const (
	sopAdd = iota
	sopSub
	sopMin
	sopMax
)

var sopOps = map[string]uint32{"add": sopAdd, "sub": sopSub, "min": sopMin, "max": sopMax}

// Factor selectors (aux words of kSop): which byte feeds a factor.
const (
	selZero = iota
	selS1   // the source's own channel of source 1
	selS2
	selS1a // source 1 alpha
	selS2a
	selS0 // SOP3's source 0
	selS0a
)

func lowerSop2(l *lowerer) {
	pick := func(name string, table map[string]uint32) uint32 {
		s := l.enum(name)
		v, ok := table[s]
		if !ok {
			l.fail("%s %q: %w", name, s, errUnsupported)
		}
		return v
	}
	cs := map[string]uint32{"zero": selZero, "s1": selS1, "s2": selS2, "s1a": selS1a, "s2a": selS2a}
	as := map[string]uint32{"zero": selZero, "s1a": selS1a, "s2a": selS2a}
	if l.field("dmod") != 0 {
		l.fail("sop2 destination modifier: %w", errUnsupported)
	}
	o := op{kind: kSop, n: 1}
	o.words[0] = pick("csel1", cs) | l.field("cmod1")<<4 | pick("csel2", cs)<<8 | l.field("cmod2")<<12
	o.words[1] = pick("asel1", as) | l.field("amod1")<<4 | pick("asel2", as)<<8 | l.field("amod2")<<12
	o.words[2] = pick("cop", sopOps) | pick("aop", sopOps)<<4 | l.field("s1mod")<<8 | l.field("as1mod")<<9
	o.words[3] = 0xf // all four bytes
	l.sopOperands(&o)
}

// sopOperands emits a sum of products per repeat (MOE mode, Vita3K's
// default multiplier 2).
func (l *lowerer) sopOperands(o *op) {
	d, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2)
	n := l.repeats()
	for it := 0; it < n; it++ {
		x := *o
		x.dst[0] = l.dstChan(d, fU32, 0, l.rptOff(rmMOE, slotDst, d, false, it, 2))
		x.src[0][0] = l.rawSrc(s1, fU32, 'x', l.rptOff(rmMOE, slotSrc1, s1, false, it, 2))
		x.src[1][0] = l.rawSrc(s2, fU32, 'x', l.rptOff(rmMOE, slotSrc2, s2, false, it, 2))
		x.nsrc = 2
		l.emit(x)
	}
}

// SOP2M (op1 0x12): one selector per source for all four bytes, a write
// mask whose bit 0 is alpha.
func lowerSop2m(l *lowerer) {
	sel := map[string]uint32{"zero": selZero, "s1": selS1, "s1a": selS1a, "s2": selS2, "s2a": selS2a}
	pick := func(name string) uint32 {
		v, ok := sel[l.enum(name)]
		if !ok {
			l.fail("sop2m selector %q: %w", l.enum(name), errUnsupported)
		}
		return v
	}
	o := op{kind: kSop, n: 1}
	s1, s2 := pick("sel1"), pick("sel2")
	// colour and alpha factors are the same selection (alpha of s1/s2 for
	// the alpha byte)
	o.words[0] = s1 | l.field("mod1")<<4 | s2<<8 | l.field("mod2")<<12
	o.words[1] = alphaSel(s1) | l.field("mod1")<<4 | alphaSel(s2)<<8 | l.field("mod2")<<12
	cop, ok1 := sopOps[l.enum("cop")]
	aop, ok2 := sopOps[l.enum("aop")]
	if !ok1 || !ok2 {
		l.fail("sop2m operation: %w", errUnsupported)
	}
	o.words[2] = cop | aop<<4
	m := l.field("mask")
	o.words[3] = m>>1 | (m&1)<<3 // alpha is bit 0 (Vita3K)
	l.sopOperands(&o)
}

func alphaSel(s uint32) uint32 {
	switch s {
	case selS1:
		return selS1a
	case selS2:
		return selS2a
	case selS0:
		return selS0a
	}
	return s
}

// SOP3 (op1 0x11), as Vita3K's translator reads it since its pull request
// 2177 (a partial implementation, checked against a game's graphics, not
// the console): colour = cop(f1 * source1, f2 * source2) and alpha =
// aop(a1 * source1 alpha, a2 * source2 alpha), each factor a byte of one of
// the three sources or its complement. csel1 and csel2 pick f1 and f2 (0
// zero, 1 source alpha saturated, 2 source 1's colour, 3 its alpha, 4
// source 0's colour, 5 its alpha, 6 source 2's colour, 7 its alpha), asel1
// picks a1 (zero, source 0's, 1's or 2's alpha), and a2 is the alpha of
// the source csel2 names; cmod1 complements f1, cmod2 f2 and a2, amod1 a1.
// cop and aop are add or sub. All four bytes are written; register
// numbers are not doubled; there is no repeat field. What Vita3K leaves
// out faults: the saturated alpha factor, dmod, and operations 2 and 3.
func lowerSop3(l *lowerer) {
	csel := [8]uint32{selZero, 0, selS1, selS1a, selS0, selS0a, selS2, selS2a}
	asel := [4]uint32{selZero, selS0a, selS1a, selS2a}
	c1, c2 := l.field("csel1"), l.field("csel2")
	switch {
	case c1 == 1 || c2 == 1:
		l.fail("sop3 factor sat (source alpha saturated): %w", errUnsupported)
		return
	case l.field("dmod") != 0:
		l.fail("sop3 dmod: %w", errUnsupported)
		return
	case l.field("cop") > 1 || l.field("aop") > 1:
		l.fail("sop3 operation %d/%d: %w (add and sub only)", l.field("cop"), l.field("aop"), errUnsupported)
		return
	}
	o := op{kind: kSop, n: 1}
	o.words[0] = csel[c1] | l.field("cmod1")<<4 | csel[c2]<<8 | l.field("cmod2")<<12
	o.words[1] = asel[l.field("asel1")] | l.field("amod1")<<4 | alphaSel(csel[c2])<<8 | l.field("cmod2")<<12
	o.words[2] = l.field("cop") | l.field("aop")<<4 // sopAdd, sopSub
	o.words[3] = 0xf
	d, s0, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2), l.opnd(3)
	o.dst[0] = l.dstChan(d, fU32, 0, 0)
	o.src[0][0] = l.rawSrc(s1, fU32, 'x', 0)
	o.src[1][0] = l.rawSrc(s2, fU32, 'x', 0)
	o.src[2][0] = l.rawSrc(s0, fU32, 'x', 0)
	o.nsrc = 3
	l.emit(o)
}

// sop runs a sum of products on the four bytes of one word.
func (t *Instance) sop(o *op) {
	a, b := t.raw(&o.src[0][0]), t.raw(&o.src[1][0])
	var s0 uint32
	if o.nsrc == 3 {
		s0 = t.raw(&o.src[2][0]) // SOP3
	}
	byteOf := func(w uint32, c int) uint32 { return w >> (8 * c) & 0xff }
	if o.words[2]>>8&1 != 0 { // source 1 colour complement
		a = a&0xff000000 | ^a&0x00ffffff
	}
	if o.words[2]>>9&1 != 0 { // source 1 alpha complement
		a = a&0x00ffffff | ^a&0xff000000
	}
	factor := func(sel uint32, c int) uint32 {
		var f uint32
		switch sel & 0xf {
		case selS1:
			f = byteOf(a, c)
		case selS2:
			f = byteOf(b, c)
		case selS1a:
			f = byteOf(a, 3)
		case selS2a:
			f = byteOf(b, 3)
		case selS0:
			f = byteOf(s0, c)
		case selS0a:
			f = byteOf(s0, 3)
		}
		if sel>>4&1 != 0 {
			f = 255 - f
		}
		return f
	}
	old := t.File[t.at(o.dst[0].reg, o.dst[0].index, o.dst[0].bank)]
	var r uint32
	for c := 0; c < 4; c++ {
		if o.words[3]>>c&1 == 0 {
			r |= old & (0xff << (8 * c))
			continue
		}
		w := o.words[0]
		opc := o.words[2] & 0xf
		if c == 3 {
			w, opc = o.words[1], o.words[2]>>4&0xf
		}
		x := int32(factor(w, c) * byteOf(a, c))
		y := int32(factor(w>>8, c) * byteOf(b, c))
		var v int32
		switch opc {
		case sopAdd:
			v = x + y
		case sopSub:
			v = x - y
		case sopMin:
			v = min(x, y)
		case sopMax:
			v = max(x, y)
		}
		v = min(max(v/255, 0), 255)
		r |= uint32(v) << (8 * c)
	}
	t.write(&o.dst[0], r)
}

// I8MAD (op1 0x13): per byte (x y z colour, w alpha), source1 * source2
// + source0 (or minus it with s0neg), 8-bit integers after Vita3K
// (multiply without rescaling), saturated to 0..255 with .sat, else
// wrapped. The channel selects are Vita3K's: csel0 picks the added colour
// (0 source 0's, 1 source 1's, 2 source 0's alpha in every colour
// channel, 3 source 1's alpha), asel0 the added alpha (source 0's or 1's),
// csel1 and csel2 replace the colour of source 1 or 2 by its alpha before
// the multiply (source 1 as selected also feeds csel0 1 and 3). The six
// component modifiers complement their operand (255 - x): cmod0..2 the
// colour of the added term, of the first and of the second factor as
// selected, amod0..2 their alpha. Vita3K leaves them out ("Custom
// modifiers for components not handled"); IMG's own GLES1 driver (its SGX
// DDK's texture-combiner code) builds IMA8 with source 0 = 0x00FFFFFF and
// colour modifier 0 "complemented" for "0 + CURRENT_RGBA * Scaling": the
// complement of 255 is the 0 added to the colour bytes (alpha, not
// complemented, adds 0 too), and the scale factors 1, 2, 4 multiply
// without rescaling. That the complement comes after the channel selects
// is our reading. Repeats: MOE mode, multiplier 2.
func lowerI8mad(l *lowerer) {
	mods := uint32(0)
	for i, m := range []string{"cmod0", "cmod1", "cmod2", "amod0", "amod1", "amod2"} {
		mods |= l.field(m) << (5 + i)
	}
	d, s0, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2), l.opnd(3)
	n := l.repeats()
	for it := 0; it < n; it++ {
		o := op{kind: kIntMad, aux: intMad8, aux2: l.field("sat") | l.field("s0neg")<<1, n: 1}
		o.words[0] = l.field("csel0") | l.field("asel0")<<2 | l.field("csel1")<<3 | l.field("csel2")<<4 | mods
		o.dst[0] = l.dstChan(d, fU32, 0, l.rptOff(rmMOE, slotDst, d, false, it, 2))
		o.src[0][0] = l.rawSrc(s0, fU32, 'x', l.rptOff(rmMOE, slotSrc0, s0, false, it, 2))
		o.src[1][0] = l.rawSrc(s1, fU32, 'x', l.rptOff(rmMOE, slotSrc1, s1, false, it, 2))
		o.src[2][0] = l.rawSrc(s2, fU32, 'x', l.rptOff(rmMOE, slotSrc2, s2, false, it, 2))
		l.emit(o)
	}
}

// I16MAD (op1 0x14), after Vita3K's reading: the two 16-bit halves of
// source 0 times one channel of source 1 plus one channel of source 2,
// written to the two halves of the destination; mode 0/1 unsigned, 2/3
// signed, 1 and 3 saturating to the 16-bit range (else wrapping). Sources
// 1 and 2 are the low half, or with format 1 a byte (the low byte, or
// byte 1 with sel1hi/sel2hi), sign-extended in the signed modes. s2neg
// negates source 2 (its name; Vita3K ignores it). abs, or_shift and the
// source formats 2 and 3 have no description and fault. Registers are not
// doubled. Repeats: MOE mode, multiplier 2.
func lowerI16mad(l *lowerer) {
	if l.field("abs") != 0 || l.field("orshift") != 0 {
		l.fail("i16mad abs/or_shift: %w (no description of them)", errUnsupported)
		return
	}
	if l.field("s1fmt") > 1 || l.field("s2fmt") > 1 {
		l.fail("i16mad source format %d/%d: %w (formats 0 and 1 are known)", l.field("s1fmt"), l.field("s2fmt"), errUnsupported)
		return
	}
	mode := l.field("mode")
	d, s0, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2), l.opnd(3)
	n := l.repeats()
	for it := 0; it < n; it++ {
		o := op{kind: kIntMad, aux: intMad16, n: 1}
		o.aux2 = mode>>1 | (mode&1)<<1 | l.field("s2neg")<<2
		o.words[0] = l.field("s1fmt") | l.field("sel1hi")<<2
		o.words[1] = l.field("s2fmt") | l.field("sel2hi")<<2
		o.dst[0] = l.dstChan(d, fU32, 0, l.rptOff(rmMOE, slotDst, d, false, it, 2))
		o.src[0][0] = l.rawSrc(s0, fU32, 'x', l.rptOff(rmMOE, slotSrc0, s0, false, it, 2))
		o.src[1][0] = l.rawSrc(s1, fU32, 'x', l.rptOff(rmMOE, slotSrc1, s1, false, it, 2))
		o.src[2][0] = l.rawSrc(s2, fU32, 'x', l.rptOff(rmMOE, slotSrc2, s2, false, it, 2))
		l.emit(o)
	}
}

// Integer multiply-add variants (aux of kIntMad).
const (
	intMad8     = iota
	intMad16    // I16MAD: two halves of source 0
	intMad16x16 // I32MAD: 16-bit halves of sources 0 and 1, source 2 32 or 16 bits
	intMad32    // I32MAD2 step 0
	intMadAcc   // I32MAD2 step 1: the accumulated source 2 (Vita3K's console tests)
)

// I32MAD (op1 0x15): d = s0.half * s1.half + s2 (Vita3K; atlier's skinning
// index * stride + base), signed or unsigned, source 2 a 32-bit word when
// s2type is 2 else a half. Repeats: MOE mode, multiplier 1 for every
// operand (Vita3K's translator since 2024; before, it ran I32MAD once).
func lowerI32mad(l *lowerer) {
	d, s0, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2), l.opnd(3)
	half := func(hi uint32) part { return pLo + part(hi&1) }
	for it := 0; it < l.repeats(); it++ {
		o := op{kind: kIntMad, aux: intMad16x16, n: 1}
		o.aux2 = l.field("signed") | l.field("sat")<<1
		o.dst[0] = l.dstChan(d, fU32, 0, l.rptOff(rmMOE, slotDst, d, false, it, 1))
		o.src[0][0] = l.rawSrc(s0, fU32, 'x', l.rptOff(rmMOE, slotSrc0, s0, false, it, 1))
		o.src[1][0] = l.rawSrc(s1, fU32, 'x', l.rptOff(rmMOE, slotSrc1, s1, false, it, 1))
		o.src[2][0] = l.rawSrc(s2, fU32, 'x', l.rptOff(rmMOE, slotSrc2, s2, false, it, 1))
		for i, hi := range []uint32{l.field("s0hi"), l.field("s1hi")} {
			if o.src[i][0].part == pWord {
				o.src[i][0].part = half(hi)
			} else {
				o.src[i][0].val = fieldOf(o.src[i][0].val, half(hi))
			}
		}
		if l.field("s2type") != 2 && o.src[2][0].part == pWord {
			o.src[2][0].part = half(l.field("s2hi"))
		}
		l.emit(o)
	}
}

// I32MAD2 (op1 0x1A): d = s0*s1 + s2 on 32 bits with negations; step 1
// writes s2 (Vita3K's console tests: i = x*y+z with step 0, then pa =
// x*y+i with step 1 gives x*y+z).
func lowerI32mad2(l *lowerer) {
	d, s0, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2), l.opnd(3)
	var k uint32
	switch l.field("step") {
	case 0:
		k = intMad32
	case 1:
		k = intMadAcc
	default:
		l.fail("i32mad2 step %d: %w", l.field("step"), errUnsupported)
		return
	}
	if l.repeats() > 1 {
		l.fail("i32mad2 repeat: %w", errUnsupported)
		return
	}
	o := op{kind: kIntMad, aux: k, n: 1}
	o.aux2 = l.field("signed") | l.field("s1neg")<<2 | l.field("s2neg")<<3
	o.dst[0] = l.dstChan(d, fU32, 0, 0)
	o.src[0][0] = l.rawSrc(s0, fU32, 'x', 0)
	o.src[1][0] = l.rawSrc(s1, fU32, 'x', 0)
	o.src[2][0] = l.rawSrc(s2, fU32, 'x', 0)
	l.emit(o)
}

// intOp runs kIntMad and kSop.
func (t *Instance) intOp(o *op) {
	if o.kind == kSop {
		t.sop(o)
		return
	}
	a, b, c := t.raw(&o.src[0][0]), t.raw(&o.src[1][0]), t.raw(&o.src[2][0])
	signed := o.aux2&1 != 0
	var r uint32
	switch o.aux {
	case intMad8:
		r = i8mad(a, b, c, o.words[0], o.aux2)
	case intMad16:
		r = i16mad(a, b, c, o.words[0], o.words[1], o.aux2)
	case intMad16x16:
		var v int64
		if signed {
			v = int64(int16(a))*int64(int16(b)) + int64(int32(c))
			if o.src[2][0].part != pWord && o.src[2][0].part != pConst {
				v = int64(int16(a))*int64(int16(b)) + int64(int16(c))
			}
		} else {
			v = int64(a&0xffff)*int64(b&0xffff) + int64(c)
		}
		if o.aux2&2 != 0 {
			lo, hi := int64(0), int64(0xffffffff)
			if signed {
				lo, hi = -1<<31, 1<<31-1
			}
			v = min(max(v, lo), hi)
		}
		r = uint32(v)
	case intMad32, intMadAcc:
		if o.aux2&4 != 0 {
			b = -b
		}
		if o.aux2&8 != 0 {
			c = -c
		}
		r = a*b + c
		if o.aux == intMadAcc {
			r = c
		}
	default:
		t.fault = fmt.Errorf("integer op %d: %w", o.aux, errUnsupported)
		return
	}
	t.write(&o.dst[0], r)
}

// i8mad is I8MAD on the words of sources 0, 1, 2 (sel: csel0 | asel0<<2
// | csel1<<3 | csel2<<4; flags: sat | s0neg<<1).
func i8mad(a, b, c, sel, flags uint32) uint32 {
	byteOf := func(w uint32, k int) int32 { return int32(w >> (8 * k) & 0xff) }
	var r uint32
	for k := 0; k < 4; k++ {
		m1, m2 := byteOf(b, k), byteOf(c, k)
		var add int32
		if k < 3 {
			if sel>>3&1 != 0 {
				m1 = byteOf(b, 3)
			}
			if sel>>4&1 != 0 {
				m2 = byteOf(c, 3)
			}
			switch sel & 3 {
			case 0:
				add = byteOf(a, k)
			case 1:
				add = m1
			case 2:
				add = byteOf(a, 3)
			case 3:
				add = byteOf(b, 3)
			}
		} else {
			add = byteOf(a, 3)
			if sel>>2&1 != 0 {
				add = byteOf(b, 3)
			}
		}
		mods := sel >> 5 // cmod0..2, then amod0..2
		if k == 3 {
			mods >>= 3
		}
		if mods&1 != 0 {
			add = 255 - add
		}
		if mods&2 != 0 {
			m1 = 255 - m1
		}
		if mods&4 != 0 {
			m2 = 255 - m2
		}
		if flags&2 != 0 {
			add = -add
		}
		v := m1*m2 + add
		if flags&1 != 0 {
			v = min(max(v, 0), 255)
		}
		r |= uint32(v&0xff) << (8 * k)
	}
	return r
}

// i16mad is I16MAD on the words of sources 0, 1, 2 (f1, f2: format | hi<<2
// of sources 1 and 2; flags: signed | sat<<1 | s2neg<<2).
func i16mad(a, b, c, f1, f2, flags uint32) uint32 {
	signed := flags&1 != 0
	ext := func(v uint32, bits int) int64 {
		v &= 1<<bits - 1
		if signed && v>>(bits-1)&1 != 0 {
			return int64(v) - 1<<bits
		}
		return int64(v)
	}
	chanOf := func(w, f uint32) int64 {
		if f&3 == 1 { // a byte
			return ext(w>>(8*(f>>2&1)), 8)
		}
		return ext(w, 16)
	}
	m, add := chanOf(b, f1), chanOf(c, f2)
	if flags&4 != 0 {
		add = -add
	}
	var r uint32
	for h := 0; h < 2; h++ {
		v := ext(a>>(16*h), 16)*m + add
		if flags&2 != 0 {
			lo, hi := int64(0), int64(0xffff)
			if signed {
				lo, hi = -0x8000, 0x7fff
			}
			v = min(max(v, lo), hi)
		}
		r |= uint32(v&0xffff) << (16 * h)
	}
	return r
}
