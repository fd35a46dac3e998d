package maxwell

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
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

// parallelWarps: the builds whose blocks run their warps in parallel
// rounds from the first instruction (emu/parallel.go), which must give
// exactly the results of the usual schedule.
// (Not under go test -race: a benign race, such as BFS's same-value
// writes, runs optimistically in a round, which the detector reports,
// before the round goes back.)
func (b corpusBuild) parallelWarps() bool {
	return !raceDetector && (b == corpusBuild{"sm_53", "O3"} || b == corpusBuild{"sm_52", "O0"})
}

// checked: the builds whose launches also run the sanitizer's checks,
// which must find nothing in these correct kernels.
func (b corpusBuild) checked() bool {
	return b == corpusBuild{"sm_52", "O3"} || b == corpusBuild{"sm_50", "O0"} || b == corpusBuild{"sm_52", "G"}
}

// forCorpus runs f on every build of testdata/corpus/src.cu.
func forCorpus(t *testing.T, src string, f func(t *testing.T, d *device)) {
	for _, b := range corpusBuilds {
		t.Run(b.arch+"."+b.opt, func(t *testing.T) {
			prog, err := os.ReadFile(filepath.Join("testdata", "corpus", src+"."+b.arch+"."+b.opt+".cubin"))
			if err != nil {
				t.Fatal(err)
			}
			d := newDevice(t, prog, b.arch)
			if b.checked() {
				d.check = emu.CheckMemory | emu.CheckRace | emu.CheckInit
			}
			if b.parallelWarps() {
				d.warpCores = 2
			}
			f(t, d)
		})
	}
}

// device is a host program's view of the GPU for the corpus: an
// emu.Device (global memory that persists across launches, programs read
// once) and the buffers and constant data the next launch passes.
type device struct {
	t       testing.TB
	prog    []byte
	arch    string
	dev     *emu.Device
	progs   map[string]*emu.Program // per kernel
	names   []string                // the buffers, in the order of allocation
	pending map[string][]byte       // new contents for the next launch
	konst   []emu.Placement         // __constant__ data, for every launch
	stats   emu.Stats
	trace   io.Writer    // when set, launches trace every instruction
	check   emu.CheckSet // sanitizer checks: a report fails the launch
	// findings are the last launch's reports; with keepFindings they do
	// not fail it
	findings     []emu.Finding
	keepFindings bool
	schedule     emu.Schedule
	warpCores    int // > 1: parallel rounds from the first instruction
}

// buf names a device buffer as a kernel argument.
type buf string

func newDevice(t testing.TB, prog []byte, arch string) *device {
	return &device{t: t, prog: prog, arch: arch, dev: emu.NewDevice([]emu.Emulator{Emulator()}),
		progs: map[string]*emu.Program{}, pending: map[string][]byte{}}
}

// alloc makes a buffer holding data (placed by the next launch, 256-byte
// aligned as cudaMalloc's).
func (d *device) alloc(name string, data []byte) {
	if !slices.Contains(d.names, name) {
		d.names = append(d.names, name)
	}
	d.pending[name] = data
}

// get is the buffer's current contents (a copy).
func (d *device) get(name string) []byte {
	d.t.Helper()
	if b, ok := d.pending[name]; ok { // what the next launch copies in
		return append([]byte(nil), b...)
	}
	b, err := d.dev.Buffer(name)
	if err != nil {
		d.t.Fatal(err)
	}
	return b
}

// set overwrites the buffer's contents before the next launch (a
// cudaMemcpy to the device).
func (d *device) set(name string, data []byte) { d.alloc(name, data) }

// word reads the i-th 32-bit word of a buffer.
func (d *device) word(name string, i int) uint32 {
	return binary.LittleEndian.Uint32(d.get(name)[4*i:])
}

// launch runs kernel on the device memory; args are buf names or scalars
// (uint32, int32, int, float32, uint64, float64).
func (d *device) launch(kernel string, grid, block emu.Dim3, shared int, args ...any) {
	d.t.Helper()
	if err := d.tryLaunch(kernel, grid, block, shared, args...); err != nil {
		d.t.Fatalf("%s: %v", kernel, err)
	}
}

func (d *device) tryLaunch(kernel string, grid, block emu.Dim3, shared int, args ...any) error {
	p, ok := d.progs[kernel]
	if !ok {
		p = &emu.Program{Name: "corpus", Data: d.prog, Arch: d.arch, Kernel: kernel}
		d.progs[kernel] = p
	}
	j := &emu.Job{Program: p, Grid: grid, Block: block, SharedBytes: shared, Memory: d.konst}
	for _, n := range d.names {
		j.Buffers = append(j.Buffers, emu.Alloc{Name: n, Data: d.pending[n]})
	}
	if d.trace != nil {
		j.Trace = &emu.Trace{W: d.trace, Block: -1, Warp: -1}
	}
	j.Check, j.Schedule = d.check, d.schedule
	if d.warpCores > 1 {
		j.WarpCores, j.WarpCoresAfter = d.warpCores, 1
	}
	for i, a := range args {
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
			return fmt.Errorf("argument %d: type %T", i, a)
		}
	}
	res, err := d.dev.Run(j)
	if res != nil {
		clear(d.pending)
		d.stats.WarpInsts += res.Stats.WarpInsts
		d.stats.Warps += res.Stats.Warps
		d.findings = res.Findings
		if err == nil && len(res.Findings) > 0 && !d.keepFindings {
			var lines []string
			for _, f := range res.Findings {
				lines = append(lines, f.String())
			}
			return fmt.Errorf("sanitizer:\n%s", strings.Join(lines, "\n"))
		}
	}
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
		if err != nil || bank < 0 || bank > 15 || s.Value+uint64(len(data)) > uint64(len(sec.Data)) {
			d.t.Fatalf("%s: in section %s", symbol, sec.Name)
		}
		d.konst = append(d.konst, emu.Placement{Space: emu.Constant, Bank: bank, Addr: s.Value, Data: data})
		return
	}
	d.t.Fatalf("no symbol %s", symbol)
}
