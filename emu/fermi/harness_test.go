package fermi

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// device is global memory shared by a sequence of launches, as a host
// program's allocations are.
type device struct {
	global []byte
	bufs   map[string]emu.BufferPlace
	next   uint64
}

func newDevice() *device {
	return &device{bufs: map[string]emu.BufferPlace{}, next: 256}
}

// alloc places a buffer (256-aligned, as the launcher does).
func (d *device) alloc(name string, data []byte) {
	d.next = (d.next + 255) &^ 255
	d.bufs[name] = emu.BufferPlace{Addr: d.next, Bytes: uint64(len(data))}
	for uint64(len(d.global)) < d.next+uint64(len(data)) {
		d.global = append(d.global, make([]byte, 4096)...)
	}
	copy(d.global[d.next:], data)
	d.next += max(uint64(len(data)), 1)
}

// bytes is a buffer's current contents.
func (d *device) bytes(name string) []byte {
	b := d.bufs[name]
	return d.global[b.Addr : b.Addr+b.Bytes]
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
	textures map[string]emu.Image
	steps    int64
	serial   bool
	addrBits int // the program's address width (0: from the code)
}

// run runs a launch on the device's memory and keeps its global memory.
func (d *device) run(t testing.TB, l launch) (emu.Stats, error) {
	t.Helper()
	k, cfg := d.prepare(t, l)
	st, err := emu.Run(cfg, k)
	copy(d.global, k.Global.Data)
	return st, err
}

func (d *device) prepare(t testing.TB, l launch) (*Kernel, emu.Config) {
	t.Helper()
	if l.grid == (emu.Dim3{}) {
		l.grid = emu.Dim3{1, 1, 1}
	}
	if l.block == (emu.Dim3{}) {
		l.block = emu.Dim3{32, 1, 1}
	}
	ln := &emu.Launch{Arch: "sm_20", Kernel: l.kernel, Textures: l.textures}
	s := &emu.Setup{Launch: ln, Grid: l.grid, Block: l.block, Buffers: d.bufs, SharedBytes: l.shared,
		Global: append(d.global, make([]byte, 4096)...)}
	num := func(v string) *emu.Num { return &emu.Num{Text: v} }
	for _, a := range l.params {
		var p emu.Param
		switch v := a.(type) {
		case buf:
			name := string(v)
			if _, ok := d.bufs[name]; !ok {
				t.Fatalf("no buffer %q", name)
			}
			p.Ptr = &name
		case uint32:
			p.U32 = num(strconv.FormatUint(uint64(v), 10))
		case int32:
			p.S32 = num(strconv.FormatInt(int64(v), 10))
		case int:
			p.S32 = num(strconv.Itoa(v))
		case uint64:
			p.U64 = num(strconv.FormatUint(v, 10))
		case float32:
			p.F32 = num(strconv.FormatFloat(float64(v), 'g', -1, 32))
		case float64:
			p.F64 = num(strconv.FormatFloat(v, 'g', -1, 64))
		default:
			t.Fatalf("bad parameter type %T", a)
		}
		ln.Params = append(ln.Params, p)
	}
	img, err := ProgramImage("test", l.program, l.kernel, "sm_20")
	if err != nil {
		t.Fatalf("%s: %v", l.kernel, err)
	}
	img.AddrBits = l.addrBits
	k, err := NewKernel(s, img)
	if err != nil {
		t.Fatalf("%s: %v", l.kernel, err)
	}
	cfg := k.Config(s, img)
	cfg.MaxSteps = l.steps
	if l.serial {
		cfg.Workers = 1
	}
	return k, cfg
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
