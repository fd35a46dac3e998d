package emu

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
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

// Sequence is the progress of a launch file's launches on a device. Run
// runs them all; Next and Done step through them one launch at a time for
// callers that run each launch themselves (fault injection runs them block
// by block), and Fork copies the progress to go on from the same place on
// another device.
type Sequence struct {
	l        *Launch
	dir      string
	dev      *Device
	base     *Job // the launch file's own job: its data read once
	programs *programCache
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
	// where the sequence is: the lists of steps being run, the outermost
	// first; started once Next has been called
	stack   []frame
	started bool
	pending bool // Next returned a launch that Done has not reported
	advance bool // the innermost step's repetition has ended: check its while, go on
}

// frame is a list of steps being run (the launch file's, or a group's)
// and the place in it: step k, its repetition i.
type frame struct {
	steps  []RawStep
	k      int
	tmpl   *Step // step k as written (nil: not begun)
	first  *Step // its repetition 0
	n      uint64
	varies bool
	i      int64
	s      *Step // step k at repetition i
}

// programCache holds the programs a sequence (and its forks) read, by
// what the step names, so a device loads each once.
type programCache struct {
	mu sync.Mutex
	m  map[string]*Program
}

// ErrHostLoop is the error of a while step still not done after its
// repetitions (a host loop that would not end) or of a sequence past
// MaxLaunches.
var ErrHostLoop = errors.New("host loop limit")

// NewSequence reads the launch file's data (relative to dir) for a run on
// dev.
func (l *Launch) NewSequence(dev *Device, dir string) (*Sequence, error) {
	base, err := l.Job(dir)
	if err != nil {
		return nil, err
	}
	q := &Sequence{l: l, dir: dir, dev: dev, base: base, programs: &programCache{m: map[string]*Program{}}, first: true}
	q.programs.m[programKey(l)] = base.Program
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
	var res *Result
	for {
		j, err := q.Next()
		if err != nil || j == nil {
			return res, err
		}
		r, err := q.dev.Run(j)
		if r != nil {
			res = r
		}
		if err := q.Done(j, r, err); err != nil {
			return res, err
		}
	}
}

// Fork returns a copy of the sequence's progress that goes on, on dev
// (whose memory the caller has put in the state this sequence's device
// is in), independently of q. Programs read by either are shared.
func (q *Sequence) Fork(dev *Device) *Sequence {
	c := *q
	c.dev = dev
	c.stack = slices.Clone(q.stack)
	c.zeroNext = slices.Clone(q.zeroNext)
	return &c
}

// Next returns the job of the next launch, or nil when the sequence has
// ended. The caller runs it on the sequence's device (Device.Run, or block
// by block after Device.Prepare) and reports the result with Done before
// the next call; a while condition is read from the device's memory by
// the call after the launch.
func (q *Sequence) Next() (*Job, error) {
	if q.pending {
		return nil, fmt.Errorf("sequence: Next before the last launch's Done")
	}
	if !q.started {
		q.started = true
		if len(q.l.Launches) == 0 {
			// a launch file without launches is its one launch
			q.stack = []frame{{n: 1, s: &Step{}, first: &Step{}}}
		} else {
			q.stack = []frame{{steps: q.l.Launches}}
		}
	}
	if q.advance {
		q.advance = false
		if err := q.endRepetition(); err != nil {
			return nil, err
		}
	}
	for len(q.stack) > 0 {
		d := len(q.stack) - 1
		f := &q.stack[d]
		if f.s == nil {
			if f.k >= len(f.steps) {
				// a group's steps are done: its repetition ended
				q.stack = q.stack[:d]
				if d == 0 {
					return nil, nil
				}
				if err := q.endRepetition(); err != nil {
					return nil, err
				}
				continue
			}
			if err := q.beginStep(f); err != nil {
				return nil, q.wrap(d, fmt.Errorf("step %d: %v", f.k, err))
			}
			if f.s == nil {
				continue // repeated 0 times
			}
		}
		s := f.s
		if s.Launches != nil {
			if d >= maxNesting {
				return nil, q.wrap(d, fmt.Errorf("step %d: groups nested deeper than %d", f.k, maxNesting))
			}
			q.zeroNext = append(q.zeroNext, s.Zero...)
			q.stack = append(q.stack, frame{steps: s.Launches})
			continue
		}
		c, prog := q.l, q.base.Program
		if f.steps != nil {
			c = s.launch(q.l)
			var err error
			if prog, err = q.program(c); err != nil {
				return nil, q.wrap(d, fmt.Errorf("step %d: %v", f.k, err))
			}
		}
		q.zeroNext = append(q.zeroNext, s.Zero...)
		j, err := q.job(c, prog)
		if err != nil {
			return nil, q.wrapLaunch(err)
		}
		q.pending = true
		return j, nil
	}
	return nil, nil
}

// Done reports the result of the launch Next returned (r nil: it did not
// start) and returns its error placed in the sequence (nil without one).
func (q *Sequence) Done(j *Job, r *Result, err error) error {
	if !q.pending {
		return fmt.Errorf("sequence: Done without a launch")
	}
	q.pending = false
	if q.After != nil {
		q.After(q.Launches, j, r, err)
	}
	if r != nil {
		q.first = false
		q.Launches++
		st := r.Stats
		q.Stats.Blocks += st.Blocks
		q.Stats.Warps += st.Warps
		q.Stats.WarpInsts += st.WarpInsts
		q.Stats.ThreadInsts += st.ThreadInsts
		q.Stats.Divergent += st.Divergent
	}
	if err != nil {
		return q.wrapLaunch(err)
	}
	q.advance = true
	return nil
}

// beginStep reads step f.k at its repetition 0.
func (q *Sequence) beginStep(f *frame) error {
	tmpl, err := readStep(f.steps[f.k])
	if err != nil {
		return err
	}
	first, err := tmpl.at(0)
	if err != nil {
		return err
	}
	n := uint64(1)
	if first.Repeat.Set() {
		n, _ = first.Repeat.Uint(maxRepeat + 1)
	} else if first.While != nil {
		n = defaultWhile
	}
	f.tmpl, f.first, f.n, f.i, f.s = tmpl, first, n, 0, first
	f.varies = bytes.Contains(f.steps[f.k], []byte("$i")) // else every repetition is the first
	if n == 0 {
		f.k, f.s = f.k+1, nil
	}
	return nil
}

// endRepetition goes on after the innermost step's repetition: its while
// condition, its next repetition or the next step.
func (q *Sequence) endRepetition() error {
	d := len(q.stack) - 1
	f := &q.stack[d]
	s := f.s
	if s.While != nil {
		more, err := q.nonZero(s.While)
		if err != nil {
			return q.wrap(d, fmt.Errorf("step %d: while: %v", f.k, err))
		}
		if !more {
			f.k, f.s = f.k+1, nil
			return nil
		}
		if uint64(f.i) == f.n-1 {
			return q.wrap(d, fmt.Errorf("step %d: while: %s is still not zero after %d repetitions (%w)", f.k, s.While.Buffer, f.n, ErrHostLoop))
		}
	}
	f.i++
	if uint64(f.i) >= f.n {
		f.k, f.s = f.k+1, nil
		return nil
	}
	f.s = f.first
	if f.varies {
		var err error
		if f.s, err = f.tmpl.at(f.i); err != nil {
			return q.wrap(d, fmt.Errorf("step %d (repetition %d): %v", f.k, f.i, err))
		}
	}
	return nil
}

// wrap places an error of the steps at depth d in the groups around them.
func (q *Sequence) wrap(d int, err error) error {
	for a := d - 1; a >= 0; a-- {
		f := &q.stack[a]
		err = fmt.Errorf("step %d (repetition %d): %w", f.k, f.i, err)
	}
	return err
}

// wrapLaunch places the error of the innermost step's launch.
func (q *Sequence) wrapLaunch(err error) error {
	d := len(q.stack) - 1
	if q.stack[d].steps == nil {
		return err // the launch file's one launch
	}
	return q.wrap(d+1, err)
}

// program returns the step's program, read once.
func (q *Sequence) program(c *Launch) (*Program, error) {
	key := programKey(c)
	pc := q.programs
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if p, ok := pc.m[key]; ok {
		return p, nil
	}
	p, err := c.program(q.dir)
	if err != nil {
		return nil, err
	}
	pc.m[key] = p
	return p, nil
}

// job makes the job of one launch from c (the launch file with a step
// over it).
func (q *Sequence) job(c *Launch, prog *Program) (*Job, error) {
	zero := q.zeroNext
	q.zeroNext = nil
	if q.Launches >= MaxLaunches {
		return nil, fmt.Errorf("more than %d launches (%w)", MaxLaunches, ErrHostLoop)
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
	return &j, nil
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
