package tesla

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/benchcpu"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// mxmSetup builds the FlexGripPlus tiled matrix multiply (CUDA SDK
// matrixMul, 32x32 tiles) for n x n matrices: C at 0, then A, then B.
func mxmSetup(tb testing.TB, n int) (*emu.Setup, []byte, []float32, []float32) {
	dir := oracle.Path(tb, "oracle/flexgrip-apps/mxm_tiled")
	code, err := os.ReadFile(filepath.Join(dir, "program.bin"))
	if err != nil {
		tb.Fatal(err)
	}
	c1, err := os.ReadFile(filepath.Join(dir, "const_c1.bin"))
	if err != nil {
		tb.Fatal(err)
	}
	bytes := uint64(4 * n * n)
	aAddr, bAddr := bytes, 2*bytes
	global := make([]byte, 3*bytes)
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float32, n*n)
	b := make([]float32, n*n)
	for i := range a {
		a[i] = float32(rng.IntN(17) - 8)
		b[i] = float32(rng.IntN(17) - 8)
		binary.LittleEndian.PutUint32(global[aAddr+uint64(4*i):], math.Float32bits(a[i]))
		binary.LittleEndian.PutUint32(global[bAddr+uint64(4*i):], math.Float32bits(b[i]))
	}
	params := make([]byte, 20)
	for i, v := range []uint32{0, uint32(aAddr), uint32(bAddr), uint32(n), uint32(n)} {
		binary.LittleEndian.PutUint32(params[4*i:], v)
	}
	s := &emu.Setup{
		Arch:   "sm_10",
		Grid:   emu.Dim3{uint32(n / 32), uint32(n / 32), 1},
		Block:  emu.Dim3{32, 32, 1},
		Global: global,
		Params: params,
	}
	s.Const[1] = c1
	return s, code, a, b
}

// BenchmarkMxM512 runs the FlexGripPlus tiled matrix multiply on 512x512
// matrices: 256 blocks of 1024 threads.
func BenchmarkMxM512(b *testing.B) {
	s, code, _, _ := mxmSetup(b, 512)
	if st := mxmSteps(b, s, code); st != 256*mxmBlockSteps {
		b.Fatalf("%d warp-instructions, want %d", st, 256*mxmBlockSteps)
	}
	b.ReportAllocs()
	var insts int64
	var secs float64
	cpu := benchcpu.Start(b)
	for b.Loop() {
		k, err := NewKernel(s, code)
		if err != nil {
			b.Fatal(err)
		}
		st, err := emu.Run(k.Config(s), k)
		if err != nil {
			b.Fatal(err)
		}
		insts += st.WarpInsts
		secs += st.Duration.Seconds()
	}
	b.ReportMetric(float64(insts)/secs/1e6, "Mwarp-inst/s")
	// the machine may be shared: also per CPU second (both cores count)
	cpu.Report(float64(insts)/float64(b.N)/1e6, "Mwarp-inst")
	b.ReportMetric(float64(insts)*32/secs/1e9, "Gthread-inst/s")
}

// TestMxMScaled checks the matrix multiply scaled to 128x128 (16 blocks run
// in parallel) against Go; small integers make every rounding model exact.
func TestMxMScaled(t *testing.T) {
	n := 128
	s, code, a, bm := mxmSetup(t, n)
	k, err := NewKernel(s, code)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := emu.Run(k.Config(s), k); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for j := range n {
			var sum float32
			for x := range n {
				sum += a[i*n+x] * bm[x*n+j]
			}
			got := math.Float32frombits(binary.LittleEndian.Uint32(k.Global.Data[4*(i*n+j):]))
			if got != sum {
				t.Fatalf("C[%d][%d] = %v, want %v", i, j, got, sum)
			}
		}
	}
}

// mxmBlockSteps is the warp-instructions of one 32x32 block of the 512x512
// multiply: 32 warps of 1757 (47 before the loop, 16 tiles of 106, 14 after),
// counted from the listing.
const mxmBlockSteps = 32 * (47 + 16*106 + 14)

func mxmSteps(tb testing.TB, s *emu.Setup, code []byte) int64 {
	k, err := NewKernel(s, code)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := emu.Run(k.Config(s), k)
	if err != nil {
		tb.Fatal(err)
	}
	return st.WarpInsts
}

// TestSchedulingIndependent: the same launch on 1 and 4 workers gives the
// same memory and the same counts.
func TestSchedulingIndependent(t *testing.T) {
	s, code, _, _ := mxmSetup(t, 128)
	var mems [][]byte
	var stats []emu.Stats
	for _, workers := range []int{1, 4} {
		k, err := NewKernel(s, code)
		if err != nil {
			t.Fatal(err)
		}
		cfg := k.Config(s)
		cfg.Workers = workers
		st, err := emu.Run(cfg, k)
		if err != nil {
			t.Fatal(err)
		}
		st.Duration = 0
		mems = append(mems, k.Global.Data)
		stats = append(stats, st)
	}
	if string(mems[0]) != string(mems[1]) || stats[0] != stats[1] {
		t.Fatalf("1 worker: %+v, 4 workers: %+v (memory equal: %v)", stats[0], stats[1], string(mems[0]) == string(mems[1]))
	}
}
