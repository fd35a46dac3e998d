package usse

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/internal/benchcpu"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// benchSource is a vertex shader of the usual shape (a matrix transform in
// internal registers, a dot product, a reciprocal square root, f16 packs, a
// tested select): 16 instructions per vertex.
const benchSource = `
        phas 0x0, 0
        mov.f32.nosched i0.xyz, pa0.xyz, pa2
        mov.f32.nosched i1.xyzw, sa12.xyzw, sa14
        mad.f32.nosched i1.xyzw, sa0.xyzw, i0.xxxx, i1.xyzw
        mad.f32.nosched i1.xyzw, sa4.xyzw, i0.yyyy, i1.xyzw
        mad.f32 o0.xy, sa8.xy, i0.zz, i1.xy
        mad.f32 o2.xy, sa10.xy, i0.zz, i1.zw
        dot.f32.rptmode=3.nosched pa8.x, i0.xyz, i0.xyz
        rsq.f32.nosched pa8.x, pa8.x
        mad.f32.nosched i2.xyz, pa8.xxx, i0.xyz, {0, 0, 0}
        mov.f32 o4.xy, i2.xyzw, i3
        pack.f16.f32 pa10.xyzw, pa4.xyzw
        mad.f16 pa12.x-z, pa10.xyz, sa16.xyz, sa16.xyz
        pack.f32.f16 o6.xy, pa12.xyzw, 0x0
        mul.f32 o8.xy, pa4.xy, {1, 1}
        emitvtx.end.dc=2069 0x0
`

func benchProgram(tb testing.TB) *Program {
	code, err := usse.Assemble("bench.s", []byte(benchSource))
	if err != nil {
		tb.Fatal(err)
	}
	words := make([]uint64, len(code)/8)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(code[8*i:])
	}
	g := &gxp.Program{Kind: gxp.Vertex, PARegs: 16, SARegs: 20, Primary: words}
	p := New(g, nil)
	for i := range p.Primary.ops {
		if o := &p.Primary.ops[i]; o.kind == kFault {
			tb.Fatalf("instruction %d: %v", o.inst, o.err)
		}
	}
	return p
}

// BenchmarkDraw runs the 16-instruction shader over 4096 vertices per
// iteration; it reports instance-instructions per second.
func BenchmarkDraw(b *testing.B) {
	p := benchProgram(b)
	var sa SA
	for i := 0; i < 20; i++ {
		sa[i] = math.Float32bits(float32(i)*0.25 + 0.5)
	}
	const n = 4096
	init := func(i int, t *Instance) error {
		for k := 0; k < 8; k++ {
			t.File[basePA+k] = math.Float32bits(float32(i+k) * 0.001)
		}
		return nil
	}
	var total int64
	b.ReportAllocs()
	cpu := benchcpu.Start(b)
	for b.Loop() {
		st, err := p.Draw(Config{}, &sa, n, init, nil)
		if err != nil {
			b.Fatal(err)
		}
		total += st.Instructions
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds()/1e6, "Minst/s")
	cpu.Report(float64(total)/float64(b.N)/1e6, "Minst")
}
