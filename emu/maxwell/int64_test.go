package maxwell

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

func int64Ref(a, b, c uint64, s uint32) (x [24]uint64, h3, h4 uint16) {
	sa, sb, sc := int64(a), int64(b), int64(c)
	x[0], x[1], x[2] = a+b, a-b, a*b
	x[3], _ = bits.Mul64(a, b)
	hi, _ := bits.Mul64(a, b)
	if sa < 0 {
		hi -= b
	}
	if sb < 0 {
		hi -= a
	}
	x[4] = hi
	x[5] = a*b + c
	x[6] = uint64(sa / sb)
	x[7] = a / b
	x[8] = uint64(sa % sc)
	x[9] = b % c
	if s < 64 {
		x[10], x[11] = a<<s, b>>s
	}
	x[12] = uint64(sc >> min(s, 63))
	x[13] = a << 13
	x[14] = uint64(sb >> 40)
	x[15] = uint64(min(sa, sb))
	x[16] = max(a, c)
	x[17] = a
	if sa < 0 {
		x[17] = -a
	}
	x[18] = -b
	x[19] = a & b
	x[20] = a ^ 0x0123456789abcdef
	x[21] = uint64(bits.OnesCount64(a))
	x[22] = uint64(bits.LeadingZeros64(b))
	x[23] = bits.Reverse64(c)
	h0, h1 := uint16(a), uint16(b)
	h2 := h0 + h1
	h3 = h0 * h1
	h4 = uint16(int16(h2) >> 3)
	return
}

func TestOracleInt64(t *testing.T) {
	forVariants(t, "04_int64", func(t *testing.T, prog []byte, arch string) {
		const n = 64
		rng := rand.New(rand.NewPCG(9, 10))
		in := make([]byte, 32*n)
		type rec struct {
			a, b, c uint64
			s       uint32
		}
		recs := make([]rec, n)
		for i := range recs {
			r := rec{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint32N(70)}
			switch i % 4 {
			case 1:
				r.b >>= 40
				r.c >>= 20
			case 2:
				r.a >>= 33
				r.b = uint64(rng.IntN(1000)) - 500
			case 3:
				r.c = uint64(rng.IntN(100))
			}
			if r.b == 0 || int64(r.b) == -1 {
				r.b = 7
			}
			if r.c == 0 || int64(r.c) == -1 {
				r.c = 9
			}
			recs[i] = r
			binary.LittleEndian.PutUint64(in[32*i:], r.a)
			binary.LittleEndian.PutUint64(in[32*i+8:], r.b)
			binary.LittleEndian.PutUint64(in[32*i+16:], r.c)
			binary.LittleEndian.PutUint32(in[32*i+24:], r.s)
		}
		r := run{program: prog, arch: arch, kernel: "int64ops", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{in, make([]byte, 192*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		out := res.bufs[1]
		for i, rc := range recs {
			x, h3, h4 := int64Ref(rc.a, rc.b, rc.c, rc.s)
			for j := 0; j < 23; j++ {
				if i == 0 && j == 0 {
					continue // the last thread's x23 lands here
				}
				if g := binary.LittleEndian.Uint64(out[192*i+8*j:]); g != x[j] {
					t.Errorf("thread %d (a=%#x b=%#x c=%#x s=%d) x%d: got %#x, want %#x", i, rc.a, rc.b, rc.c, rc.s, j, g, x[j])
				}
			}
			if g := binary.LittleEndian.Uint16(out[192*i+184:]); g != h3 {
				t.Errorf("thread %d h3: got %#x, want %#x", i, g, h3)
			}
			if g := binary.LittleEndian.Uint16(out[192*i+186:]); g != h4 {
				t.Errorf("thread %d h4: got %#x, want %#x", i, g, h4)
			}
		}
		last := recs[n-1]
		x, _, _ := int64Ref(last.a, last.b, last.c, last.s)
		if g := binary.LittleEndian.Uint64(out); g != x[23] {
			t.Errorf("x23 (last thread): got %#x, want %#x", g, x[23])
		}
	})
}
