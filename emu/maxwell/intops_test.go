package maxwell

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

func sat32(v int64) uint32 { return uint32(max(min(v, 1<<31-1), -1<<31)) }

func sext24(v uint32) int64 { return int64(int32(v<<8) >> 8) }

// ptxBfe, ptxBfi, bfind and prmtRef are the 32-bit forms of the PTX
// references in edge_ref_test.go.
func ptxBfe(a, pos, n uint32, signed bool) uint32 {
	return uint32(ptxBfeN(uint64(a), uint64(pos), uint64(n), 32, signed))
}

func ptxBfi(a, b, pos, n uint32) uint32 {
	return uint32(ptxBfiN(uint64(a), uint64(b), int(pos&0xff), int(n&0xff), 32))
}

func bfind(a uint32, signed bool) uint32 { return uint32(ptxBfindN(uint64(a), 32, signed, false)) }

func ptxPrmt(a, b, c uint32) uint32 { return prmtRef(0, a, b, c) }

// prmtRef is prmt in mode 0 (default), 1 (f4e), 2 (b4e) or 3 (ecl).
func prmtRef(mode int, a, b, c uint32) uint32 {
	return ptxPrmtN(a, b, c, [4]string{"", "f4e", "b4e", "ecl"}[mode])
}

func intopsRef(a, b, c, s uint32) (r [64]uint32, w [3]uint64) {
	sa, sb := int32(a), int32(b)
	r[0] = a * b
	r[1] = uint32(uint64(int64(sa)*int64(sb)) >> 32)
	r[2] = uint32(uint64(a) * uint64(b) >> 32)
	r[3] = a*b + c
	r[4] = uint32(uint64(a)*uint64(b)>>32) + c
	r[5] = (a & 0xffffff) * (b & 0xffffff)
	r[6] = uint32(sext24(a)*sext24(b)) + c
	r[7] = uint32(sa / sb)
	r[8] = a / b
	r[9] = uint32(sa % sb)
	r[10] = a % b
	r[11] = a / 7
	r[12] = uint32(sa % 10)
	if s < 32 {
		r[13], r[14] = a<<s, a>>s
	}
	r[15] = uint32(sa >> min(s, 31))
	r[16] = a << 5
	r[17] = uint32(sb >> 3)
	r[18] = uint32((uint64(b)<<32 | uint64(a)) << (s & 31) >> 32)
	r[19] = uint32((uint64(b)<<32 | uint64(a)) >> min(s, 32))
	r[20] = ptxBfe(a, s, 8, false)
	r[21] = ptxBfe(a, 4, c, true)
	r[22] = ptxBfi(a, b, s, 5)
	r[23] = uint32(bits.OnesCount32(a))
	r[24] = uint32(bits.LeadingZeros32(a))
	r[25] = bits.Reverse32(a)
	r[26] = bfind(a, false)
	r[27] = bfind(b, true)
	if c == 0 {
		r[28] = 0xffffffff
	} else {
		r[28] = 31 - bfind(c, false)
	}
	r[29] = uint32(min(sa, sb))
	r[30] = uint32(max(sa, sb))
	r[31] = min(a, b)
	r[32] = max(a, b)
	r[33] = a
	if sa < 0 {
		r[33] = -a
	}
	r[34] = -b
	if a > b {
		r[35] = a - b + c
	} else {
		r[35] = b - a + c
	}
	if sa > sb {
		r[36] = a - b + c
	} else {
		r[36] = b - a + c
	}
	r[37], r[38], r[39], r[40] = a&b, a|b, a^b, ^c
	if a == 0 {
		r[41] = 1
	}
	r[42] = a & 0x00ff00ff
	r[43] = a ^ b ^ c
	r[44] = a&b | a&c | b&c
	r[45] = ptxPrmt(a, b, 0x5140)
	r[46] = prmtRef(1, a, b, s)
	s47 := uint64(a) + uint64(b)
	r[47] = uint32(s47)
	s48 := uint64(c) + uint64(s) + s47>>32
	r[48] = uint32(s48)
	r[49] = uint32(s48 >> 32)
	r[50] = a - b
	borrow := uint32(0)
	if a < b {
		borrow = 1
	}
	r[51] = c - s - borrow
	r[52] = sat32(int64(sa) + int64(sb))
	r[53] = sat32(int64(sa) - int64(sb))
	w[0] = uint64(int64(sa) * int64(sb))
	w[1] = uint64(c) * uint64(s)
	w[2] = uint64(a)*1000003 + w[1]
	r[54] = a + 0x12345
	r[55] = b - c
	r[56] = a * 0x9e3779b9
	r[57] = b * 12
	r[58] = c*3 + a
	if sa < sb {
		r[59] = a
	} else {
		r[59] = c
	}
	r[60] = c<<2 + a
	r[61] = min(a, 255)
	r[62] = uint32(max(sb, -128))
	r[63] = a * uint32(0xffffffef)
	return
}

func TestOracleIntops(t *testing.T) {
	forVariants(t, "03_intops", func(t *testing.T, prog []byte, arch string) {
		const n = 64
		rng := rand.New(rand.NewPCG(3, 4))
		in := make([]uint32, 4*n)
		for i := 0; i < n; i++ {
			a, b, c, s := rng.Uint32(), rng.Uint32(), rng.Uint32(), rng.Uint32N(40)
			switch i % 4 {
			case 1:
				a, b = a>>20, b>>24
			case 2:
				c = uint32(rng.IntN(40))
			case 3:
				a, c = 0, 0
			}
			if b == 0 || int32(b) == -1 {
				b = 3
			}
			in[4*i], in[4*i+1], in[4*i+2], in[4*i+3] = a, b, c, s
		}
		r := run{program: prog, arch: arch, kernel: "intops", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{fromU32(in), make([]byte, 256*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		got := u32s(res.bufs[1])
		for i := 0; i < n; i++ {
			want, _ := intopsRef(in[4*i], in[4*i+1], in[4*i+2], in[4*i+3])
			for j := range want {
				if i == 0 && j < 6 {
					continue // overwritten by every thread's 64-bit results
				}
				if g := got[64*i+j]; g != want[j] {
					t.Errorf("thread %d (a=%#x b=%#x c=%#x s=%d) r%d: got %#x, want %#x", i, in[4*i], in[4*i+1], in[4*i+2], in[4*i+3], j, g, want[j])
				}
			}
		}
		// the 64-bit results at the start are the last thread's (lanes store in order)
		_, w := intopsRef(in[4*(n-1)], in[4*(n-1)+1], in[4*(n-1)+2], in[4*(n-1)+3])
		for j, v := range w {
			if g := uint64(got[2*j]) | uint64(got[2*j+1])<<32; g != v {
				t.Errorf("w%d: got %#x, want %#x", j, g, v)
			}
		}
	})
}
