package emu

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Emulator is a family of architectures the engine can run: what an
// emulator package (emu/tesla, emu/maxwell, ...) provides. emu/all lists
// them; a Device dispatches a job to the one that has its architecture.
type Emulator struct {
	Family string   // "tesla", "maxwell", ...
	Archs  []string // "sm_10", "sm_11", ...
	// Load reads a program for arch: a cubin or fatbin (its kernel), a
	// listing, or raw code, linked with p.Link where the ISA links. A
	// Device does it once per program and runs every launch of the
	// program with the result.
	Load func(p *Program, arch string) (Loaded, error)
}

// Loaded is a program an Emulator has read, ready to run launches.
type Loaded interface {
	// Run runs one launch placed in memory (s.Memory is the global memory
	// to run on) and returns the statistics and the first fault.
	Run(s *Setup) (Stats, error)
}

// LoadedFunc is a Loaded that is a function.
type LoadedFunc func(s *Setup) (Stats, error)

// Run implements Loaded.
func (f LoadedFunc) Run(s *Setup) (Stats, error) { return f(s) }

// Loader makes an Emulator's Load from an ISA's two steps: read reads a
// program once; kernel makes the Exec and engine configuration of one
// launch of it, which runs with the job's options applied.
func Loader[I any](read func(p *Program, arch string) (I, error),
	kernel func(s *Setup, img I) (Exec, Config, error)) func(*Program, string) (Loaded, error) {
	return func(p *Program, arch string) (Loaded, error) {
		img, err := read(p, arch)
		if err != nil {
			return nil, err
		}
		blocks := &Blocks{} // the engine's blocks, kept for the program's next launch
		return preparedLoad(func(s *Setup) (Exec, Config, error) {
			x, cfg, err := kernel(s, img)
			if err != nil {
				return x, cfg, err
			}
			s.ApplyOptions(&cfg)
			cfg.Blocks = blocks
			if j := s.Job; j != nil && j.Check != 0 {
				c, ok := x.(Checkable)
				if !ok {
					return x, cfg, fmt.Errorf("sanitizer checks run sm_5x kernels only")
				}
				cfg.Checker = NewChecker(j.Check, c.CheckInfo())
				s.Checker = cfg.Checker
			}
			return x, cfg, nil
		}), nil
	}
}

// Device is global memory and loaded programs that a sequence of jobs
// shares, as a GPU context does: buffers stay where the first job that
// names them put them and keep their contents from one job to the next,
// and a program (the same *Program) is read once. A Device runs one job at
// a time; its methods are not safe for concurrent use.
//
// Each job's images (memory, textures and surfaces) and a cubin's global
// variables are placed anew by its launch; images above MaxMemory must lie
// in the segments the device's first job made.
type Device struct {
	emulators []Emulator
	mem       *Memory
	buffers   map[string]BufferPlace
	programs  map[*Program]loadedProgram
}

type loadedProgram struct {
	arch   string
	loaded Loaded
}

// NewDevice makes an empty device that runs the architectures of the given
// emulators (emu/all.NewDevice gives it every one).
func NewDevice(emulators []Emulator) *Device {
	return &Device{emulators: emulators, buffers: map[string]BufferPlace{}, programs: map[*Program]loadedProgram{}}
}

// Runnable lists the architectures the device runs.
func (d *Device) Runnable() []string {
	var out []string
	for _, e := range d.emulators {
		out = append(out, e.Archs...)
	}
	return out
}

// Load reads and keeps a program for later jobs (Run loads a job's program
// when it has not been loaded); it returns the program's architecture.
func (d *Device) Load(p *Program) (string, error) {
	if lp, ok := d.programs[p]; ok {
		return lp.arch, nil
	}
	arch := p.Arch
	if arch == "" {
		a, err := ArchOf(p.Data)
		if err != nil {
			return "", fmt.Errorf("%s: %v", p.Name, err)
		}
		arch = a
	}
	i := slices.IndexFunc(d.emulators, func(e Emulator) bool { return slices.Contains(e.Archs, arch) })
	if i < 0 {
		return "", fmt.Errorf("%s: arch %q cannot be run (runnable: %s)", p.Name, arch, strings.Join(d.Runnable(), ", "))
	}
	l, err := d.emulators[i].Load(p, arch)
	if err != nil {
		return "", err
	}
	d.programs[p] = loadedProgram{arch, l}
	return arch, nil
}

// Run runs a job on the device and returns the result: the statistics and
// the device's memory after the run (which the next job changes). A fault
// is returned with the result so far; a job that cannot start returns a
// nil result.
func (d *Device) Run(j *Job) (*Result, error) {
	s, loaded, err := d.place(j)
	if err != nil {
		return nil, err
	}
	st, runErr := loaded.Run(s)
	if f := (*Fault)(nil); runErr != nil && !errors.As(runErr, &f) {
		return nil, runErr // the launch did not start (its setup was refused)
	}
	res := d.result(s.Arch, st)
	if s.Checker != nil {
		res.Findings, res.FindingsDropped = s.Checker.Findings()
	}
	return res, runErr
}

// place loads j's program and places j's data on the device.
func (d *Device) place(j *Job) (*Setup, Loaded, error) {
	if j.Program == nil {
		return nil, nil, fmt.Errorf("no program")
	}
	arch, err := d.Load(j.Program)
	if err != nil {
		return nil, nil, err
	}
	s, err := j.place(d.mem, d.buffers)
	if err != nil {
		return nil, nil, err
	}
	if d.mem == nil {
		d.mem = &Memory{Space: Global, Data: s.Global, Segments: s.GlobalSegments}
		s.Memory = d.mem
	}
	s.Arch = arch
	d.buffers = s.Buffers
	return s, d.programs[j.Program].loaded, nil
}

// result is the device's memory and buffers after a run.
func (d *Device) result(arch string, st Stats) *Result {
	return &Result{Arch: arch, Stats: st, Global: d.mem.Data, Segments: d.mem.Segments, Buffers: d.buffers}
}

// Clone returns a device with a copy of d's global memory and buffers that
// shares d's loaded programs (which launches only read): a checkpoint that
// can run on without changing d.
func (d *Device) Clone() *Device {
	c := &Device{emulators: d.emulators, buffers: map[string]BufferPlace{}, programs: map[*Program]loadedProgram{}}
	for k, v := range d.buffers {
		c.buffers[k] = v
	}
	for k, v := range d.programs {
		c.programs[k] = v
	}
	if d.mem != nil {
		m := &Memory{Space: d.mem.Space, Data: append([]byte(nil), d.mem.Data...), Reserved: maps.Clone(d.mem.Reserved)}
		for _, sg := range d.mem.Segments {
			m.Segments = append(m.Segments, Segment{sg.Addr, append([]byte(nil), sg.Data...)})
		}
		c.mem = m
	}
	return c
}

// Buffer returns a copy of the current bytes of a buffer of the device.
func (d *Device) Buffer(name string) ([]byte, error) {
	if d.mem == nil {
		return nil, fmt.Errorf("no buffer %q", name)
	}
	r := Result{Global: d.mem.Data, Segments: d.mem.Segments, Buffers: d.buffers}
	return r.Buffer(name)
}
