package usse

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// The libvita2d shaders (xerpi/libvita2d, MIT; compiled by psp2cgc) run on
// random inputs through launch files built in Go, against Go references of
// their Cg sources (written here from the Cg, see the .cg files beside the
// GXPs in the oracle).

func nums(x []float64) []emu.Num {
	out := make([]emu.Num, len(x))
	for i, v := range x {
		out[i] = emu.Num{Text: strconv.FormatFloat(v, 'g', -1, 64)}
	}
	return out
}

func randVals(r *rand.Rand, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*r.Float64()
	}
	return v
}

// runVita2d runs one libvita2d shader launch and returns each output's
// floats.
func runVita2d(t *testing.T, l *Launch) map[string][]float32 {
	t.Helper()
	l.Program = oracle.Path(t, filepath.Join("oracle/usse/libvita2d", l.Program))
	l.Arch = Arch
	o, err := Run(l, t.TempDir(), Config{})
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(l.Program), err)
	}
	out := map[string][]float32{}
	for _, x := range l.Outputs {
		b, err := o.Setup.OutputBytes(emu.Output{Buffer: x.File}, o.Result)
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float32, len(b)/4)
		for i := range f {
			f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		out[x.File] = f
	}
	return out
}

// near checks got against want within a relative tolerance (and abs near 0).
func near(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range want {
		d := math.Abs(float64(got[i]) - want[i])
		if d > tol*math.Max(1, math.Abs(want[i])) {
			if bad++; bad <= 5 {
				t.Errorf("%s[%d] = %g, reference %g", what, i, got[i], want[i])
			}
		}
	}
}

const (
	tolF32 = 1e-6 // f32 arithmetic, order of operations
	tolF16 = 1e-3 // one f16 rounding (2^-11) of the result
)

// mulRow is Cg's mul(v, M) for a row vector and a row-major float4x4: the
// uniform's registers hold the rows.
func mulRow(v [4]float64, m []float64) [4]float64 {
	var r [4]float64
	for j := 0; j < 4; j++ {
		for i := 0; i < 4; i++ {
			r[j] += v[i] * m[4*i+j]
		}
	}
	return r
}

func TestVita2dClearV(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 257
	pos := randVals(r, 2*n, -100, 100)
	out := runVita2d(t, &Launch{Program: "clear_v.gxp",
		Attributes: map[string]Values{"aPosition": {Nums: nums(pos), Components: emu.Num{Text: "2"}}},
		Outputs:    []Output{{Name: "POSITION", File: "pos"}}})
	var want []float64
	for i := 0; i < n; i++ { // float4(aPosition, 1.f, 1.f)
		want = append(want, pos[2*i], pos[2*i+1], 1, 1)
	}
	near(t, "clear_v POSITION", out["pos"], want, tolF32)
}

func TestVita2dColorV(t *testing.T) {
	for _, name := range []string{"color_v.gxp", "texture_v.gxp"} {
		r := rand.New(rand.NewPCG(3, uint64(len(name))))
		const n = 100
		pos := randVals(r, 3*n, -10, 10)
		attr := randVals(r, 4*n, 0, 1)
		wvp := randVals(r, 16, -2, 2)
		second, comps := "aColor", 4
		if name == "texture_v.gxp" {
			second, comps = "aTexcoord", 2
			attr = attr[:2*n]
		}
		out := runVita2d(t, &Launch{Program: name,
			Uniforms: map[string]Values{"wvp": {Nums: nums(wvp)}},
			Attributes: map[string]Values{
				"aPosition": {Nums: nums(pos), Components: emu.Num{Text: "3"}},
				second:      {Nums: nums(attr), Components: emu.Num{Text: strconv.Itoa(comps)}}},
			Outputs: []Output{{Name: "POSITION", File: "pos"}, {Reg: "o4", Components: emu.Num{Text: strconv.Itoa(comps)}, File: "v"}}})
		var wantPos, wantV []float64
		for i := 0; i < n; i++ { // vPosition = mul(float4(aPosition, 1.f), wvp); vColor/vTexcoord = input
			p := mulRow([4]float64{pos[3*i], pos[3*i+1], pos[3*i+2], 1}, wvp)
			wantPos = append(wantPos, p[:]...)
			wantV = append(wantV, attr[comps*i:comps*(i+1)]...)
		}
		near(t, name+" POSITION", out["pos"], wantPos, 1e-5)
		near(t, name+" varying", out["v"], wantV, tolF32)
	}
}

func TestVita2dColorF(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 64
	col := randVals(r, 4*n, 0, 1)
	out := runVita2d(t, &Launch{Program: "color_f.gxp",
		Inputs:  map[string]Values{"COLOR0": {Nums: nums(col)}},
		Outputs: []Output{{Name: "COLOR", File: "c"}}})
	near(t, "color_f COLOR", out["c"], col, tolF16) // return vColor (as half)
}

func TestVita2dClearF(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	col := randVals(r, 4, -2, 2)
	out := runVita2d(t, &Launch{Program: "clear_f.gxp", Count: emu.Num{Text: "5"},
		Uniforms: map[string]Values{"uClearColor": {Nums: nums(col)}},
		Outputs:  []Output{{Name: "COLOR", File: "c"}}})
	var want []float64
	for i := 0; i < 5; i++ { // return uClearColor
		want = append(want, col...)
	}
	near(t, "clear_f COLOR", out["c"], want, tolF16)
}

func TestVita2dTextureF(t *testing.T) {
	for _, name := range []string{"texture_f.gxp", "texture_tint_f.gxp"} {
		r := rand.New(rand.NewPCG(9, uint64(len(name))))
		const w, h, n = 8, 4, 200
		texels := make([]byte, w*h*4)
		for i := range texels {
			texels[i] = byte(r.IntN(256))
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "tex.bin")
		if err := os.WriteFile(file, texels, 0o644); err != nil {
			t.Fatal(err)
		}
		uv := randVals(r, 2*n, -0.5, 1.5)
		tint := randVals(r, 4, 0, 2)
		l := &Launch{Program: name,
			Inputs:   map[string]Values{"TEXCOORD0": {Nums: nums(uv)}},
			Textures: map[string]emu.Image{"tex": {File: file, Format: "rgba8unorm", Size: nums([]float64{w, h}), Address: []string{"wrap", "clamp"}}},
			Outputs:  []Output{{Name: "COLOR", File: "c"}}}
		if name == "texture_tint_f.gxp" {
			l.Uniforms = map[string]Values{"uTintColor": {Nums: nums(tint)}}
		}
		out := runVita2d(t, l)
		tx := &Texture{Width: w, Height: h, Data: texels, Wrap: [2]string{"wrap", "clamp"}}
		var want []float64
		for i := 0; i < n; i++ { // tex2D(tex, vTexcoord) [* uTintColor]
			c := tx.Sample(float32(uv[2*i]), float32(uv[2*i+1]))
			for k := range c {
				x := float64(c[k])
				if name == "texture_tint_f.gxp" {
					x *= tint[k]
				}
				want = append(want, x)
			}
		}
		near(t, name+" COLOR", out["c"], want, tolF16)
	}
}
