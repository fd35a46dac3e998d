package maxwell

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// arg is a kernel argument for the test launcher: a buffer ([]byte, placed
// and passed as a pointer) or a scalar (uint32, int32, float32, uint64, float64).
type arg any

// run is a launch of one kernel.
type run struct {
	program []byte
	arch    string
	kernel  string
	grid    emu.Dim3
	block   emu.Dim3
	shared  int // dynamic shared bytes
	args    []arg
	steps   int64    // step limit (0: the default)
	serial  bool     // one block after the other, in order
	link    []Object // relocatable cubins to link (LinkImage)
}

// result is the launch's buffers after the run.
type result struct {
	bufs  [][]byte // per argument (nil for scalars)
	stats emu.Stats
}

func (r run) exec(t testing.TB) (*result, error) {
	t.Helper()
	k, cfg, places := r.prepare(t)
	st, err := emu.Run(cfg, k)
	res := &result{stats: st}
	for _, p := range places {
		if p.n == 0 {
			res.bufs = append(res.bufs, nil)
			continue
		}
		res.bufs = append(res.bufs, k.Global.Data[p.addr:p.addr+uint64(p.n)])
	}
	return res, err
}

// placed is where an argument's buffer went (n 0 for scalars).
type placed struct {
	addr uint64
	n    int
}

// prepare builds the kernel and configuration of a launch.
func (r run) prepare(t testing.TB) (*Kernel, emu.Config, []placed) {
	t.Helper()
	j := &emu.Job{}
	s := &emu.Setup{Arch: r.arch, Job: j, Grid: r.grid, Block: r.block, Buffers: map[string]emu.BufferPlace{}, SharedBytes: r.shared}
	next := uint64(256)
	var places []placed
	var global []byte
	for i, a := range r.args {
		var arg emu.Arg
		switch v := a.(type) {
		case []byte:
			name := "b" + strconv.Itoa(i)
			next = (next + 255) &^ 255
			s.Buffers[name] = emu.BufferPlace{Addr: next, Bytes: uint64(len(v))}
			places = append(places, placed{next, len(v)})
			for uint64(len(global)) < next+uint64(len(v)) {
				global = append(global, 0)
			}
			copy(global[next:], v)
			next += uint64(len(v))
			arg = emu.Ptr(name)
		case uint32:
			arg = emu.U32(v)
			places = append(places, placed{})
		case int32:
			arg = emu.S32(v)
			places = append(places, placed{})
		case uint64:
			arg = emu.U64(v)
			places = append(places, placed{})
		case float32:
			arg = emu.F32(v)
			places = append(places, placed{})
		case float64:
			arg = emu.F64(v)
			places = append(places, placed{})
		default:
			t.Fatalf("bad argument type %T", a)
		}
		j.Args = append(j.Args, arg)
	}
	s.Global = append(global, make([]byte, 4096)...)
	img, err := ProgramImage("test", r.program, r.kernel, r.arch)
	if r.link != nil {
		img, err = LinkImage("test", r.program, r.kernel, r.arch, r.link)
	}
	if err != nil {
		t.Fatalf("%s: %v", r.kernel, err)
	}
	k, err := NewKernel(s, img)
	if err != nil {
		t.Fatalf("%s: %v", r.kernel, err)
	}
	cfg := k.Config(s, img)
	cfg.MaxSteps = r.steps
	if r.serial {
		cfg.Workers = 1
	}
	return k, cfg, places
}

// oracleCubin reads a cubin of the shared oracle (the test skips without it).
func oracleCubin(t testing.TB, arch, name string) []byte {
	t.Helper()
	p := oracle.Path(t, filepath.Join("oracle/maxwell/cubin", arch, name))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// variants are the oracle builds every kernel runs in.
var variants = []struct{ arch, opt string }{
	{"sm_50", "O3"}, {"sm_50", "O0"}, {"sm_52", "O3"}, {"sm_52", "O0"}, {"sm_53", "O3"}, {"sm_53", "O0"},
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func fromU32(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func fromF32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// sameWords reports the first differing 32-bit word.
func sameWords(got, want []uint32) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d words, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("word %d: got %#x, want %#x", i, got[i], want[i])
		}
	}
	return nil
}
