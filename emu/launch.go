package emu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/gpuisa/gpuisa/internal/safeio"
)

// Launch is a launch file (see LAUNCH.md), as parsed: numbers still as text.
type Launch struct {
	Program     string            `json:"program"`
	Arch        string            `json:"arch"`
	Kernel      string            `json:"kernel"`
	Link        []string          `json:"link"` // relocatable cubins to link (extension, sm_5x)
	Grid        []Num             `json:"grid"`
	Block       []Num             `json:"block"`
	SharedBytes Num               `json:"shared_bytes"`
	LocalBytes  Num               `json:"local_bytes"`  // per thread (extension)
	GlobalBytes Num               `json:"global_bytes"` // size of global memory (extension)
	MaxSteps    Num               `json:"max_steps"`    // warp-instructions per block (extension)
	Memory      []MemImage        `json:"memory"`
	Buffers     map[string]Buffer `json:"buffers"`
	Params      []Param           `json:"params"`
	Outputs     []Output          `json:"outputs"`
	Expect      []Expect          `json:"expect"`
	Note        string            `json:"note"`
	// Textures and Surfaces are images the kernel reads through texture and
	// surface instructions (extension; see emu/maxwell/README.md).
	Textures map[string]Image `json:"textures"`
	Surfaces map[string]Image `json:"surfaces"`
	// Launches make the file a sequence of launches over its buffers
	// (extension; sequence.go): steps over the fields above.
	Launches []RawStep `json:"launches"`
}

// Image is a texture or surface of a launch file: texels from a file, a
// fill or a buffer (whose global memory it then shares), their format and
// shape, and (textures) the sampler state.
type Image struct {
	File       string   `json:"file"`
	Fill       Num      `json:"fill"`
	Buffer     string   `json:"buffer"`
	Format     string   `json:"format"`
	Size       []Num    `json:"size"` // width[, height[, depth]] in texels
	Layers     Num      `json:"layers"`
	Levels     Num      `json:"levels"`
	Filter     string   `json:"filter"`     // nearest (default) or linear
	MipFilter  string   `json:"mip_filter"` // nearest (default) or linear
	Address    []string `json:"address"`    // clamp (default), wrap, mirror, border; per dimension
	Normalized bool     `json:"normalized"`
	Border     []Num    `json:"border"`
	Compare    string   `json:"compare"` // depth compare function (default lequal)
	// Cube: the layers are cube faces (+X, -X, +Y, -Y, +Z, -Z), six per
	// cube; a square size. CUBE and ARRAY_CUBE lookups need it.
	Cube bool `json:"cube"`
}

// MemImage is a file (or fill) placed at a fixed address before the launch.
type MemImage struct {
	Space string `json:"space"`
	Bank  Num    `json:"bank"`
	Addr  Num    `json:"addr"`
	File  string `json:"file"`
	Bytes Num    `json:"bytes"`
	Fill  Num    `json:"fill"`
}

// Buffer is a global allocation the launcher places.
type Buffer struct {
	File  string `json:"file"`
	Bytes Num    `json:"bytes"`
	Fill  Num    `json:"fill"`
}

// Param is one kernel parameter: exactly one field is set.
type Param struct {
	U32 *Num    `json:"u32"`
	S32 *Num    `json:"s32"`
	U64 *Num    `json:"u64"`
	F32 *Num    `json:"f32"`
	F64 *Num    `json:"f64"`
	Ptr *string `json:"ptr"`
	// Tex and Surf pass the 64-bit handle of a texture or surface object.
	Tex  *string `json:"tex"`
	Surf *string `json:"surf"`
}

// Output is what to write to -out DIR after the run.
type Output struct {
	Buffer string `json:"buffer"`
	Space  string `json:"space"`
	Bank   Num    `json:"bank"`
	Addr   Num    `json:"addr"`
	Bytes  Num    `json:"bytes"`
	File   string `json:"file"`
}

// Expect is one expectation on the results.
type Expect struct {
	Output string `json:"output"` // an Outputs[].File
	File   string `json:"file"`   // expected bytes
	Space  string `json:"space"`
	Words  string `json:"words"` // TSV: addr, exp[, exp_alt]
	Type   string `json:"type"`
	Alt    bool   `json:"alt"`
	MaxULP Num    `json:"max_ulp"`
	MaxAbs Num    `json:"max_abs"`
	MaxRel Num    `json:"max_rel"`
}

// ParseLaunch parses and checks a launch file's text. It does not read the
// files it names (see Load).
func ParseLaunch(data []byte) (*Launch, error) {
	var l Launch
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("launch file: %w", err)
	}
	if err := l.check(); err != nil {
		return nil, fmt.Errorf("launch file: %w", err)
	}
	return &l, nil
}

// MaxBlocks bounds a grid (G80: 65535 x 65535) so that block indices fit
// in 32 bits.
const MaxBlocks = 1<<32 - 1

// MaxThreadsPerBlock bounds a block so a typo cannot allocate gigabytes.
const MaxThreadsPerBlock = 1 << 16

func dim3(name string, v []Num) (Dim3, error) {
	d := Dim3{1, 1, 1}
	if len(v) == 0 || len(v) > 3 {
		return d, fmt.Errorf("%s needs 1 to 3 numbers", name)
	}
	for i, n := range v {
		x, err := n.Uint(1 << 31)
		if err != nil {
			return d, fmt.Errorf("%s[%d]: %v", name, i, err)
		}
		if x == 0 {
			return d, fmt.Errorf("%s[%d] is 0", name, i)
		}
		d[i] = uint32(x)
	}
	return d, nil
}

// GridDim and BlockDim return the launch shape.
func (l *Launch) GridDim() Dim3  { d, _ := dim3("grid", l.Grid); return d }
func (l *Launch) BlockDim() Dim3 { d, _ := dim3("block", l.Block); return d }

var elemSizes = map[string]int{"": 4, "u8": 1, "u32": 4, "s32": 4, "f32": 4, "f64": 8}

func (l *Launch) check() error {
	if len(l.Launches) > 0 {
		// each step's launch is checked; the launch file's own fields
		// are defaults the steps may leave out
		if err := l.checkSteps(l.Launches, 0); err != nil {
			return fmt.Errorf("launches: %v", err)
		}
		return nil
	}
	return l.checkFields()
}

// checkFields checks one launch's fields (without reading its files).
func (l *Launch) checkFields() error {
	if l.Program == "" {
		return fmt.Errorf("no program")
	}
	g, err := dim3("grid", l.Grid)
	if err != nil {
		return err
	}
	if uint64(g[0])*uint64(g[1]) > MaxBlocks || uint64(g[0])*uint64(g[1])*uint64(g[2]) > MaxBlocks {
		return fmt.Errorf("grid %v has more than %d blocks", g, MaxBlocks)
	}
	b, err := dim3("block", l.Block)
	if err != nil {
		return err
	}
	if uint64(b[0])*uint64(b[1])*uint64(b[2]) > MaxThreadsPerBlock {
		return fmt.Errorf("block %v has more than %d threads", b, MaxThreadsPerBlock)
	}
	for name, n := range map[string]Num{"shared_bytes": l.SharedBytes, "local_bytes": l.LocalBytes, "global_bytes": l.GlobalBytes} {
		if n.Set() {
			if _, err := n.Uint(MaxMemory + 1); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
		}
	}
	if l.MaxSteps.Set() {
		if _, err := l.MaxSteps.Uint(0); err != nil {
			return fmt.Errorf("max_steps: %v", err)
		}
	}
	for i, m := range l.Memory {
		sp, err := spaceOf(m.Space, true)
		if err != nil {
			return fmt.Errorf("memory[%d]: %v", i, err)
		}
		limit := uint64(MaxMemory)
		if sp == Global {
			limit = 0 // anywhere: far images get segments of their own
		}
		if _, err := m.Addr.Uint(limit); err != nil {
			return fmt.Errorf("memory[%d].addr: %v", i, err)
		}
		if m.File == "" && !m.Bytes.Set() {
			return fmt.Errorf("memory[%d] needs a file or bytes", i)
		}
		if m.Bytes.Set() {
			n, err := m.Bytes.Uint(MaxMemory + 1)
			if err != nil {
				return fmt.Errorf("memory[%d].bytes: %v", i, err)
			}
			a, _ := m.Addr.Uint(0)
			if err := checkImageEnd(sp, a, n); err != nil {
				return fmt.Errorf("memory[%d]: %v", i, err)
			}
		}
		if m.Fill.Set() {
			if _, err := m.Fill.Uint(256); err != nil {
				return fmt.Errorf("memory[%d].fill: %v", i, err)
			}
		}
		if m.Bank.Set() {
			if _, err := m.Bank.Uint(16); err != nil {
				return fmt.Errorf("memory[%d].bank: %v", i, err)
			}
		}
	}
	for name, b := range l.Buffers {
		if b.File == "" && !b.Bytes.Set() {
			return fmt.Errorf("buffer %q needs a file or bytes", name)
		}
		if b.Bytes.Set() {
			if _, err := b.Bytes.Uint(MaxMemory + 1); err != nil {
				return fmt.Errorf("buffer %q bytes: %v", name, err)
			}
		}
		if b.Fill.Set() {
			if _, err := b.Fill.Uint(256); err != nil {
				return fmt.Errorf("buffer %q fill: %v", name, err)
			}
		}
	}
	for i, p := range l.Params {
		if _, err := p.arg(); err != nil {
			return fmt.Errorf("params[%d]: %v", i, err)
		}
		if p.Ptr != nil {
			if _, ok := l.Buffers[*p.Ptr]; !ok {
				return fmt.Errorf("params[%d]: ptr to unknown buffer %q", i, *p.Ptr)
			}
		}
		if p.Tex != nil || p.Surf != nil {
			if _, err := l.ImageHandle(p); err != nil {
				return fmt.Errorf("params[%d]: %v", i, err)
			}
		}
	}
	if err := l.checkImages(); err != nil {
		return err
	}
	outs := map[string]bool{}
	for i, o := range l.Outputs {
		if o.File == "" {
			return fmt.Errorf("outputs[%d] has no file", i)
		}
		if err := checkOutputFile(o.File); err != nil {
			return fmt.Errorf("outputs[%d]: %v", i, err)
		}
		outs[o.File] = true
		if o.Buffer != "" {
			if _, ok := l.Buffers[o.Buffer]; !ok {
				return fmt.Errorf("outputs[%d]: no buffer %q", i, o.Buffer)
			}
			continue
		}
		if err := globalOnly(o.Space); err != nil {
			return fmt.Errorf("outputs[%d]: %v", i, err)
		}
		if _, err := o.Addr.Uint(0); err != nil {
			return fmt.Errorf("outputs[%d].addr: %v", i, err)
		}
		if _, err := o.Bytes.Uint(MaxMemory + 1); err != nil {
			return fmt.Errorf("outputs[%d].bytes: %v", i, err)
		}
	}
	return CheckExpect(l.Expect, outs)
}

// CheckExpect checks expectations without reading their files: each
// compares an output (one of outputs, by file name) or global words, with a
// known element type and non-negative tolerances. Other launch formats
// (shader launches) that reuse Expect check theirs with it.
func CheckExpect(expect []Expect, outputs map[string]bool) error {
	for i, e := range expect {
		if _, ok := elemSizes[e.Type]; !ok {
			return fmt.Errorf("expect[%d]: unknown type %q (u8, u32, s32, f32, f64)", i, e.Type)
		}
		switch {
		case e.Output != "" && e.File != "":
			if !outputs[e.Output] {
				return fmt.Errorf("expect[%d]: no output file %q", i, e.Output)
			}
		case e.Words != "":
			if err := globalOnly(e.Space); err != nil {
				return fmt.Errorf("expect[%d]: %v", i, err)
			}
		default:
			return fmt.Errorf("expect[%d] needs output+file or space+words", i)
		}
		for name, n := range map[string]Num{"max_ulp": e.MaxULP, "max_abs": e.MaxAbs, "max_rel": e.MaxRel} {
			if !n.Set() {
				continue
			}
			f, err := n.Float()
			if err != nil || f < 0 || math.IsNaN(f) {
				return fmt.Errorf("expect[%d].%s: not a non-negative number: %q", i, name, n.Text)
			}
		}
	}
	return nil
}

// globalOnly checks the space of an output or an expectation: what a run
// leaves is global memory (shared memory ends with its block).
func globalOnly(s string) error {
	if sp, err := spaceOf(s, false); err != nil || sp != Global {
		return fmt.Errorf("space %q: outputs and expectations read global memory", s)
	}
	return nil
}

func spaceOf(s string, allowConst bool) (Space, error) {
	switch s {
	case "global", "":
		return Global, nil
	case "shared":
		return Shared, nil
	case "constant":
		if allowConst {
			return Constant, nil
		}
	}
	return 0, fmt.Errorf("unknown space %q", s)
}

// MaxMemory bounds every memory space a launch file can ask for (1 GiB):
// the dense region of global memory, and its segments together.
const MaxMemory = 1 << 30

// Global memory is sparse (see Memory): images and outputs that end at or
// below MaxMemory, and the buffers, are in the dense region at address 0;
// images at or above MaxMemory get segments of their own (images closer
// than SegmentAlign share one), so a launch can place data at any 64-bit
// address. Segments start and end at multiples of SegmentAlign.
const SegmentAlign = 256

// DefaultGlobalBytes is the smallest global memory a launch gets (2^18
// bytes, the memory of the FlexGripPlus testbench), so kernels that read a
// little past their input images see zeros, as on that model.
const DefaultGlobalBytes = 1 << 18

// Setup is a job placed in memory (see Job.Setup): the memory images
// built, the buffers placed and the parameters packed. It is what the ISA
// emulators run.
type Setup struct {
	Job  *Job
	Arch string // the architecture the job runs on
	// Memory, when not nil, is the global memory the run uses (a Device's);
	// otherwise each run gets a copy of Global and GlobalSegments.
	Memory *Memory
	// Launch and Dir are the launch file and its directory, for setups read
	// from one (Load): its outputs and expectations.
	Launch  *Launch
	Dir     string
	Grid    Dim3
	Block   Dim3
	Global  []byte
	Const   [16][]byte // constant banks
	Shared  []SharedImage
	Params  []byte // packed parameter bytes (4-byte aligned words)
	Buffers map[string]BufferPlace
	// Sizes asked for by the launch file (0 = the ISA's default).
	SharedBytes, LocalBytes int
	MaxSteps                int64
	// Checker is the sanitizer of the run (Job.Check), nil without checks.
	Checker *Checker

	// GlobalSegments are global memory's further regions (images at or
	// above MaxMemory), sorted and disjoint.
	GlobalSegments []Segment
}

// SharedImage is bytes copied into every block's shared memory.
type SharedImage struct {
	Addr uint64
	Data []byte
}

// BufferPlace is where a buffer was placed.
type BufferPlace struct {
	Addr, Bytes uint64
}

// readFile reads a file the launch names (relative to dir) through a size
// limit: its size is checked before anything is read (internal/safeio).
func (l *Launch) readFile(dir, name string, limit int64) ([]byte, error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, name)
	}
	return safeio.ReadFile(p, limit)
}

// imageBytes reads a memory image or buffer: size bytes when given (the
// file's first bytes, then the fill; one allocation, made after size was
// checked), else the whole file, which must be at most limit bytes.
func imageBytes(l *Launch, dir, file string, size, fill Num, limit uint64) ([]byte, error) {
	if !size.Set() {
		if file == "" {
			return nil, nil
		}
		return l.readFile(dir, file, int64(limit))
	}
	n, err := size.Uint(MaxMemory + 1)
	if err != nil {
		return nil, err
	}
	data := make([]byte, n)
	got := 0
	if file != "" {
		p := file
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, file)
		}
		if got, err = safeio.ReadPrefix(p, data); err != nil {
			return nil, err
		}
	}
	if f, _ := fill.Uint(256); f != 0 {
		for i := got; i < len(data); i++ {
			data[i] = byte(f)
		}
	}
	return data, nil
}

// Load reads the files a launch file names (relative to dir) and builds the
// initial memory: the Job of the launch file, placed (Job.Setup).
func Load(l *Launch, dir string) (*Setup, error) {
	j, err := l.Job(dir)
	if err != nil {
		return nil, err
	}
	s, err := j.Setup()
	if err != nil {
		return nil, err
	}
	s.Launch, s.Dir = l, dir
	return s, nil
}

// placedImage is an image at its address.
type placedImage struct {
	addr uint64
	data []byte
}

// segments lays out images at or above MaxMemory: each spans its image
// rounded out to SegmentAlign, images whose spans touch share one, later
// images overwrite earlier ones.
func segments(far []placedImage) ([]Segment, error) {
	if len(far) == 0 {
		return nil, nil
	}
	type span struct{ lo, hi uint64 }
	spans := make([]span, len(far))
	for i, f := range far {
		hi := f.addr + uint64(len(f.data))
		spans[i] = span{f.addr &^ (SegmentAlign - 1), (hi + SegmentAlign - 1) &^ (SegmentAlign - 1)}
		if spans[i].hi < hi { // rounding wrapped: the image reaches the top of the address space
			spans[i].hi = 0
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var merged []span
	for _, sp := range spans {
		if n := len(merged); n > 0 && (merged[n-1].hi == 0 || sp.lo <= merged[n-1].hi) {
			if merged[n-1].hi != 0 && (sp.hi == 0 || sp.hi > merged[n-1].hi) {
				merged[n-1].hi = sp.hi
			}
			continue
		}
		merged = append(merged, sp)
	}
	var total uint64
	segs := make([]Segment, len(merged))
	for i, sp := range merged {
		n := sp.hi - sp.lo // 2^64 - lo when hi wrapped to 0
		if total += n; n > MaxMemory || total > MaxMemory {
			return nil, fmt.Errorf("global memory images above %#x need more than %#x bytes", uint64(MaxMemory), uint64(MaxMemory))
		}
		segs[i] = Segment{Addr: sp.lo, Data: make([]byte, n)}
	}
	m := Memory{Space: Global, Segments: segs}
	for _, f := range far {
		if err := m.Write(f.addr, f.data); err != nil {
			return nil, err // cannot happen: the segments cover every image
		}
	}
	return segs, nil
}

// GlobalMemory returns the setup's global memory for one run: Memory when
// set, else a copy of the dense region and the segments.
func (s *Setup) GlobalMemory() *Memory {
	if s.Memory != nil {
		return s.Memory
	}
	m := &Memory{Space: Global, Data: append([]byte(nil), s.Global...)}
	for _, sg := range s.GlobalSegments {
		m.Segments = append(m.Segments, Segment{sg.Addr, append([]byte(nil), sg.Data...)})
	}
	return m
}

// LoadFile reads, parses and loads a launch file.
func LoadFile(path string) (*Setup, error) {
	data, err := safeio.ReadFile(path, MaxLaunchFileBytes)
	if err != nil {
		return nil, err
	}
	l, err := ParseLaunch(data)
	if err != nil {
		return nil, LocateError(path, data, err)
	}
	s, err := Load(l, filepath.Dir(path))
	if err != nil {
		return nil, LocateError(path, data, err)
	}
	return s, nil
}

// ImageNames lists the launch's textures (by name) then its surfaces (by
// name): image i of the list has index i+1 in the texture header table.
func (l *Launch) ImageNames() (textures, surfaces []string) {
	for n := range l.Textures {
		textures = append(textures, n)
	}
	for n := range l.Surfaces {
		surfaces = append(surfaces, n)
	}
	sort.Strings(textures)
	sort.Strings(surfaces)
	return textures, surfaces
}

// ImageHandle is the 64-bit handle a tex or surf parameter passes: the
// header index i (1 for the first texture) in bits 0..19 and, for a
// texture, its sampler index (also i) in bits 20..31.
func (l *Launch) ImageHandle(p Param) (uint64, error) {
	tex, surf := l.ImageNames()
	if p.Tex != nil {
		for i, n := range tex {
			if n == *p.Tex {
				return uint64(i+1) | uint64(i+1)<<20, nil
			}
		}
		return 0, fmt.Errorf("tex: no texture %q", *p.Tex)
	}
	if p.Surf != nil {
		for i, n := range surf {
			if n == *p.Surf {
				return uint64(len(tex) + i + 1), nil
			}
		}
		return 0, fmt.Errorf("surf: no surface %q", *p.Surf)
	}
	return 0, fmt.Errorf("not a tex or surf parameter")
}

// checkImages checks what does not depend on the ISA: shapes and sources.
func (l *Launch) checkImages() error {
	if len(l.Textures)+len(l.Surfaces) >= 1<<12 {
		return fmt.Errorf("more than %d textures and surfaces", 1<<12-1)
	}
	for _, group := range []struct {
		what string
		m    map[string]Image
	}{{"texture", l.Textures}, {"surface", l.Surfaces}} {
		for name, im := range group.m {
			if len(im.Size) == 0 || len(im.Size) > 3 {
				return fmt.Errorf("%s %q: size needs 1 to 3 numbers", group.what, name)
			}
			for i, n := range im.Size {
				if v, err := n.Uint(1 << 16); err != nil || v == 0 {
					return fmt.Errorf("%s %q: size[%d] must be 1..65535", group.what, name, i)
				}
			}
			for f, n := range map[string]Num{"layers": im.Layers, "levels": im.Levels} {
				if n.Set() {
					if v, err := n.Uint(1 << 16); err != nil || v == 0 {
						return fmt.Errorf("%s %q: %s must be 1..65535", group.what, name, f)
					}
				}
			}
			if im.Buffer != "" {
				if _, ok := l.Buffers[im.Buffer]; !ok {
					return fmt.Errorf("%s %q: no buffer %q", group.what, name, im.Buffer)
				}
				if im.File != "" || im.Fill.Set() {
					return fmt.Errorf("%s %q: texels from a buffer, or from a file or fill, not both", group.what, name)
				}
			}
			if im.Format == "" {
				return fmt.Errorf("%s %q has no format", group.what, name)
			}
			if _, err := ImageBytes(im); err != nil {
				return fmt.Errorf("%s %q: %v", group.what, name, err)
			}
			if im.Fill.Set() {
				if _, err := im.Fill.Uint(256); err != nil {
					return fmt.Errorf("%s %q fill: %v", group.what, name, err)
				}
			}
		}
	}
	return nil
}
