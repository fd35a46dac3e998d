package maxwell

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// atomMem is a little-endian memory for the atomics reference.
type atomMem []byte

func (m atomMem) u32(a int) uint32      { return binary.LittleEndian.Uint32(m[a:]) }
func (m atomMem) set32(a int, v uint32) { binary.LittleEndian.PutUint32(m[a:], v) }
func (m atomMem) u64(a int) uint64      { return binary.LittleEndian.Uint64(m[a:]) }
func (m atomMem) set64(a int, v uint64) { binary.LittleEndian.PutUint64(m[a:], v) }

// rmw32 applies f at a for every lane in lane order (one warp: the order the
// emulator uses, one of the orders the hardware may pick) and returns the
// old values.
func rmw32(m atomMem, a int, f func(l int, old uint32) uint32) (old [32]uint32) {
	for l := range 32 {
		old[l] = m.u32(a)
		m.set32(a, f(l, old[l]))
	}
	return
}

func rmw64(m atomMem, a int, f func(l int, old uint64) uint64) (old [32]uint64) {
	for l := range 32 {
		old[l] = m.u64(a)
		m.set64(a, f(l, old[l]))
	}
	return
}

func fadd(x uint32, y float32) uint32 { return math.Float32bits(math.Float32frombits(x) + y) }

func atomicsRef(g atomMem) (out [32][28]uint32) {
	sh := make(atomMem, 512)
	t := func(l int) uint32 { return uint32(l) }
	r := make([][32]uint32, 26)
	r[0] = rmw32(g, 0, func(l int, o uint32) uint32 { return o + t(l) })
	r[1] = rmw32(g, 4, func(l int, o uint32) uint32 { return uint32(min(int32(o), int32(l))) })
	r[2] = rmw32(g, 8, func(l int, o uint32) uint32 { return max(o, t(l)) })
	r[3] = rmw32(g, 12, func(l int, o uint32) uint32 { return t(l) })
	r[4] = rmw32(g, 16, func(l int, o uint32) uint32 {
		if o == t(l)&31 {
			return t(l)
		}
		return o
	})
	r[5] = rmw32(g, 20, func(l int, o uint32) uint32 { return o & t(l) })
	r[6] = rmw32(g, 24, func(l int, o uint32) uint32 { return o | t(l) })
	r[7] = rmw32(g, 28, func(l int, o uint32) uint32 { return o ^ t(l) })
	r[8] = rmw32(g, 32, func(l int, o uint32) uint32 {
		if o >= 100 {
			return 0
		}
		return o + 1
	})
	r[9] = rmw32(g, 36, func(l int, o uint32) uint32 {
		if o == 0 || o > 100 {
			return 100
		}
		return o - 1
	})
	f1 := rmw32(g, 40, func(l int, o uint32) uint32 { return fadd(o, float32(l)) })
	x1 := rmw64(g, 48, func(l int, o uint64) uint64 { return o + uint64(l) })
	x2 := rmw64(g, 56, func(l int, o uint64) uint64 {
		if o == uint64(l) {
			return x1[l]
		}
		return o
	})
	x3 := rmw64(g, 64, func(l int, o uint64) uint64 { return x2[l] })
	x4 := rmw64(g, 72, func(l int, o uint64) uint64 { return min(o, uint64(l)) })
	r[10] = rmw32(g, 80, func(l int, o uint32) uint32 { return uint32(max(int32(o), int32(l&31))) })
	r[11] = rmw32(g, 84, func(l int, o uint32) uint32 { return min(o, t(l)&31) })
	rmw32(g, 88, func(l int, o uint32) uint32 { return o + t(l) })
	rmw32(g, 92, func(l int, o uint32) uint32 { return uint32(min(int32(o), int32(l))) })
	rmw32(g, 96, func(l int, o uint32) uint32 { return max(o, t(l)) })
	rmw32(g, 100, func(l int, o uint32) uint32 { return fadd(o, float32(l)) })
	rmw64(g, 104, func(l int, o uint64) uint64 { return o + uint64(l) })
	rmw32(g, 112, func(l int, o uint32) uint32 { return o | t(l) })
	r[12] = rmw32(g, 116, func(l int, o uint32) uint32 { return o + 1 })
	// shared: sh[a] was zeroed
	r[13] = rmw32(sh, 0, func(l int, o uint32) uint32 { return o })
	for l := range 32 {
		r[13][l] = sh.u32(4 * l)
		sh.set32(4*l, sh.u32(4*l)+t(l))
	}
	r[14] = rmw32(sh, 128, func(l int, o uint32) uint32 { return uint32(min(int32(o), int32(l))) })
	r[15] = rmw32(sh, 132, func(l int, o uint32) uint32 { return max(o, t(l)) })
	r[16] = rmw32(sh, 136, func(l int, o uint32) uint32 { return t(l) })
	r[17] = rmw32(sh, 140, func(l int, o uint32) uint32 {
		if o == t(l)&31 {
			return t(l)
		}
		return o
	})
	r[18] = rmw32(sh, 144, func(l int, o uint32) uint32 { return o & t(l) })
	r[19] = rmw32(sh, 148, func(l int, o uint32) uint32 { return o | t(l) })
	r[20] = rmw32(sh, 152, func(l int, o uint32) uint32 { return o ^ t(l) })
	r[21] = rmw32(sh, 156, func(l int, o uint32) uint32 {
		if o >= 7 {
			return 0
		}
		return o + 1
	})
	r[22] = rmw32(sh, 160, func(l int, o uint32) uint32 {
		if o == 0 || o > 7 {
			return 7
		}
		return o - 1
	})
	f2 := rmw32(sh, 164, func(l int, o uint32) uint32 { return fadd(o, float32(l)) })
	x5 := rmw64(sh, 168, func(l int, o uint64) uint64 { return o + uint64(l) })
	x6 := rmw64(sh, 176, func(l int, o uint64) uint64 {
		if o == uint64(l) {
			return x5[l]
		}
		return o
	})
	for l := range 32 {
		r[23][l] = sh.u32(4 * l)
	}
	r[24], r[25] = f1, f2
	for l := range 32 {
		for j := range 26 {
			out[l][j] = r[j][l]
		}
		x7 := x1[l] + x2[l] + x3[l] + x4[l] + x5[l] + x6[l]
		out[l][26], out[l][27] = uint32(x7), uint32(x7>>32)
	}
	return
}

func TestOracleAtomics(t *testing.T) {
	forVariants(t, "11_atomics", func(t *testing.T, prog []byte, arch string) {
		g := make(atomMem, 128)
		for i := 0; i < 128; i += 4 {
			g.set32(i, uint32(i*7+3))
		}
		g.set32(4, 1000) // min.s32 starts above every t
		g.set32(72, 5)   // min.u64 low word
		g.set32(76, 0)   //
		g.set32(40, 0)   // f32 sums start at 0
		g.set32(100, 0)  //
		g.set32(36, 0)   // dec from 0 wraps to 100
		g.set32(32, 98)  // inc wraps after 100
		g.set64(56, 3)   // cas.b64 matches lane 3
		g.set32(16, 5)   // cas.b32 matches lane 5
		in := append(atomMem(nil), g...)
		r := run{program: prog, arch: arch, kernel: "atomics", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1},
			args: []arg{[]byte(in), make([]byte, 128*32)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		want := atomicsRef(g)
		got := u32s(res.bufs[1])
		for l := range 32 {
			for j, w := range want[l] {
				if gw := got[32*l+j]; gw != w {
					t.Errorf("lane %d word %d: got %#x, want %#x", l, j, gw, w)
				}
			}
		}
		if err := sameWords(u32s(res.bufs[0]), u32s(g)); err != nil {
			t.Errorf("global memory after the atomics: %v", err)
		}
	})
}
