package maxwell

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// The operations of the edge-value check: each a PTX snippet reading %a,
// %b, %c and writing %d (all .b32 in the 32-bit groups, .b64 in the
// 64-bit ones; scratch %t0-%t3 .b32, %w0-%w3 .b64, %h0 .b16, %p1-%p3
// predicates), and its result by PTX's definition.
type edgeOp struct {
	name string
	ptx  string
	ref  func(a, b, c uint64) uint64
	// result kind: 0 exact bits, 32 or 64: a float where any NaN matches
	// any NaN
	float int
	// undefined tells inputs whose result PTX leaves unspecified
	undefined func(a, b, c uint64) bool
	// anyZero: a zero result may have either sign (.sat of -0: PTX does
	// not say whether the clamp to [0, 1] makes it +0)
	anyZero bool
}

// edgeGroup is one kernel: its operations, the register width and the
// edge values its inputs are drawn from.
type edgeGroup struct {
	kernel string
	wide   bool // .b64 operands
	ops    []edgeOp
	values []uint64
}

func ptxF32(v uint64) float64  { return float64(math.Float32frombits(uint32(v))) }
func ptxF64(v uint64) float64  { return math.Float64frombits(v) }
func bitsF32(x float64) uint64 { return uint64(math.Float32bits(float32(x))) }
func ptxB01(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// pred wraps a predicate-producing snippet (into %p1) as a 0/1 result.
func predOp(name, ptx string, ref func(a, b, c uint64) bool) edgeOp {
	return edgeOp{name: name, ptx: ptx + " selp.$W %d, 1, 0, %p1;", ref: func(a, b, c uint64) uint64 { return ptxB01(ref(a, b, c)) }}
}

var modeNames = []string{"rn", "rz", "rm", "rp"}

func s32(v uint64) int64 { return int64(int32(uint32(v))) }

func edgeI32() edgeGroup {
	u := func(v uint64) uint32 { return uint32(v) }
	w := func(v uint32) uint64 { return uint64(v) }
	g := edgeGroup{kernel: "edge_i32", values: []uint64{0, 1, 0xffffffff, 2, 3, 7, 31, 32, 33, 63, 64, 255, 0x7fff, 0x8000,
		0xffff, 0x10000, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0x00ff00ff, 0x12345678, 0xdeadbeef, 0x80808080,
		0x01010101, 0x00800000, 0xff7fffff, 0x3210, 0x7654, 0x8888, 0x4c1d}}
	op := func(name, ptx string, f func(x, y, z uint32) uint32) {
		g.ops = append(g.ops, edgeOp{name: name, ptx: ptx, ref: func(a, b, c uint64) uint64 { return w(f(u(a), u(b), u(c))) }})
	}
	bin := func(ins string, f func(x, y uint32) uint32) {
		op(ins, ins+" %d, %a, %b;", func(x, y, _ uint32) uint32 { return f(x, y) })
	}
	un := func(ins string, f func(x uint32) uint32) {
		op(ins, ins+" %d, %a;", func(x, _, _ uint32) uint32 { return f(x) })
	}
	imm := func(ins string, k uint32, f func(x, y uint32) uint32) {
		op(fmt.Sprintf("%s imm %#x", ins, k), fmt.Sprintf("%s %%d, %%a, %d;", ins, int32(k)), func(x, _, _ uint32) uint32 { return f(x, k) })
	}
	add := func(x, y uint32) uint32 { return x + y }
	bin("add.s32", add)
	bin("sub.s32", func(x, y uint32) uint32 { return x - y })
	bin("add.sat.s32", func(x, y uint32) uint32 { return uint32(clampS32(s32(w(x)) + s32(w(y)))) })
	bin("sub.sat.s32", func(x, y uint32) uint32 { return uint32(clampS32(s32(w(x)) - s32(w(y)))) })
	mulLo := func(x, y uint32) uint32 { return x * y }
	bin("mul.lo.s32", mulLo)
	mulHiS := func(x, y uint32) uint32 { return uint32(uint64(s32(w(x))*s32(w(y))) >> 32) }
	mulHiU := func(x, y uint32) uint32 { return uint32(uint64(x) * uint64(y) >> 32) }
	bin("mul.hi.s32", mulHiS)
	bin("mul.hi.u32", mulHiU)
	op("mul.wide.s32 lo", "mul.wide.s32 %w0, %a, %b; cvt.u32.u64 %d, %w0;", func(x, y, _ uint32) uint32 { return x * y })
	op("mul.wide.s32 hi", "mul.wide.s32 %w0, %a, %b; shr.u64 %w0, %w0, 32; cvt.u32.u64 %d, %w0;", func(x, y, _ uint32) uint32 { return mulHiS(x, y) })
	op("mul.wide.u32 hi", "mul.wide.u32 %w0, %a, %b; shr.u64 %w0, %w0, 32; cvt.u32.u64 %d, %w0;", func(x, y, _ uint32) uint32 { return mulHiU(x, y) })
	op("mad.lo.s32", "mad.lo.s32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 { return x*y + z })
	op("mad.hi.s32", "mad.hi.s32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 { return mulHiS(x, y) + z })
	op("mad.hi.u32", "mad.hi.u32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 { return mulHiU(x, y) + z })
	op("mad.hi.sat.s32", "mad.hi.sat.s32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 {
		return uint32(clampS32(int64(int32(mulHiS(x, y))) + s32(w(z))))
	})
	s24 := func(x uint32) int64 { return int64(int32(x<<8) >> 8) }
	bin("mul24.lo.s32", func(x, y uint32) uint32 { return uint32(s24(x) * s24(y)) })
	bin("mul24.hi.s32", func(x, y uint32) uint32 { return uint32(s24(x) * s24(y) >> 16) })
	bin("mul24.lo.u32", func(x, y uint32) uint32 { return (x & 0xffffff) * (y & 0xffffff) })
	bin("mul24.hi.u32", func(x, y uint32) uint32 { return uint32(uint64(x&0xffffff) * uint64(y&0xffffff) >> 16) })
	op("mad24.lo.s32", "mad24.lo.s32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 { return uint32(s24(x)*s24(y)) + z })
	op("mad24.hi.u32", "mad24.hi.u32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 {
		return uint32(uint64(x&0xffffff)*uint64(y&0xffffff)>>16) + z
	})
	op("sad.s32", "sad.s32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 {
		d := s32(w(x)) - s32(w(y))
		return z + uint32(max(d, -d))
	})
	op("sad.u32", "sad.u32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 { return z + max(x, y) - min(x, y) })
	bin("min.s32", func(x, y uint32) uint32 { return uint32(min(int32(x), int32(y))) })
	bin("max.s32", func(x, y uint32) uint32 { return uint32(max(int32(x), int32(y))) })
	bin("min.u32", func(x, y uint32) uint32 { return min(x, y) })
	bin("max.u32", func(x, y uint32) uint32 { return max(x, y) })
	un("abs.s32", func(x uint32) uint32 { return uint32(max(int32(x), -int32(x))) })
	un("neg.s32", func(x uint32) uint32 { return -x })
	bin("and.b32", func(x, y uint32) uint32 { return x & y })
	bin("or.b32", func(x, y uint32) uint32 { return x | y })
	bin("xor.b32", func(x, y uint32) uint32 { return x ^ y })
	un("not.b32", func(x uint32) uint32 { return ^x })
	un("cnot.b32", func(x uint32) uint32 { return uint32(ptxB01(x == 0)) })
	shl := func(x, y uint32) uint32 {
		if y >= 32 {
			return 0
		}
		return x << y
	}
	shrU := func(x, y uint32) uint32 {
		if y >= 32 {
			return 0
		}
		return x >> y
	}
	shrS := func(x, y uint32) uint32 { return uint32(int32(x) >> min(y, 31)) }
	bin("shl.b32", shl)
	bin("shr.u32", shrU)
	bin("shr.s32", shrS)
	un("popc.b32", func(x uint32) uint32 { return uint32(bits.OnesCount32(x)) })
	un("clz.b32", func(x uint32) uint32 { return uint32(bits.LeadingZeros32(x)) })
	un("bfind.u32", func(x uint32) uint32 { return uint32(ptxBfindN(w(x), 32, false, false)) })
	un("bfind.s32", func(x uint32) uint32 { return uint32(ptxBfindN(w(x), 32, true, false)) })
	un("bfind.shiftamt.u32", func(x uint32) uint32 { return uint32(ptxBfindN(w(x), 32, false, true)) })
	un("brev.b32", bits.Reverse32)
	op("bfe.u32", "bfe.u32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 { return uint32(ptxBfeN(w(x), w(y), w(z), 32, false)) })
	op("bfe.s32", "bfe.s32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 { return uint32(ptxBfeN(w(x), w(y), w(z), 32, true)) })
	op("bfi.b32", "shr.u32 %t0, %c, 8; bfi.b32 %d, %a, %b, %c, %t0;", func(x, y, z uint32) uint32 {
		return uint32(ptxBfiN(w(x), w(y), int(z&0xff), int(z>>8&0xff), 32))
	})
	for _, m := range []string{"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"} {
		ins := "prmt.b32"
		if m != "" {
			ins += "." + m
		}
		op(ins, ins+" %d, %a, %b, %c;", func(x, y, z uint32) uint32 { return ptxPrmtN(x, y, z, m) })
	}
	funnel := func(left, clamp bool) func(x, y, z uint32) uint32 {
		return func(x, y, z uint32) uint32 {
			n := z & 31
			if clamp {
				n = min(z, 32)
			}
			v := uint64(y)<<32 | uint64(x)
			if left {
				return uint32(v << n >> 32)
			}
			return uint32(v >> n)
		}
	}
	op("shf.l.wrap.b32", "shf.l.wrap.b32 %d, %a, %b, %c;", funnel(true, false))
	op("shf.r.wrap.b32", "shf.r.wrap.b32 %d, %a, %b, %c;", funnel(false, false))
	op("shf.l.clamp.b32", "shf.l.clamp.b32 %d, %a, %b, %c;", funnel(true, true))
	op("shf.r.clamp.b32", "shf.r.clamp.b32 %d, %a, %b, %c;", funnel(false, true))
	carry := func(x, y, cin uint32) uint32 { return uint32((uint64(x) + uint64(y) + uint64(cin)) >> 32) }
	op("add.cc+addc", "add.cc.u32 %t0, %a, %b; addc.u32 %d, %c, %c;", func(x, y, z uint32) uint32 { return 2*z + carry(x, y, 0) })
	op("add.cc+addc.cc+addc", "add.cc.u32 %t0, %a, %b; addc.cc.u32 %t1, %c, %a; addc.u32 %d, 0, 0;", func(x, y, z uint32) uint32 {
		return carry(z, x, carry(x, y, 0))
	})
	borrow := func(x, y, bin uint32) uint32 { return ptxB32(int64(x)-int64(y)-int64(bin) < 0) }
	op("sub.cc+subc", "sub.cc.u32 %t0, %a, %b; subc.u32 %d, %c, 0;", func(x, y, z uint32) uint32 { return z - borrow(x, y, 0) })
	op("sub.cc+subc.cc+subc", "sub.cc.u32 %t0, %a, %b; subc.cc.u32 %t1, %c, %a; subc.u32 %d, 0, 0;", func(x, y, z uint32) uint32 {
		return -borrow(z, x, borrow(x, y, 0))
	})
	op("mad.lo.cc+madc.hi", "mad.lo.cc.u32 %t0, %a, %b, %c; madc.hi.u32 %d, %a, %b, 0;", func(x, y, z uint32) uint32 {
		return mulHiU(x, y) + carry(x*y, z, 0)
	})
	op("mad.lo.cc+madc.hi.cc+addc", "mad.lo.cc.u32 %t0, %a, %b, %c; madc.hi.cc.u32 %t1, %a, %b, %c; addc.u32 %d, 0, 0;",
		func(x, y, z uint32) uint32 { return carry(mulHiU(x, y), z, carry(x*y, z, 0)) })
	cmps := map[string]func(x, y uint32) bool{
		"eq.s32": func(x, y uint32) bool { return x == y }, "ne.s32": func(x, y uint32) bool { return x != y },
		"lt.s32": func(x, y uint32) bool { return int32(x) < int32(y) }, "le.s32": func(x, y uint32) bool { return int32(x) <= int32(y) },
		"gt.s32": func(x, y uint32) bool { return int32(x) > int32(y) }, "ge.s32": func(x, y uint32) bool { return int32(x) >= int32(y) },
		"lo.u32": func(x, y uint32) bool { return x < y }, "ls.u32": func(x, y uint32) bool { return x <= y },
		"hi.u32": func(x, y uint32) bool { return x > y }, "hs.u32": func(x, y uint32) bool { return x >= y },
	}
	for _, c := range []string{"eq.s32", "ne.s32", "lt.s32", "le.s32", "gt.s32", "ge.s32", "lo.u32", "ls.u32", "hi.u32", "hs.u32"} {
		f := cmps[c]
		g.ops = append(g.ops, predOp("setp."+c, "setp."+c+" %p1, %a, %b;", func(a, b, _ uint64) bool { return f(u(a), u(b)) }))
	}
	lt := cmps["lt.s32"]
	for _, bop := range []string{"and", "or", "xor"} {
		g.ops = append(g.ops, predOp("setp.lt."+bop, "setp.ne.s32 %p2, %c, 0; setp.lt."+bop+".s32 %p1, %a, %b, %p2;", func(a, b, c uint64) bool {
			t, q := lt(u(a), u(b)), u(c) != 0
			switch bop {
			case "and":
				return t && q
			case "or":
				return t || q
			}
			return t != q
		}))
	}
	g.ops = append(g.ops, predOp("setp.lt|!", "setp.lt.s32 %p2|%p1, %a, %b;", func(a, b, _ uint64) bool { return !lt(u(a), u(b)) }))
	op("set.lt.u32.s32", "set.lt.u32.s32 %d, %a, %b;", func(x, y, _ uint32) uint32 { return -uint32(ptxB01(lt(x, y))) })
	op("set.hi.u32.u32", "set.hi.u32.u32 %d, %a, %b;", func(x, y, _ uint32) uint32 { return -uint32(ptxB01(x > y)) })
	op("slct.s32.s32", "slct.s32.s32 %d, %a, %b, %c;", func(x, y, z uint32) uint32 {
		if int32(z) >= 0 {
			return x
		}
		return y
	})
	op("selp", "setp.ne.s32 %p1, %c, 0; selp.b32 %d, %a, %b, %p1;", func(x, y, z uint32) uint32 {
		if z != 0 {
			return x
		}
		return y
	})
	// immediate operands (ptxas's 20-bit, 32-bit and negated immediate forms)
	for _, k := range []uint32{1, 0xffffffff, 0x7fffffff, 0x80000000, 0x12345, 0xfff00000, 0x7ffff, 0xffff0} {
		imm("add.s32", k, add)
	}
	imm("sub.s32", 0x10, func(x, y uint32) uint32 { return x - y })
	imm("sub.s32", 0x80000000, func(x, y uint32) uint32 { return x - y })
	for _, k := range []uint32{3, 0xfffffff9, 0x10001, 0x80000000, 0xfff} {
		imm("mul.lo.s32", k, mulLo)
	}
	imm("mul.hi.u32", 0xaaaaaaab, mulHiU)
	imm("mul.hi.s32", 0x55555556, mulHiS)
	for _, k := range []uint32{0xff00ff00, 0xffff, 0x80000000, 0xfffffff0} {
		imm("and.b32", k, func(x, y uint32) uint32 { return x & y })
		imm("or.b32", k, func(x, y uint32) uint32 { return x | y })
		imm("xor.b32", k, func(x, y uint32) uint32 { return x ^ y })
	}
	for _, k := range []uint32{0, 1, 16, 31, 32, 33} {
		imm("shl.b32", k, shl)
		imm("shr.u32", k, shrU)
		imm("shr.s32", k, shrS)
	}
	imm("min.s32", 0xfffffffb, func(x, y uint32) uint32 { return uint32(min(int32(x), int32(y))) })
	imm("max.u32", 7, func(x, y uint32) uint32 { return max(x, y) })
	imm("max.s32", 0x80000000, func(x, y uint32) uint32 { return uint32(max(int32(x), int32(y))) })
	op("mad.lo.s32 imm", "mad.lo.s32 %d, %a, 13, %c;", func(x, _, z uint32) uint32 { return x*13 + z })
	op("mad.lo.s32 imm -1", "mad.lo.s32 %d, %a, %b, -1;", func(x, y, _ uint32) uint32 { return x*y - 1 })
	op("bfe.u32 imm", "bfe.u32 %d, %a, 4, 8;", func(x, _, _ uint32) uint32 { return x >> 4 & 0xff })
	op("bfe.s32 imm", "bfe.s32 %d, %a, 28, 8;", func(x, _, _ uint32) uint32 { return uint32(ptxBfeN(w(x), 28, 8, 32, true)) })
	op("bfi.b32 imm", "bfi.b32 %d, %a, %b, 8, 12;", func(x, y, _ uint32) uint32 { return uint32(ptxBfiN(w(x), w(y), 8, 12, 32)) })
	for _, k := range []uint32{0x3210, 0x0123, 0x8888, 0x7531} {
		op(fmt.Sprintf("prmt imm %#x", k), fmt.Sprintf("prmt.b32 %%d, %%a, %%b, %d;", k), func(x, y, _ uint32) uint32 { return ptxPrmtN(x, y, k, "") })
	}
	op("shf.l.wrap imm", "shf.l.wrap.b32 %d, %a, %b, 8;", func(x, y, _ uint32) uint32 { return funnel(true, false)(x, y, 8) })
	op("shf.r.clamp imm", "shf.r.clamp.b32 %d, %a, %b, 40;", func(x, y, _ uint32) uint32 { return funnel(false, true)(x, y, 40) })
	op("setp.lt.s32 imm", "setp.lt.s32 %p1, %a, -1; selp.u32 %d, 1, 0, %p1;", func(x, _, _ uint32) uint32 { return uint32(ptxB01(int32(x) < -1)) })
	op("setp.hi.u32 imm", "setp.hi.u32 %p1, %a, 0x7fffffff; selp.u32 %d, 1, 0, %p1;", func(x, _, _ uint32) uint32 { return uint32(ptxB01(x > 0x7fffffff)) })
	op("mul24.lo.s32 imm", "mul24.lo.s32 %d, %a, -3;", func(x, _, _ uint32) uint32 { return uint32(s24(x) * -3) })
	op("sad.u32 imm", "sad.u32 %d, %a, 100, %c;", func(x, _, z uint32) uint32 { return z + max(x, 100) - min(x, 100) })
	op("add.cc imm+addc", "add.cc.u32 %t0, %a, -16; addc.u32 %d, %c, 0;", func(x, _, z uint32) uint32 { return z + carry(x, 0xfffffff0, 0) })
	return g
}

func ptxB32(b bool) uint32 { return uint32(ptxB01(b)) }

func edgeI64() edgeGroup {
	g := edgeGroup{kernel: "edge_i64", wide: true, values: []uint64{0, 1, math.MaxUint64, 2, 31, 32, 33, 63, 64, 65, 0xff,
		0xffffffff, 0x100000000, 0x7fffffff, 0x80000000, 0x7fffffffffffffff, 0x8000000000000000, 0x8000000000000001,
		0xffffffff00000000, 0x123456789abcdef0, 0xfffffffffffffffe, 0x0000ffff0000ffff, 0x3f08, 0x2010}}
	op := func(name, ptx string, f func(x, y, z uint64) uint64) {
		g.ops = append(g.ops, edgeOp{name: name, ptx: ptx, ref: f})
	}
	bin := func(ins string, f func(x, y uint64) uint64) {
		op(ins, ins+" %d, %a, %b;", func(x, y, _ uint64) uint64 { return f(x, y) })
	}
	un := func(ins string, f func(x uint64) uint64) {
		op(ins, ins+" %d, %a;", func(x, _, _ uint64) uint64 { return f(x) })
	}
	mulHiS := func(x, y uint64) uint64 {
		hi, _ := bits.Mul64(x, y)
		if int64(x) < 0 {
			hi -= y
		}
		if int64(y) < 0 {
			hi -= x
		}
		return hi
	}
	mulHiU := func(x, y uint64) uint64 { hi, _ := bits.Mul64(x, y); return hi }
	bin("add.s64", func(x, y uint64) uint64 { return x + y })
	bin("sub.s64", func(x, y uint64) uint64 { return x - y })
	bin("mul.lo.s64", func(x, y uint64) uint64 { return x * y })
	bin("mul.hi.s64", mulHiS)
	bin("mul.hi.u64", mulHiU)
	op("mad.lo.s64", "mad.lo.s64 %d, %a, %b, %c;", func(x, y, z uint64) uint64 { return x*y + z })
	op("mad.hi.u64", "mad.hi.u64 %d, %a, %b, %c;", func(x, y, z uint64) uint64 { return mulHiU(x, y) + z })
	op("mad.hi.s64", "mad.hi.s64 %d, %a, %b, %c;", func(x, y, z uint64) uint64 { return mulHiS(x, y) + z })
	bin("min.s64", func(x, y uint64) uint64 { return uint64(min(int64(x), int64(y))) })
	bin("max.s64", func(x, y uint64) uint64 { return uint64(max(int64(x), int64(y))) })
	bin("min.u64", func(x, y uint64) uint64 { return min(x, y) })
	bin("max.u64", func(x, y uint64) uint64 { return max(x, y) })
	un("abs.s64", func(x uint64) uint64 { return uint64(max(int64(x), -int64(x))) })
	un("neg.s64", func(x uint64) uint64 { return -x })
	bin("and.b64", func(x, y uint64) uint64 { return x & y })
	bin("or.b64", func(x, y uint64) uint64 { return x | y })
	bin("xor.b64", func(x, y uint64) uint64 { return x ^ y })
	un("not.b64", func(x uint64) uint64 { return ^x })
	shift := func(ins string, f func(x uint64, n uint32) uint64) {
		op(ins, "cvt.u32.u64 %t0, %b; "+ins+" %d, %a, %t0;", func(x, y, _ uint64) uint64 { return f(x, uint32(y)) })
	}
	shl := func(x uint64, n uint32) uint64 {
		if n >= 64 {
			return 0
		}
		return x << n
	}
	shrU := func(x uint64, n uint32) uint64 {
		if n >= 64 {
			return 0
		}
		return x >> n
	}
	shrS := func(x uint64, n uint32) uint64 { return uint64(int64(x) >> min(n, 63)) }
	shift("shl.b64", shl)
	shift("shr.u64", shrU)
	shift("shr.s64", shrS)
	op("popc.b64", "popc.b64 %t0, %a; cvt.u64.u32 %d, %t0;", func(x, _, _ uint64) uint64 { return uint64(bits.OnesCount64(x)) })
	op("clz.b64", "clz.b64 %t0, %a; cvt.u64.u32 %d, %t0;", func(x, _, _ uint64) uint64 { return uint64(bits.LeadingZeros64(x)) })
	op("bfind.u64", "bfind.u64 %t0, %a; cvt.u64.u32 %d, %t0;", func(x, _, _ uint64) uint64 { return ptxBfindN(x, 64, false, false) })
	op("bfind.s64", "bfind.s64 %t0, %a; cvt.u64.u32 %d, %t0;", func(x, _, _ uint64) uint64 { return ptxBfindN(x, 64, true, false) })
	op("bfind.shiftamt.u64", "bfind.shiftamt.u64 %t0, %a; cvt.u64.u32 %d, %t0;", func(x, _, _ uint64) uint64 { return ptxBfindN(x, 64, false, true) })
	un("brev.b64", bits.Reverse64)
	// ptxas 11.8 expands the 64-bit bfe and bfi with their position and
	// length operands whole, not their low bytes as PTX defines them:
	// the operands are masked so that both readings agree
	const posLen = "cvt.u32.u64 %t0, %b; and.b32 %t0, %t0, 255; cvt.u32.u64 %t1, %c; and.b32 %t1, %t1, 255; "
	op("bfe.u64", posLen+"bfe.u64 %d, %a, %t0, %t1;", func(x, y, z uint64) uint64 { return ptxBfeN(x, y, z, 64, false) })
	op("bfe.s64", posLen+"bfe.s64 %d, %a, %t0, %t1;", func(x, y, z uint64) uint64 { return ptxBfeN(x, y, z, 64, true) })
	op("bfi.b64", "cvt.u32.u64 %t0, %c; shr.u32 %t1, %t0, 8; and.b32 %t0, %t0, 255; and.b32 %t1, %t1, 255; bfi.b64 %d, %a, %b, %t0, %t1;", func(x, y, z uint64) uint64 {
		return ptxBfiN(x, y, int(z&0xff), int(z>>8&0xff), 64)
	})
	cmps := []struct {
		c string
		f func(x, y uint64) bool
	}{
		{"eq.s64", func(x, y uint64) bool { return x == y }}, {"ne.s64", func(x, y uint64) bool { return x != y }},
		{"lt.s64", func(x, y uint64) bool { return int64(x) < int64(y) }}, {"le.s64", func(x, y uint64) bool { return int64(x) <= int64(y) }},
		{"gt.s64", func(x, y uint64) bool { return int64(x) > int64(y) }}, {"ge.s64", func(x, y uint64) bool { return int64(x) >= int64(y) }},
		{"lo.u64", func(x, y uint64) bool { return x < y }}, {"ls.u64", func(x, y uint64) bool { return x <= y }},
		{"hi.u64", func(x, y uint64) bool { return x > y }}, {"hs.u64", func(x, y uint64) bool { return x >= y }},
	}
	for _, c := range cmps {
		g.ops = append(g.ops, predOp("setp."+c.c, "setp."+c.c+" %p1, %a, %b;", func(a, b, _ uint64) bool { return c.f(a, b) }))
	}
	// conversions between widths
	op("cvt.s64.s32", "cvt.u32.u64 %t0, %a; cvt.s64.s32 %d, %t0;", func(x, _, _ uint64) uint64 { return uint64(int64(int32(x))) })
	op("cvt.u64.u32", "cvt.u32.u64 %t0, %a; cvt.u64.u32 %d, %t0;", func(x, _, _ uint64) uint64 { return x & 0xffffffff })
	op("cvt.sat.s32.s64", "cvt.sat.s32.s64 %t0, %a; cvt.s64.s32 %d, %t0;", func(x, _, _ uint64) uint64 {
		return uint64(int64(int32(clampS32(int64(x)))))
	})
	op("cvt.sat.u32.s64", "cvt.sat.u32.s64 %t0, %a; cvt.u64.u32 %d, %t0;", func(x, _, _ uint64) uint64 { return uint64(max(min(int64(x), math.MaxUint32), 0)) })
	op("cvt.sat.s32.u64", "cvt.sat.s32.u64 %t0, %a; cvt.s64.s32 %d, %t0;", func(x, _, _ uint64) uint64 { return min(x, math.MaxInt32) })
	op("cvt.sat.s16.s64", "cvt.sat.s16.s64 %h0, %a; cvt.s64.s16 %d, %h0;", func(x, _, _ uint64) uint64 {
		return uint64(max(min(int64(x), math.MaxInt16), math.MinInt16))
	})
	op("cvt.u8.u64", "cvt.u8.u64 %h0, %a; cvt.u64.u8 %d, %h0;", func(x, _, _ uint64) uint64 { return x & 0xff })
	op("cvt.s8.s64", "cvt.s8.s64 %h0, %a; cvt.s64.s8 %d, %h0;", func(x, _, _ uint64) uint64 { return uint64(int64(int8(x))) })
	// immediates
	imm := func(ins string, k uint64, f func(x, y uint64) uint64) {
		op(fmt.Sprintf("%s imm %#x", ins, k), fmt.Sprintf("%s %%d, %%a, %d;", ins, int64(k)), func(x, _, _ uint64) uint64 { return f(x, k) })
	}
	for _, k := range []uint64{1, math.MaxUint64, 0x100000000, 0xffffffff, 0x80000000} {
		imm("add.s64", k, func(x, y uint64) uint64 { return x + y })
	}
	imm("mul.lo.s64", 0x100000001, func(x, y uint64) uint64 { return x * y })
	imm("mul.lo.s64", 10, func(x, y uint64) uint64 { return x * y })
	imm("and.b64", 0xffffffff00000000, func(x, y uint64) uint64 { return x & y })
	imm("min.s64", 0xffffffff80000000, func(x, y uint64) uint64 { return uint64(min(int64(x), int64(y))) })
	for _, k := range []uint32{0, 1, 31, 32, 33, 63, 64} {
		op(fmt.Sprintf("shl.b64 imm %d", k), fmt.Sprintf("shl.b64 %%d, %%a, %d;", k), func(x, _, _ uint64) uint64 { return shl(x, k) })
		op(fmt.Sprintf("shr.u64 imm %d", k), fmt.Sprintf("shr.u64 %%d, %%a, %d;", k), func(x, _, _ uint64) uint64 { return shrU(x, k) })
		op(fmt.Sprintf("shr.s64 imm %d", k), fmt.Sprintf("shr.s64 %%d, %%a, %d;", k), func(x, _, _ uint64) uint64 { return shrS(x, k) })
	}
	g.ops = append(g.ops, predOp("setp.lt.s64 imm", "setp.lt.s64 %p1, %a, -2147483648;",
		func(a, _, _ uint64) bool { return int64(a) < -2147483648 }))
	return g
}

var f32Values = []uint64{0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x00400000, 0x00800000, 0x80800000, 0x00800001,
	0x3f800000, 0xbf800000, 0x3fc00000, 0x3f000000, 0x3f7fffff, 0x3f800001, 0x4b800000, 0x4b800001, 0x4effffff,
	0x4f000000, 0xcf000000, 0x4f800000, 0x5f000000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
	0xffc00001, 0x3effffff, 0x40200000, 0xc0200000, 0x477fe000, 0x477ff000, 0x33800000, 0x33000000, 0x387fc000,
	0x2f800000, 0x3eaaaaab, 0xcb000001, 0x0b000000}

func edgeF32Group() edgeGroup {
	g := edgeGroup{kernel: "edge_f32", values: f32Values}
	fop := func(name, ptx string, f func(x, y, z float64) float64) {
		g.ops = append(g.ops, edgeOp{name: name, ptx: ptx, float: 32, ref: func(a, b, c uint64) uint64 {
			return bitsF32(f(ptxF32(a), ptxF32(b), ptxF32(c)))
		}})
	}
	iop := func(name, ptx string, f func(x, y, z float64) uint64) {
		g.ops = append(g.ops, edgeOp{name: name, ptx: ptx, ref: func(a, b, c uint64) uint64 { return f(ptxF32(a), ptxF32(b), ptxF32(c)) }})
	}
	fl := func(x float64) float64 { return float64(ftz32(float32(x))) }
	fbits := func(name, ptx string, o fop32) {
		g.ops = append(g.ops, edgeOp{name: name, ptx: ptx, float: 32, ref: func(a, b, c uint64) uint64 {
			return uint64(o.eval(uint32(a), uint32(b), uint32(c)))
		}})
	}
	for mi, mn := range modeNames {
		m := ptxModes[mi]
		fop("add."+mn+".f32", "add."+mn+".f32 %d, %a, %b;", func(x, y, _ float64) float64 { return ieeeOp('+', x, y, 0, fmt32, m) })
		fop("mul."+mn+".f32", "mul."+mn+".f32 %d, %a, %b;", func(x, y, _ float64) float64 { return ieeeOp('*', x, y, 0, fmt32, m) })
		fop("fma."+mn+".f32", "fma."+mn+".f32 %d, %a, %b, %c;", func(x, y, z float64) float64 { return ieeeOp('f', x, y, z, fmt32, m) })
		fop("div."+mn+".f32", "div."+mn+".f32 %d, %a, %b;", func(x, y, _ float64) float64 { return ieeeDiv(x, y, fmt32, m) })
		fop("sqrt."+mn+".f32", "sqrt."+mn+".f32 %d, %a;", func(x, _, _ float64) float64 { return ieeeSqrt(x, fmt32, m) })
		fop("rcp."+mn+".f32", "rcp."+mn+".f32 %d, %a;", func(x, _, _ float64) float64 { return ieeeDiv(1, x, fmt32, m) })
		fop("cvt."+mn+"i.f32.f32", "cvt."+mn+"i.f32.f32 %d, %a;", func(x, _, _ float64) float64 { return ptxRoundInt(x, m) })
		iop("cvt."+mn+"i.s32.f32", "cvt."+mn+"i.s32.f32 %d, %a;", func(x, _, _ float64) uint64 { return cvtInt(x, m, true, 32) })
		iop("cvt."+mn+"i.u32.f32", "cvt."+mn+"i.u32.f32 %d, %a;", func(x, _, _ float64) uint64 { return cvtInt(x, m, false, 32) })
		g.ops = append(g.ops, edgeOp{name: "cvt." + mn + ".f32.s32", ptx: "cvt." + mn + ".f32.s32 %d, %a;", float: 32,
			ref: func(a, _, _ uint64) uint64 { return bitsF32(ptxIntToFloat(uint64(int64(int32(a))), true, fmt32, m)) }})
		g.ops = append(g.ops, edgeOp{name: "cvt." + mn + ".f32.u32", ptx: "cvt." + mn + ".f32.u32 %d, %a;", float: 32,
			ref: func(a, _, _ uint64) uint64 { return bitsF32(ptxIntToFloat(a&0xffffffff, false, fmt32, m)) }})
		g.ops = append(g.ops, edgeOp{name: "cvt." + mn + ".f16.f32", ptx: "cvt." + mn + ".f16.f32 %h0, %a; cvt.u32.u16 %d, %h0;",
			ref: func(a, _, _ uint64) uint64 { return uint64(f32ToHalf(float32(ptxF32(a)), m)) }, undefined: func(a, _, _ uint64) bool { return math.IsNaN(ptxF32(a)) }})
	}
	fop("sub.rn.f32", "sub.rn.f32 %d, %a, %b;", func(x, y, _ float64) float64 { return ieeeOp('+', x, -y, 0, fmt32, rRN) })
	fbits("add.rn.ftz.f32", "add.rn.ftz.f32 %d, %a, %b;", fop32{kind: '+', ftz: true})
	fbits("mul.rn.ftz.f32", "mul.rn.ftz.f32 %d, %a, %b;", fop32{kind: '*', ftz: true})
	fbits("fma.rn.ftz.f32", "fma.rn.ftz.f32 %d, %a, %b, %c;", fop32{kind: 'f', ftz: true})
	satFrom := len(g.ops)
	fbits("add.rn.sat.f32", "add.rn.sat.f32 %d, %a, %b;", fop32{kind: '+', sat: true})
	fbits("mul.rn.sat.f32", "mul.rn.sat.f32 %d, %a, %b;", fop32{kind: '*', sat: true})
	fbits("fma.rn.sat.f32", "fma.rn.sat.f32 %d, %a, %b, %c;", fop32{kind: 'f', sat: true})
	for i := satFrom; i < len(g.ops); i++ {
		g.ops[i].anyZero = true
	}
	fop("div.rn.ftz.f32", "div.rn.ftz.f32 %d, %a, %b;", func(x, y, _ float64) float64 { return fl(ieeeDiv(fl(x), fl(y), fmt32, rRN)) })
	fop("sqrt.rn.ftz.f32", "sqrt.rn.ftz.f32 %d, %a;", func(x, _, _ float64) float64 { return fl(ieeeSqrt(fl(x), fmt32, rRN)) })
	fop("rcp.rn.ftz.f32", "rcp.rn.ftz.f32 %d, %a;", func(x, _, _ float64) float64 { return fl(ieeeDiv(1, fl(x), fmt32, rRN)) })
	mm := func(name, ptx string, isMax, ftz bool) {
		g.ops = append(g.ops, edgeOp{name: name, ptx: ptx, float: 32, ref: func(a, b, _ uint64) uint64 {
			x, y := ptxF32(a), ptxF32(b)
			if ftz {
				x, y = fl(x), fl(y)
			}
			return bitsF32(minMax(isMax, x, y))
		}, undefined: func(a, b, _ uint64) bool { return ptxF32(a) == 0 && ptxF32(b) == 0 && a != b }}) // min(-0, +0): PTX does not say
	}
	mm("min.f32", "min.f32 %d, %a, %b;", false, false)
	mm("max.f32", "max.f32 %d, %a, %b;", true, false)
	mm("min.ftz.f32", "min.ftz.f32 %d, %a, %b;", false, true)
	g.ops = append(g.ops, edgeOp{name: "abs.f32", ptx: "abs.f32 %d, %a;", ref: func(a, _, _ uint64) uint64 { return a & 0x7fffffff },
		undefined: func(a, _, _ uint64) bool { return math.IsNaN(ptxF32(a)) }})
	g.ops = append(g.ops, edgeOp{name: "neg.f32", ptx: "neg.f32 %d, %a;", ref: func(a, _, _ uint64) uint64 { return a ^ 0x80000000 },
		undefined: func(a, _, _ uint64) bool { return math.IsNaN(ptxF32(a)) }})
	fop("abs.ftz.f32", "abs.ftz.f32 %d, %a;", func(x, _, _ float64) float64 { return math.Abs(fl(x)) })
	g.ops = append(g.ops, edgeOp{name: "copysign.f32", ptx: "copysign.f32 %d, %a, %b;", ref: func(a, b, _ uint64) uint64 { return b&0x7fffffff | a&0x80000000 },
		undefined: func(_, b, _ uint64) bool { return math.IsNaN(ptxF32(b)) }})
	for _, k := range []string{"finite", "infinite", "number", "notanumber", "normal", "subnormal"} {
		g.ops = append(g.ops, predOp("testp."+k, "testp."+k+".f32 %p1, %a;", func(a, _, _ uint64) bool { return ptxTestp(k, ptxF32(a), fmt32) }))
	}
	for _, c := range []string{"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"} {
		g.ops = append(g.ops, predOp("setp."+c+".f32", "setp."+c+".f32 %p1, %a, %b;", func(a, b, _ uint64) bool { return fcompare(c, ptxF32(a), ptxF32(b)) }))
	}
	g.ops = append(g.ops, predOp("setp.lt.ftz.f32", "setp.lt.ftz.f32 %p1, %a, %b;", func(a, b, _ uint64) bool { return fcompare("lt", fl(ptxF32(a)), fl(ptxF32(b))) }))
	fop("set.lt.f32.f32", "set.lt.f32.f32 %d, %a, %b;", func(x, y, _ float64) float64 { return float64(ptxB01(fcompare("lt", x, y))) })
	iop("set.gtu.u32.f32", "set.gtu.u32.f32 %d, %a, %b;", func(x, y, _ float64) uint64 { return uint64(-ptxB32(fcompare("gtu", x, y))) })
	fop("cvt.rzi.ftz.f32.f32", "cvt.rzi.ftz.f32.f32 %d, %a;", func(x, _, _ float64) float64 { return math.Trunc(fl(x)) })
	iop("cvt.rzi.s16.f32", "cvt.rzi.s16.f32 %h0, %a; cvt.s32.s16 %d, %h0;", func(x, _, _ float64) uint64 {
		return uint64(uint32(int32(int16(cvtInt(x, rRZ, true, 16)))))
	})
	iop("cvt.rni.u8.f32", "cvt.rni.u8.f32 %h0, %a; cvt.u32.u16 %d, %h0;", func(x, _, _ float64) uint64 { return cvtInt(x, rRN, false, 8) })
	iop("cvt.rzi.s64.f32 lo", "cvt.rzi.s64.f32 %w0, %a; cvt.u32.u64 %d, %w0;", func(x, _, _ float64) uint64 { return cvtInt(x, rRZ, true, 64) & 0xffffffff })
	iop("cvt.rzi.s64.f32 hi", "cvt.rzi.s64.f32 %w0, %a; shr.u64 %w0, %w0, 32; cvt.u32.u64 %d, %w0;", func(x, _, _ float64) uint64 { return cvtInt(x, rRZ, true, 64) >> 32 })
	iop("cvt.rpi.u64.f32 hi", "cvt.rpi.u64.f32 %w0, %a; shr.u64 %w0, %w0, 32; cvt.u32.u64 %d, %w0;", func(x, _, _ float64) uint64 { return cvtInt(x, rRP, false, 64) >> 32 })
	g.ops = append(g.ops, edgeOp{name: "cvt.f64.f32 hi", ptx: "cvt.f64.f32 %w0, %a; shr.u64 %w0, %w0, 32; cvt.u32.u64 %d, %w0;",
		ref: func(a, _, _ uint64) uint64 { return math.Float64bits(ptxF32(a)) >> 32 }, undefined: func(a, _, _ uint64) bool { return math.IsNaN(ptxF32(a)) }})
	g.ops = append(g.ops, edgeOp{name: "cvt.f64.f32 lo", ptx: "cvt.f64.f32 %w0, %a; cvt.u32.u64 %d, %w0;",
		ref: func(a, _, _ uint64) uint64 { return math.Float64bits(ptxF32(a)) & 0xffffffff }, undefined: func(a, _, _ uint64) bool { return math.IsNaN(ptxF32(a)) }})
	fop("cvt.f32.f16(cvt.rn.f16.f32)", "cvt.rn.f16.f32 %h0, %a; cvt.f32.f16 %d, %h0;", func(x, _, _ float64) float64 {
		return float64(halfToF32(f32ToHalf(float32(x), rRN)))
	})
	// immediates: 20-bit (FADD R, R, 1.5) and 32-bit (FADD32I) forms
	fimm := func(ins string, k uint32, f func(x, y float64) float64) {
		fop(fmt.Sprintf("%s imm %#x", ins, k), fmt.Sprintf("%s %%d, %%a, 0f%08X;", ins, k), func(x, _, _ float64) float64 {
			return f(x, float64(math.Float32frombits(k)))
		})
	}
	for _, k := range []uint32{0x3f800000, 0xff800000, 0x00000001, 0x3f800001, 0xc0000000, 0x00800000, 0x7f7fffff} {
		fimm("add.rn.f32", k, func(x, y float64) float64 { return ieeeOp('+', x, y, 0, fmt32, rRN) })
		fimm("mul.rn.f32", k, func(x, y float64) float64 { return ieeeOp('*', x, y, 0, fmt32, rRN) })
	}
	fimm("mul.rz.f32", 0x3eaaaaab, func(x, y float64) float64 { return ieeeOp('*', x, y, 0, fmt32, rRZ) })
	fimm("add.rm.f32", 0x3dcccccd, func(x, y float64) float64 { return ieeeOp('+', x, y, 0, fmt32, rRM) })
	fop("fma.rn.f32 imm", "fma.rn.f32 %d, %a, 0f40400000, %c;", func(x, _, z float64) float64 { return ieeeOp('f', x, 3, z, fmt32, rRN) })
	fop("fma.rn.f32 imm32", "fma.rn.f32 %d, %a, 0f3F800001, %c;", func(x, _, z float64) float64 {
		return ieeeOp('f', x, float64(math.Float32frombits(0x3f800001)), z, fmt32, rRN)
	})
	fop("fma.rn.f32 imm c", "fma.rn.f32 %d, %a, %b, 0fBF800000;", func(x, y, _ float64) float64 { return ieeeOp('f', x, y, -1, fmt32, rRN) })
	fop("div.rn.f32 imm", "div.rn.f32 %d, %a, 0f4A442E10;", func(x, _, _ float64) float64 {
		return ieeeDiv(x, float64(math.Float32frombits(0x4a442e10)), fmt32, rRN)
	})
	g.ops = append(g.ops, predOp("setp.lt.f32 imm", "setp.lt.f32 %p1, %a, 0f00000000;", func(a, _, _ uint64) bool { return ptxF32(a) < 0 }))
	g.ops = append(g.ops, predOp("setp.geu.f32 imm", "setp.geu.f32 %p1, %a, 0f3F800000;", func(a, _, _ uint64) bool { return fcompare("geu", ptxF32(a), 1) }))
	mmImm := func(ins string, k uint32, isMax bool) {
		g.ops = append(g.ops, edgeOp{name: fmt.Sprintf("%s imm %#x", ins, k), ptx: fmt.Sprintf("%s %%d, %%a, 0f%08X;", ins, k), float: 32,
			ref: func(a, _, _ uint64) uint64 {
				return bitsF32(minMax(isMax, ptxF32(a), float64(math.Float32frombits(k))))
			},
			undefined: func(a, _, _ uint64) bool { return ptxF32(a) == 0 && math.Float32frombits(k) == 0 && uint32(a) != k }})
	}
	mmImm("min.f32", 0x3f800000, false)
	mmImm("max.f32", 0x80000000, true)
	return g
}

var f64Values = []uint64{0, 1 << 63, 1, 1<<63 | 1, 0x000fffffffffffff, 0x0008000000000000, 0x0010000000000000, 0x8010000000000000,
	0x0010000000000001, 0x3ff0000000000000, 0xbff0000000000000, 0x3ff8000000000000, 0x3fe0000000000000, 0x3fefffffffffffff,
	0x3ff0000000000001, 0x4340000000000000, 0x4340000000000001, 0x41dfffffffc00000, 0x41e0000000000000, 0xc1e0000000000000,
	0x43e0000000000000, 0xc3e0000000000000, 0x43f0000000000000, 0x7fefffffffffffff, 0xffefffffffffffff, 0x7ff0000000000000,
	0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000001, 0x3fdfffffffffffff, 0x4004000000000000, 0xc004000000000000,
	0x47efffffe0000000, 0x47efffffefffffff, 0x36a0000000000000, 0x3810000000000000, 0x380fffffffffffff, 0x3fd5555555555555,
	0x0340000000000000, 0x1e3f3a8f4bf3f2a1}

func edgeF64Group() edgeGroup {
	g := edgeGroup{kernel: "edge_f64", wide: true, values: f64Values}
	fop := func(name, ptx string, f func(x, y, z float64) float64) {
		g.ops = append(g.ops, edgeOp{name: name, ptx: ptx, float: 64, ref: func(a, b, c uint64) uint64 {
			return math.Float64bits(f(ptxF64(a), ptxF64(b), ptxF64(c)))
		}})
	}
	iop := func(name, ptx string, f func(x, y, z float64) uint64) {
		g.ops = append(g.ops, edgeOp{name: name, ptx: ptx, ref: func(a, b, c uint64) uint64 { return f(ptxF64(a), ptxF64(b), ptxF64(c)) }})
	}
	for mi, mn := range modeNames {
		m := ptxModes[mi]
		fop("add."+mn+".f64", "add."+mn+".f64 %d, %a, %b;", func(x, y, _ float64) float64 { return ieeeOp('+', x, y, 0, fmt64, m) })
		fop("mul."+mn+".f64", "mul."+mn+".f64 %d, %a, %b;", func(x, y, _ float64) float64 { return ieeeOp('*', x, y, 0, fmt64, m) })
		fop("fma."+mn+".f64", "fma."+mn+".f64 %d, %a, %b, %c;", func(x, y, z float64) float64 { return ieeeOp('f', x, y, z, fmt64, m) })
		fop("div."+mn+".f64", "div."+mn+".f64 %d, %a, %b;", func(x, y, _ float64) float64 { return ieeeDiv(x, y, fmt64, m) })
		fop("sqrt."+mn+".f64", "sqrt."+mn+".f64 %d, %a;", func(x, _, _ float64) float64 { return ieeeSqrt(x, fmt64, m) })
		fop("rcp."+mn+".f64", "rcp."+mn+".f64 %d, %a;", func(x, _, _ float64) float64 { return ieeeDiv(1, x, fmt64, m) })
		fop("cvt."+mn+"i.f64.f64", "cvt."+mn+"i.f64.f64 %d, %a;", func(x, _, _ float64) float64 { return ptxRoundInt(x, m) })
		g.ops = append(g.ops, edgeOp{name: "cvt." + mn + ".f32.f64", ptx: "cvt." + mn + ".f32.f64 %t0, %a; cvt.u64.u32 %d, %t0;", float: 32,
			ref: func(a, _, _ uint64) uint64 {
				x := ptxF64(a)
				if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
					return bitsF32(x)
				}
				return bitsF32(roundBig(bigOf(x), fmt32, m))
			}})
		iop("cvt."+mn+"i.s64.f64", "cvt."+mn+"i.s64.f64 %d, %a;", func(x, _, _ float64) uint64 { return cvtInt(x, m, true, 64) })
		iop("cvt."+mn+"i.u64.f64", "cvt."+mn+"i.u64.f64 %d, %a;", func(x, _, _ float64) uint64 { return cvtInt(x, m, false, 64) })
		iop("cvt."+mn+"i.s32.f64", "cvt."+mn+"i.s32.f64 %t0, %a; cvt.u64.u32 %d, %t0;", func(x, _, _ float64) uint64 { return cvtInt(x, m, true, 32) })
		g.ops = append(g.ops, edgeOp{name: "cvt." + mn + ".f64.s64", ptx: "cvt." + mn + ".f64.s64 %d, %a;", float: 64,
			ref: func(a, _, _ uint64) uint64 { return math.Float64bits(ptxIntToFloat(a, true, fmt64, m)) }})
		g.ops = append(g.ops, edgeOp{name: "cvt." + mn + ".f64.u64", ptx: "cvt." + mn + ".f64.u64 %d, %a;", float: 64,
			ref: func(a, _, _ uint64) uint64 { return math.Float64bits(ptxIntToFloat(a, false, fmt64, m)) }})
		g.ops = append(g.ops, edgeOp{name: "cvt." + mn + ".f32.s64", ptx: "cvt." + mn + ".f32.s64 %t0, %a; cvt.u64.u32 %d, %t0;", float: 32,
			ref: func(a, _, _ uint64) uint64 { return bitsF32(ptxIntToFloat(a, true, fmt32, m)) }})
	}
	fop("sub.rn.f64", "sub.rn.f64 %d, %a, %b;", func(x, y, _ float64) float64 { return ieeeOp('+', x, -y, 0, fmt64, rRN) })
	mm := func(ins string, isMax bool) {
		g.ops = append(g.ops, edgeOp{name: ins, ptx: ins + " %d, %a, %b;", float: 64, ref: func(a, b, _ uint64) uint64 {
			return math.Float64bits(minMax(isMax, ptxF64(a), ptxF64(b)))
		}, undefined: func(a, b, _ uint64) bool { return ptxF64(a) == 0 && ptxF64(b) == 0 && a != b }})
	}
	mm("min.f64", false)
	mm("max.f64", true)
	g.ops = append(g.ops, edgeOp{name: "abs.f64", ptx: "abs.f64 %d, %a;", ref: func(a, _, _ uint64) uint64 { return a &^ (1 << 63) },
		undefined: func(a, _, _ uint64) bool { return math.IsNaN(ptxF64(a)) }})
	g.ops = append(g.ops, edgeOp{name: "neg.f64", ptx: "neg.f64 %d, %a;", ref: func(a, _, _ uint64) uint64 { return a ^ 1<<63 },
		undefined: func(a, _, _ uint64) bool { return math.IsNaN(ptxF64(a)) }})
	for _, k := range []string{"finite", "infinite", "notanumber", "normal", "subnormal"} {
		g.ops = append(g.ops, predOp("testp."+k+".f64", "testp."+k+".f64 %p1, %a;",
			func(a, _, _ uint64) bool { return ptxTestp(k, ptxF64(a), fmt64) }))
	}
	for _, c := range []string{"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "geu", "num", "nan"} {
		g.ops = append(g.ops, predOp("setp."+c+".f64", "setp."+c+".f64 %p1, %a, %b;",
			func(a, b, _ uint64) bool { return fcompare(c, ptxF64(a), ptxF64(b)) }))
	}
	for _, k := range []uint64{0x3ff0000000000000, 0xc000000000000000, 0x0000000000000001, 0x3ff0000000000001, 0x7fefffffffffffff} {
		fop(fmt.Sprintf("add.rn.f64 imm %#x", k), fmt.Sprintf("add.rn.f64 %%d, %%a, 0d%016X;", k), func(x, _, _ float64) float64 { return ieeeOp('+', x, ptxF64(k), 0, fmt64, rRN) })
		fop(fmt.Sprintf("mul.rn.f64 imm %#x", k), fmt.Sprintf("mul.rn.f64 %%d, %%a, 0d%016X;", k), func(x, _, _ float64) float64 { return ieeeOp('*', x, ptxF64(k), 0, fmt64, rRN) })
	}
	fop("fma.rn.f64 imm", "fma.rn.f64 %d, %a, 0d4008000000000000, %c;", func(x, _, z float64) float64 { return ieeeOp('f', x, 3, z, fmt64, rRN) })
	fop("div.rn.f64 imm", "div.rn.f64 %d, %a, 0d1E3F3A8F4BF3F2A1;", func(x, _, _ float64) float64 { return ieeeDiv(x, ptxF64(0x1e3f3a8f4bf3f2a1), fmt64, rRN) })
	return g
}

func edgeGroups() []edgeGroup {
	return []edgeGroup{edgeI32(), edgeI64(), edgeF32Group(), edgeF64Group()}
}

// edgePTX is the PTX of every group: per thread, inputs a[i], b[i], c[i]
// and one output per operation, out[i*len(ops)+k].
func edgePTX() string {
	var s strings.Builder
	s.WriteString("// Code generated by go test -run TestPTXEdgeCurrent -update (ptxedge_ops_test.go). DO NOT EDIT.\n")
	s.WriteString("// PTX operations on edge values: every output against PTX's definition.\n")
	s.WriteString(".version 7.8\n.target sm_50\n.address_size 64\n")
	for _, g := range edgeGroups() {
		size, w := 4, "b32"
		if g.wide {
			size, w = 8, "b64"
		}
		fmt.Fprintf(&s, "\n.visible .entry %s(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout, .param .u32 pn)\n{\n", g.kernel)
		fmt.Fprintf(&s, "\t.reg .pred %%p<4>;\n\t.reg .%s %%a, %%b, %%c, %%d;\n\t.reg .b32 %%t<4>, %%i, %%n, %%x, %%y;\n\t.reg .b64 %%w<4>, %%ra, %%rb, %%rc, %%ro, %%off;\n\t.reg .b16 %%h0;\n", w)
		s.WriteString("\tmov.u32 %x, %ctaid.x;\n\tmov.u32 %y, %ntid.x;\n\tmov.u32 %i, %tid.x;\n\tmad.lo.u32 %i, %x, %y, %i;\n")
		s.WriteString("\tld.param.u32 %n, [pn];\n\tsetp.ge.u32 %p0, %i, %n;\n\t@%p0 bra DONE;\n")
		for _, p := range []string{"a", "b", "c", "o"} {
			fmt.Fprintf(&s, "\tld.param.u64 %%r%s, [p%s];\n\tcvta.to.global.u64 %%r%s, %%r%s;\n", p, map[string]string{"a": "a", "b": "b", "c": "c", "o": "out"}[p], p, p)
		}
		fmt.Fprintf(&s, "\tmul.wide.u32 %%off, %%i, %d;\n", size)
		for _, p := range []string{"a", "b", "c"} {
			fmt.Fprintf(&s, "\tadd.s64 %%r%s, %%r%s, %%off;\n\tld.global.%s %%%s, [%%r%s];\n", p, p, w, p, p)
		}
		fmt.Fprintf(&s, "\tmul.wide.u32 %%off, %%i, %d;\n\tadd.s64 %%ro, %%ro, %%off;\n", size*len(g.ops))
		for k, o := range g.ops {
			ptx := strings.ReplaceAll(o.ptx, "$W", "u"+w[1:])
			fmt.Fprintf(&s, "\t// %s\n\t%s\n\tst.global.%s [%%ro+%d], %%d;\n", o.name, ptx, w, k*size)
		}
		s.WriteString("DONE:\n\tret;\n}\n")
	}
	return s.String()
}

func minMax(isMax bool, x, y float64) float64 {
	if isMax {
		return ptxMax(x, y)
	}
	return ptxMin(x, y)
}
