package fermi

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// device is an emu.Device running this package's emulator: global memory
// and buffers shared by a sequence of launches, as a host program's
// allocations are.
type device struct {
	dev    *emu.Device
	allocs []emu.Alloc // buffers not placed yet
	placed []string
	res    *emu.Result
	progs  map[string]*emu.Program // read and lowered once, as a Device does for one *Program
}

func newDevice() *device {
	return &device{dev: emu.NewDevice([]emu.Emulator{Emulator()}), progs: map[string]*emu.Program{}}
}

// alloc adds a buffer, placed by the next launch.
func (d *device) alloc(name string, data []byte) {
	d.allocs = append(d.allocs, emu.Alloc{Name: name, Data: data})
}

// bytes is a buffer's current contents.
func (d *device) bytes(name string) []byte {
	b, err := d.dev.Buffer(name)
	if err != nil {
		panic(err)
	}
	return b
}

// buf names a buffer as a pointer parameter.
type buf string

// launch is one kernel launch.
type launch struct {
	program  []byte // raw code or a listing
	kernel   string
	grid     emu.Dim3
	block    emu.Dim3
	shared   int // dynamic shared bytes (0: 48 KiB for raw code)
	params   []any
	textures []emu.TexImage
	steps    int64
	serial   bool
}

// run runs a launch on the device.
func (d *device) run(t testing.TB, l launch) (emu.Stats, error) {
	t.Helper()
	j := d.job(t, l)
	res, err := d.dev.Run(j)
	if res == nil {
		if err == nil {
			err = fmt.Errorf("no result")
		}
		t.Fatalf("%s: %v", l.kernel, err)
	}
	d.res = res
	return res.Stats, err
}

// job makes the emu.Job of a launch: buffers not yet placed go with it.
func (d *device) job(t testing.TB, l launch) *emu.Job {
	t.Helper()
	key := l.kernel + "\x00" + string(l.program)
	p := d.progs[key]
	if p == nil {
		p = &emu.Program{Name: "test", Data: l.program, Arch: "sm_20", Kernel: l.kernel}
		d.progs[key] = p
	}
	j := &emu.Job{Program: p,
		Grid: l.grid, Block: l.block, SharedBytes: l.shared, MaxSteps: l.steps, Textures: l.textures}
	if l.serial {
		j.Workers = 1
	}
	for _, name := range d.placed {
		j.Buffers = append(j.Buffers, emu.Alloc{Name: name})
	}
	for _, a := range d.allocs {
		j.Buffers = append(j.Buffers, a)
		d.placed = append(d.placed, a.Name)
	}
	d.allocs = nil
	for _, a := range l.params {
		switch v := a.(type) {
		case buf:
			j.Args = append(j.Args, emu.Ptr(string(v)))
		case uint32:
			j.Args = append(j.Args, emu.U32(v))
		case int32:
			j.Args = append(j.Args, emu.S32(v))
		case int:
			j.Args = append(j.Args, emu.S32(int32(v)))
		case uint64:
			j.Args = append(j.Args, emu.U64(v))
		case float32:
			j.Args = append(j.Args, emu.F32(v))
		case float64:
			j.Args = append(j.Args, emu.F64(v))
		default:
			t.Fatalf("bad parameter type %T", a)
		}
	}
	return j
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

func fromU64(v []uint64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
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

func fromF64(v []float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func f64s(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// sameWords reports the first differing 32-bit word.
func sameWords(got, want []uint32) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d words, want %d", len(got), len(want))
	}
	n := 0
	first := -1
	for i := range got {
		if got[i] != want[i] {
			n++
			if first < 0 {
				first = i
			}
		}
	}
	if n > 0 {
		return fmt.Errorf("%d of %d words differ; word %d: got %#x, want %#x", n, len(got), first, got[first], want[first])
	}
	return nil
}
