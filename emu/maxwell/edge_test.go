package maxwell

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"testing"
)

// The differential check of the arithmetic forms the emulator implements:
// each instruction runs on edge values (0, -0, subnormals, infinities,
// NaNs, INT_MIN, shifts of 32 and more, carries) and its results are
// compared with the independent reference of edgeref_test.go.

// edgeCase is one instruction form: body reads R4..R11 and writes R12..R14
// (and predicates or the carry, kept in R15 with keepPreds).
type edgeCase struct {
	body      string
	in        [][8]uint32
	ref       func(v [8]uint32) [4]uint32
	words     int  // result words R12.. compared
	keepPreds bool // compare R15 too
	setPreds  bool // P0..P6 from R11
	nanClass  int  // result words (from R12) compared as float32 (1) or float64 (2): any NaN matches any NaN
	// anyZero: a zero result matches a zero of either sign. Only for .SAT,
	// whose treatment of -0 no document we have settles (PTX: "clamps to
	// [0.0, 1.0]"; the CUDA math API: "[+0.0, 1.0]").
	anyZero bool
	halves  bool // anyZero applies to each 16-bit half
}

var intEdges = []uint32{0, 1, 2, 3, 0x1f, 0x20, 0x21, 0x3f, 0x40, 0x7fff, 0x8000, 0xffff, 0x10000,
	0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0x12345678, 0xdeadbeef}

var f32Edges = []uint32{0, 0x80000000, 1, 0x80000001, 0x7fffff, 0x807fffff, 0x800000, 0x80800000,
	0x3f800000, 0xbf800000, 0x3fc00000, 0x40400000, 0x3eaaaaab, 0x7f7fffff, 0xff7fffff, 0x7f800000,
	0xff800000, 0x7fc00000, 0x7f800001, 0xffc00000, 0x00ffffff, 0x33800000, 0x4b000000, 0x4f000000,
	0xcf000000, 0x5f000000, 0x3f000000, 0x3f000001, 0x40490fdb, 0x3effffff, 0xbfc00000}

// pairs are the vectors (a, b) over one set, c = a^b, d = a+b.
func pairs(set []uint32) [][8]uint32 {
	var v [][8]uint32
	for _, a := range set {
		for _, b := range set {
			v = append(v, [8]uint32{a, b, a ^ b, a + b, b, a, 0, uint32(len(v))})
		}
	}
	return v
}

// triples are (a, b, c) with c from a small set.
func triples(set, cs []uint32) [][8]uint32 {
	var v [][8]uint32
	for _, a := range set {
		for _, b := range set {
			for _, c := range cs {
				v = append(v, [8]uint32{a, b, c, 0, 0, 0, 0, uint32(len(v))})
			}
		}
	}
	return v
}

func (c edgeCase) run(t *testing.T) {
	t.Helper()
	out := instRun{body: c.body, setPreds: c.setPreds, keepPreds: c.keepPreds}.exec(t, pad256(c.in))
	bad := 0
	for i, v := range c.in {
		want := c.ref(v)
		got := out[i]
		same := true
		for k := 0; k < c.words; k++ {
			if got[k] != want[k] {
				same = false
			}
		}
		switch c.nanClass {
		case 1:
			if nan32(got[0]) && nan32(want[0]) {
				same = true
			}
		case 2:
			g, w := uint64(got[0])|uint64(got[1])<<32, uint64(want[0])|uint64(want[1])<<32
			if nan64(g) && nan64(w) {
				same = true
			}
		}
		if c.anyZero && got[0]&0x7fffffff == 0 && want[0]&0x7fffffff == 0 {
			same = true
		}
		if c.anyZero && c.halves {
			z := func(w uint32) uint32 { // -0 halves as +0
				for k := 0; k < 32; k += 16 {
					if w>>k&0xffff == 0x8000 {
						w &^= 0x8000 << k
					}
				}
				return w
			}
			same = z(got[0]) == z(want[0])
		}
		if c.keepPreds && got[3] != want[3] {
			same = false
		}
		if !same {
			if bad < 4 {
				t.Errorf("%s\n  in %#x: got %#x, want %#x", c.body, v[:4], got[:max(c.words, 1)], want[:max(c.words, 1)])
				if c.keepPreds {
					t.Errorf("  predicates/carry: got %#x, want %#x", got[3], want[3])
				}
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d vectors differ", c.body, bad, len(c.in))
	}
}

// runEdge runs cases (on in unless they have vectors of their own).
func runEdge(t *testing.T, what string, cases []edgeCase, in [][8]uint32) {
	t.Helper()
	n := 0
	for _, c := range cases {
		if c.in == nil {
			c.in = in
		}
		c.words = max(c.words, 1)
		c.run(t)
		n += len(c.in)
	}
	t.Logf("%d %s forms checked, %d vectors", len(cases), what, n)
}

func r1(x uint32) [4]uint32 { return [4]uint32{x} }

// setpRef is a xSETP P0, P1, a, b, PT: the comparison and its complement.
func setpRef(cmp func(v [8]uint32) bool) func(v [8]uint32) [4]uint32 {
	return func(v [8]uint32) [4]uint32 {
		c := cmp(v)
		return [4]uint32{3: bitOf(c) | bitOf(!c)<<1}
	}
}

func bitOf(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// TestEdgeInteger: the integer arithmetic, logic and shifts.
func TestEdgeInteger(t *testing.T) {
	P := pairs(intEdges)
	sat := func(v int64) uint32 { return uint32(max(math.MinInt32, min(v, math.MaxInt32))) }
	shl := func(a, n uint32, wrap bool) uint32 {
		if wrap {
			n &= 31
		}
		if n >= 32 {
			return 0
		}
		return a << n
	}
	shr := func(a, n uint32, signed, wrap bool) uint32 {
		if wrap {
			n &= 31
		}
		n = min(n, 32)
		if signed {
			return uint32(int64(int32(a)) >> n)
		}
		return uint32(uint64(a) >> n)
	}
	// the 64-bit funnel {hi:lo}
	shfl := func(lo, n, hi uint32, wrap bool) uint32 {
		if wrap {
			n &= 31
		}
		n = min(n, 32)
		return uint32((uint64(hi)<<32 | uint64(lo)) << n >> 32)
	}
	shfr := func(lo, n, hi uint32, wrap bool) uint32 {
		if wrap {
			n &= 31
		}
		n = min(n, 32)
		return uint32((uint64(hi)<<32 | uint64(lo)) >> n)
	}
	// LOP3.LUT: bit i of the result is the table's bit a_i*4 + b_i*2 + c_i
	lop3 := func(lut, a, b, c uint32) uint32 {
		var d uint32
		for i := 0; i < 32; i++ {
			k := a>>i&1*4 + b>>i&1*2 + c>>i&1
			d |= lut >> k & 1 << i
		}
		return d
	}
	cases := []edgeCase{
		{body: "IADD R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] + v[1]) }},
		{body: "IADD R12, -R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(-v[0] + v[1]) }},
		{body: "IADD.PO R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] + v[1] + 1) }},
		{body: "IADD R12.CC, R4, R5 ;\nIADD.X R13, RZ, RZ ;", words: 2, ref: func(v [8]uint32) [4]uint32 {
			s := uint64(v[0]) + uint64(v[1])
			return [4]uint32{uint32(s), uint32(s >> 32)}
		}},
		// the carry of c+d into a+b
		{body: "IADD RZ.CC, R6, R7 ;\nIADD.X R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 {
			c := uint32((uint64(v[2]) + uint64(v[3])) >> 32)
			return r1(v[0] + v[1] + c)
		}},
		{body: "IADD.SAT R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(sat(int64(int32(v[0])) + int64(int32(v[1])))) }},
		{body: "IADD.SAT R12, R4, -R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(sat(int64(int32(v[0])) - int64(int32(v[1])))) }},
		{body: "ISCADD R12, R4, R5, 0x5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]<<5 + v[1]) }},
		{body: "IMUL R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] * v[1]) }},
		{body: "IMUL.HI R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 {
			return r1(uint32(int64(int32(v[0])) * int64(int32(v[1])) >> 32))
		}},
		{body: "IMUL.U32.U32.HI R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(uint32(uint64(v[0]) * uint64(v[1]) >> 32)) }},
		{body: "IMUL.S32.U32.HI R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 {
			return r1(uint32(uint64(int64(int32(v[0]))*int64(v[1])) >> 32))
		}},
		{body: "IMAD R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]*v[1] + v[2]) }},
		{body: "XMAD R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]&0xffff*(v[1]&0xffff) + v[2]) }},
		{body: "XMAD R12, R4.H1, R5.H1, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]>>16*(v[1]>>16) + v[2]) }},
		{body: "XMAD.S16.S16 R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 {
			return r1(uint32(int32(int16(v[0]))*int32(int16(v[1]))) + v[2])
		}},
		{body: "XMAD.PSL R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]&0xffff*(v[1]&0xffff)<<16 + v[2]) }},
		{body: "XMAD.MRG R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 {
			return r1((v[0]&0xffff*(v[1]&0xffff)+v[2])&0xffff | v[1]<<16)
		}},
		{body: "XMAD.CHI R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]&0xffff*(v[1]&0xffff) + v[2]>>16) }},
		{body: "XMAD.CLO R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]&0xffff*(v[1]&0xffff) + v[2]&0xffff) }},
		{body: "XMAD.CBCC R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]&0xffff*(v[1]&0xffff) + v[2] + v[1]<<16) }},
		{body: "LEA R12, R4, R5, 0x3 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]<<3 + v[1]) }},
		{body: "LEA.HI R12, R4, R5, R6, 0x3 ;", ref: func(v [8]uint32) [4]uint32 {
			return r1(v[1] + uint32((uint64(v[2])<<32|uint64(v[0]))<<3>>32))
		}},
		{body: "LOP.AND R12, R4, ~R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] &^ v[1]) }},
		{body: "LOP.OR R12, ~R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(^v[0] | v[1]) }},
		{body: "LOP.XOR R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] ^ v[1]) }},
		{body: "LOP.PASS_B R12, R4, ~R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(^v[1]) }},
		{body: "LOP3.LUT R12, R4, R5, R6, 0x96 ;", ref: func(v [8]uint32) [4]uint32 { return r1(lop3(0x96, v[0], v[1], v[2])) }},
		{body: "LOP3.LUT R12, R4, R5, R6, 0xe8 ;", ref: func(v [8]uint32) [4]uint32 { return r1(lop3(0xe8, v[0], v[1], v[2])) }},
		{body: "LOP3.LUT R12, R4, R5, R6, 0x1 ;", ref: func(v [8]uint32) [4]uint32 { return r1(lop3(0x1, v[0], v[1], v[2])) }},
		{body: "LOP3.LUT R12, R4, 0x1234, R6, 0xf8 ;", ref: func(v [8]uint32) [4]uint32 { return r1(lop3(0xf8, v[0], 0x1234, v[2])) }},
		{body: "SHL R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shl(v[0], v[1], false)) }},
		{body: "SHL.W R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shl(v[0], v[1], true)) }},
		{body: "SHR R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shr(v[0], v[1], true, false)) }},
		{body: "SHR.U32 R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shr(v[0], v[1], false, false)) }},
		{body: "SHR.W R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shr(v[0], v[1], true, true)) }},
		{body: "SHR.U32.W R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shr(v[0], v[1], false, true)) }},
		{body: "SHF.L R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shfl(v[0], v[1], v[2], false)) }},
		{body: "SHF.L.W R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shfl(v[0], v[1], v[2], true)) }},
		{body: "SHF.R R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shfr(v[0], v[1], v[2], false)) }},
		{body: "SHF.R.W R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(shfr(v[0], v[1], v[2], true)) }},
		{body: "BFE R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(ptxBfe(v[0], v[1]&0xff, v[1]>>8&0xff, true)) }},
		{body: "BFE.U32 R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(ptxBfe(v[0], v[1]&0xff, v[1]>>8&0xff, false)) }},
		{body: "BFI R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(ptxBfi(v[0], v[2], v[1]&0xff, v[1]>>8&0xff)) }},
		{body: "POPC R12, R4 ;", ref: func(v [8]uint32) [4]uint32 { return r1(uint32(bits.OnesCount32(v[0]))) }},
		{body: "POPC R12, ~R4 ;", ref: func(v [8]uint32) [4]uint32 { return r1(uint32(bits.OnesCount32(^v[0]))) }},
		{body: "FLO.U32 R12, R4 ;", ref: func(v [8]uint32) [4]uint32 { return r1(bfind(v[0], false)) }},
		{body: "FLO R12, R4 ;", ref: func(v [8]uint32) [4]uint32 { return r1(bfind(v[0], true)) }},
		{body: "FLO.U32.SH R12, R4 ;", ref: func(v [8]uint32) [4]uint32 {
			if v[0] == 0 {
				return r1(0xffffffff)
			}
			return r1(31 - bfind(v[0], false))
		}},
		{body: "IMNMX R12, R4, R5, PT ;", ref: func(v [8]uint32) [4]uint32 { return r1(uint32(min(int32(v[0]), int32(v[1])))) }},
		{body: "IMNMX R12, R4, R5, !PT ;", ref: func(v [8]uint32) [4]uint32 { return r1(uint32(max(int32(v[0]), int32(v[1])))) }},
		{body: "IMNMX.U32 R12, R4, R5, PT ;", ref: func(v [8]uint32) [4]uint32 { return r1(min(v[0], v[1])) }},
		{body: "IMNMX.U32 R12, R4, R5, !PT ;", ref: func(v [8]uint32) [4]uint32 { return r1(max(v[0], v[1])) }},
		{body: "SEL R12, R4, R5, P2 ;", setPreds: true, ref: func(v [8]uint32) [4]uint32 {
			if v[7]>>2&1 != 0 {
				return r1(v[0])
			}
			return r1(v[1])
		}},
		// SASS's PRMT takes the selector second: PRMT d, a, sel, b
		{body: "PRMT R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(ptxPrmt(v[0], v[2], v[1])) }},
		{body: "ICMP.LT R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 {
			if int32(v[2]) < 0 {
				return r1(v[0])
			}
			return r1(v[1])
		}},
		{body: "ICMP.GE.U32 R12, R4, R5, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]) }},
	}
	// the comparisons, signed and unsigned, into predicates and registers
	for code, name := range []string{"F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"} {
		for _, u := range []bool{false, true} {
			ty := ""
			if u {
				ty = ".U32"
			}
			cmp := func(v [8]uint32) bool {
				var lt, eq bool
				if u {
					lt, eq = v[0] < v[1], v[0] == v[1]
				} else {
					lt, eq = int32(v[0]) < int32(v[1]), v[0] == v[1]
				}
				r := code&1 != 0 && lt || code&2 != 0 && eq || code&4 != 0 && !lt && !eq
				return r
			}
			cases = append(cases,
				edgeCase{body: fmt.Sprintf("ISETP.%s%s.AND P0, P1, R4, R5, PT ;", name, ty), keepPreds: true, ref: setpRef(cmp)},
				edgeCase{body: fmt.Sprintf("ISET.%s%s.AND R12, R4, R5, PT ;", name, ty), ref: func(v [8]uint32) [4]uint32 {
					return r1(-bitOf(cmp(v)))
				}},
			)
		}
	}
	runEdge(t, "integer", cases, P)
}

var rndNames = [4]string{"", ".RM", ".RP", ".RZ"}

// TestEdgeFloat32: FADD, FMUL and FFMA in every rounding mode, with .FTZ,
// .SAT, negation and absolute values; FMNMX; FSETP and FSET on every
// comparison; on zeros of both signs, subnormals, infinities and NaNs.
func TestEdgeFloat32(t *testing.T) {
	P := pairs(f32Edges)
	T := triples(f32Edges, []uint32{0, 0x80000000, 1, 0x80000001, 0x3f800000, 0xff800000, 0x7fc00000, 0xb3800000})
	var cases []edgeCase
	for mode := 0; mode < 4; mode++ {
		for _, ftz := range []bool{false, true} {
			mods := ""
			if ftz {
				mods = ".FTZ"
			}
			mods += rndNames[mode]
			add := fop32{kind: '+', mode: mode, ftz: ftz}
			mul := fop32{kind: '*', mode: mode, ftz: ftz}
			fma := fop32{kind: 'f', mode: mode, ftz: ftz}
			fmz := mods // FMUL and FFMA spell .FTZ the same
			cases = append(cases,
				edgeCase{body: "FADD" + mods + " R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(add.eval(v[0], v[1], 0)) }},
				edgeCase{body: "FADD" + mods + " R12, -R4, |R5| ;", ref: func(v [8]uint32) [4]uint32 {
					return r1(add.eval(v[0]^0x80000000, v[1]&0x7fffffff, 0))
				}},
				edgeCase{body: "FMUL" + fmz + " R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(mul.eval(v[0], v[1], 0)) }},
				edgeCase{body: "FFMA" + fmz + " R12, R4, R5, R6 ;", in: T, ref: func(v [8]uint32) [4]uint32 { return r1(fma.eval(v[0], v[1], v[2])) }},
				edgeCase{body: "FFMA" + fmz + " R12, R4, -R5, -R6 ;", in: T, ref: func(v [8]uint32) [4]uint32 {
					return r1(fma.eval(v[0], v[1]^0x80000000, v[2]^0x80000000))
				}},
			)
		}
	}
	sadd := fop32{kind: '+', sat: true}
	smul := fop32{kind: '*', sat: true, ftz: true}
	sfma := fop32{kind: 'f', sat: true}
	d2 := fop32{kind: '*', scl: -1}
	m4 := fop32{kind: '*', scl: 2}
	cases = append(cases,
		edgeCase{body: "FADD.SAT R12, R4, R5 ;", anyZero: true, ref: func(v [8]uint32) [4]uint32 { return r1(sadd.eval(v[0], v[1], 0)) }},
		edgeCase{body: "FMUL.FTZ.SAT R12, R4, R5 ;", anyZero: true, ref: func(v [8]uint32) [4]uint32 { return r1(smul.eval(v[0], v[1], 0)) }},
		edgeCase{body: "FFMA.SAT R12, R4, R5, R6 ;", anyZero: true, in: T, ref: func(v [8]uint32) [4]uint32 { return r1(sfma.eval(v[0], v[1], v[2])) }},
		edgeCase{body: "FMUL.D2 R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(d2.eval(v[0], v[1], 0)) }},
		edgeCase{body: "FMUL.M4 R12, R4, R5 ;", ref: func(v [8]uint32) [4]uint32 { return r1(m4.eval(v[0], v[1], 0)) }},
	)
	// FMNMX: the non-NaN operand when one is NaN
	mnmx := func(a, b uint32, isMax bool) uint32 {
		switch {
		case nan32(a) && nan32(b):
			return canonNaN32
		case nan32(a):
			return b
		case nan32(b):
			return a
		}
		fa, fb := f32(a), f32(b)
		if fa == fb { // -0 and +0: min is -0, max +0
			if isMax {
				return a & b
			}
			return a | b
		}
		if (fa < fb) != isMax {
			return a
		}
		return b
	}
	cases = append(cases,
		edgeCase{body: "FMNMX R12, R4, R5, PT ;", ref: func(v [8]uint32) [4]uint32 { return r1(mnmx(v[0], v[1], false)) }},
		edgeCase{body: "FMNMX R12, R4, R5, !PT ;", ref: func(v [8]uint32) [4]uint32 { return r1(mnmx(v[0], v[1], true)) }},
		edgeCase{body: "FMNMX.FTZ R12, R4, R5, PT ;", ref: func(v [8]uint32) [4]uint32 { return r1(flush32(mnmx(flush32(v[0]), flush32(v[1]), false))) }},
	)
	for code, name := range []string{"F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T"} {
		for _, ftz := range []bool{false, true} {
			mods := ""
			if ftz {
				mods = ".FTZ"
			}
			cmp := func(v [8]uint32) bool {
				a, b := v[0], v[1]
				if ftz {
					a, b = flush32(a), flush32(b)
				}
				return fcmpRef(uint8(code), float64(f32(a)), float64(f32(b)))
			}
			cases = append(cases,
				edgeCase{body: fmt.Sprintf("FSETP.%s%s.AND P0, P1, R4, R5, PT ;", name, mods), keepPreds: true, ref: setpRef(cmp)},
				edgeCase{body: fmt.Sprintf("FSET.BF.%s%s.AND R12, R4, R5, PT ;", name, mods), ref: func(v [8]uint32) [4]uint32 {
					return r1(0x3f800000 * bitOf(cmp(v)))
				}},
			)
		}
	}
	runEdge(t, "float32", cases, P)
}

var f64Edges = []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
	math.Float64frombits(0x000fffffffffffff), 0x1p-1022, -0x1p-1022, 1, -1, 1.5, 1 + 0x1p-52, 1.0 / 3,
	math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001),
	0x1p53, 0x1p63, -0x1p63, 0x1p64, 3e-300, 0.5, 2.5, -2.5, 4294967295.5, -2147483648.5, 1e10, 0x1p-1074 * 3}

// pairs64 are (a, b) in R4:R5 and R6:R7, c = a*2 in R8:R9.
func pairs64(set []float64) [][8]uint32 {
	var v [][8]uint32
	for _, a := range set {
		for _, b := range set {
			al, ah := words64(a)
			bl, bh := words64(b)
			cl, ch := words64(a + b)
			v = append(v, [8]uint32{al, ah, bl, bh, cl, ch})
		}
	}
	return v
}

// TestEdgeFloat64: DADD, DMUL, DFMA in every rounding mode, DMNMX, DSETP.
func TestEdgeFloat64(t *testing.T) {
	P := pairs64(f64Edges)
	ab := func(v [8]uint32) (float64, float64, float64) {
		return f64of(v[0], v[1]), f64of(v[2], v[3]), f64of(v[4], v[5])
	}
	res := func(b uint64) [4]uint32 { return [4]uint32{uint32(b), uint32(b >> 32)} }
	var cases []edgeCase
	for mode := 0; mode < 4; mode++ {
		cases = append(cases,
			edgeCase{body: "DADD" + rndNames[mode] + " R12, R4, R6 ;", ref: func(v [8]uint32) [4]uint32 {
				a, b, _ := ab(v)
				return res(dop('+', mode, a, b, 0))
			}},
			edgeCase{body: "DADD" + rndNames[mode] + " R12, -R4, |R6| ;", ref: func(v [8]uint32) [4]uint32 {
				a, b, _ := ab(v)
				return res(dop('+', mode, -a, math.Abs(b), 0))
			}},
			edgeCase{body: "DMUL" + rndNames[mode] + " R12, R4, R6 ;", ref: func(v [8]uint32) [4]uint32 {
				a, b, _ := ab(v)
				return res(dop('*', mode, a, b, 0))
			}},
			edgeCase{body: "DFMA" + rndNames[mode] + " R12, R4, R6, R8 ;", ref: func(v [8]uint32) [4]uint32 {
				a, b, c := ab(v)
				return res(dop('f', mode, a, b, c))
			}},
			edgeCase{body: "DFMA" + rndNames[mode] + " R12, R4, -R6, -R4 ;", ref: func(v [8]uint32) [4]uint32 {
				a, b, _ := ab(v)
				return res(dop('f', mode, a, -b, -a))
			}},
		)
	}
	mnmx := func(a, b float64, isMax bool) uint64 {
		switch {
		case math.IsNaN(a) && math.IsNaN(b):
			return 0x7ff8000000000000
		case math.IsNaN(a):
			return math.Float64bits(b)
		case math.IsNaN(b):
			return math.Float64bits(a)
		case a == b:
			ba, bb := math.Float64bits(a), math.Float64bits(b)
			if isMax {
				return ba & bb
			}
			return ba | bb
		case (a < b) != isMax:
			return math.Float64bits(a)
		}
		return math.Float64bits(b)
	}
	cases = append(cases,
		edgeCase{body: "DMNMX R12, R4, R6, PT ;", ref: func(v [8]uint32) [4]uint32 { a, b, _ := ab(v); return res(mnmx(a, b, false)) }},
		edgeCase{body: "DMNMX R12, R4, R6, !PT ;", ref: func(v [8]uint32) [4]uint32 { a, b, _ := ab(v); return res(mnmx(a, b, true)) }},
	)
	for code, name := range []string{"F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T"} {
		cases = append(cases, edgeCase{body: fmt.Sprintf("DSETP.%s.AND P0, P1, R4, R6, PT ;", name), keepPreds: true,
			ref: setpRef(func(v [8]uint32) bool {
				a, b, _ := ab(v)
				return fcmpRef(uint8(code), a, b)
			})})
	}
	for i := range cases {
		if !cases[i].keepPreds {
			cases[i].words, cases[i].nanClass = 2, 2
		}
	}
	runEdge(t, "float64", cases, P)
}

// singles are vectors of one float32 (a), its float64 in R6:R7 for
// comparison, and a spread of values around the rounding points.
func singles() [][8]uint32 {
	var v [][8]uint32
	add := func(b uint32) { v = append(v, [8]uint32{b}) }
	for _, b := range f32Edges {
		add(b)
	}
	for _, f := range []float32{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 2147483520, 2147483648, -2147483648,
		-2147483904, 4294967040, 4294967296, -1, -0.75, 1e-40, -1e-40, 65504, 65520, 65536, 6e-8, 3e-8, -6.1035156e-05, 1.0009766, 1.0004883} {
		add(b32(f))
	}
	return v
}

func doubles() [][8]uint32 {
	var v [][8]uint32
	for _, f := range append(f64Edges, 0.5, -0.5, 1.5, 2.5, -1.5, 2147483647.5, 2147483648, -2147483649, 4294967296, 0x1p64-1024, -0x1p63-2048,
		9007199254740993, 1e300, 1e-310, 0x1.fffffffp-127, 0x1.000001p0, 0x1.0000018p0, 0x1.7ffffffffffffp0) {
		lo, hi := words64(f)
		v = append(v, [8]uint32{lo, hi})
	}
	return v
}

// ints64 are 64-bit integers in R4:R5 (and their low words as 32-bit ones).
func ints64() [][8]uint32 {
	var v [][8]uint32
	for _, x := range []uint64{0, 1, 2, 3, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 1<<53 + 1, 1<<24 + 1, 1<<24 + 3,
		0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff, 0xfffffffffffffffe, 0x123456789abcdef, 0xfffffffe00000001, 0x8000000000000001,
		0x00000000ffffff80, 0x7fffff80, 0x7fffffc0, 0xffffff7f, 1<<63 | 1<<40 | 1} {
		v = append(v, [8]uint32{uint32(x), uint32(x >> 32)})
	}
	return v
}

// TestEdgeConvert: F2I, I2F and F2F with every rounding, .FTZ, saturation
// of out-of-range values and NaN.
func TestEdgeConvert(t *testing.T) {
	S, D, I := singles(), doubles(), ints64()
	var cases []edgeCase
	intRnd := []string{"", ".FLOOR", ".CEIL", ".TRUNC"}
	for mode, rn := range intRnd {
		for _, ftz := range []bool{false, true} {
			fz := ""
			if ftz {
				fz = ".FTZ"
			}
			src := func(v [8]uint32) float64 {
				if ftz {
					return float64(f32(flush32(v[0])))
				}
				return float64(f32(v[0]))
			}
			for _, ty := range []struct {
				name   string
				signed bool
				bits   int
			}{{"S32", true, 32}, {"U32", false, 32}, {"S64", true, 64}, {"U64", false, 64}, {"S16", true, 16}, {"U16", false, 16}} {
				words := 1
				if ty.bits == 64 {
					words = 2
				}
				cases = append(cases, edgeCase{body: fmt.Sprintf("F2I%s.%s.F32%s R12, R4 ;", fz, ty.name, rn), in: S, words: words,
					ref: func(v [8]uint32) [4]uint32 {
						r := f2iRef(src(v), mode, ty.signed, ty.bits)
						if ty.bits == 16 && ty.signed { // a 16-bit result is sign-extended
							r = uint64(int64(int16(r)))
						}
						return [4]uint32{uint32(r), uint32(r >> 32)}
					}})
			}
		}
		for _, ty := range []struct {
			name   string
			signed bool
			bits   int
		}{{"S32", true, 32}, {"U32", false, 32}, {"S64", true, 64}, {"U64", false, 64}} {
			words := 1
			if ty.bits == 64 {
				words = 2
			}
			cases = append(cases, edgeCase{body: fmt.Sprintf("F2I.%s.F64%s R12, R4 ;", ty.name, rn), in: D, words: words,
				ref: func(v [8]uint32) [4]uint32 {
					r := f2iRef(f64of(v[0], v[1]), mode, ty.signed, ty.bits)
					return [4]uint32{uint32(r), uint32(r >> 32)}
				}})
		}
		// round to an integral float
		rint := intRoundings[mode]
		fname := []string{".ROUND", ".FLOOR", ".CEIL", ".TRUNC"}[mode]
		cases = append(cases,
			edgeCase{body: "F2F.F32.F32" + fname + " R12, R4 ;", in: S, ref: func(v [8]uint32) [4]uint32 {
				x := f32(v[0])
				if x != x {
					return r1(canonNaN32)
				}
				return r1(b32(float32(rint(float64(x)))))
			}},
			edgeCase{body: "F2F.F64.F64" + fname + " R12, R4 ;", in: D, words: 2, nanClass: 2, ref: func(v [8]uint32) [4]uint32 {
				lo, hi := words64(rint(f64of(v[0], v[1])))
				return [4]uint32{lo, hi}
			}},
		)
	}
	for mode, rn := range rndNames {
		cases = append(cases,
			edgeCase{body: "F2F.F32.F64" + rn + " R12, R4 ;", in: D, nanClass: 1, ref: func(v [8]uint32) [4]uint32 {
				x := f64of(v[0], v[1])
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return r1(b32(float32(x)))
				}
				return r1(refRound32(xbig().SetFloat64(x), mode))
			}},
			edgeCase{body: "F2F.FTZ.F32.F64" + rn + " R12, R4 ;", in: D, nanClass: 1, ref: func(v [8]uint32) [4]uint32 {
				x := f64of(v[0], v[1])
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return r1(b32(float32(x)))
				}
				return r1(flush32(refRound32(xbig().SetFloat64(x), mode)))
			}},
			edgeCase{body: "F2F.F16.F32" + rn + " R12, R4 ;", in: S, ref: func(v [8]uint32) [4]uint32 {
				x := float64(f32(v[0]))
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return r1(uint32(f16bits(x)))
				}
				return r1(uint32(f16bits(roundBin(xbig().SetFloat64(x), 11, -14, 15, mode))))
			}},
		)
		for _, ty := range []struct {
			name   string
			signed bool
			bits   int
			out    int
		}{{"S32", true, 32, 32}, {"U32", false, 32, 32}, {"S64", true, 64, 32}, {"U64", false, 64, 32},
			{"S32", true, 32, 64}, {"U64", false, 64, 64}, {"S64", true, 64, 64}, {"S16", true, 16, 32}, {"U8", false, 8, 32}} {
			words := ty.out / 32
			cases = append(cases, edgeCase{body: fmt.Sprintf("I2F.F%d.%s%s R12, R4 ;", ty.out, ty.name, rn), in: I, words: words,
				ref: func(v [8]uint32) [4]uint32 {
					x := uint64(v[1])<<32 | uint64(v[0])
					if ty.bits < 64 {
						x &= 1<<ty.bits - 1
					}
					b := new(big.Int).SetUint64(x)
					if ty.signed && x>>(ty.bits-1)&1 != 0 {
						b.Sub(b, new(big.Int).Lsh(big.NewInt(1), uint(ty.bits)))
					}
					r := i2fRef(xbig().SetInt(b), mode, ty.out)
					return [4]uint32{uint32(r), uint32(r >> 32)}
				}})
		}
	}
	cases = append(cases,
		edgeCase{body: "F2F.F64.F32 R12, R4 ;", in: S, words: 2, nanClass: 2, ref: func(v [8]uint32) [4]uint32 {
			lo, hi := words64(float64(f32(v[0])))
			return [4]uint32{lo, hi}
		}},
		edgeCase{body: "F2F.F32.F16 R12, R4 ;", in: S, nanClass: 1, ref: func(v [8]uint32) [4]uint32 {
			return r1(b32(float32(f16val(uint16(v[0])))))
		}},
		edgeCase{body: "F2F.F32.F16 R12, R4.H1 ;", in: S, nanClass: 1, ref: func(v [8]uint32) [4]uint32 {
			return r1(b32(float32(f16val(uint16(v[0] >> 16)))))
		}},
	)
	runEdge(t, "conversion", cases, nil)
}

var f16Edges = []uint16{0, 0x8000, 1, 0x8001, 0x3ff, 0x83ff, 0x400, 0x8400, 0x3c00, 0xbc00, 0x3e00, 0x7bff, 0xfbff,
	0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x3555, 0x0200, 0x1400, 0x6400}

// TestEdgeHalf: HADD2, HMUL2 and HFMA2 on both halves (round to nearest),
// with .FTZ and .SAT, and HSETP2's comparisons.
func TestEdgeHalf(t *testing.T) {
	var in [][8]uint32
	for i, a := range f16Edges {
		for j, b := range f16Edges {
			c := f16Edges[(i+j)%len(f16Edges)]
			a2, b2 := f16Edges[(i*7+3)%len(f16Edges)], f16Edges[(j*5+1)%len(f16Edges)]
			in = append(in, [8]uint32{uint32(a) | uint32(a2)<<16, uint32(b) | uint32(b2)<<16, uint32(c) | uint32(c)<<16})
		}
	}
	flush16 := func(h uint16) uint16 {
		if h&0x7c00 == 0 {
			return h & 0x8000
		}
		return h
	}
	half := func(kind byte, ftz, sat bool) func(v [8]uint32) [4]uint32 {
		return func(v [8]uint32) [4]uint32 {
			var r uint32
			for k := 0; k < 2; k++ {
				a, b, c := uint16(v[0]>>(16*k)), uint16(v[1]>>(16*k)), uint16(v[2]>>(16*k))
				if ftz {
					a, b, c = flush16(a), flush16(b), flush16(c)
				}
				fa, fb, fc := f16val(a), f16val(b), f16val(c)
				var h uint16
				switch {
				case kind == '+' && math.IsNaN(fa+fb), kind == '*' && math.IsNaN(fa*fb), kind == 'f' && math.IsNaN(fa*fb+fc):
					h = 0x7fff
				case kind == '+' && math.IsInf(fa+fb, 0):
					h = f16bits(fa + fb)
				case kind == '*' && math.IsInf(fa*fb, 0):
					h = f16bits(fa * fb)
				case kind == 'f' && math.IsInf(fa*fb+fc, 0):
					h = f16bits(fa*fb + fc)
				default:
					x := xbig()
					switch kind {
					case '+':
						x.Add(xbig().SetFloat64(fa), xbig().SetFloat64(fb))
						if x.Sign() == 0 {
							x = zeroSum(fa, fb, rRN)
						}
					case '*':
						x.Mul(xbig().SetFloat64(fa), xbig().SetFloat64(fb))
						if x.Sign() == 0 && math.Signbit(fa) != math.Signbit(fb) {
							x = xbig().Neg(xbig())
						}
					default:
						x = fmaExact(fa, fb, fc, rRN)
					}
					h = f16bits(roundBin(x, 11, -14, 15, rRN))
				}
				if sat {
					switch {
					case h&0x7fff > 0x7c00 || h&0x8000 != 0:
						h = 0
					case f16val(h) > 1:
						h = 0x3c00
					}
				}
				if ftz {
					h = flush16(h)
				}
				r |= uint32(h) << (16 * k)
			}
			return r1(r)
		}
	}
	cases := []edgeCase{
		{body: "HADD2 R12, R4, R5 ;", ref: half('+', false, false)},
		{body: "HADD2.FTZ R12, R4, R5 ;", ref: half('+', true, false)},
		{body: "HADD2.SAT R12, R4, R5 ;", ref: half('+', false, true), anyZero: true, halves: true},
		{body: "HMUL2 R12, R4, R5 ;", ref: half('*', false, false)},
		{body: "HMUL2.FTZ R12, R4, R5 ;", ref: half('*', true, false)},
		{body: "HFMA2 R12, R4, R5, R6 ;", ref: half('f', false, false)},
		{body: "HFMA2.FTZ R12, R4, R5, R6 ;", ref: half('f', true, false)},
	}
	for code, name := range []string{"LT", "EQ", "GE", "NAN", "LTU", "NEU"} {
		code = []int{1, 2, 6, 8, 9, 13}[code]
		cases = append(cases, edgeCase{body: fmt.Sprintf("HSETP2.%s.AND P0, P1, R4, R5, PT ;", name), keepPreds: true,
			ref: func(v [8]uint32) [4]uint32 {
				var p uint32
				for k := 0; k < 2; k++ {
					if fcmpRef(uint8(code), f16val(uint16(v[0]>>(16*k))), f16val(uint16(v[1]>>(16*k)))) {
						p |= 1 << k
					}
				}
				return [4]uint32{3: p}
			}})
	}
	runEdge(t, "half", cases, in)
}

// TestEdgeImmediates: the immediate and constant forms read their operand
// with the sign and width the spec gives it.
func TestEdgeImmediates(t *testing.T) {
	P := pairs(intEdges)
	F := pairs(f32Edges)
	rn := fop32{kind: '+'}
	mul := fop32{kind: '*'}
	fma := fop32{kind: 'f'}
	cases := []edgeCase{
		{body: "IADD R12, R4, -0x1 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] - 1) }},
		{body: "IADD R12, R4, 0x7ffff ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] + 0x7ffff) }},
		{body: "IADD R12, R4, 0x10.NEG ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] - 0x10) }},
		{body: "IADD32I R12, R4, -0x80000000 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] + 0x80000000) }},
		{body: "IMUL32I R12, R4, -0x3 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] * 0xfffffffd) }},
		{body: "IMUL R12, R4, -0x3 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] * 0xfffffffd) }},
		{body: "ISCADD32I R12, R4, -0x3f800000, 0x17 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]<<23 - 0x3f800000) }},
		{body: "LOP32I.AND R12, R4, 0xff00ff ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] & 0xff00ff) }},
		{body: "LOP.OR R12, R4, -0x80000.INV ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] | ^uint32(0xfff80000)) }},
		{body: "SHL R12, R4, 0x21 ;", ref: func(v [8]uint32) [4]uint32 { return r1(0) }},
		{body: "SHR R12, R4, 0x20 ;", ref: func(v [8]uint32) [4]uint32 { return r1(uint32(int32(v[0]) >> 31)) }},
		{body: "SHR.U32 R12, R4, 0x1f ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0] >> 31) }},
		{body: "BFE R12, R4, 0x1008 ;", ref: func(v [8]uint32) [4]uint32 { return r1(uint32(int32(v[0]<<8) >> 16)) }},
		{body: "XMAD R12, R4, 0xffff, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(v[0]&0xffff*0xffff + v[2]) }},
		{body: "XMAD.S16.S16 R12, R4, -0x2, R6 ;", ref: func(v [8]uint32) [4]uint32 { return r1(uint32(int32(int16(v[0]))*-2) + v[2]) }},
		{body: "ISETP.LT.U32.AND P0, PT, R4, -0x1, PT ;", keepPreds: true, ref: func(v [8]uint32) [4]uint32 {
			return [4]uint32{3: bitOf(v[0] < 0xffffffff)}
		}},
		{body: "IMNMX R12, R4, -0x80000, PT ;", ref: func(v [8]uint32) [4]uint32 { return r1(uint32(min(int32(v[0]), -0x80000))) }},
		{body: "FADD R12, R4, -0.5 ;", in: F, ref: func(v [8]uint32) [4]uint32 { return r1(rn.eval(v[0], 0xbf000000, 0)) }},
		{body: "FADD R12, R4, 0.5.NEG ;", in: F, ref: func(v [8]uint32) [4]uint32 { return r1(rn.eval(v[0], 0xbf000000, 0)) }},
		{body: "FADD R12, R4, -INF ;", in: F, ref: func(v [8]uint32) [4]uint32 { return r1(rn.eval(v[0], 0xff800000, 0)) }},
		{body: "FADD32I R12, R4, 1.4012984643248170709e-45 ;", in: F, ref: func(v [8]uint32) [4]uint32 { return r1(rn.eval(v[0], 1, 0)) }},
		{body: "FMUL R12, R4, 3 ;", in: F, ref: func(v [8]uint32) [4]uint32 { return r1(mul.eval(v[0], 0x40400000, 0)) }},
		{body: "FMUL32I R12, R4, 0.3333333432674407959 ;", in: F, ref: func(v [8]uint32) [4]uint32 { return r1(mul.eval(v[0], 0x3eaaaaab, 0)) }},
		{body: "FFMA R12, R4, 2, R5 ;", in: F, ref: func(v [8]uint32) [4]uint32 { return r1(fma.eval(v[0], 0x40000000, v[1])) }},
		{body: "FFMA32I R12, R4, -1.5, R12 ;", in: F, ref: func(v [8]uint32) [4]uint32 { return r1(fma.eval(v[0], 0xbfc00000, 0)) }},
		{body: "FSETP.GT.AND P0, PT, R4, -1, PT ;", in: F, keepPreds: true, ref: func(v [8]uint32) [4]uint32 {
			return [4]uint32{3: bitOf(f32(v[0]) > -1)}
		}},
		{body: "DADD R12, R4, -0.5 ;", in: pairs64(f64Edges), words: 2, nanClass: 2, ref: func(v [8]uint32) [4]uint32 {
			r := dop('+', rRN, f64of(v[0], v[1]), -0.5, 0)
			return [4]uint32{uint32(r), uint32(r >> 32)}
		}},
	}
	runEdge(t, "immediate", cases, P)
}
