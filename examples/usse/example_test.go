// Package usse_test holds the shader examples: shaders written in the
// assembler's syntax (*.s), the GXPs made from them, launch files with
// their inputs, and the outputs each run must produce. The GXPs, inputs
// and expected outputs are made here by plain Go arithmetic (not by the
// emulator); GPUISA_REGEN=1 go test ./examples/usse rewrites them.
package usse_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	eusse "github.com/gpuisa/gpuisa/emu/usse"
	"github.com/gpuisa/gpuisa/isa/usse"
)

func assemble(t *testing.T, name string) []uint64 {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	code, err := usse.Assemble(name, src)
	if err != nil {
		t.Fatal(err)
	}
	words := make([]uint64, len(code)/8)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(code[8*i:])
	}
	return words
}

func f32s(x ...float32) []byte {
	var b []byte
	for _, v := range x {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// The launch files' inputs (the JSON files hold the same numbers).
var (
	positions = []float32{-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0.5, 1, 0.25, -0.75, 2, 1, 3, 4, 5, 1}
	colours   = []float32{1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0.5, 0.25, 0.125, 0.75, 0.2, 0.4, 0.6, 0.8, 1.5, -0.5, 0.3, 0.9}
	scale     = []float32{0.5, 2, 1, 1}
	offset    = []float32{0.25, -0.5, 0, 0}

	tintUV     = []float32{0.125, 0.125, 0.375, 0.125, 0.625, 0.625, 0.875, 0.875, 1.125, 0.375, -0.125, 0.625}
	tintColour = []float32{1, 1, 1, 1, 0.5, 0.25, 1, 1, 0.25, 0.5, 0.75, 1, 1, 0, 0.5, 1, 0.75, 0.75, 0.75, 1, 0.125, 0.25, 0.5, 1} // w = 1: the launch gives three components
	tint       = []float32{1, 0.5, 2, 1}

	sumWeights = []float32{1, 0.5, 0.25, 2}
	sumLimit   = float32(10)
	sumMem     = []float32{1, 2, 3, 4, 0.5, 0.5, 0.5, 0.5, 4, 0, 0, 0, 0, 0, 0, 1.25, 2, 2, 2, 2}
)

// texel is the tint_f texture: 4x4 RGBA8, texel (x, y) = (32x, 32y, 255-16(x+y), 255).
func texel(x, y int) [4]byte { return [4]byte{byte(32 * x), byte(32 * y), byte(255 - 16*(x+y)), 255} }

// files makes every generated file of the examples.
func files(t *testing.T) map[string][]byte {
	out := map[string][]byte{}

	// scale_v: POSITION = aPosition * uScale + uOffset; o4..o7 = aColor.zyxw
	out["scale_v.gxp"] = gxp.Write(&gxp.Program{Kind: gxp.Vertex, PARegs: 8, SARegs: 8, Primary: assemble(t, "scale_v.s"), Params: []gxp.Param{
		{Name: "aPosition", Category: gxp.Attribute, Type: gxp.F32, Components: 4, ArraySize: 1, ResourceIndex: 0},
		{Name: "aColor", Category: gxp.Attribute, Type: gxp.F32, Components: 4, ArraySize: 1, ResourceIndex: 4},
		{Name: "uScale", Category: gxp.Uniform, Type: gxp.F32, Components: 4, Container: 14, ArraySize: 1, ResourceIndex: 0},
		{Name: "uOffset", Category: gxp.Uniform, Type: gxp.F32, Components: 4, Container: 14, ArraySize: 1, ResourceIndex: 4},
	}}, &gxp.Resources{Containers: []gxp.Container{{Index: 14, BaseSA: 0, Size: 8}}, OutputRegs: 8})
	var pos, col []byte
	for v := 0; v < len(positions)/4; v++ {
		for c := 0; c < 4; c++ {
			pos = append(pos, f32s(float32(positions[4*v+c]*scale[c])+offset[c])...)
		}
		for _, c := range []int{2, 1, 0, 3} {
			col = append(col, eusse.UChar4(colours[4*v+c]))
		}
	}
	out["scale_v_pos.expected"], out["scale_v_color.expected"] = pos, col

	// tint_f: COLOR = tex2D(tex, TEXCOORD0) * COLOR0 * uTint. Inputs: the
	// texcoord as f16 values in a file, a texture file.
	out["tint_f.gxp"] = gxp.Write(&gxp.Program{Kind: gxp.Fragment, PARegs: 12, SARegs: 4, Primary: assemble(t, "tint_f.s"), Params: []gxp.Param{
		{Name: "uTint", Category: gxp.Uniform, Type: gxp.F16, Components: 4, Container: 14, ArraySize: 1, ResourceIndex: 0},
		{Name: "tex", Category: gxp.Sampler, Type: gxp.F32, Components: 4, ArraySize: 1, ResourceIndex: 0},
	}}, &gxp.Resources{
		Containers: []gxp.Container{{Index: 14, BaseSA: 0, Size: 2}},
		Output:     gxp.FragmentOutput{Type: gxp.F16, Components: 4},
		Inputs: []gxp.FragmentInput{
			// TEXCOORD0: f32 x2 in pa0..pa1, and texture unit 0 sampled there (f16 into pa2..pa3)
			{Info: 0x00400100, Resource: 0, SizeWord: 0x50, CompInfo: 0x20},
			// COLOR0: f32 x4 in pa4..pa7
			{Info: 0x00d0a00f, SizeWord: 0x30},
		}})
	var uv []byte
	for _, x := range tintUV {
		uv = binary.LittleEndian.AppendUint16(uv, halfOf(x))
	}
	out["tint_f_uv.bin"] = uv
	var tex []byte
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			c := texel(x, y)
			tex = append(tex, c[:]...)
		}
	}
	out["tint_f_tex.bin"] = tex
	var tcol []byte
	for f := 0; f < len(tintUV)/2; f++ {
		// nearest texel, wrap in u, clamp in v (the texcoords are texel centres)
		x := (int(math.Floor(float64(tintUV[2*f])*4)) + 4) % 4
		y := min(max(int(math.Floor(float64(tintUV[2*f+1])*4)), 0), 3)
		c := texel(x, y)
		for k := 0; k < 4; k++ {
			v := float64(c[k]) / 255 * float64(tintColour[4*f+k]) * float64(tint[k])
			tcol = append(tcol, eusse.UChar4(float32(v)))
			out["tint_f_color.expected"] = append(out["tint_f_color.expected"], f32s(float32(v))...)
		}
	}
	out["tint_f_color8.expected"] = tcol

	// sum_v: memory, a loop, register presets
	out["sum_v.gxp"] = gxp.Write(&gxp.Program{Kind: gxp.Vertex, PARegs: 8, SARegs: 8, Primary: assemble(t, "sum_v.s"), Params: []gxp.Param{
		{Name: "aAddr", Category: gxp.Attribute, Type: gxp.U32, Components: 1, ArraySize: 1, ResourceIndex: 0},
		{Name: "uWeights", Category: gxp.Uniform, Type: gxp.F32, Components: 4, Container: 14, ArraySize: 1, ResourceIndex: 0},
	}}, &gxp.Resources{Containers: []gxp.Container{{Index: 14, BaseSA: 0, Size: 4}}, OutputRegs: 4})
	out["sum_v_mem.bin"] = f32s(sumMem...)
	var sums, raw []byte
	for v := 0; v < 4; v++ { // aAddr = 0x100 + 16v; the launch runs 4 of its 5 vertices
		var p float32
		for k := 0; k < 4; k++ {
			p += sumWeights[k] * sumMem[4*v+k]
		}
		var s float32
		for {
			s += p
			if !(s-sumLimit < 0) {
				break
			}
		}
		sums = append(sums, f32s(s, s)...)
		raw = append(raw, f32s(s)...)
	}
	out["sum_v_o0.expected"], out["sum_v_r8.expected"] = sums, raw
	return out
}

// halfOf is x as IEEE half bits (the values here are exact halves).
func halfOf(x float32) uint16 {
	if x == 0 {
		return 0
	}
	b := math.Float32bits(x)
	return uint16(b>>16&0x8000 | (b>>23&0xff-127+15)<<10 | b>>13&0x3ff)
}

// TestFilesCurrent: the committed GXPs, inputs and expected outputs are
// what files makes.
func TestFilesCurrent(t *testing.T) {
	for name, want := range files(t) {
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

func launchFiles(t *testing.T) []string {
	names, err := filepath.Glob("*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no launch files: %v", err)
	}
	return names
}

// TestLaunches runs every launch file here and checks its expectations.
func TestLaunches(t *testing.T) {
	for _, name := range launchFiles(t) {
		t.Run(name, func(t *testing.T) {
			l, err := eusse.LoadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			out, err := eusse.Run(l, ".", eusse.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Expect) == 0 {
				t.Fatal("no expectations: an example must say what it computes")
			}
			n, err := out.Setup.Check(out.Result)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d instances, %d instructions, %d values checked", out.Stats.Instances, out.Stats.Instructions, n)
		})
	}
}

// noEffect lists shader launch fields that no example can show.
var noEffect = map[string]string{}

// TestEveryFieldHasAnExample: each field of the shader launch format (its
// own types: Launch, Values, Output) is used by some example here.
func TestEveryFieldHasAnExample(t *testing.T) {
	used := map[string]bool{}
	for _, name := range launchFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		for k, x := range v {
			used["Launch."+k] = true
			switch k {
			case "uniforms", "attributes", "inputs":
				for _, val := range x.(map[string]any) {
					if obj, ok := val.(map[string]any); ok {
						for f := range obj {
							used["Values."+f] = true
						}
					}
				}
			case "outputs":
				for _, o := range x.([]any) {
					for f := range o.(map[string]any) {
						used["Output."+f] = true
					}
				}
			}
		}
	}
	var missing []string
	for _, typ := range []reflect.Type{reflect.TypeOf(eusse.Launch{}), reflect.TypeOf(eusse.Values{}), reflect.TypeOf(eusse.Output{})} {
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" {
				continue
			}
			key := typ.Name() + "." + name
			if !used[key] && noEffect[key] == "" {
				missing = append(missing, key)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("shader launch fields without an example here: %s", strings.Join(missing, ", "))
	}
}
