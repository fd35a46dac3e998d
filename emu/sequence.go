package emu

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A launch file's "launches" (our extension) make it a program of many
// launches over shared buffers, as a host loop runs them: each step is a
// launch (the fields it changes from the launch file's: kernel, program,
// grid, block, params, ...) or a group of steps, and either may repeat,
// a fixed number of times or while a buffer's element is not zero. The
// buffers are placed by the first launch and keep their contents; the
// outputs and expectations are read after the last. docs/launch.md
// describes the fields.

// Step is one entry of "launches".
type Step struct {
	Program     string     `json:"program"`
	Arch        string     `json:"arch"`
	Kernel      string     `json:"kernel"`
	Link        []string   `json:"link"`
	Grid        []Num      `json:"grid"`
	Block       []Num      `json:"block"`
	SharedBytes Num        `json:"shared_bytes"`
	LocalBytes  Num        `json:"local_bytes"`
	MaxSteps    Num        `json:"max_steps"`
	Memory      []MemImage `json:"memory"`
	Params      []Param    `json:"params"`
	Zero        []string   `json:"zero"` // buffers zero-filled before the launch (each repetition)
	Repeat      Num        `json:"repeat"`
	While       *While     `json:"while"`
	Launches    []RawStep  `json:"launches"` // a group: these steps, repeated together
	Note        string     `json:"note"`
}

// RawStep is a step as written: templates ({$i ...}) are expanded for each
// repetition before it is read.
type RawStep = json.RawMessage

// While repeats a step while an element of a buffer, read after each
// repetition, is not zero.
type While struct {
	Buffer string `json:"buffer"`
	Index  Num    `json:"index"` // element index (a template, e.g. "{$i+1}")
	Type   string `json:"type"`  // u8, u16, u32 (default), u64 (s8..s64, f32, f64 alike)
}

// Limits of a sequence: launches in all, nesting of groups, repetitions of
// one step.
const (
	MaxLaunches  = 1 << 20
	maxNesting   = 8
	maxRepeat    = 1 << 20
	defaultWhile = 1 << 16 // a while loop's repetitions when repeat is not given
)

// readStep reads a step as written, templates unexpanded (Step.at expands
// them for a repetition).
func readStep(raw RawStep) (*Step, error) {
	var s Step
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if s.Launches != nil && len(s.Launches) == 0 {
		return nil, fmt.Errorf("launches: a list of steps")
	}
	return &s, nil
}

// at is the step for repetition i: the templates of its strings expanded
// (a group's own steps expand later, with their own repetitions).
func (s *Step) at(i int64) (*Step, error) {
	c := *s
	var err error
	ex := func(p *string) {
		if err == nil && strings.Contains(*p, "{") {
			*p, err = expand(*p, i)
		}
	}
	exNums := func(ns []Num) []Num {
		ns = slices.Clone(ns)
		for k := range ns {
			ex(&ns[k].Text)
		}
		return ns
	}
	for _, p := range []*string{&c.Program, &c.Arch, &c.Kernel} {
		ex(p)
	}
	c.Link = slices.Clone(s.Link)
	for k := range c.Link {
		ex(&c.Link[k])
	}
	c.Zero = slices.Clone(s.Zero)
	for k := range c.Zero {
		ex(&c.Zero[k])
	}
	c.Grid, c.Block = exNums(s.Grid), exNums(s.Block)
	for _, n := range []*Num{&c.SharedBytes, &c.LocalBytes, &c.MaxSteps, &c.Repeat} {
		ex(&n.Text)
	}
	if s.Params != nil {
		c.Params = slices.Clone(s.Params)
		for k := range c.Params {
			p := &c.Params[k]
			for _, n := range []**Num{&p.U32, &p.S32, &p.U64, &p.F32, &p.F64} {
				if *n != nil {
					v := **n
					ex(&v.Text)
					*n = &v
				}
			}
			for _, n := range []**string{&p.Ptr, &p.Tex, &p.Surf} {
				if *n != nil {
					v := **n
					ex(&v)
					*n = &v
				}
			}
		}
	}
	c.Memory = slices.Clone(s.Memory)
	for k := range c.Memory {
		m := &c.Memory[k]
		ex(&m.Space)
		ex(&m.File)
		for _, n := range []*Num{&m.Bank, &m.Addr, &m.Bytes, &m.Fill} {
			ex(&n.Text)
		}
	}
	if s.While != nil {
		w := *s.While
		ex(&w.Buffer)
		ex(&w.Index.Text)
		ex(&w.Type)
		c.While = &w
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// checkSteps reads every step (templates at $i = 0, groups' steps too)
// for the launch file's check.
func (l *Launch) checkSteps(steps []RawStep, depth int) error {
	if depth > maxNesting {
		return fmt.Errorf("groups nested deeper than %d", maxNesting)
	}
	for k, raw := range steps {
		t, err := readStep(raw)
		if err != nil {
			return fmt.Errorf("step %d: %v", k, err)
		}
		s, err := t.at(0)
		if err != nil {
			return fmt.Errorf("step %d: %v", k, err)
		}
		if err := s.check(l); err != nil {
			return fmt.Errorf("step %d: %v", k, err)
		}
		if err := l.checkSteps(s.Launches, depth+1); err != nil {
			return fmt.Errorf("step %d: %v", k, err)
		}
	}
	return nil
}

// check tests what a step says without its files.
func (s *Step) check(l *Launch) error {
	if s.Launches != nil && (s.Program != "" || s.Kernel != "" || len(s.Grid) > 0 || len(s.Block) > 0 || s.Params != nil || len(s.Memory) > 0) {
		return fmt.Errorf("a group (launches) has no launch fields of its own")
	}
	if s.Repeat.Set() {
		if _, err := s.Repeat.Uint(maxRepeat + 1); err != nil {
			return fmt.Errorf("repeat: %v", err)
		}
	}
	if s.While != nil {
		if _, ok := l.Buffers[s.While.Buffer]; !ok {
			return fmt.Errorf("while: no buffer %q", s.While.Buffer)
		}
		if _, err := s.While.Index.Uint(MaxMemory); err != nil && s.While.Index.Set() {
			return fmt.Errorf("while.index: %v", err)
		}
		if _, err := typeSize(s.While.Type); err != nil {
			return fmt.Errorf("while: %v", err)
		}
	}
	for _, z := range s.Zero {
		if _, ok := l.Buffers[z]; !ok {
			return fmt.Errorf("zero: no buffer %q", z)
		}
	}
	if s.Launches != nil {
		return nil
	}
	// the launch the step makes from the launch file
	c := s.launch(l)
	if c.Program == "" {
		return fmt.Errorf("no program")
	}
	if _, err := dim3("grid", c.Grid); err != nil {
		return err
	}
	if _, err := dim3("block", c.Block); err != nil {
		return err
	}
	return c.checkFields()
}

// launch is the launch file with the step's fields over it.
func (s *Step) launch(l *Launch) *Launch {
	c := *l
	c.Launches = nil
	if s.Program != "" {
		c.Program, c.Link = s.Program, s.Link
	}
	if s.Arch != "" {
		c.Arch = s.Arch
	}
	if s.Kernel != "" {
		c.Kernel = s.Kernel
	}
	if len(s.Grid) > 0 {
		c.Grid = s.Grid
	}
	if len(s.Block) > 0 {
		c.Block = s.Block
	}
	if s.SharedBytes.Set() {
		c.SharedBytes = s.SharedBytes
	}
	if s.LocalBytes.Set() {
		c.LocalBytes = s.LocalBytes
	}
	if s.MaxSteps.Set() {
		c.MaxSteps = s.MaxSteps
	}
	if s.Params != nil {
		c.Params = s.Params
	}
	c.Memory = append(slices.Clone(l.Memory), s.Memory...)
	return &c
}

func typeSize(t string) (int, error) {
	switch t {
	case "u8", "s8":
		return 1, nil
	case "u16", "s16":
		return 2, nil
	case "", "u32", "s32", "f32":
		return 4, nil
	case "u64", "s64", "f64":
		return 8, nil
	}
	return 0, fmt.Errorf("type %q (u8 .. u64, s8 .. s64, f32, f64)", t)
}

// Sequence is the progress of a launch file's launches on a device.
type Sequence struct {
	l        *Launch
	dir      string
	dev      *Device
	base     *Job                // the launch file's own job: its data read once
	programs map[string]*Program // by what the step names, so a device loads each once
	// Adjust, when set, changes each job before it runs (workers, trace,
	// step limits: how to run).
	Adjust func(*Job)
	// After, when set, is called after each launch with its number (from
	// 0), its job and its result.
	After func(n int, j *Job, r *Result, err error)

	Launches int   // launches run
	Stats    Stats // their sum
	first    bool
	zeroNext []string // buffers the next launch zero-fills
}

// NewSequence reads the launch file's data (relative to dir) for a run on
// dev.
func (l *Launch) NewSequence(dev *Device, dir string) (*Sequence, error) {
	base, err := l.Job(dir)
	if err != nil {
		return nil, err
	}
	q := &Sequence{l: l, dir: dir, dev: dev, base: base, programs: map[string]*Program{}, first: true}
	q.programs[programKey(l)] = base.Program
	return q, nil
}

func programKey(l *Launch) string {
	return strings.Join(append([]string{l.Program, l.Arch, l.Kernel}, l.Link...), "\x00")
}

// Run runs the launch file: its one launch, or its launches in order. It
// returns the device's memory after the last launch (or the fault's, with
// the fault); a launch that cannot start returns a nil result.
func (q *Sequence) Run() (*Result, error) {
	start := time.Now()
	defer func() { q.Stats.Duration = time.Since(start) }()
	if len(q.l.Launches) == 0 {
		return q.launch(q.l, q.base.Program)
	}
	return q.steps(q.l.Launches, 0)
}

// steps runs a list of steps (the launch file's, or a group's).
func (q *Sequence) steps(steps []RawStep, depth int) (*Result, error) {
	var res *Result
	for k, raw := range steps {
		tmpl, err := readStep(raw)
		if err != nil {
			return res, fmt.Errorf("step %d: %v", k, err)
		}
		first, err := tmpl.at(0)
		if err != nil {
			return res, fmt.Errorf("step %d: %v", k, err)
		}
		n := uint64(1)
		if first.Repeat.Set() {
			n, _ = first.Repeat.Uint(maxRepeat + 1)
		} else if first.While != nil {
			n = defaultWhile
		}
		varies := bytes.Contains(raw, []byte("$i")) // else every repetition is the first
		for i := int64(0); uint64(i) < n; i++ {
			s := first
			if i > 0 && varies {
				if s, err = tmpl.at(i); err != nil {
					return res, fmt.Errorf("step %d (repetition %d): %v", k, i, err)
				}
			}
			if s.Launches != nil {
				if depth >= maxNesting {
					return res, fmt.Errorf("step %d: groups nested deeper than %d", k, maxNesting)
				}
				q.zeroNext = append(q.zeroNext, s.Zero...)
				r, err := q.steps(s.Launches, depth+1)
				if r != nil {
					res = r
				}
				if err != nil {
					return res, fmt.Errorf("step %d (repetition %d): %w", k, i, err)
				}
			} else {
				c := s.launch(q.l)
				prog, err := q.program(c)
				if err != nil {
					return res, fmt.Errorf("step %d: %v", k, err)
				}
				q.zeroNext = append(q.zeroNext, s.Zero...)
				r, err := q.launch(c, prog)
				if r != nil {
					res = r
				}
				if err != nil {
					return res, fmt.Errorf("step %d (repetition %d): %w", k, i, err)
				}
			}
			if s.While != nil {
				more, err := q.nonZero(s.While)
				if err != nil {
					return res, fmt.Errorf("step %d: while: %v", k, err)
				}
				if !more {
					break
				}
				if uint64(i) == n-1 {
					return res, fmt.Errorf("step %d: while: %s is still not zero after %d repetitions", k, s.While.Buffer, n)
				}
			}
		}
	}
	return res, nil
}

// program returns the step's program, read once.
func (q *Sequence) program(c *Launch) (*Program, error) {
	key := programKey(c)
	if p, ok := q.programs[key]; ok {
		return p, nil
	}
	p, err := c.program(q.dir)
	if err != nil {
		return nil, err
	}
	q.programs[key] = p
	return p, nil
}

// launch runs one launch made from c (the launch file with a step over it).
func (q *Sequence) launch(c *Launch, prog *Program) (*Result, error) {
	zero := q.zeroNext
	q.zeroNext = nil
	if q.Launches >= MaxLaunches {
		return nil, fmt.Errorf("more than %d launches", MaxLaunches)
	}
	j := *q.base
	j.Program = prog
	var err error
	if j.Grid, err = dim3("grid", c.Grid); err != nil {
		return nil, err
	}
	if j.Block, err = dim3("block", c.Block); err != nil {
		return nil, err
	}
	n, _ := c.SharedBytes.Uint(MaxMemory + 1)
	j.SharedBytes = int(n)
	n, _ = c.LocalBytes.Uint(MaxMemory + 1)
	j.LocalBytes = int(n)
	n, _ = c.MaxSteps.Uint(0)
	j.MaxSteps = maxSteps(n)
	j.Args = nil
	for i, p := range c.Params {
		a, err := p.arg()
		if err != nil {
			return nil, fmt.Errorf("params[%d]: %v", i, err)
		}
		j.Args = append(j.Args, a)
	}
	// the launch file's memory images and buffers' data go in before the
	// first launch; later launches keep what the kernels made, and place
	// their constant and shared images (the step's own images too)
	j.Memory = nil
	for i, m := range c.Memory {
		sp, _ := spaceOf(m.Space, true)
		if i < len(q.l.Memory) {
			if sp == Global && !q.first {
				continue
			}
			j.Memory = append(j.Memory, q.base.Memory[i])
			continue
		}
		addr, _ := m.Addr.Uint(0)
		data, err := imageBytes(c, q.dir, m.File, m.Bytes, m.Fill, imageLimit(sp, addr))
		if err != nil {
			return nil, fmt.Errorf("memory[%d]: %v", i, err)
		}
		bank, _ := m.Bank.Uint(16)
		j.Memory = append(j.Memory, Placement{Space: sp, Bank: int(bank), Addr: addr, Data: data})
	}
	if !q.first {
		j.Buffers = make([]Alloc, len(q.base.Buffers))
		for i, b := range q.base.Buffers {
			j.Buffers[i] = Alloc{Name: b.Name}
			if slices.Contains(zero, b.Name) {
				j.Buffers[i].Data = make([]byte, len(b.Data))
			}
		}
	} else if len(zero) > 0 {
		j.Buffers = slices.Clone(j.Buffers)
		for i, b := range j.Buffers {
			if slices.Contains(zero, b.Name) {
				j.Buffers[i].Data = make([]byte, len(b.Data))
			}
		}
	}
	if q.Adjust != nil {
		q.Adjust(&j)
	}
	res, err := q.dev.Run(&j)
	if q.After != nil {
		q.After(q.Launches, &j, res, err)
	}
	if res != nil {
		q.first = false
		q.Launches++
		st := res.Stats
		q.Stats.Blocks += st.Blocks
		q.Stats.Warps += st.Warps
		q.Stats.WarpInsts += st.WarpInsts
		q.Stats.ThreadInsts += st.ThreadInsts
		q.Stats.Divergent += st.Divergent
	}
	return res, err
}

// nonZero reads a while condition's element.
func (q *Sequence) nonZero(w *While) (bool, error) {
	b, err := q.dev.Buffer(w.Buffer)
	if err != nil {
		return false, err
	}
	size, _ := typeSize(w.Type)
	idx, err := w.Index.Uint(MaxMemory)
	if err != nil && w.Index.Set() {
		return false, err
	}
	off := idx * uint64(size)
	if off+uint64(size) > uint64(len(b)) {
		return false, fmt.Errorf("element %d of %s is past its %d bytes", idx, w.Buffer, len(b))
	}
	var v uint64
	for k := size - 1; k >= 0; k-- {
		v = v<<8 | uint64(b[off+uint64(k)])
	}
	if w.Type == "f32" {
		v = uint64(binary.LittleEndian.Uint32(b[off:]) &^ (1 << 31)) // -0 is zero
	}
	if w.Type == "f64" {
		v = binary.LittleEndian.Uint64(b[off:]) &^ (1 << 63)
	}
	return v != 0, nil
}
