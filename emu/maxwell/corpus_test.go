package maxwell

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
)

// The corpus (testdata/corpus): kernels of our own in the style of public
// GPU benchmark suites, compiled by nvcc 11.8 (testdata/corpus/build.sh),
// each run against an independent Go reference of its algorithm on random
// inputs with fixed seeds: exact for integers, error bounds for floats.

// corpusBuild is one compilation of the corpus sources.
type corpusBuild struct{ arch, opt string }

// corpusBuilds: -O3 and ptxas -O0 for every Maxwell, -G (debug) for sm_52.
var corpusBuilds = []corpusBuild{
	{"sm_50", "O3"}, {"sm_50", "O0"}, {"sm_52", "O3"}, {"sm_52", "O0"}, {"sm_53", "O3"}, {"sm_53", "O0"}, {"sm_52", "G"},
}

// forCorpus runs f on every build of testdata/corpus/src.cu.
func forCorpus(t *testing.T, src string, f func(t *testing.T, d *device)) {
	for _, b := range corpusBuilds {
		t.Run(b.arch+"."+b.opt, func(t *testing.T) {
			prog, err := os.ReadFile(filepath.Join("testdata", "corpus", src+"."+b.arch+"."+b.opt+".cubin"))
			if err != nil {
				t.Fatal(err)
			}
			f(t, newDevice(t, prog, b.arch))
		})
	}
}

// device is global memory that persists across launches of one program's
// kernels, as a host program's allocations do.
type device struct {
	t      testing.TB
	prog   []byte
	arch   string
	global []byte
	bufs   map[string]emu.BufferPlace
	konst  [16][]byte // constant banks the launches override (__constant__ data)
	images map[string]*Image
	stats  emu.Stats
	trace  io.Writer // when set, launches trace every instruction
}

// buf names a device buffer as a kernel argument.
type buf string

func newDevice(t testing.TB, prog []byte, arch string) *device {
	return &device{t: t, prog: prog, arch: arch, global: make([]byte, 256), bufs: map[string]emu.BufferPlace{}, images: map[string]*Image{}}
}

// alloc places a buffer holding data (256-byte aligned, as cudaMalloc).
func (d *device) alloc(name string, data []byte) {
	at := (uint64(len(d.global)) + 255) &^ 255
	d.global = append(d.global, make([]byte, int(at)-len(d.global))...)
	d.global = append(d.global, data...)
	d.bufs[name] = emu.BufferPlace{Addr: at, Bytes: uint64(len(data))}
}

// get is the buffer's current contents (a copy).
func (d *device) get(name string) []byte {
	p, ok := d.bufs[name]
	if !ok {
		d.t.Fatalf("no buffer %q", name)
	}
	return append([]byte(nil), d.global[p.Addr:p.Addr+p.Bytes]...)
}

// set overwrites the buffer's contents (a cudaMemcpy to the device).
func (d *device) set(name string, data []byte) {
	p := d.bufs[name]
	copy(d.global[p.Addr:p.Addr+p.Bytes], data)
}

// word reads the i-th 32-bit word of a buffer.
func (d *device) word(name string, i int) uint32 {
	p := d.bufs[name]
	return binary.LittleEndian.Uint32(d.global[p.Addr+4*uint64(i):])
}

// launch runs kernel on the device memory; args are buf names or scalars
// (uint32, int32, float32, uint64, float64).
func (d *device) launch(kernel string, grid, block emu.Dim3, shared int, args ...any) {
	d.t.Helper()
	if err := d.tryLaunch(kernel, grid, block, shared, args...); err != nil {
		d.t.Fatalf("%s: %v", kernel, err)
	}
}

func (d *device) tryLaunch(kernel string, grid, block emu.Dim3, shared int, args ...any) error {
	l := &emu.Launch{Arch: d.arch, Kernel: kernel}
	for i, a := range args {
		num := func(v string) *emu.Num { return &emu.Num{Text: v} }
		var p emu.Param
		switch v := a.(type) {
		case buf:
			name := string(v)
			if _, ok := d.bufs[name]; !ok {
				return fmt.Errorf("argument %d: no buffer %q", i, name)
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
			return fmt.Errorf("argument %d: type %T", i, a)
		}
		l.Params = append(l.Params, p)
	}
	img, ok := d.images[kernel]
	if !ok {
		var err error
		if img, err = ProgramImage("corpus", d.prog, kernel, d.arch); err != nil {
			return err
		}
		d.images[kernel] = img
	}
	s := &emu.Setup{Launch: l, Grid: grid, Block: block, Global: d.global, Const: d.konst, Buffers: d.bufs, SharedBytes: shared}
	k, err := NewKernel(s, img)
	if err != nil {
		return err
	}
	cfg := k.Config(s, img)
	cfg.Trace = d.trace
	st, err := emu.Run(cfg, k)
	copy(d.global, k.Global.Data)
	d.stats.WarpInsts += st.WarpInsts
	d.stats.Warps += st.Warps
	return err
}

// grid1 is the number of blocks of size bs covering n.
func grid1(n, bs int) emu.Dim3 { return emu.Dim3{uint32((n + bs - 1) / bs), 1, 1} }

func dim(x, y int) emu.Dim3 { return emu.Dim3{uint32(x), uint32(y), 1} }

func fromI32(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func i32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func fromU64(v []uint64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}

func u64s(b []byte) []uint64 {
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

// diffs collects the first few differences of a comparison.
type diffs struct {
	what  string
	n     int
	first []string
}

func (d *diffs) add(format string, args ...any) {
	d.n++
	if len(d.first) < 6 {
		d.first = append(d.first, fmt.Sprintf(format, args...))
	}
}

func (d *diffs) report(t testing.TB, total int) {
	t.Helper()
	if d.n > 0 {
		t.Errorf("%s: %d of %d differ: %v", d.what, d.n, total, d.first)
	}
}

// sameInts compares 32-bit words exactly.
func sameInts[T int32 | uint32](t testing.TB, what string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	d := diffs{what: what}
	for i := range got {
		if got[i] != want[i] {
			d.add("[%d] got %d want %d", i, got[i], want[i])
		}
	}
	d.report(t, len(got))
}

// u is the unit roundoff of f32.
const u32f = 1.0 / (1 << 24)

// closeF32 checks |got-want| <= bound per element (want exact, bound from
// the algorithm's forward error analysis).
func closeF32(t testing.TB, what string, got []float32, want, bound []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	d := diffs{what: what}
	for i := range got {
		g := float64(got[i])
		if math.IsNaN(g) || math.Abs(g-want[i]) > bound[i] {
			d.add("[%d] got %g want %g (error %.3g > %.3g)", i, g, want[i], math.Abs(g-want[i]), bound[i])
		}
	}
	d.report(t, len(got))
}

// setConst writes a __constant__ variable (a cudaMemcpyToSymbol): its bank
// and offset come from the cubin's symbol table.
func (d *device) setConst(symbol string, data []byte) {
	d.t.Helper()
	f, err := cubin.Parse(d.prog)
	if err != nil {
		d.t.Fatal(err)
	}
	for _, s := range f.Symbols {
		if s.Name != symbol || int(s.Section) >= len(f.Sections) {
			continue
		}
		sec := f.Sections[s.Section]
		bank, err := strconv.Atoi(strings.TrimPrefix(sec.Name, ".nv.constant"))
		if err != nil || bank < 0 || bank >= len(d.konst) || s.Value+uint64(len(data)) > uint64(len(sec.Data)) {
			d.t.Fatalf("%s: in section %s", symbol, sec.Name)
		}
		if d.konst[bank] == nil {
			d.konst[bank] = append([]byte(nil), sec.Data...)
		}
		copy(d.konst[bank][s.Value:], data)
		return
	}
	d.t.Fatalf("no symbol %s", symbol)
}
