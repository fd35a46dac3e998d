//go:build ignore

// gen writes the inputs and expected outputs of the Maxwell examples from
// plain Go arithmetic (not from the emulator): go run gen.go
package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
)

func main() {
	saxpy()
	kinds()
	link()
	textures()
	bfs()
}

func write(name string, words ...any) {
	var b []byte
	for _, w := range words {
		switch v := w.(type) {
		case float32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		case float64:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		case int32:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, v)
		case uint8:
			b = append(b, v)
		default:
			panic(fmt.Sprintf("%T", w))
		}
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		panic(err)
	}
}

func each[T any](n int, f func(i int) T) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// saxpy: y = 1.5 x + y over 1000 elements (exact in float32, so fused and
// separate multiply-add agree).
func saxpy() {
	const n = 1000
	x := func(i int) float32 { return float32(i) * 0.25 }
	y := func(i int) float32 { return float32(1000 - i) }
	write("saxpy_x.bin", each(n, func(i int) any { return x(i) })...)
	write("saxpy_y.bin", each(n, func(i int) any { return y(i) })...)
	write("saxpy_expected.bin", each(n, func(i int) any { return 1.5*x(i) + y(i) })...)
}

// kinds: 2 blocks of 32 threads; s = -3, u = 2^32, d = 0.5, f = 2; far[i]
// = 3i mod 64; the shared image dyn[k] = k/4; the constant image scale =
// 1, 2, 4, 8.
func kinds() {
	const threads, s, u, d, f = 64, -3, 1 << 32, 0.5, 2
	far := func(i int) float32 { return float32(3 * i % 64) }
	dyn := func(k int) float32 { return float32(k) / 4 }
	scale := []float32{1, 2, 4, 8}
	write("kinds_far.bin", each(threads, func(i int) any { return far(i) })...)
	write("kinds_dyn.bin", each(32, func(k int) any { return dyn(k) })...)
	write("kinds_scale.bin", each(4, func(i int) any { return scale[i] })...)
	out := each(threads, func(t int) any {
		var loc [64]float32
		for i := range 64 {
			loc[(i*5+t)&63] = far(i&31) * f
		}
		k := int(far(t)) & 63
		return float64(dyn(t%32)+scale[t%4])*d + s + float64(u) + float64(loc[k])
	})
	write("kinds_out_expected.bin", out...)
	// the histogram: each of its 4 counters gets s from 16 threads; the
	// buffers are placed in name order from 0x100: hist at 0x100
	var tsv strings.Builder
	tsv.WriteString("addr\texp\texp_alt\n")
	count := int32(16 * s)
	for i := range 4 {
		alt := ""
		if i == 0 {
			alt = "0x0" // a second accepted value (unused here: the run gives exp)
		}
		fmt.Fprintf(&tsv, "%#x\t%#x\t%s\n", 0x100+4*i, uint32(count), alt)
	}
	if err := os.WriteFile("kinds_hist.tsv", []byte(tsv.String()), 0o644); err != nil {
		panic(err)
	}
}

// link: c = combine(a, b) = 3a - b.
func link() {
	const n = 256
	a := func(i int) int32 { return int32(i*7 - 500) }
	b := func(i int) int32 { return int32(i * i) }
	write("link_a.bin", each(n, func(i int) any { return a(i) })...)
	write("link_b.bin", each(n, func(i int) any { return b(i) })...)
	write("link_c_expected.bin", each(n, func(i int) any { return 3*a(i) - b(i) })...)
}

// textures: thread t writes plain, lin.r, lin.g, mip, lay, cube, depth, buf
// (see textures.ptx) and t*t to the surface.
func textures() {
	// plain: r32f 8x4, texel (x, y) = 8y + x; sampled at x = t-8 of row 1,
	// the border (-1) outside
	write("textures_plain.bin", each(32, func(i int) any { return float32(i) })...)
	plain := func(t int) float32 {
		if x := t - 8; x >= 0 && x < 8 {
			return float32(8 + x)
		}
		return -1
	}
	// lin: rgba8unorm, 2 texels (0, 1, 0, 1) and (1, 0, 0, 1), linear
	// filtering with wrap at u = t/8 (x = 2u - 0.5 in texels)
	write("textures_lin.bin", uint8(0), uint8(255), uint8(0), uint8(255), uint8(255), uint8(0), uint8(0), uint8(255))
	lin := func(t int, c int) float32 {
		texel := [2][2]float32{{0, 1}, {1, 0}}
		x := float64(t)/4 - 0.5
		i0 := math.Floor(x)
		a := float32(x - i0)
		j0, j1 := (int(i0)%2+2)%2, (int(i0)+1)%2
		return (1-a)*texel[j0][c] + a*texel[j1][c]
	}
	// lay: r32ui 4x4, 3 layers; the file gives layer 0 (texel = 10y + x), the
	// fill (7) the rest; texel (t%4, 1) of layer t%3
	write("textures_lay.bin", each(16, func(i int) any { return uint32(10*(i/4) + i%4) })...)
	lay := func(t int) uint32 {
		if t%3 == 0 {
			return uint32(10 + t%4)
		}
		return 0x07070707
	}
	// mip: r32f 4x4 with 3 levels holding 0, 1 and 2; level of detail t/8,
	// linear between levels (clamped to the last)
	var mipTexels []any
	for lv, n := range []int{16, 4, 1} {
		for range n {
			mipTexels = append(mipTexels, float32(lv))
		}
	}
	write("textures_mip.bin", mipTexels...)
	mip := func(t int) float32 { return min(float32(t)/8, 2) }
	// cube: r32f 2x2 faces holding their index; direction along axis t%6
	write("textures_cube.bin", each(24, func(i int) any { return float32(i / 4) })...)
	cube := func(t int) float32 { return float32(t % 6) }
	// depth: r32f 4x1 (0.25, 0.5, 0.75, 1), compare greater: 0.6 > texel
	write("textures_depth.bin", float32(0.25), float32(0.5), float32(0.75), float32(1))
	depth := func(t int) float32 {
		if 0.6 > float32(t%4+1)*0.25 {
			return 1
		}
		return 0
	}
	// buf: r32i texels -4..3 in a buffer, texel t%8
	write("textures_ints.bin", each(8, func(i int) any { return int32(i - 4) })...)
	var out []any
	for t := range 32 {
		out = append(out, plain(t), lin(t, 0), lin(t, 1), mip(t),
			math.Float32frombits(lay(t)), cube(t), depth(t), math.Float32frombits(uint32(int32(t%8-4))))
	}
	write("textures_out_expected.bin", out...)
	write("textures_surf_expected.bin", each(32, func(t int) any { return uint32(t * t) })...)
}

// bfs: a graph of 100 nodes (node i has edges to (7i+1) mod 100 and
// (13i+5) mod 100, and to i+1 unless i ends in 9), searched from node 0:
// the distances (-1 for nodes never reached), and for the two-kernel
// version the same with 1<<30 for them.
func bfs() {
	const n = 100
	rowptr := []any{int32(0)}
	var cols []any
	var adj [n][]int
	for i := range n {
		adj[i] = []int{(7*i + 1) % n, (13*i + 5) % n}
		if i%10 != 9 {
			adj[i] = append(adj[i], i+1)
		}
		for _, u := range adj[i] {
			cols = append(cols, int32(u))
		}
		rowptr = append(rowptr, int32(len(cols)))
	}
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = -1
	}
	dist[0] = 0
	for q := []int{0}; len(q) > 0; q = q[1:] {
		for _, u := range adj[q[0]] {
			if dist[u] < 0 {
				dist[u] = dist[q[0]] + 1
				q = append(q, u)
			}
		}
	}
	write("bfs_rowptr.bin", rowptr...)
	write("bfs_cols.bin", cols...)
	write("bfs_dist0.bin", each(n, func(i int) any { return int32(-1 + int(b2i(i == 0))) })...)
	write("bfs_counts0.bin", each(n+2, func(i int) any { return int32(b2i(i == 0)) })...)
	write("bfs_mask0.bin", each(n, func(i int) any { return uint8(b2i(i == 0)) })...)
	write("bfs_cost0.bin", each(n, func(i int) any { return int32((1 << 30) * (1 - b2i(i == 0))) })...)
	write("bfs_dist_expected.bin", each(n, func(i int) any { return dist[i] })...)
	write("bfs_cost_expected.bin", each(n, func(i int) any {
		if dist[i] < 0 {
			return int32(1 << 30)
		}
		return dist[i]
	})...)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
