package usse

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/emu"
)

// Launch is a shader launch file (docs/usse-launch.md): a GXP, the values
// of its named parameters, per-instance inputs, textures, memory, and what
// to write back. Numbers follow the project's launch files (emu.Num: JSON
// numbers or C-syntax strings); expectations are emu.Expect.
type Launch struct {
	Program     string               `json:"program"`
	Arch        string               `json:"arch"`
	Type        string               `json:"type"`  // "vertex" or "fragment": must be the GXP's
	Count       emu.Num              `json:"count"` // instances; default: from the attribute or input data
	Uniforms    map[string]Values    `json:"uniforms"`
	Attributes  map[string]Values    `json:"attributes"` // vertex programs, by parameter name
	Inputs      map[string]Values    `json:"inputs"`     // fragment programs: TEXCOORD0..9, COLOR0..1, FOG, POSITION, SPRITECOORD
	Registers   map[string]emu.Num   `json:"registers"`  // raw words: "sa40", "pa3", ... before the programs run
	Textures    map[string]emu.Image `json:"textures"`   // by sampler parameter name (or "tex0".."tex15")
	Memory      []emu.MemImage       `json:"memory"`     // images in the memory lda/sta reach
	MemoryBytes emu.Num              `json:"memory_bytes"`
	MaxSteps    emu.Num              `json:"max_steps"` // instructions per instance
	Outputs     []Output             `json:"outputs"`
	Expect      []emu.Expect         `json:"expect"`
	Note        string               `json:"note"`
}

// Values are numbers for a parameter or input: a JSON array (all
// instances' components in order), or an object: {"values": [...]} or
// {"file": F, "format": T} with raw little-endian values of type T (f32
// default, f16, u8, s8, u16, s16, u32, s32), and optionally "components":
// how many each instance gives (attributes and inputs; the others are
// (0, 0, 0, 1)'s, as a vertex fetch fills them).
type Values struct {
	Nums       []emu.Num `json:"values"`
	File       string    `json:"file"`
	Format     string    `json:"format"`
	Components emu.Num   `json:"components"`
}

// UnmarshalJSON accepts an array of numbers or a file object.
func (v *Values) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		return json.Unmarshal(b, &v.Nums)
	}
	type plain Values
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*v = Values(p)
	return nil
}

// Output is one thing to write after the run, per instance in order.
type Output struct {
	// Name: "POSITION" (vertex programs: o0..o3), "COLOR" (fragment
	// programs: the colour where the GXP says, in its format) or "DEPTH"
	// (fragment programs: what depthf wrote).
	Name string `json:"name"`
	// Reg: the first register of a run of Components channels ("o4",
	// "pa0", "r2", "sa0"), held as Format (f32 default, f16, u8 unorm, raw).
	Reg        string  `json:"reg"`
	Components emu.Num `json:"components"`
	Format     string  `json:"format"`
	// As: "f32" (default: 4-byte floats, raw words for "raw"), or
	// "uchar4": each value as the byte a UCHAR4 colour target stores
	// (clamped to [0,1], x255, rounded; NaN gives 0).
	As   string `json:"as"`
	File string `json:"file"`
}

// IsLaunch reports whether a launch file's text is a shader launch (arch
// sgx543), the form gpuisa run hands to this package.
func IsLaunch(data []byte) bool {
	// Without an escape, a string the decoder reads is its bytes in the
	// text: no "sgx543" there, no arch "sgx543" (and no second parse of
	// every CUDA launch file)
	if !bytes.Contains(data, []byte(Arch)) && bytes.IndexByte(data, '\\') < 0 {
		return false
	}
	var head struct {
		Arch string `json:"arch"`
	}
	return json.Unmarshal(data, &head) == nil && head.Arch == Arch
}

// Arch is the architecture name shader launches give.
const Arch = "sgx543"

// ParseLaunch parses a shader launch file's text.
func ParseLaunch(data []byte) (*Launch, error) {
	var l Launch
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("launch file: %w", err)
	}
	if l.Program == "" {
		return nil, fmt.Errorf("launch file: no program")
	}
	if l.Arch != Arch {
		return nil, fmt.Errorf("launch file: arch %q, want %q", l.Arch, Arch)
	}
	if l.Type != "" && l.Type != "vertex" && l.Type != "fragment" {
		return nil, fmt.Errorf("launch file: type %q (vertex or fragment)", l.Type)
	}
	for i, o := range l.Outputs {
		if (o.Name == "") == (o.Reg == "") {
			return nil, fmt.Errorf("launch file: outputs[%d]: give one of name and reg", i)
		}
		if o.File == "" {
			return nil, fmt.Errorf("launch file: outputs[%d]: no file", i)
		}
		if o.As != "" && o.As != "f32" && o.As != "uchar4" {
			return nil, fmt.Errorf("launch file: outputs[%d]: as %q (f32 or uchar4)", i, o.As)
		}
	}
	outs := map[string]bool{}
	for _, o := range l.Outputs {
		outs[o.File] = true
	}
	if err := emu.CheckExpect(l.Expect, outs); err != nil {
		return nil, fmt.Errorf("launch file: %w", err)
	}
	if err := checkNormalized(data); err != nil {
		return nil, fmt.Errorf("launch file: %w", err)
	}
	return &l, nil
}

// checkNormalized refuses "normalized": false in a texture: shaders
// address textures with normalised coordinates only, and emu.Image's
// bool cannot tell false from absent.
func checkNormalized(data []byte) error {
	var raw struct {
		Textures map[string]map[string]json.RawMessage `json:"textures"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return nil // the typed decode has accepted it; nothing to add
	}
	for _, name := range sortedKeys(raw.Textures) {
		if v, ok := raw.Textures[name]["normalized"]; ok && string(bytes.TrimSpace(v)) != "true" {
			return fmt.Errorf("textures: %s: normalized %s: shader textures take normalised coordinates only", name, v)
		}
	}
	return nil
}

// Outcome is a finished run: statistics, and the outputs as emu's setup
// and result, so that emu's output writing and expectation checks apply
// (each output is a buffer named by its file).
type Outcome struct {
	Stats  Stats
	Setup  *emu.Setup
	Result *emu.Result
	Prog   *Program
}

// MaxInstances bounds a launch so a typo cannot ask for gigabytes.
const MaxInstances = 1 << 22

// Run loads and runs a shader launch; dir is where its files are. A fault
// is returned with the outcome so far (nil when the run could not start).
func Run(l *Launch, dir string, cfg Config) (*Outcome, error) {
	read := func(name string) ([]byte, error) {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, name)
		}
		return readLimited(p)
	}
	data, err := read(l.Program)
	if err != nil {
		return nil, err
	}
	p, err := Load(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Program, err)
	}
	if l.Type != "" && l.Type != p.kindName() {
		return nil, fmt.Errorf("%s is a %s program, the launch says %s", l.Program, p.kindName(), l.Type)
	}
	if l.MaxSteps.Set() {
		n, err := l.MaxSteps.Uint(0)
		if err != nil {
			return nil, fmt.Errorf("max_steps: %v", err)
		}
		if cfg.MaxSteps == 0 {
			cfg.MaxSteps = int64(min(n, 1<<62))
		}
	}
	in, err := p.inputs(l, read)
	if err != nil {
		return nil, err
	}
	outs, err := p.outputPlan(l, in.count)
	if err != nil {
		return nil, err
	}
	blob := make([]byte, outs.size)
	st, runErr := p.Draw(cfg, &in.sa, in.count, func(i int, t *Instance) error {
		t.tex, t.mem = &in.tex, in.mem
		return in.fill(i, t)
	}, func(i int, t *Instance) error {
		return outs.collect(i, t, blob)
	})
	o := &Outcome{Stats: st, Prog: p, Result: &emu.Result{Global: blob}}
	o.Setup = &emu.Setup{Launch: &emu.Launch{Outputs: outs.emu, Expect: l.Expect}, Dir: dir, Buffers: outs.places}
	return o, runErr
}

// readLimited reads a regular file of at most emu.MaxMemory bytes (a
// launch file naming /dev/zero must not hang the loader).
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > emu.MaxMemory {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, emu.MaxMemory) // before reading any
	}
	b, err := io.ReadAll(io.LimitReader(f, emu.MaxMemory+1))
	if err == nil && len(b) > emu.MaxMemory {
		err = fmt.Errorf("%s: larger than %d bytes", path, emu.MaxMemory)
	}
	return b, err
}

// LoadFile reads and parses a shader launch file.
func LoadFile(path string) (*Launch, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	l, err := ParseLaunch(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// launchInputs is a launch's data placed for the draw.
type launchInputs struct {
	count int
	sa    SA
	tex   textureSet
	mem   *emu.Memory
	pre   map[int]uint32 // preset words: file index
	fill  func(i int, t *Instance) error
}

// regWord parses a register name ("pa3", "sa40", "o2", "r7") into a file
// word index.
func regWord(name string) (int, error) {
	for _, b := range []struct {
		prefix string
		base   int
	}{{"pa", basePA}, {"sa", baseSA}, {"o", baseO}, {"r", baseR}} {
		if rest, ok := strings.CutPrefix(name, b.prefix); ok {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 0 || n >= bankWords {
				return 0, fmt.Errorf("register %q: number 0..%d", name, bankWords-1)
			}
			return b.base + n, nil
		}
	}
	return 0, fmt.Errorf("register %q (pa, sa, o or r and a number)", name)
}

// values reads a Values as float64s (numbers) for packing.
func readValues(v Values, read func(string) ([]byte, error)) ([]float64, error) {
	if v.File == "" {
		out := make([]float64, len(v.Nums))
		for i, n := range v.Nums {
			f, err := n.Float()
			if err != nil {
				return nil, fmt.Errorf("[%d]: %v", i, err)
			}
			out[i] = f
		}
		return out, nil
	}
	if len(v.Nums) > 0 {
		return nil, fmt.Errorf("both values and a file")
	}
	b, err := read(v.File)
	if err != nil {
		return nil, err
	}
	f := v.Format
	if f == "" {
		f = "f32"
	}
	size := map[string]int{"f32": 4, "f16": 2, "u8": 1, "s8": 1, "u16": 2, "s16": 2, "u32": 4, "s32": 4}[f]
	if size == 0 {
		return nil, fmt.Errorf("format %q (f32, f16, u8, s8, u16, s16, u32, s32)", f)
	}
	if len(b)%size != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a whole number of %s", v.File, len(b), f)
	}
	out := make([]float64, len(b)/size)
	le := binary.LittleEndian
	for i := range out {
		x := b[i*size:]
		switch f {
		case "f32":
			out[i] = float64(math.Float32frombits(le.Uint32(x)))
		case "f16":
			out[i] = float64(halfToFloat(uint32(le.Uint16(x))))
		case "u8":
			out[i] = float64(x[0])
		case "s8":
			out[i] = float64(int8(x[0]))
		case "u16":
			out[i] = float64(le.Uint16(x))
		case "s16":
			out[i] = float64(int16(le.Uint16(x)))
		case "u32":
			out[i] = float64(le.Uint32(x))
		case "s32":
			out[i] = float64(int32(le.Uint32(x)))
		}
	}
	return out, nil
}

// typeFmt is the register format of a parameter type.
func typeFmt(t gxp.Type) (fmtID, error) {
	switch t {
	case gxp.F32:
		return fF32, nil
	case gxp.F16:
		return fF16, nil
	case gxp.C10:
		return fFX10, nil
	case gxp.U8:
		return fU8, nil
	case gxp.S8:
		return fS8, nil
	case gxp.U16:
		return fU16, nil
	case gxp.S16:
		return fS16, nil
	case gxp.U32:
		return fU32, nil
	case gxp.S32:
		return fS32, nil
	}
	return 0, fmt.Errorf("parameter type %v cannot be given as numbers", t)
}

// pack turns values into register words of format f: channel c of a
// vector goes where chanPlace puts it. Integer formats take the numbers as
// integers (u8 0..255, not normalised).
func pack(vals []float64, f fmtID, words []uint32) {
	for c, x := range vals {
		off, p := chanPlace(f, c)
		if off >= len(words) {
			return
		}
		var v uint32
		switch f {
		case fF32:
			v = bits(float32(x))
		case fU32, fS32:
			v = uint32(int64(x))
		default:
			v = fromFloat(float32(x), f, false)
		}
		words[off] = withField(words[off], p, v)
	}
}

// wordsFor is how many words n channels of format f take.
func wordsOf(f fmtID, n int) int {
	if n == 0 {
		return 0
	}
	off, _ := chanPlace(f, n-1)
	return off + 1
}

// inputs places the launch's uniforms, registers, textures and memory, and
// makes the per-instance fill.
func (p *Program) inputs(l *Launch, read func(string) ([]byte, error)) (*launchInputs, error) {
	in := &launchInputs{pre: map[int]uint32{}}
	// uniforms, by the parameter table
	uniforms := map[string][]uint32{}
	for _, name := range sortedKeys(l.Uniforms) {
		par, ok := p.Param(name)
		if !ok || par.Category != gxp.Uniform {
			return nil, fmt.Errorf("uniforms: %q is not a uniform of %s (see gpuisa dis)", name, l.Program)
		}
		f, err := typeFmt(par.Type)
		if err != nil {
			return nil, fmt.Errorf("uniforms: %s: %v", name, err)
		}
		vals, err := readValues(l.Uniforms[name], read)
		if err != nil {
			return nil, fmt.Errorf("uniforms: %s: %v", name, err)
		}
		comps, elems := max(int(par.Components), 1), int(max(par.ArraySize, 1))
		if par.ArraySize > bankWords {
			return nil, fmt.Errorf("uniforms: %s: %d elements do not fit the SA bank", name, par.ArraySize)
		}
		if len(vals) != comps*elems {
			return nil, fmt.Errorf("uniforms: %s takes %d values (%d x %d), got %d", name, comps*elems, elems, comps, len(vals))
		}
		// Vita3K's layout: array elements of float vectors start at 8-byte
		// boundaries, other arrays' at 4-byte ones
		stride := wordsOf(f, comps)
		if elems > 1 && f.isFloat() && comps != 1 && stride%2 != 0 {
			stride++
		}
		words := make([]uint32, stride*elems)
		for e := 0; e < elems; e++ {
			pack(vals[e*comps:(e+1)*comps], f, words[e*stride:(e+1)*stride])
		}
		uniforms[name] = words
	}
	if err := p.PlaceUniforms(&in.sa, uniforms); err != nil {
		return nil, fmt.Errorf("uniforms: %v", err)
	}
	// textures, by sampler name or unit; dependent samplers' SA words hold the unit
	for _, name := range sortedKeys(l.Textures) {
		unit, err := p.textureUnit(name)
		if err != nil {
			return nil, fmt.Errorf("textures: %v", err)
		}
		tx, err := loadTexture(l.Textures[name], read)
		if err != nil {
			return nil, fmt.Errorf("textures: %s: %v", name, err)
		}
		in.tex[unit] = tx
	}
	if c, ok := p.Res.Container(19); ok {
		for _, s := range p.Res.Samplers {
			if at := int(c.BaseSA) + int(s.SAOffset); at < bankWords {
				in.sa[at] = uint32(s.Unit)
			}
		}
	}
	// memory
	if len(l.Memory) > 0 || l.MemoryBytes.Set() {
		m, err := loadMemory(l, read)
		if err != nil {
			return nil, err
		}
		in.mem = m
	}
	// raw registers: SA ones before the secondary program, the others per instance
	for _, name := range sortedKeys(l.Registers) {
		w, err := regWord(name)
		if err != nil {
			return nil, fmt.Errorf("registers: %v", err)
		}
		v, err := l.Registers[name].Uint(1 << 32)
		if err != nil {
			return nil, fmt.Errorf("registers: %s: %v", name, err)
		}
		if w >= baseSA && w < baseSA+bankWords {
			in.sa[w-baseSA] = uint32(v)
		} else {
			in.pre[w] = uint32(v)
		}
	}
	var err error
	if p.GXP.Kind == gxp.Fragment {
		err = p.fragmentInputs(l, in, read)
	} else {
		err = p.vertexInputs(l, in, read)
	}
	if err != nil {
		return nil, err
	}
	if l.Count.Set() {
		n, err := l.Count.Uint(MaxInstances + 1)
		if err != nil {
			return nil, fmt.Errorf("count: %v", err)
		}
		if in.count > 0 && int(n) > in.count {
			return nil, fmt.Errorf("count %d: the input data covers %d instances", n, in.count)
		}
		in.count = int(n)
	} else if in.count == 0 {
		in.count = 1
	}
	return in, nil
}

// perInstance is one named input: values per instance, packed into PA
// registers.
type perInstance struct {
	name  string
	vals  []float64
	comps int
	f     fmtID
	pa    int
}

// placeAll makes in.fill from the per-instance inputs and counts the
// instances they cover.
func (in *launchInputs) placeAll(items []perInstance) error {
	count := 0
	for i, it := range items {
		if len(it.vals)%it.comps != 0 {
			return fmt.Errorf("%s: %d values is not a whole number of %d-component instances", it.name, len(it.vals), it.comps)
		}
		n := len(it.vals) / it.comps
		if i == 0 {
			count = n
		} else if n != count {
			return fmt.Errorf("%s covers %d instances, %s %d", it.name, n, items[0].name, count)
		}
		if it.pa < 0 || it.pa+wordsOf(it.f, it.comps) > bankWords {
			return fmt.Errorf("%s: pa%d..%d is outside the PA bank", it.name, it.pa, it.pa+wordsOf(it.f, it.comps)-1)
		}
	}
	in.count = count
	pre := in.pre
	in.fill = func(i int, t *Instance) error {
		for w, v := range pre {
			t.File[w] = v
		}
		for _, it := range items {
			n := wordsOf(it.f, it.comps)
			regs := t.File[basePA+it.pa : basePA+it.pa+n]
			if i*it.comps >= len(it.vals) {
				clear(regs) // fewer values than count asks: the registers are 0
				continue
			}
			pack(it.vals[i*it.comps:(i+1)*it.comps], it.f, regs)
		}
		return nil
	}
	return nil
}

func (p *Program) vertexInputs(l *Launch, in *launchInputs, read func(string) ([]byte, error)) error {
	if len(l.Inputs) > 0 {
		return fmt.Errorf("inputs are for fragment programs; a vertex program takes attributes")
	}
	var items []perInstance
	for _, name := range sortedKeys(l.Attributes) {
		par, ok := p.Param(name)
		if !ok || par.Category != gxp.Attribute {
			return fmt.Errorf("attributes: %q is not an attribute of %s (see gpuisa dis)", name, l.Program)
		}
		f, err := typeFmt(par.Type)
		if err != nil {
			return fmt.Errorf("attributes: %s: %v", name, err)
		}
		vals, err := readValues(l.Attributes[name], read)
		if err != nil {
			return fmt.Errorf("attributes: %s: %v", name, err)
		}
		comps := max(int(par.Components), 1) * int(max(par.ArraySize, 1))
		if comps > bankWords || par.ArraySize > bankWords {
			return fmt.Errorf("attributes: %s: %d components do not fit the PA bank", name, comps)
		}
		vals, err = expand(l.Attributes[name], vals, comps)
		if err != nil {
			return fmt.Errorf("attributes: %s: %v", name, err)
		}
		items = append(items, perInstance{name: name, vals: vals, comps: comps, f: f, pa: int(par.ResourceIndex)})
	}
	return in.placeAll(items)
}

// inputName is a fragment input's launch name.
func inputName(x *gxp.FragmentInput) string {
	switch x.Kind {
	case gxp.InputTexcoord:
		return fmt.Sprintf("TEXCOORD%d", x.Index)
	case gxp.InputColor:
		return fmt.Sprintf("COLOR%d", x.Index)
	case gxp.InputFog:
		return "FOG"
	case gxp.InputPosition:
		return "POSITION"
	case gxp.InputSpriteCoord:
		return "SPRITECOORD"
	}
	return ""
}

func (p *Program) fragmentInputs(l *Launch, in *launchInputs, read func(string) ([]byte, error)) error {
	if len(l.Attributes) > 0 {
		return fmt.Errorf("attributes are for vertex programs; a fragment program takes inputs")
	}
	known := map[string]bool{}
	var items []perInstance
	coords := map[int][]float64{} // texcoord index -> values (for non-dependent reads)
	coordComps := map[int]int{}
	for _, name := range sortedKeys(l.Inputs) {
		vals, err := readValues(l.Inputs[name], read)
		if err != nil {
			return fmt.Errorf("inputs: %s: %v", name, err)
		}
		if rest, ok := strings.CutPrefix(name, "TEXCOORD"); ok {
			if k, err := strconv.Atoi(rest); err == nil {
				coords[k] = vals
			}
		}
		known[name] = false
		for i := range p.Res.Inputs {
			x := &p.Res.Inputs[i]
			if x.Kind == gxp.InputNone || inputName(x) != name {
				continue
			}
			f, err := typeFmt(x.Format)
			if err != nil {
				return fmt.Errorf("inputs: %s: %v", name, err)
			}
			if vals, err = expand(l.Inputs[name], vals, x.Components); err != nil {
				return fmt.Errorf("inputs: %s: %v", name, err)
			}
			if f == fU8 { // colours iterated as bytes are normalised
				vals = scaled(vals, 255)
			}
			items = append(items, perInstance{name: name, vals: vals, comps: x.Components, f: f, pa: x.PA})
			known[name] = true
			if x.Kind == gxp.InputTexcoord {
				coordComps[x.Index] = x.Components
			}
		}
	}
	// non-dependent texture reads: sampled before the program runs
	var samples []func(i int, t *Instance) error
	for i := range p.Res.Inputs {
		x := p.Res.Inputs[i]
		if !x.Sample {
			continue
		}
		name := fmt.Sprintf("TEXCOORD%d", x.SampleCoord)
		vals, ok := coords[x.SampleCoord]
		if !ok {
			return fmt.Errorf("inputs: the program samples texture unit %d at %s before it starts; give %s", x.Texture, name, name)
		}
		known[name] = true
		comps := coordComps[x.SampleCoord]
		if comps == 0 {
			comps = x.CoordComps
		}
		if x.Texture < 0 || x.Texture >= len(in.tex) || in.tex[x.Texture] == nil {
			return fmt.Errorf("textures: the program samples texture unit %d (%s); bind a texture to it", x.Texture, p.samplerName(x.Texture))
		}
		tx := in.tex[x.Texture]
		if tx.Cube {
			return fmt.Errorf("textures: %s is a cube texture; the program samples it before it starts, with 2D coordinates", p.samplerName(x.Texture))
		}
		f, err := typeFmt(x.SampleFormat)
		if err != nil {
			return err
		}
		samples = append(samples, func(i int, t *Instance) error {
			if (i+1)*comps > len(vals) {
				return nil
			}
			c := vals[i*comps : (i+1)*comps]
			u, v := float32(c[0]), float32(0)
			if len(c) > 1 {
				v = float32(c[1])
			}
			if x.Projected && len(c) > 2 {
				w := float32(c[len(c)-1])
				u, v = u/w, v/w
			}
			rgba := tx.Sample(u, v)
			vals := []float64{float64(rgba[0]), float64(rgba[1]), float64(rgba[2]), float64(rgba[3])}
			if f == fU8 {
				vals = scaled(vals, 255)
			}
			n := wordsOf(f, 4)
			if x.SamplePA+n > bankWords {
				return fmt.Errorf("sample at pa%d is past the PA bank", x.SamplePA)
			}
			pack(vals, f, t.File[basePA+x.SamplePA:basePA+x.SamplePA+n])
			return nil
		})
	}
	for _, name := range sortedKeys(known) {
		if !known[name] {
			return fmt.Errorf("inputs: %s is not an input of %s", name, l.Program)
		}
	}
	if err := in.placeAll(items); err != nil {
		return fmt.Errorf("inputs: %v", err)
	}
	if in.count == 0 {
		for k, vals := range coords {
			if c := coordComps[k]; c > 0 {
				in.count = len(vals) / c
			} else {
				in.count = len(vals) / 2
			}
		}
	}
	fill := in.fill
	in.fill = func(i int, t *Instance) error {
		if err := fill(i, t); err != nil {
			return err
		}
		for _, s := range samples {
			if err := s(i, t); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// expand fills each instance's missing components with (0, 0, 0, 1)'s
// when the values give fewer than comps per instance.
func expand(v Values, vals []float64, comps int) ([]float64, error) {
	if !v.Components.Set() {
		return vals, nil
	}
	n, err := v.Components.Uint(5)
	if err != nil || n == 0 || int(n) > comps {
		return nil, fmt.Errorf("components: 1..%d", comps)
	}
	k := int(n)
	if len(vals)%k != 0 {
		return nil, fmt.Errorf("%d values is not a whole number of %d-component instances", len(vals), k)
	}
	out := make([]float64, 0, len(vals)/k*comps)
	for i := 0; i < len(vals); i += k {
		out = append(out, vals[i:i+k]...)
		for c := k; c < comps; c++ {
			x := 0.0
			if c == 3 {
				x = 1
			}
			out = append(out, x)
		}
	}
	return out, nil
}

func scaled(v []float64, k float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * k
	}
	return out
}

// textureUnit maps a launch texture name (a sampler parameter, or
// "tex0".."tex15") to its unit.
func (p *Program) textureUnit(name string) (int, error) {
	if par, ok := p.Param(name); ok && par.Category == gxp.Sampler {
		if par.ResourceIndex < 0 || par.ResourceIndex >= 16 {
			return 0, fmt.Errorf("%s: texture unit %d", name, par.ResourceIndex)
		}
		return int(par.ResourceIndex), nil
	}
	if rest, ok := strings.CutPrefix(name, "tex"); ok {
		if n, err := strconv.Atoi(rest); err == nil && n >= 0 && n < 16 {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%q is neither a sampler of the program nor tex0..tex15", name)
}

func (p *Program) samplerName(unit int) string {
	for _, par := range p.GXP.Params {
		if par.Category == gxp.Sampler && int(par.ResourceIndex) == unit {
			return par.Name
		}
	}
	return fmt.Sprintf("tex%d", unit)
}

func loadTexture(im emu.Image, read func(string) ([]byte, error)) (*Texture, error) {
	for name, set := range map[string]bool{"buffer": im.Buffer != "", "layers": im.Layers.Set(), "levels": im.Levels.Set(),
		"border": len(im.Border) > 0, "compare": im.Compare != "", "mip_filter": im.MipFilter != ""} {
		if set {
			return nil, fmt.Errorf("%s: only file or fill, format, size, filter, address, cube and normalized (true) apply to shader textures", name)
		}
	}
	if len(im.Size) != 2 {
		return nil, fmt.Errorf("size needs [width, height]")
	}
	var wh [2]int
	for i, n := range im.Size {
		v, err := n.Uint(1<<14 + 1)
		if err != nil {
			return nil, fmt.Errorf("size[%d]: %v", i, err)
		}
		wh[i] = int(v)
	}
	tx := &Texture{Width: wh[0], Height: wh[1], Format: im.Format, Cube: im.Cube}
	switch im.Filter {
	case "", "nearest":
	case "linear":
		tx.Linear = true
	default:
		return nil, fmt.Errorf("filter %q (nearest or linear)", im.Filter)
	}
	if len(im.Address) > 2 {
		return nil, fmt.Errorf("address: one mode per axis (two)")
	}
	for i, a := range im.Address {
		tx.Wrap[i] = a
	}
	if len(im.Address) == 1 {
		tx.Wrap[1] = im.Address[0]
	}
	ch, size, ok := texLayout(tx.Format)
	if !ok {
		return nil, tx.Check()
	}
	n := tx.faces() * wh[0] * wh[1] * ch * size
	switch {
	case im.File != "":
		b, err := read(im.File)
		if err != nil {
			return nil, err
		}
		tx.Data = b
	case im.Fill.Set():
		v, err := im.Fill.Uint(256)
		if err != nil {
			return nil, fmt.Errorf("fill: %v", err)
		}
		tx.Data = bytes.Repeat([]byte{byte(v)}, n)
	default:
		return nil, fmt.Errorf("no file or fill")
	}
	return tx, tx.Check()
}

func loadMemory(l *Launch, read func(string) ([]byte, error)) (*emu.Memory, error) {
	size := uint64(1 << 16)
	if l.MemoryBytes.Set() {
		v, err := l.MemoryBytes.Uint(emu.MaxMemory + 1)
		if err != nil {
			return nil, fmt.Errorf("memory_bytes: %v", err)
		}
		size = v
	}
	type placed struct {
		addr uint64
		b    []byte
	}
	var ims []placed
	for i, m := range l.Memory {
		if m.Space != "" && m.Space != "global" {
			return nil, fmt.Errorf("memory[%d]: space %q (shaders reach one memory: global)", i, m.Space)
		}
		if m.Bank.Set() {
			return nil, fmt.Errorf("memory[%d]: bank: only constant memory has banks, and shaders reach global memory only", i)
		}
		a, err := m.Addr.Uint(1 << 32)
		if err != nil {
			return nil, fmt.Errorf("memory[%d].addr: %v", i, err)
		}
		var b []byte
		switch {
		case m.File != "":
			if b, err = read(m.File); err != nil {
				return nil, fmt.Errorf("memory[%d]: %v", i, err)
			}
		case m.Bytes.Set():
			n, err := m.Bytes.Uint(emu.MaxMemory + 1)
			if err != nil {
				return nil, fmt.Errorf("memory[%d].bytes: %v", i, err)
			}
			fill := uint64(0)
			if m.Fill.Set() {
				if fill, err = m.Fill.Uint(256); err != nil {
					return nil, fmt.Errorf("memory[%d].fill: %v", i, err)
				}
			}
			b = bytes.Repeat([]byte{byte(fill)}, int(n))
		default:
			return nil, fmt.Errorf("memory[%d]: no file or bytes", i)
		}
		ims = append(ims, placed{a, b})
		size = max(size, a+uint64(len(b)))
	}
	if size > emu.MaxMemory {
		return nil, fmt.Errorf("memory: %d bytes (limit %d)", size, emu.MaxMemory)
	}
	m := &emu.Memory{Space: emu.Global, Data: make([]byte, size)}
	for _, im := range ims {
		copy(m.Data[im.addr:], im.b)
	}
	return m, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
