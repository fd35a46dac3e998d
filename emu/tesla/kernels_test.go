package tesla

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

var update = flag.Bool("update", false, "rewrite the committed saxpy example in testdata")

// Our own kernels (testdata/*.s, our assembler's syntax), run through launch
// files like `gpuisa run`, with the results computed here in Go.

func words(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func unwords(b []byte) []uint32 {
	v := make([]uint32, len(b)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}

// g80MAD is a*x+y as G80's FMAD computes it, with math/big: the product
// rounded toward zero to single precision, the sum to nearest.
func g80MAD(a, x, y float32) float32 {
	p := new(big.Float).SetPrec(24).SetMode(big.ToZero).Mul(big.NewFloat(float64(a)), big.NewFloat(float64(x)))
	s := new(big.Float).SetPrec(24).SetMode(big.ToNearestEven).Add(p, big.NewFloat(float64(y)))
	f, _ := s.Float32()
	return f
}

type kernelCase struct {
	name   string
	launch map[string]any
	files  map[string][]byte
	output string // buffer to compare
	want   []uint32
}

func saxpyCase(n int) kernelCase {
	rng := rand.New(rand.NewPCG(7, 11))
	x, y, want := make([]uint32, n), make([]uint32, n), make([]uint32, n)
	a := float32(1.7320508)
	for i := range n {
		fx, fy := float32(rng.NormFloat64()), float32(rng.NormFloat64())
		x[i], y[i] = math.Float32bits(fx), math.Float32bits(fy)
		want[i] = math.Float32bits(g80MAD(a, fx, fy))
	}
	return kernelCase{
		name: "saxpy",
		launch: map[string]any{
			"program": "saxpy.s", "arch": "sm_10", "grid": []int{(n + 127) / 128}, "block": []int{128},
			"buffers": map[string]any{"x": map[string]any{"file": "saxpy_x.bin"}, "y": map[string]any{"file": "saxpy_y.bin"}},
			"params":  []any{map[string]any{"ptr": "x"}, map[string]any{"ptr": "y"}, map[string]any{"f32": "1.7320508"}, map[string]any{"u32": n}},
			"outputs": []any{map[string]any{"buffer": "y", "file": "y.out.bin"}},
			"expect":  []any{map[string]any{"output": "y.out.bin", "file": "saxpy_expected.bin", "type": "f32", "max_ulp": 0}},
		},
		files:  map[string][]byte{"saxpy_x.bin": words(x), "saxpy_y.bin": words(y), "saxpy_expected.bin": words(want)},
		output: "y",
		want:   want,
	}
}

func collatzCase(n int) kernelCase {
	rng := rand.New(rand.NewPCG(3, 5))
	in, want := make([]uint32, n), make([]uint32, n)
	for i := range n {
		x := uint32(1 + rng.IntN(5000))
		in[i] = x
		steps := uint32(0)
		for x != 1 {
			if x&1 != 0 {
				x = 3*x + 1
			} else {
				x /= 2
			}
			steps++
		}
		want[i] = steps
	}
	return kernelCase{
		name: "collatz",
		launch: map[string]any{
			"program": "collatz.s", "arch": "sm_10", "grid": []int{(n + 63) / 64}, "block": []int{64},
			"buffers": map[string]any{"in": map[string]any{"file": "collatz_in.bin"}, "steps": map[string]any{"bytes": 4 * n}},
			"params":  []any{map[string]any{"ptr": "in"}, map[string]any{"ptr": "steps"}, map[string]any{"u32": n}},
		},
		files:  map[string][]byte{"collatz_in.bin": words(in)},
		output: "steps",
		want:   want,
	}
}

func blocksumCase(blocks int) kernelCase {
	rng := rand.New(rand.NewPCG(9, 9))
	in, want := make([]uint32, 64*blocks), make([]uint32, blocks)
	for i := range in {
		in[i] = rng.Uint32()
		want[i/64] += in[i]
	}
	return kernelCase{
		name: "blocksum",
		launch: map[string]any{
			"program": "blocksum.s", "arch": "sm_10", "grid": []int{blocks}, "block": []int{64},
			"buffers": map[string]any{"in": map[string]any{"file": "blocksum_in.bin"}, "out": map[string]any{"bytes": 4 * blocks, "fill": "0xff"}},
			"params":  []any{map[string]any{"ptr": "in"}, map[string]any{"ptr": "out"}},
		},
		files:  map[string][]byte{"blocksum_in.bin": words(in)},
		output: "out",
		want:   want,
	}
}

func TestKernels(t *testing.T) {
	for _, c := range []kernelCase{saxpyCase(1000), collatzCase(300), blocksumCase(37)} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src, err := os.ReadFile(filepath.Join("testdata", c.name+".s"))
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{c.name + ".s": src}
			for n, b := range c.files {
				files[n] = b
			}
			lj, err := json.MarshalIndent(c.launch, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			files["launch.json"] = lj
			for n, b := range files {
				if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := emu.LoadFile(filepath.Join(dir, "launch.json"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := RunSetup(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Check(out.Result); err != nil {
				t.Fatal(err)
			}
			buf := s.Buffers[c.output]
			got := unwords(out.Result.Global[buf.Addr : buf.Addr+buf.Bytes])
			for i := range c.want {
				if got[i] != c.want[i] {
					t.Fatalf("%s[%d] = %#x, want %#x", c.output, i, got[i], c.want[i])
				}
			}
			if c.name == "saxpy" && *update {
				for n, b := range files {
					if n == "saxpy.s" {
						continue
					}
					if n == "launch.json" {
						n = "saxpy.json"
					}
					if err := os.WriteFile(filepath.Join("testdata", n), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// TestCommittedSaxpy runs the committed example launch file.
func TestCommittedSaxpy(t *testing.T) {
	s, err := emu.LoadFile("testdata/saxpy.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunSetup(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Check(out.Result); err != nil || n != 1000 {
		t.Fatalf("Check = %d, %v", n, err)
	}
	if out.Stats.Blocks != 8 || out.Stats.Warps != 32 {
		t.Errorf("stats %+v", out.Stats)
	}
}

// TestCubinProgram runs the bundled vecadd cubin (examples/tesla), naming
// its kernel, with buffers the launcher places.
func TestCubinProgram(t *testing.T) {
	cub, err := filepath.Abs("../../examples/tesla/vecadd.cubin")
	if err != nil {
		t.Fatal(err)
	}
	n := 200
	a, b := make([]uint32, n), make([]uint32, n)
	for i := range n {
		a[i], b[i] = math.Float32bits(float32(i)), math.Float32bits(0.5)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{"a.bin": words(a), "b.bin": words(b)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	launch := `{"program": "` + cub + `", "arch": "sm_10", "kernel": "vecadd", "grid": [4], "block": [64],
		"buffers": {"a": {"file": "a.bin"}, "b": {"file": "b.bin"}, "c": {"bytes": 800, "fill": "0xff"}},
		"params": [{"ptr": "a"}, {"ptr": "b"}, {"ptr": "c"}, {"u32": 200}]}`
	if err := os.WriteFile(filepath.Join(dir, "l.json"), []byte(launch), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := emu.LoadFile(filepath.Join(dir, "l.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunSetup(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Buffers["c"]
	got := unwords(out.Result.Global[c.Addr : c.Addr+c.Bytes])
	for i := range n {
		if want := math.Float32bits(float32(i) + 0.5); got[i] != want {
			t.Fatalf("c[%d] = %#x, want %#x", i, got[i], want)
		}
	}
	s.Job.Program.Kernel = "nosuch"
	if _, err := RunSetup(s, nil); err == nil {
		t.Error("a missing kernel name was accepted")
	}
}

// TestListingFunction: "kernel" picks one function out of a listing.
func TestListingFunction(t *testing.T) {
	src := []byte("\tcode for sm_10\n\t\tFunction : one\n\tMVI R1, 0x1;\n\tRET;\n\t\tFunction : two\n\tMVI R1, 0x2;\n\tRET;\n")
	for kernel, want := range map[string]byte{"one": 1, "two": 2} {
		img, err := ProgramImage("l.s", src, kernel, "sm_10")
		if err != nil {
			t.Fatal(err)
		}
		if len(img.Code) != 16 {
			t.Fatalf("%s: %d bytes, want one function's 16", kernel, len(img.Code))
		}
		p, err := Lower(img.Code)
		if err != nil {
			t.Fatal(err)
		}
		if text := p.Text(0); text != "MVI R1, 0x"+string('0'+want)+";" {
			t.Errorf("%s: first instruction %q", kernel, text)
		}
	}
	if _, err := ProgramImage("l.s", src, "three", "sm_10"); err == nil {
		t.Error("a missing function was accepted")
	}
}
