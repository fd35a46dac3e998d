package fermi

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// Instruction tests: each case is a snippet of our assembler's text that
// reads R4..R7 (each thread's 16 input bytes) and writes R8 and R9, run by
// a kernel of our own on thousands of inputs (random words and special
// values) and checked against a Go reference.

type instCase struct {
	name string
	text string                       // the instructions under test
	ref  func(in [4]uint32) [2]uint32 // R8, R9 afterwards (both start at 0)
	gen  func(r *rand.Rand) [4]uint32 // inputs (default: special and random words)
	mask [2]uint32                    // result bits compared (0: all)
}

const instPrologue = `
	S2R R10, SR_TID.X;
	S2R R11, SR_CTAID.X;
	IMAD R10, R11, c[0x0][0x8], R10;
	SHL R12, R10, 0x4;
	IADD R12, R12, c[0x0][0x20];
	LD.128 R4, [R12];
	MOV R8, RZ;
	MOV R9, RZ;
`

const instEpilogue = `
done:
	SHL R13, R10, 0x3;
	IADD R13, R13, c[0x0][0x24];
	ST.64 [R13], R8;
	EXIT;
`

// special words for float and integer inputs
var specials = []uint32{0, 0x80000000, 1, 0x7fffffff, 0xffffffff, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
	0x7fc00000, 0x7f800001, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0x40000000, 0x3f000000, 0x4b000000,
	0x4f800000, 0xcf000000, 0x5f000000, 31, 32, 33, 0x10, 0x808, 0xff, 0x8000, 0xffff}

func randWord(r *rand.Rand) uint32 {
	switch r.Intn(4) {
	case 0:
		return specials[r.Intn(len(specials))]
	case 1:
		return uint32(r.Intn(64)) - 16
	}
	return r.Uint32()
}

func defaultGen(r *rand.Rand) [4]uint32 {
	return [4]uint32{randWord(r), randWord(r), randWord(r), randWord(r)}
}

// floatGen makes float inputs: specials, normal values of all magnitudes,
// values near 1, denormals.
func floatGen(r *rand.Rand) [4]uint32 {
	var in [4]uint32
	for i := range in {
		switch r.Intn(5) {
		case 0:
			in[i] = specials[r.Intn(len(specials))]
		case 1:
			in[i] = math.Float32bits(float32(r.NormFloat64()))
		case 2:
			in[i] = r.Uint32() & 0x807fffff // denormal
		default:
			in[i] = r.Uint32()
		}
	}
	return in
}

// doubleGen makes R4:R5 and R6:R7 doubles.
func doubleGen(r *rand.Rand) [4]uint32 {
	var d [2]uint64
	for i := range d {
		switch r.Intn(5) {
		case 0:
			d[i] = math.Float64bits([]float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
				math.MaxFloat64, math.SmallestNonzeroFloat64, 0.5, 3}[r.Intn(11)])
		case 1:
			d[i] = math.Float64bits(r.NormFloat64() * math.Pow(2, float64(r.Intn(200)-100)))
		case 2:
			d[i] = r.Uint64() & 0x800fffffffffffff
		default:
			d[i] = r.Uint64()
		}
	}
	return [4]uint32{uint32(d[0]), uint32(d[0] >> 32), uint32(d[1]), uint32(d[1] >> 32)}
}

func runInstCases(t *testing.T, cases []instCase) {
	t.Helper()
	const blocks, threads = 32, 128
	n := blocks * threads
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gen := c.gen
			if gen == nil {
				gen = defaultGen
			}
			r := rand.New(rand.NewSource(int64(len(c.text))))
			ins := make([][4]uint32, n)
			in := make([]byte, 16*n)
			for i := range ins {
				ins[i] = gen(r)
				for j, v := range ins[i] {
					binary.LittleEndian.PutUint32(in[16*i+4*j:], v)
				}
			}
			d := newDevice()
			d.alloc("in", in)
			d.alloc("out", make([]byte, 8*n))
			prog := instPrologue + c.text + instEpilogue
			if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{threads, 1, 1},
				params: []any{buf("in"), buf("out")}}); err != nil {
				t.Fatal(err)
			}
			out := u32s(d.bytes("out"))
			bad := 0
			for i := range ins {
				want := c.ref(ins[i])
				got := [2]uint32{out[2*i], out[2*i+1]}
				for j := range 2 {
					m := c.mask[j]
					if m == 0 {
						m = ^uint32(0)
					}
					if got[j]&m != want[j]&m {
						if bad < 5 {
							t.Errorf("%s: in %#08x: R%d = %#08x, want %#08x", strings.TrimSpace(c.text), ins[i], 8+j, got[j], want[j])
						}
						bad++
						break
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d inputs differ", bad, n)
			}
		})
	}
}

func one(v uint32) [2]uint32 { return [2]uint32{v, 0} }

func b32(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// ---- integer family

func TestInstInteger(t *testing.T) {
	sx := func(v uint32) int64 { return int64(int32(v)) }
	runInstCases(t, []instCase{
		{name: "IADD", text: "IADD R8, R4, R5;", ref: func(in [4]uint32) [2]uint32 { return one(in[0] + in[1]) }},
		{name: "ISUB", text: "IADD R8, R4, -R5;", ref: func(in [4]uint32) [2]uint32 { return one(in[0] - in[1]) }},
		{name: "IADD.SAT", text: "IADD.SAT R8, R4, R5;", ref: func(in [4]uint32) [2]uint32 {
			s := sx(in[0]) + sx(in[1])
			return one(uint32(int32(min(max(s, math.MinInt32), math.MaxInt32))))
		}},
		{name: "IADD64", text: "IADD R8.CC, R4, R6;\n IADD.X R9, R5, R7;", ref: func(in [4]uint32) [2]uint32 {
			s := (uint64(in[1])<<32 | uint64(in[0])) + (uint64(in[3])<<32 | uint64(in[2]))
			return [2]uint32{uint32(s), uint32(s >> 32)}
		}},
		{name: "ISUB64", text: "IADD R8.CC, R4, -R6;\n IADD.X R9, R5, -R7;", ref: func(in [4]uint32) [2]uint32 {
			s := (uint64(in[1])<<32 | uint64(in[0])) - (uint64(in[3])<<32 | uint64(in[2]))
			return [2]uint32{uint32(s), uint32(s >> 32)}
		}},
		{name: "IADD32I", text: "IADD32I R8, R4, -0x12345;", ref: func(in [4]uint32) [2]uint32 { return one(in[0] - 0x12345) }},
		{name: "IMUL", text: "IMUL R8, R4, R5;\n IMUL.HI R9, R4, R5;", ref: func(in [4]uint32) [2]uint32 {
			p := sx(in[0]) * sx(in[1])
			return [2]uint32{uint32(p), uint32(p >> 32)}
		}},
		{name: "IMUL.U32", text: "IMUL.U32.U32 R8, R4, R5;\n IMUL.U32.U32.HI R9, R4, R5;", ref: func(in [4]uint32) [2]uint32 {
			p := uint64(in[0]) * uint64(in[1])
			return [2]uint32{uint32(p), uint32(p >> 32)}
		}},
		{name: "IMUL.U32.S32.HI", text: "IMUL.U32.S32.HI R8, R4, R5;", ref: func(in [4]uint32) [2]uint32 {
			return one(uint32(uint64(int64(in[0])*sx(in[1])) >> 32))
		}},
		{name: "IMAD", text: "IMAD R8, R4, R5, R6;\n IMAD.HI R9, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			p := sx(in[0]) * sx(in[1])
			return [2]uint32{uint32(p) + in[2], uint32(p>>32) + in[2]}
		}},
		{name: "IMAD wide", text: "IMAD.U32.U32 R8.CC, R4, R5, R6;\n IMAD.U32.U32.HI.X R9, R4, R5, R7;", ref: func(in [4]uint32) [2]uint32 {
			p := uint64(in[0])*uint64(in[1]) + (uint64(in[3])<<32 | uint64(in[2]))
			return [2]uint32{uint32(p), uint32(p >> 32)}
		}},
		{name: "IMAD32I", text: "MOV R8, R6;\n IMAD32I R8, R4, 0x1234567, R8;", ref: func(in [4]uint32) [2]uint32 { return one(in[0]*0x1234567 + in[2]) }},
		{name: "ISCADD", text: "ISCADD R8, R4, R5, 0x5;\n ISCADD R9, -R4, R5, 0x2;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{in[0]<<5 + in[1], in[1] - in[0]<<2}
		}},
		{name: "SHL", text: "SHL R8, R4, R5;\n SHL.W R9, R4, R5;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{uint32(uint64(in[0]) << min(in[1], 32)), in[0] << (in[1] & 31)}
		}},
		{name: "SHR", text: "SHR R8, R4, R5;\n SHR.U32.W R9, R4, R5;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{uint32(sx(in[0]) >> min(in[1], 32)), in[0] >> (in[1] & 31)}
		}},
		{name: "LOP", text: "LOP.AND R8, R4, ~R5;\n LOP.XOR R9, ~R4, R6;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{in[0] &^ in[1], ^in[0] ^ in[2]}
		}},
		{name: "LOP32I", text: "LOP32I.OR R8, R4, 0xf0f0f0f0;\n LOP.PASS_B R9, R4, ~R5;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{in[0] | 0xf0f0f0f0, ^in[1]}
		}},
		{name: "BFE", text: "BFE.U32 R8, R4, R5;\n BFE R9, R4, R5;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{refBFE(in[0], in[1], false), refBFE(in[0], in[1], true)}
		}, gen: func(r *rand.Rand) [4]uint32 {
			return [4]uint32{r.Uint32(), uint32(r.Intn(40)) | uint32(r.Intn(40))<<8, 0, 0}
		}},
		{name: "BFI", text: "BFI R8, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 { return one(refBFI(in[0], in[1], in[2])) },
			gen: func(r *rand.Rand) [4]uint32 {
				return [4]uint32{r.Uint32(), uint32(r.Intn(40)) | uint32(r.Intn(40))<<8, r.Uint32(), 0}
			}},
		{name: "POPC", text: "POPC R8, R4, R5;\n POPC R9, ~R4, R4;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{uint32(bits.OnesCount32(in[0] & in[1])), 0}
		}},
		{name: "FLO", text: "FLO.U32 R8, R4;\n FLO R9, R4;", ref: func(in [4]uint32) [2]uint32 {
			s := in[0]
			if int32(s) < 0 {
				s = ^s
			}
			return [2]uint32{uint32(31 - bits.LeadingZeros32(in[0])), uint32(31 - bits.LeadingZeros32(s))}
		}},
		{name: "FLO.SH", text: "FLO.U32.SH R8, R4;", ref: func(in [4]uint32) [2]uint32 {
			if in[0] == 0 {
				return one(^uint32(0))
			}
			return one(uint32(bits.LeadingZeros32(in[0])))
		}},
		{name: "IMNMX", text: "IMNMX R8, R4, R5, PT;\n IMNMX.U32 R9, R4, R5, !PT;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{uint32(min(int32(in[0]), int32(in[1]))), max(in[0], in[1])}
		}},
		{name: "ISETP", text: "ISETP.LT.AND P1, P2, R4, R5, PT;\n ISETP.GE.U32.OR P3, PT, R4, R6, P1;\n P2R R8, PR, RZ, 0x7f;",
			ref: func(in [4]uint32) [2]uint32 {
				lt := int32(in[0]) < int32(in[1])
				return one(b32(lt)<<1 | b32(!lt)<<2 | b32(in[0] >= in[2] || lt)<<3)
			}, mask: [2]uint32{0xe, 0}},
		{name: "ISET", text: "ISET.NE.AND R8, R4, R5, PT;\n ISET.BF.LE.U32.AND R9, R4, R5, PT;", ref: func(in [4]uint32) [2]uint32 {
			a := uint32(0)
			if in[0] != in[1] {
				a = ^uint32(0)
			}
			b := uint32(0)
			if in[0] <= in[1] {
				b = 0x3f800000
			}
			return [2]uint32{a, b}
		}},
		{name: "ISETP64", text: "IADD RZ.CC, R4, -R6;\n ISETP.LT.X.AND P1, PT, R5, R7, PT;\n IADD RZ.CC, R4, -R6;\n ISETP.LE.U32.X.AND P2, PT, R5, R7, PT;\n" +
			" IADD RZ.CC, R4, -R6;\n ISETP.EQ.X.AND P3, PT, R5, R7, PT;\n P2R R8, PR, RZ, 0x7f;",
			ref: func(in [4]uint32) [2]uint32 {
				a, b := uint64(in[1])<<32|uint64(in[0]), uint64(in[3])<<32|uint64(in[2])
				return one(b32(int64(a) < int64(b))<<1 | b32(a <= b)<<2 | b32(a == b)<<3)
			}, mask: [2]uint32{0xe, 0}, gen: func(r *rand.Rand) [4]uint32 {
				in := defaultGen(r)
				if r.Intn(3) == 0 {
					in[3] = in[1]
				}
				if r.Intn(3) == 0 {
					in[2] = in[0]
				}
				return in
			}},
		{name: "ICMP", text: "ICMP.LT R8, R4, R5, R6;\n ICMP.EQ.U32 R9, R4, R5, R7;", ref: func(in [4]uint32) [2]uint32 {
			a, b := in[1], in[1]
			if int32(in[2]) < 0 {
				a = in[0]
			}
			if in[3] == 0 {
				b = in[0]
			}
			return [2]uint32{a, b}
		}},
		{name: "ISAD", text: "ISAD R8, R4, R5, R6;\n ISAD.U32 R9, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			d := sx(in[0]) - sx(in[1])
			if d < 0 {
				d = -d
			}
			u := in[0] - in[1]
			if in[1] > in[0] {
				u = in[1] - in[0]
			}
			return [2]uint32{uint32(d) + in[2], u + in[2]}
		}},
		{name: "SEL", text: "ISETP.NE.AND P1, PT, R6, RZ, PT;\n SEL R8, R4, R5, P1;\n SEL R9, R4, 0x77, !P1;", ref: func(in [4]uint32) [2]uint32 {
			if in[2] != 0 {
				return [2]uint32{in[0], 0x77}
			}
			return [2]uint32{in[1], in[0]}
		}},
		{name: "PRMT", text: "PRMT R8, R4, R6, R5;\n PRMT R9, R4, 0x4140, RZ;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{refPRMT(in[0], in[2], in[1]), in[0]&0xff | (in[0]>>8&0xff)<<16}
		}},
		{name: "PRMT bytes", text: "PRMT R8, R4, R6, R5;\n PRMT R9, R5, R6, R4;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{refPRMT(in[0], in[2], in[1]), refPRMT(in[1], in[2], in[0])}
		}, gen: func(r *rand.Rand) [4]uint32 {
			// selectors without sign replication in most lanes (prmtLanes' shifts)
			sel := r.Uint32()
			if r.Intn(4) != 0 {
				sel &= 0x7777
			}
			return [4]uint32{r.Uint32(), r.Uint32(), sel, 0}
		}},
		{name: "BFI const", text: "BFI R8, R4, 0x803, R6;\n BFI R9, R4, 0x1c1e, R6;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{refBFI(in[0], 0x803, in[2]), refBFI(in[0], 0x1c1e, in[2])}
		}},
		{name: "MOV", text: "MOV R8, R4;\n MOV32I R9, 0xdeadbeef;", ref: func(in [4]uint32) [2]uint32 { return [2]uint32{in[0], 0xdeadbeef} }},
	})
}

func refBFE(a, b uint32, signed bool) uint32 {
	pos, n := int(b&0xff), int(b>>8&0xff)
	if n == 0 {
		return 0
	}
	// bit i of the field is a's bit pos+i, past 31 the sign bit
	top := min(pos+n-1, 31)
	sign := a >> top & 1
	var r uint32
	for i := 0; i < 32; i++ {
		var v uint32
		switch {
		case i < n && pos+i < 32:
			v = a >> (pos + i) & 1
		case signed:
			v = sign
		}
		r |= v << i
	}
	return r
}

func refBFI(a, b, c uint32) uint32 {
	pos, n := int(b&0xff), int(b>>8&0xff)
	r := c
	for i := 0; i < n && pos+i < 32; i++ {
		r = r&^(1<<(pos+i)) | (a>>i&1)<<(pos+i)
	}
	return r
}

func refPRMT(a, s, b uint32) uint32 {
	bytes := [8]uint32{a & 0xff, a >> 8 & 0xff, a >> 16 & 0xff, a >> 24, b & 0xff, b >> 8 & 0xff, b >> 16 & 0xff, b >> 24}
	var r uint32
	for i := 0; i < 4; i++ {
		sel := s >> (4 * i) & 15
		v := bytes[sel&7]
		if sel&8 != 0 && v&0x80 != 0 {
			v = 0xff
		} else if sel&8 != 0 {
			v = 0
		}
		r |= v << (8 * i)
	}
	return r
}

// ---- video

func TestInstVideo(t *testing.T) {
	// part extracts a video source by shifting its field to the top of the
	// word and back (arithmetic shift when signed)
	part := func(v uint32, sel int, signed bool) int64 {
		width := 32
		switch {
		case sel < 4:
			width, v = 8, v<<(24-8*sel)
		case sel < 6:
			width, v = 16, v<<(16-16*(sel-4))
		}
		if signed {
			return int64(int32(v) >> (32 - width))
		}
		return int64(v >> (32 - width))
	}
	runInstCases(t, []instCase{
		{name: "VADD.ACC", text: "VADD.UD.U32.U32.ACC R8, R4, R5, R6;\n VADD.ACC R9, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{in[0] + in[1] + in[2], in[0] + in[1] + in[2]}
		}},
		{name: "VADD bytes", text: "VADD.UD.U8.B1.S16.H1.MIN R8, R4, R5, R6;\n VADD.S8.B3.U8.SAT R9, R4, -R5, R7;", ref: func(in [4]uint32) [2]uint32 {
			a := part(in[0], 1, false) + part(in[1], 5, true)
			m := uint32(min(a, int64(in[2])))
			b := part(in[0], 3, true) - part(in[1], 0, false)
			b = min(max(b, math.MinInt32), math.MaxInt32)
			return [2]uint32{m, uint32(b)}
		}},
		{name: "VABSDIFF", text: "VABSDIFF.UD.U32.U32.ACC R8, R4, R5, R6;\n VABSDIFF.S32.S32.MAX R9, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			d := int64(in[0]) - int64(in[1])
			if d < 0 {
				d = -d
			}
			e := int64(int32(in[0])) - int64(int32(in[1]))
			if e < 0 {
				e = -e
			}
			return [2]uint32{uint32(d) + in[2], uint32(max(e, int64(int32(in[2]))))}
		}},
		{name: "VMNMX", text: "VMNMX.UD.U32.U32.ACC R8, R4, R5, R6;\n VMNMX.MX.MAX R9, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{min(in[0], in[1]) + in[2], uint32(max(int32(in[0]), int32(in[1]), int32(in[2])))}
		}},
		{name: "VSHL", text: "VSHL.UD.U32.U32.W.ACC R8, R4, R5, R6;\n VSHL.UD.U32.U32.ACC R9, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{in[0]<<(in[1]&31) + in[2], uint32(uint64(in[0])<<min(in[1], 32)) + in[2]}
		}},
		{name: "VSHL.S8", text: "VSHL.UD.S32.S8.ACC R8, R4, R5, R6;\n VSHL.UD.U32.S8.W.ACC R9, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			n := uint64(uint32(int32(int8(in[1]))))
			return [2]uint32{uint32(uint64(in[0])<<min(n, 32)) + in[2], in[0]<<(n&31) + in[2]}
		}},
		{name: "VSHR", text: "VSHR.UD.U32.U8.W.ACC R8, R4, 0x5, R6;\n VSHR.UD.U32.U8.ACC R9, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{in[0]>>5 + in[2], uint32(uint64(in[0])>>min(in[1]&0xff, 32)) + in[2]}
		}},
		{name: "VSET", text: "VSET.LT.ACC R8, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			return one(b32(int32(in[0]) < int32(in[1])) + in[2])
		}},
		{name: "VMAD", text: "VMAD.U16.U16 R8, R4, R5, R6;\n VMAD.S16.H1.S16.SHR_7 R9, R4, R5, R6;", ref: func(in [4]uint32) [2]uint32 {
			a := part(in[0], 4, false)*part(in[1], 4, false) + int64(in[2])
			b := (part(in[0], 5, true)*part(in[1], 4, true) + int64(int32(in[2]))) >> 7
			return [2]uint32{uint32(a), uint32(b)}
		}},
	})
}

// ---- single precision

// exactF32 rounds an exact value to single precision in mode m (0 nearest
// even, 1 down, 2 up, 3 toward zero), with subnormals: the reference the
// float tests hold the emulator to.
func exactF32(x *big.Float, m int) float32 {
	f, _ := x.Float32() // nearest even
	if m == 0 || x.IsInf() {
		return f
	}
	if math.IsInf(float64(f), 0) {
		mx := float32(math.MaxFloat32)
		if x.Sign() > 0 && (m == 1 || m == 3) {
			return mx
		}
		if x.Sign() < 0 && (m == 2 || m == 3) {
			return -mx
		}
		return f
	}
	c := new(big.Float).SetPrec(0).SetFloat64(float64(f)).Cmp(x) // f vs the exact value
	switch {
	case m == 1 && c > 0, m == 3 && c > 0 && x.Sign() > 0:
		return math.Nextafter32(f, float32(math.Inf(-1)))
	case m == 2 && c < 0, m == 3 && c < 0 && x.Sign() < 0:
		return math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

func f32of(v uint32) float32 { return math.Float32frombits(v) }

func ftzIn(v uint32) uint32 {
	if v&0x7f800000 == 0 {
		return v & 0x80000000
	}
	return v
}

// refF32 is a float result's bits: canonical NaN, .FTZ flushing, .SAT.
func refF32(f float32, ftz, sat bool) uint32 {
	if sat {
		if f != f || f <= 0 {
			f = 0
		} else if f > 1 {
			f = 1
		}
	}
	if f != f {
		return 0x7fffffff
	}
	v := math.Float32bits(f)
	if ftz {
		v = ftzIn(v)
	}
	return v
}

// exactOp computes x op y (op 0 add, 1 mul) or x*y+z exactly; ok is false
// for infinities and NaNs (the caller's IEEE float32 arithmetic handles
// them).
func exactOp(op int, x, y, z float32) (*big.Float, bool) {
	for _, v := range []float32{x, y, z} {
		if math.IsInf(float64(v), 0) || v != v {
			return nil, false
		}
	}
	bx := new(big.Float).SetPrec(1200).SetFloat64(float64(x))
	by := new(big.Float).SetPrec(1200).SetFloat64(float64(y))
	switch op {
	case 0:
		return bx.Add(bx, by), true
	case 1:
		return bx.Mul(bx, by), true
	}
	bx.Mul(bx, by)
	return bx.Add(bx, new(big.Float).SetPrec(1200).SetFloat64(float64(z))), true
}

// refFloat is the reference of FADD (op 0), FMUL (1) and FFMA (2).
func refFloat(op int, a, b, c uint32, rnd int, ftz, sat bool) uint32 {
	if ftz {
		a, b, c = ftzIn(a), ftzIn(b), ftzIn(c)
	}
	x, y, z := f32of(a), f32of(b), f32of(c)
	var f float32
	if e, ok := exactOp(op, x, y, z); ok {
		if e.Sign() == 0 {
			// exact zero: the sign of an IEEE sum
			switch op {
			case 0:
				f = x + y
			case 1:
				f = x * y
			default:
				f = float32(float64(x)*float64(y) + float64(z))
			}
			if rnd == 1 && op != 1 && !(f == 0 && !math.Signbit(float64(x*y)) && !math.Signbit(float64(z)) && op == 2) &&
				!(op == 0 && !math.Signbit(float64(x)) && !math.Signbit(float64(y))) {
				f = float32(math.Copysign(0, -1))
			}
		} else {
			f = exactF32(e, rnd)
		}
	} else {
		switch op {
		case 0:
			f = x + y
		case 1:
			f = x * y
		default:
			f = float32(math.FMA(float64(x), float64(y), float64(z)))
		}
	}
	return refF32(f, ftz, sat)
}

func TestInstFloat(t *testing.T) {
	var cases []instCase
	for rnd, rn := range []string{"", ".RM", ".RP", ".RZ"} {
		for _, ftz := range []bool{false, true} {
			fz := ""
			if ftz {
				fz = ".FTZ"
			}
			rnd, ftz := rnd, ftz
			cases = append(cases,
				instCase{name: "FADD" + fz + rn, text: fmt.Sprintf("FADD%s%s R8, R4, R5;\n FADD%s%s R9, R4, -R6;", fz, rn, fz, rn),
					gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
						return [2]uint32{refFloat(0, in[0], in[1], 0, rnd, ftz, false), refFloat(0, in[0], in[2]^0x80000000, 0, rnd, ftz, false)}
					}},
				instCase{name: "FMUL" + fz + rn, text: fmt.Sprintf("FMUL%s%s R8, R4, R5;", fz, rn),
					gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
						return one(refFloat(1, in[0], in[1], 0, rnd, ftz, false))
					}},
				instCase{name: "FFMA" + fz + rn, text: fmt.Sprintf("FFMA%s%s R8, R4, R5, R6;\n FFMA%s%s.SAT R9, -R4, R5, -R6;", fz, rn, fz, rn),
					gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
						return [2]uint32{refFloat(2, in[0], in[1], in[2], rnd, ftz, false),
							refFloat(2, in[0]^0x80000000, in[1], in[2]^0x80000000, rnd, ftz, true)}
					}})
		}
	}
	cases = append(cases,
		instCase{name: "FADD |x|", text: "FADD R8, |R4|, -|R5|;\n FADD32I R9, R4, 1.5;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{refFloat(0, in[0]&^(1<<31), in[1]|1<<31, 0, 0, false, false), refFloat(0, in[0], 0x3fc00000, 0, 0, false, false)}
		}},
		instCase{name: "FMUL32I", text: "FMUL32I R8, R4, 0.25;\n FMUL.SAT R9, R4, R5;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{refFloat(1, in[0], 0x3e800000, 0, 0, false, false), refFloat(1, in[0], in[1], 0, 0, false, true)}
		}},
		instCase{name: "FMNMX", text: "FMNMX R8, R4, R5, PT;\n FMNMX R9, R4, R5, !PT;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			return [2]uint32{refMinMax(in[0], in[1], true), refMinMax(in[0], in[1], false)}
		}},
		instCase{name: "FSETP", text: "FSETP.LT.AND P1, P2, R4, R5, PT;\n FSETP.GTU.AND P3, PT, R4, R5, PT;\n FSETP.NUM.AND P4, PT, R4, R5, PT;\n P2R R8, PR, RZ, 0x7f;",
			gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
				x, y := f32of(in[0]), f32of(in[1])
				un := x != x || y != y
				return one(b32(x < y)<<1 | b32(!(x < y))<<2 | b32(un || x > y)<<3 | b32(!un)<<4)
			}, mask: [2]uint32{0x1e, 0}},
		instCase{name: "FSET", text: "FSET.BF.GE.AND R8, R4, R5, PT;\n FSET.NEU.AND R9, R4, R5, PT;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			x, y := f32of(in[0]), f32of(in[1])
			a := uint32(0)
			if x >= y {
				a = 0x3f800000
			}
			b := uint32(0)
			if !(x == y) {
				b = ^uint32(0)
			}
			return [2]uint32{a, b}
		}},
		instCase{name: "FCMP", text: "FCMP.LT R8, R4, R5, R6;", gen: floatGen, ref: func(in [4]uint32) [2]uint32 {
			if f32of(in[2]) < 0 {
				return one(in[0])
			}
			return one(in[1])
		}},
	)
	runInstCases(t, cases)
}

func refMinMax(a, b uint32, min bool) uint32 {
	x, y := f32of(a), f32of(b)
	var r float32
	switch {
	case x != x && y != y:
		return 0x7fffffff
	case x != x:
		r = y
	case y != y:
		r = x
	case x == y:
		if math.Signbit(float64(x)) == min {
			r = x
		} else {
			r = y
		}
	case (x < y) == min:
		r = x
	default:
		r = y
	}
	return refF32(r, false, false)
}

// TestInstSFU checks MUFU against float64 math within the PTX bounds (and
// exactly the correctly rounded value where the function is exact).
func TestInstSFU(t *testing.T) {
	within := func(got uint32, want float64, ulps float64, abs float64) bool {
		g := float64(f32of(got))
		if want != want {
			return g != g
		}
		if math.IsInf(want, 0) || math.IsInf(g, 0) {
			return g == want || math.Abs(want) > math.MaxFloat32 && math.IsInf(g, int(math.Copysign(1, want)))
		}
		ulp := math.Abs(float64(math.Nextafter32(float32(want), float32(math.Inf(1)))) - float64(float32(want)))
		return math.Abs(g-want) <= ulps*ulp+abs
	}
	rng := rand.New(rand.NewSource(7))
	n := 32 * 128
	ins := make([]byte, 16*n)
	vals := make([]uint32, n)
	for i := range vals {
		vals[i] = floatGen(rng)[0]
		binary.LittleEndian.PutUint32(ins[16*i:], vals[i])
	}
	for _, c := range []struct {
		text      string
		f         func(float64) float64
		ulps, abs float64
	}{
		{"MUFU.RCP R8, R4;", func(x float64) float64 { return 1 / x }, 1, 0},
		{"MUFU.RSQ R8, R4;", func(x float64) float64 { return 1 / math.Sqrt(x) }, 1, 0},
		{"MUFU.EX2 R8, R4;", math.Exp2, 2, 0},
		{"MUFU.LG2 R8, R4;", math.Log2, 1, 0x1p-22},
		{"MUFU.SIN R8, R4;", math.Sin, 1, 0x1p-20},
		{"MUFU.COS R8, R4;", math.Cos, 1, 0x1p-20},
		{"RRO.SINCOS R9, R4;\n MUFU.SIN R8, R9;", math.Sin, 1, 0x1p-20},
		{"RRO.EX2 R9, R4;\n MUFU.EX2 R8, R9;", math.Exp2, 2, 0},
	} {
		d := newDevice()
		d.alloc("in", ins)
		d.alloc("out", make([]byte, 8*n))
		prog := instPrologue + c.text + instEpilogue
		if _, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{32, 1, 1}, block: emu.Dim3{128, 1, 1},
			params: []any{buf("in"), buf("out")}}); err != nil {
			t.Fatal(err)
		}
		out := u32s(d.bytes("out"))
		bad := 0
		for i, v := range vals {
			x := float64(f32of(ftzIn(v)))
			want := c.f(x)
			if w := float32(want); w != 0 && math.Abs(float64(w)) < 0x1p-126 {
				want = math.Copysign(0, want) // the SFU flushes denormal results
			}
			if x == 0 && c.f(1) != math.Sin(1) && c.f(1) != math.Cos(1) && want == 0 {
				continue
			}
			if !within(out[2*i], want, c.ulps, c.abs) {
				if bad < 3 {
					t.Errorf("%s: x %g (%#x): got %g, want %g", c.text, x, v, f32of(out[2*i]), want)
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d differ", c.text, bad, n)
		}
	}
}
