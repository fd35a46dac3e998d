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
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/emu"
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
	sumMem     = []float32{1, 2, 3, 4, 0.5, 0.5, 0.5, 0.5, 4, 0, 0, 0, 0, 0, 0, 1.25}
	sumFill    = byte(0x40) // the memory image at 0x140: 16 bytes of it

	// sky_f: a direction (TEXCOORD0) and a depth input (TEXCOORD1) per
	// fragment. Fragment 6 lies on the edge between faces +X and +Z.
	skyDirs  = [][3]float32{{1, 0.2, -0.3}, {-2, 0.5, 0.5}, {0.1, 1, 0.6}, {-0.4, -3, 0.2}, {0.3, -0.2, 1}, {0.6, 0.1, -1}, {1, 0.25, 1}, {0.9, -0.7, 0.2}}
	skyDepth = []float32{0, 0.25, 0.5, 0.75, 1, 1.5, 2, -1}
	uDepth   = []float32{0.5, 0.125}
	skyFill  = byte(128)
)

// skyTexel is texel (x, y) of face f of the sky cube texture (4x4 faces,
// RGBA8, in the order +X, -X, +Y, -Y, +Z, -Z).
func skyTexel(f, x, y int) [4]byte {
	return [4]byte{byte(40*f + 20), byte(64*x + 10), byte(64*y + 10), byte(255 - 16*f)}
}

// cubeFace is the face a direction selects and the face coordinates (s, t)
// in [0, 1], from OpenGL's cube map table; preferZ decides a tie between
// the x and z axes (the emulator's choice; the console's is not known).
func cubeFace(d [3]float32, preferZ bool) (face int, s, t float64) {
	x, y, z := float64(d[0]), float64(d[1]), float64(d[2])
	ax, ay, az := math.Abs(x), math.Abs(y), math.Abs(z)
	var sc, tc, ma float64
	switch {
	case az > ax && az >= ay || az == ax && az >= ay && preferZ:
		if z >= 0 {
			face, sc, tc = 4, x, -y
		} else {
			face, sc, tc = 5, -x, -y
		}
		ma = az
	case ay >= ax:
		if y >= 0 {
			face, sc, tc = 2, x, z
		} else {
			face, sc, tc = 3, x, -z
		}
		ma = ay
	default:
		if x >= 0 {
			face, sc, tc = 0, -z, -y
		} else {
			face, sc, tc = 1, z, -y
		}
		ma = ax
	}
	return face, (sc/ma + 1) / 2, (tc/ma + 1) / 2
}

// skyColour is what a nearest lookup of the sky texture gives.
func skyColour(d [3]float32, preferZ bool) [4]byte {
	const n = 4
	face, s, t := cubeFace(d, preferZ)
	x := min(max(int(math.Floor(s*n)), 0), n-1)
	y := min(max(int(math.Floor(t*n)), 0), n-1)
	return skyTexel(face, x, y)
}

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
	filled := math.Float32frombits(uint32(sumFill) * 0x01010101)
	var sums, raw []byte
	for v := 0; v < 5; v++ { // aAddr = 0x100 + 16v; the launch runs 5 of its 6 vertices
		var p float32
		for k := 0; k < 4; k++ {
			m := filled // vertex 4 reads the filled image
			if v < 4 {
				m = sumMem[4*v+k]
			}
			p += sumWeights[k] * m
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

	// sky_f: a cube texture read in a direction, and the DEPTH output
	out["sky_f.gxp"] = gxp.Write(&gxp.Program{Kind: gxp.Fragment, PARegs: 8, SARegs: 8, Primary: assemble(t, "sky_f.s"), Params: []gxp.Param{
		{Name: "uDepth", Category: gxp.Uniform, Type: gxp.F32, Components: 2, Container: 14, ArraySize: 1, ResourceIndex: 0},
		{Name: "sky", Category: gxp.Sampler, Type: gxp.F32, Components: 4, ArraySize: 1, ResourceIndex: 0},
	}}, &gxp.Resources{
		Containers: []gxp.Container{{Index: 14, BaseSA: 0, Size: 2}, {Index: 19, BaseSA: 4, Size: 1}},
		Samplers:   []gxp.DependentSampler{{Unit: 0, SAOffset: 0}},
		Output:     gxp.FragmentOutput{Type: gxp.F16, Components: 4},
		Inputs: []gxp.FragmentInput{
			{Info: 0x0080000f, SizeWord: 0x20}, // TEXCOORD0: f32 x3 in pa0..pa2
			{Info: 0x0000100f},                 // TEXCOORD1: f32 x1 in pa3
		}})
	var sky []byte
	for f := 0; f < 6; f++ {
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				c := skyTexel(f, x, y)
				sky = append(sky, c[:]...)
			}
		}
	}
	out["sky_f_tex.bin"] = sky
	// The outputs are buffers laid end to end: COLOR as f32 (16 bytes a
	// fragment), COLOR as uchar4 (4 bytes), DEPTH. Where a direction ties
	// two faces, exp_alt is the other face's texel.
	var skyDep []byte
	header := "addr\texp\texp_alt\n"
	colF, col8 := header, header
	row := func(addr int, exp, alt uint32) string {
		if alt == exp {
			return fmt.Sprintf("%#x\t%#08x\n", addr, exp)
		}
		return fmt.Sprintf("%#x\t%#08x\t%#08x\n", addr, exp, alt)
	}
	colour8At := 16 * len(skyDirs)
	for f, d := range skyDirs {
		c, alt := skyColour(d, true), skyColour(d, false)
		for k := 0; k < 4; k++ {
			colF += row(16*f+4*k, math.Float32bits(float32(c[k])/255), math.Float32bits(float32(alt[k])/255))
		}
		col8 += row(colour8At+4*f, binary.LittleEndian.Uint32(c[:]), binary.LittleEndian.Uint32(alt[:]))
		skyDep = append(skyDep, f32s(skyDepth[f]*uDepth[0]+uDepth[1])...)
	}
	out["sky_f_color.tsv"], out["sky_f_color8.tsv"], out["sky_f_depth.expected"] = []byte(colF), []byte(col8), skyDep
	var grey []byte
	for range 4 {
		grey = append(grey, skyFill, skyFill, skyFill, skyFill)
	}
	out["sky_f_fill_color8.expected"] = grey
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

// notApplicable lists the fields of the shared launch types (emu.Image,
// emu.MemImage) that shader launches refuse, with why; TestRefused checks
// that each is refused.
var notApplicable = map[string]string{
	"Image.buffer":     "shader textures are images of their own, not views of a buffer",
	"Image.layers":     "no texture arrays: 1D, 2D and cube textures only",
	"Image.levels":     "one level: SMP's LOD modes are read and ignored",
	"Image.mip_filter": "one level",
	"Image.border":     "no border address mode on the SGX543 model (clamp, wrap, mirror)",
	"Image.compare":    "no depth-compare sampling in the model",
	"Image.normalized": "shaders use normalised coordinates only: true is what happens anyway, false is refused",
	"MemImage.bank":    "banks are CUDA constant memory's; shaders reach global memory only",
}

// refusedValue is a value that shows each notApplicable field refused.
var refusedValue = map[string]any{
	"Image.buffer": "b", "Image.layers": 1, "Image.levels": 1, "Image.mip_filter": "linear",
	"Image.border": []float64{0}, "Image.compare": "less", "Image.normalized": false, "MemImage.bank": 1,
}

// launchTypes are the types of the shader launch format, by the JSON path
// that holds them.
var launchTypes = []reflect.Type{
	reflect.TypeOf(eusse.Launch{}), reflect.TypeOf(eusse.Values{}), reflect.TypeOf(eusse.Output{}),
	reflect.TypeOf(emu.Image{}), reflect.TypeOf(emu.MemImage{}), reflect.TypeOf(emu.Expect{}),
}

// namedOutputs are the values of Output.name: each needs an example too.
var namedOutputs = []string{"POSITION", "COLOR", "DEPTH"}

// fieldsUsed lists the fields (Type.field) and named outputs
// (Output.name=NAME) the launch files here use.
func fieldsUsed(t *testing.T) map[string]bool {
	used := map[string]bool{}
	mark := func(typ string, obj any) {
		m, ok := obj.(map[string]any)
		if !ok {
			return
		}
		for f := range m {
			used[typ+"."+f] = true
		}
		if typ == "Output" {
			if name, ok := m["name"].(string); ok {
				used["Output.name="+name] = true
			}
		}
	}
	for _, name := range launchFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		mark("Launch", v)
		for k, x := range v {
			switch k {
			case "uniforms", "attributes", "inputs":
				for _, val := range x.(map[string]any) {
					mark("Values", val)
				}
			case "textures":
				for _, val := range x.(map[string]any) {
					mark("Image", val)
				}
			case "outputs", "memory", "expect":
				typ := map[string]string{"outputs": "Output", "memory": "MemImage", "expect": "Expect"}[k]
				for _, o := range x.([]any) {
					mark(typ, o)
				}
			}
		}
	}
	return used
}

// TestEveryFieldHasAnExample: each field of the shader launch format (its
// own types Launch, Values and Output, and the shared Image, MemImage and
// Expect it holds), and each named output, is used by some example here,
// or is listed in notApplicable.
func TestEveryFieldHasAnExample(t *testing.T) {
	used := fieldsUsed(t)
	var missing []string
	for _, typ := range launchTypes {
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			key := typ.Name() + "." + name
			if used[key] && notApplicable[key] != "" {
				t.Errorf("%s is used by an example but listed as not applicable", key)
			}
			if !used[key] && notApplicable[key] == "" {
				missing = append(missing, key)
			}
		}
	}
	for _, n := range namedOutputs {
		if !used["Output.name="+n] {
			missing = append(missing, "Output.name="+n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("shader launch fields without an example here: %s", strings.Join(missing, ", "))
	}
}

// TestRefused: each notApplicable field, added to a working example, makes
// the launch fail with an error naming it.
func TestRefused(t *testing.T) {
	base, err := os.ReadFile("sky_f.json")
	if err != nil {
		t.Fatal(err)
	}
	for key := range notApplicable {
		typ, field, _ := strings.Cut(key, ".")
		var v map[string]any
		if err := json.Unmarshal(base, &v); err != nil {
			t.Fatal(err)
		}
		switch typ {
		case "Image":
			v["textures"].(map[string]any)["sky"].(map[string]any)[field] = refusedValue[key]
		case "MemImage":
			v["memory"] = []any{map[string]any{"addr": 0, "bytes": 4, field: refusedValue[key]}}
		default:
			t.Fatalf("%s: no way to add it", key)
		}
		data, _ := json.Marshal(v)
		l, err := eusse.ParseLaunch(data)
		if err == nil {
			_, err = eusse.Run(l, ".", eusse.Config{})
		}
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: launch error %v, want one refusing %s", key, err, field)
		}
	}
}
