package maxwell

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// ownCubin reads one of our committed cubins (testdata/gen.sh builds them).
func ownCubin(t testing.TB, arch string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "kernels."+arch+".cubin"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var archs = []string{"sm_50", "sm_52", "sm_53"}

func TestOwnSaxpy(t *testing.T) {
	for _, arch := range archs {
		rng := rand.New(rand.NewPCG(31, 32))
		const n = 5000
		x, y := randF32(rng, n), randF32(rng, n)
		r := run{program: ownCubin(t, arch), arch: arch, kernel: "saxpy", grid: emu.Dim3{7, 1, 1}, block: emu.Dim3{128, 1, 1},
			args: []arg{uint32(n), float32(-0.75), fromF32(x), fromF32(y)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(arch, err)
		}
		want := make([]float32, n)
		for i := range want {
			want[i] = float32(math.FMA(-0.75, float64(x[i]), float64(y[i])))
		}
		if err := sameWords(u32s(res.bufs[3]), u32s(fromF32(want))); err != nil {
			t.Fatal(arch, err)
		}
	}
}

func TestOwnReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	const blocks = 9
	in := make([]uint32, 256*blocks)
	for i := range in {
		in[i] = rng.Uint32()
	}
	r := run{program: ownCubin(t, "sm_52"), arch: "sm_52", kernel: "reduce", grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{256, 1, 1},
		args: []arg{fromU32(in), make([]byte, 4*blocks)}}
	res, err := r.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint32, blocks)
	for i, v := range in {
		want[i/256] += v
	}
	if err := sameWords(u32s(res.bufs[1]), want); err != nil {
		t.Fatal(err)
	}
}

func TestOwnWarpsum(t *testing.T) {
	const n = 96
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i * i)
	}
	r := run{program: ownCubin(t, "sm_53"), arch: "sm_53", kernel: "warpsum", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
		args: []arg{fromU32(in), make([]byte, 4*n)}}
	res, err := r.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	got := u32s(res.bufs[1])
	for w := 0; w < n/32; w++ {
		var sum uint32
		for _, v := range in[32*w : 32*w+32] {
			sum += v
		}
		for l := range 32 {
			if got[32*w+l] != sum {
				t.Fatalf("thread %d: got %d, want %d", 32*w+l, got[32*w+l], sum)
			}
		}
	}
}

// TestFaults: bad kernels stop with a *emu.Fault that names the block,
// thread, pc and instruction.
func TestFaults(t *testing.T) {
	prog := ownCubin(t, "sm_52")
	cases := []struct {
		name string
		r    run
		is   error
		want []string
	}{
		{"out of bounds", run{kernel: "loadat", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1},
			args: []arg{make([]byte, 64), make([]byte, 4), uint32(1 << 24)}}, nil, []string{"LDG.E", "block (0,0,0)", "global"}},
		{"misaligned", run{kernel: "loadat", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1},
			args: []arg{make([]byte, 64), make([]byte, 4), uint32(2)}}, nil, []string{"LDG.E", "thread (0,0,0)"}},
		{"step limit", run{kernel: "spin", grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{32, 1, 1}, steps: 10000,
			args: []arg{make([]byte, 4), uint32(1)}}, emu.ErrStepLimit, []string{"block (0,0,0)"}},
		{"deadlock", run{kernel: "deadlock", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{64, 1, 1}}, emu.ErrDeadlock, []string{"BAR.SYNC"}},
	}
	for _, c := range cases {
		c.r.program, c.r.arch = prog, "sm_52"
		_, err := c.r.exec(t)
		var f *emu.Fault
		if !errors.As(err, &f) {
			t.Fatalf("%s: got %v, want a fault", c.name, err)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.is)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", c.name, err, w)
			}
		}
	}
}

// TestInvalidInstruction: a word that decodes to nothing faults when reached.
func TestInvalidInstruction(t *testing.T) {
	prog := append([]byte(nil), ownCubin(t, "sm_52")...)
	img, err := ProgramImage("k", prog, "spin", "sm_52")
	if err != nil {
		t.Fatal(err)
	}
	// the first instruction of spin (after its control word) becomes all ones
	off := bytes.Index(prog, img.Code)
	binary.LittleEndian.PutUint64(prog[off+8:], ^uint64(0))
	r := run{program: prog, arch: "sm_52", kernel: "spin", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1}, args: []arg{make([]byte, 4), uint32(0)}}
	_, err = r.exec(t)
	var f *emu.Fault
	if !errors.As(err, &f) || f.PC != 8 || !strings.Contains(err.Error(), "invalid instruction") {
		t.Fatalf("got %v, want an invalid-instruction fault at 0x8", err)
	}
}

// TestOwnCubinsUpToDate rebuilds the committed cubins with ptxas when it is
// installed.
func TestOwnCubinsUpToDate(t *testing.T) {
	nb := newNVBuilder(t, "ptxas", "gen.sh")
	for _, arch := range archs {
		nb.build("kernels."+arch+".cubin", "ptxas", "-arch", arch, "-O3", testdataPTX("kernels"))
	}
}

// TestOwnGlobalVariable: a __device__ variable, relocated into the code,
// hands every thread a distinct ticket.
func TestOwnGlobalVariable(t *testing.T) {
	const n = 200
	r := run{program: ownCubin(t, "sm_50"), arch: "sm_50", kernel: "ticket", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{n, 1, 1},
		args: []arg{make([]byte, 4*n)}}
	res, err := r.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, n)
	for i, v := range u32s(res.bufs[0]) {
		if v >= n || seen[v] {
			t.Fatalf("thread %d got ticket %d", i, v)
		}
		seen[v] = true
	}
}

// TestNoAllocationsPerInstruction: a launch allocates a fixed amount (the
// engine's blocks and goroutines), however many instructions it runs.
func TestNoAllocationsPerInstruction(t *testing.T) {
	allocs := func(blocks uint32) (float64, int64) {
		r := run{program: ownCubin(t, "sm_52"), arch: "sm_52", kernel: "reduce", grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{256, 1, 1},
			args: []arg{make([]byte, 4*256*int(blocks)), make([]byte, 4*int(blocks))}}
		k, cfg, _ := r.prepare(t)
		cfg.Workers = 1
		var insts int64
		a := testing.AllocsPerRun(3, func() {
			st, err := emu.Run(cfg, k)
			if err != nil {
				t.Fatal(err)
			}
			insts = st.WarpInsts
		})
		return a, insts
	}
	small, n1 := allocs(1)
	large, n2 := allocs(64)
	if large > small+2 {
		t.Errorf("%v allocations for %d warp-instructions, %v for %d", small, n1, large, n2)
	}
}

// TestFatbin picks the launch's architecture out of a fatbin.
func TestFatbin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "kernels.fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"sm_50", "sm_53"} {
		img, err := ProgramImage("kernels.fatbin", data, "warpsum", arch)
		if err != nil {
			t.Fatal(arch, err)
		}
		want, _ := ProgramImage("k", ownCubin(t, arch), "warpsum", arch)
		if !bytes.Equal(img.Code, want.Code) {
			t.Errorf("%s: the fatbin's code differs from the cubin's", arch)
		}
	}
	if _, err := ProgramImage("kernels.fatbin", data, "warpsum", "sm_52"); err == nil || !strings.Contains(err.Error(), "no sm_52") {
		t.Errorf("sm_52 from a fatbin without it: %v", err)
	}
}
