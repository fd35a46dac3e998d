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

func (l *lowerer) sopOperands(o *op) {
	d, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2)
	n := l.repeats()
	for it := 0; it < n; it++ {
		x := *o
		x.dst[0] = l.dstChan(d, fU32, 0, it)
		x.src[0][0] = l.rawSrc(s1, fU32, 'x', it)
		x.src[1][0] = l.rawSrc(s2, fU32, 'x', it)
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
	}
	return s
}

func lowerSop3(l *lowerer) { l.fail("sop3: %w (no description of its selectors)", errUnsupported) }

// sop runs a sum of products on the four bytes of one word.
func (t *Instance) sop(o *op) {
	a, b := t.raw(&o.src[0][0]), t.raw(&o.src[1][0])
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

// I8MAD (op1 0x13): per byte, source1 * source2 + source0 (or minus with
// the negate), 8-bit integers after Vita3K (multiply without rescaling),
// saturated with .sat, else wrapped. csel/asel pick the add source's
// channels; the component modifiers are not emulated.
func lowerI8mad(l *lowerer) {
	for _, m := range []string{"cmod0", "cmod1", "cmod2", "amod0", "amod1", "amod2"} {
		if l.field(m) != 0 {
			l.fail("i8mad modifier %s: %w", m, errUnsupported)
			return
		}
	}
	if l.field("csel0") != 0 || l.field("asel0") != 0 || l.field("csel1") != 0 || l.field("csel2") != 0 {
		l.fail("i8mad channel selects: %w", errUnsupported)
		return
	}
	d, s0, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2), l.opnd(3)
	n := l.repeats()
	for it := 0; it < n; it++ {
		o := op{kind: kIntMad, aux: intMad8, aux2: l.field("sat") | l.field("s0neg")<<1, n: 1}
		o.dst[0] = l.dstChan(d, fU32, 0, it)
		o.src[0][0] = l.rawSrc(s0, fU32, 'x', it)
		o.src[1][0] = l.rawSrc(s1, fU32, 'x', it)
		o.src[2][0] = l.rawSrc(s2, fU32, 'x', it)
		l.emit(o)
	}
}

func lowerI16mad(l *lowerer) {
	l.fail("i16mad: %w (no public description of its operand forms)", errUnsupported)
}

// Integer multiply-add variants (aux of kIntMad).
const (
	intMad8     = iota
	intMad16x16 // I32MAD: 16-bit halves of sources 0 and 1, source 2 32 or 16 bits
	intMad32    // I32MAD2 step 0
	intMadAcc   // I32MAD2 step 1: the accumulated source 2 (Vita3K's console tests)
)

// I32MAD (op1 0x15): d = s0.half * s1.half + s2 (Vita3K; atlier's skinning
// index * stride + base), signed or unsigned, source 2 a 32-bit word when
// s2type is 2 else a half.
func lowerI32mad(l *lowerer) {
	d, s0, s1, s2 := l.opnd(0), l.opnd(1), l.opnd(2), l.opnd(3)
	if l.repeats() > 1 {
		l.fail("i32mad repeat: %w", errUnsupported)
		return
	}
	half := func(hi uint32) part { return pLo + part(hi&1) }
	o := op{kind: kIntMad, aux: intMad16x16, n: 1}
	o.aux2 = l.field("signed") | l.field("sat")<<1
	o.dst[0] = l.dstChan(d, fU32, 0, 0)
	o.src[0][0] = l.rawSrc(s0, fU32, 'x', 0)
	o.src[1][0] = l.rawSrc(s1, fU32, 'x', 0)
	o.src[2][0] = l.rawSrc(s2, fU32, 'x', 0)
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
		for k := 0; k < 4; k++ {
			x := int32(a >> (8 * k) & 0xff)
			v := int32(b>>(8*k)&0xff)*int32(c>>(8*k)&0xff) + x
			if o.aux2&2 != 0 {
				v -= 2 * x
			}
			if o.aux2&1 != 0 {
				v = min(max(v, 0), 255)
			}
			r |= uint32(v&0xff) << (8 * k)
		}
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
