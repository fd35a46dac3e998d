package maxwell

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// roundMode rounds x to an integer: 0 nearest even, 1 down, 2 up, 3 toward zero.
func roundMode(x float64, m int) float64 {
	switch m {
	case 1:
		return math.Floor(x)
	case 2:
		return math.Ceil(x)
	case 3:
		return math.Trunc(x)
	}
	return math.RoundToEven(x)
}

// toInt is PTX's saturating float-to-integer conversion (NaN gives 0).
func toInt(x float64, m int, lo, hi float64) float64 {
	if x != x {
		return 0
	}
	return max(lo, min(hi, roundMode(x, m)))
}

// half16 rounds x to IEEE binary16 in mode m, as bits (reference: scaled
// integer rounding over the exact float64 value).
func half16(x float64, m int) uint16 {
	if x != x {
		return 0x7fff
	}
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
		x = -x
		if m == 1 || m == 2 {
			m = 3 - m // rounding the magnitude: down and up swap
		}
	}
	if math.IsInf(x, 1) {
		return sign | 0x7c00
	}
	// the ulp at x's binade (at least 2^-24)
	e := math.Floor(math.Log2(x))
	if x == 0 {
		return sign
	}
	if math.Ldexp(1, int(e)) > x {
		e--
	}
	e = max(e, -14)
	ulp := math.Ldexp(1, int(e)-10)
	q := roundMode(x/ulp, m)
	v := q * ulp
	if v > 65504 {
		if m == 0 || m == 2 || v >= 65536 && m == 0 {
			return sign | 0x7c00
		}
		return sign | 0x7bff
	}
	if v < math.Ldexp(1, -14) {
		return sign | uint16(v/math.Ldexp(1, -24))
	}
	be := math.Floor(math.Log2(v))
	frac := v/math.Ldexp(1, int(be)) - 1
	return sign | uint16(int(be)+15)<<10 | uint16(math.Round(frac*1024))
}

func halfValue(h uint16) float64 {
	e := int(h >> 10 & 0x1f)
	f := float64(h & 0x3ff)
	var v float64
	switch e {
	case 0:
		v = math.Ldexp(f, -24)
	case 31:
		v = math.Inf(1)
		if f != 0 {
			v = math.NaN()
		}
	default:
		v = math.Ldexp(1+f/1024, e-15)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

func f32of(v uint64, signed bool, m int) float32 {
	b := new(big.Float).SetPrec(200)
	if signed {
		b.SetInt64(int64(v))
	} else {
		b.SetUint64(v)
	}
	return rnd32(b, m)
}

type convertOut struct {
	r  [22]uint32
	y  [12]float32
	q  [5]uint64
	e  [5]float64
	hs [4]uint16
}

func convertRef(f, g float32, i int32, u uint32, d float64, l int64) (o convertOut) {
	F, G := float64(f), float64(g)
	o.r[0] = uint32(int32(toInt(F, 3, -2147483648, 2147483647)))
	o.r[1] = uint32(int32(toInt(F, 0, -2147483648, 2147483647)))
	o.r[2] = uint32(toInt(G, 1, 0, 4294967295))
	o.r[3] = uint32(toInt(G, 2, 0, 4294967295))
	o.r[4] = o.r[0]
	o.y[0] = f32of(uint64(int64(i)), true, 0)
	o.y[1] = f32of(uint64(u), false, 3)
	o.y[2] = f32of(uint64(l), true, 0)
	o.q[0] = uint64(int64(toInt(F, 3, -9223372036854775808, 9223372036854775807)))
	if q := toInt(G, 3, 0, 18446744073709551615); q >= 18446744073709551615 {
		o.q[1] = math.MaxUint64
	} else {
		o.q[1] = uint64(q)
	}
	o.y[3] = float32(roundMode(F, 0))
	o.y[4] = float32(roundMode(G, 3))
	o.y[5] = float32(roundMode(F, 1))
	o.y[6] = float32(roundMode(G, 2))
	o.y[7] = sat(f)
	h0, h1 := half16(F, 0), half16(G, 3)
	o.hs[0], o.hs[1] = h0, h1
	o.y[8], o.y[9] = float32(halfValue(h0)), float32(halfValue(h1))
	o.e[0] = F
	o.y[10] = float32(d)
	o.r[5] = uint32(int32(toInt(d, 3, -2147483648, 2147483647)))
	o.e[1] = float64(i)
	o.e[2] = float64(uint64(l)) // exact rounding of u64 to f64 by Go's conversion (nearest even)
	o.q[2] = uint64(int64(toInt(d, 3, -9223372036854775808, 9223372036854775807)))
	o.e[3] = roundMode(d, 0)
	h2 := half16(d, 0)
	o.hs[2] = h2
	o.e[4] = halfValue(h2)
	h3 := half16(float64(i), 0)
	o.hs[3] = h3
	o.r[6] = uint32(int32(toInt(halfValue(h3), 0, -2147483648, 2147483647)))
	o.r[7] = uint32(int32(int8(i)))
	o.r[8] = u & 0xff
	o.r[9] = uint32(int32(int16(i)))
	o.r[10] = u & 0xffff
	o.r[11] = uint32(max(-128, min(127, i)))
	o.r[12] = uint32(max(0, min(255, i)))
	o.r[13] = min(u, 32767)
	o.r[14] = uint32(int32(int8(i)))
	o.r[15] = u & 0xffff
	o.r[16] = uint32(int32(toInt(F, 0, -128, 127)))
	o.r[17] = uint32(toInt(G, 3, 0, 65535))
	o.q[3] = uint64(int64(i))
	o.q[4] = uint64(u)
	o.r[18] = uint32(l)
	y11 := f32of(uint64(l), false, 0)
	o.r[19] = math.Float32bits(y11)
	y11 = ftz32(y11)
	o.r[20] = math.Float32bits(y11)
	o.y[11] = y11
	o.r[21] = uint32(half16(G, 1))
	return
}

func TestOracleConvert(t *testing.T) {
	forVariants(t, "06_convert", func(t *testing.T, prog []byte, arch string) {
		const n = 64
		rng := rand.New(rand.NewPCG(15, 16))
		in := make([]byte, 32*n)
		type rec struct {
			f, g float32
			i    int32
			u    uint32
			d    float64
			l    int64
		}
		recs := make([]rec, n)
		for k := range recs {
			r := rec{
				f: (rng.Float32()*2 - 1) * float32(math.Exp2(float64(rng.IntN(40)-10))),
				g: (rng.Float32()*2 - 0.5) * float32(math.Exp2(float64(rng.IntN(40)-10))),
				i: int32(rng.Uint32()), u: rng.Uint32(),
				d: (rng.Float64()*2 - 1) * math.Exp2(float64(rng.IntN(80)-20)),
				l: int64(rng.Uint64()),
			}
			switch k % 5 {
			case 1:
				r.i, r.u = int32(rng.IntN(600)-300), uint32(rng.IntN(70000))
			case 2:
				r.f, r.g = float32(rng.IntN(9))-4+0.5, float32(rng.IntN(9))+0.5
				r.d = float64(rng.IntN(9)) - 4 + 0.5
			case 3:
				r.l = int64(rng.IntN(1 << 20))
			case 4:
				r.f, r.g, r.d = 1e-40, 3e38, 1e-320
			}
			recs[k] = r
			binary.LittleEndian.PutUint32(in[32*k:], math.Float32bits(r.f))
			binary.LittleEndian.PutUint32(in[32*k+4:], math.Float32bits(r.g))
			binary.LittleEndian.PutUint32(in[32*k+8:], uint32(r.i))
			binary.LittleEndian.PutUint32(in[32*k+12:], r.u)
			binary.LittleEndian.PutUint64(in[32*k+16:], math.Float64bits(r.d))
			binary.LittleEndian.PutUint64(in[32*k+24:], uint64(r.l))
		}
		rr := run{program: prog, arch: arch, kernel: "convert", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
			args: []arg{in, make([]byte, 256*n)}}
		res, err := rr.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		out := res.bufs[1]
		le := binary.LittleEndian
		for k, r := range recs {
			o := convertRef(r.f, r.g, r.i, r.u, r.d, r.l)
			b := out[256*k:]
			bad := func(what string, idx int, got, want any) {
				t.Errorf("thread %d (f=%g g=%g i=%d u=%d d=%g l=%d) %s%d: got %#x, want %#x", k, r.f, r.g, r.i, r.u, r.d, r.l, what, idx, got, want)
			}
			for j, w := range o.r {
				if g := le.Uint32(b[4*j:]); g != w {
					bad("r", j, g, w)
				}
			}
			for j, w := range o.y {
				if g := le.Uint32(b[96+4*j:]); g != math.Float32bits(w) && !(w != w && g&0x7fffffff > 0x7f800000) {
					bad("y", j, g, math.Float32bits(w))
				}
			}
			for j, w := range o.q {
				if g := le.Uint64(b[144+8*j:]); g != w {
					bad("q", j, g, w)
				}
			}
			for j, w := range o.e {
				if g := le.Uint64(b[192+8*j:]); g != math.Float64bits(w) {
					bad("e", j, g, math.Float64bits(w))
				}
			}
			for j, w := range o.hs {
				if g := le.Uint16(b[232+2*j:]); g != w {
					bad("h", j, g, w)
				}
			}
		}
	})
}
