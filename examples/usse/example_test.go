// Package usse_test holds a shader example: scale_v.s (a vertex shader in
// the assembler's syntax), the GXP made from it, a launch file with its
// inputs and the outputs the run must produce. The test remakes the GXP and
// the expected outputs from plain Go and runs the launch file.
package usse_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	eusse "github.com/gpuisa/gpuisa/emu/usse"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// The launch's inputs (scale_v.json holds the same numbers).
var (
	positions = []float32{-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0.5, 1, 0.25, -0.75, 2, 1, 3, 4, 5, 1}
	colours   = []float32{1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0.5, 0.25, 0.125, 0.75, 0.2, 0.4, 0.6, 0.8, 1.5, -0.5, 0.3, 0.9}
	scale     = []float32{0.5, 2, 1, 1}
	offset    = []float32{0.25, -0.5, 0, 0}
)

// makeGXP assembles scale_v.s and wraps it with its parameter table:
// aPosition and aColor (f32 x4 attributes at pa0, pa4), uScale and uOffset
// (f32 x4 uniforms in the default uniform buffer at sa0, sa4).
func makeGXP(t *testing.T) []byte {
	src, err := os.ReadFile("scale_v.s")
	if err != nil {
		t.Fatal(err)
	}
	code, err := usse.Assemble("scale_v.s", src)
	if err != nil {
		t.Fatal(err)
	}
	words := make([]uint64, len(code)/8)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(code[8*i:])
	}
	p := &gxp.Program{Kind: gxp.Vertex, PARegs: 8, SARegs: 8, Primary: words, Params: []gxp.Param{
		{Name: "aPosition", Category: gxp.Attribute, Type: gxp.F32, Components: 4, ArraySize: 1, ResourceIndex: 0},
		{Name: "aColor", Category: gxp.Attribute, Type: gxp.F32, Components: 4, ArraySize: 1, ResourceIndex: 4},
		{Name: "uScale", Category: gxp.Uniform, Type: gxp.F32, Components: 4, Container: 14, ArraySize: 1, ResourceIndex: 0},
		{Name: "uOffset", Category: gxp.Uniform, Type: gxp.F32, Components: 4, Container: 14, ArraySize: 1, ResourceIndex: 4},
	}}
	return gxp.Write(p, &gxp.Resources{Containers: []gxp.Container{{Index: 14, BaseSA: 0, Size: 8}}})
}

// expected computes what the shader does, in plain Go: the positions as
// f32, the colours as UCHAR4 bytes.
func expected() (pos, col []byte) {
	for v := 0; v < len(positions)/4; v++ {
		for c := 0; c < 4; c++ {
			x := float32(positions[4*v+c]*scale[c]) + offset[c]
			pos = binary.LittleEndian.AppendUint32(pos, math.Float32bits(x))
		}
		for _, c := range []int{2, 1, 0, 3} {
			col = append(col, eusse.UChar4(colours[4*v+c]))
		}
	}
	return pos, col
}

// TestFilesCurrent: the committed GXP and expected outputs are what this
// file makes (regenerate with GPUISA_REGEN=1 go test ./examples/usse).
func TestFilesCurrent(t *testing.T) {
	pos, col := expected()
	files := map[string][]byte{"scale_v.gxp": makeGXP(t), "pos.expected": pos, "color.expected": col}
	for name, want := range files {
		if os.Getenv("GPUISA_REGEN") != "" {
			if err := os.WriteFile(name, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what example_test.go makes (GPUISA_REGEN=1 go test ./examples/usse)", name)
		}
	}
}

// TestLaunch runs scale_v.json and checks its expectations.
func TestLaunch(t *testing.T) {
	l, err := eusse.LoadFile("scale_v.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := eusse.Run(l, ".", eusse.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Stats.Instances != 6 || out.Stats.Instructions != 6*6 {
		t.Errorf("stats %+v, want 6 vertices of 6 instructions", out.Stats)
	}
	n, err := out.Setup.Check(out.Result)
	if err != nil {
		t.Fatal(err)
	}
	if n != 6*4+6*4 {
		t.Errorf("%d values checked, want 48", n)
	}
}
