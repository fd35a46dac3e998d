package emu

import (
	"fmt"
	"math"
)

// Setup places a job's data in fresh memory: the global images and the
// buffers in the dense region of global memory (images at or above
// MaxMemory in segments of their own), the constant banks, the shared
// images, and the parameters packed with 4-byte pointers (the sm_1x
// convention; other ISAs pack Job.Args themselves). The ISA emulators run a
// Setup; Setup.Arch is the program's own when Job.Program.Arch is "".
func (j *Job) Setup() (*Setup, error) {
	return j.place(nil, nil)
}

// place builds the setup of j. On a device (dev not nil) the job's global
// data goes into dev, which grows as needed: buffers already known keep
// their place (and get the job's data, when it gives some), new ones go
// after everything else; otherwise the layout is fresh.
func (j *Job) place(dev *Memory, known map[string]BufferPlace) (*Setup, error) {
	if err := j.check(); err != nil {
		return nil, err
	}
	s := &Setup{Job: j, Grid: shape(j.Grid), Block: shape(j.Block), Buffers: map[string]BufferPlace{},
		SharedBytes: j.SharedBytes, LocalBytes: j.LocalBytes, MaxSteps: j.MaxSteps, Memory: dev}
	s.Arch = j.Program.Arch
	if s.Arch == "" && dev == nil { // a Device knows the arch of the programs it loaded
		s.Arch, _ = ArchOf(j.Program.Data) // raw code and listings: the ISA says what is missing
	}
	if err := s.CheckArch(); err != nil {
		return nil, err // the grid and block an architecture allows, before anything is allocated
	}
	end := j.reach // what the images, buffers and outputs need
	var globals, far []placedImage
	for i, m := range j.Memory {
		addr, data := m.Addr, m.Data
		switch {
		case m.Space == Global && addr >= MaxMemory:
			if n := uint64(len(data)); n > 0 && addr+n-1 < addr {
				return nil, fmt.Errorf("memory[%d]: image at %#x wraps past the end of the address space", i, addr)
			}
			far = append(far, placedImage{addr, data})
			continue
		case addr+uint64(len(data)) > MaxMemory:
			return nil, fmt.Errorf("memory[%d]: image ends past %#x (a global image may start at or above it)", i, MaxMemory)
		}
		switch m.Space {
		case Global:
			globals = append(globals, placedImage{addr, data})
			end = max(end, addr+uint64(len(data)))
		case Shared:
			s.Shared = append(s.Shared, SharedImage{addr, data})
		case Constant:
			c := s.Const[m.Bank]
			if need := addr + uint64(len(data)); uint64(len(c)) < need {
				c = append(c, make([]byte, need-uint64(len(c)))...)
			}
			copy(c[addr:], data)
			s.Const[m.Bank] = c
		}
	}
	// buffers after the images (on a device, after everything), 256-aligned,
	// never at 0, in order
	next := uint64(256)
	if dev != nil {
		next = max(next, uint64(len(dev.Data)))
	}
	for _, g := range globals {
		next = max(next, g.addr+uint64(len(g.data)))
	}
	for _, b := range j.Buffers {
		if p, ok := known[b.Name]; ok {
			if b.Data != nil && uint64(len(b.Data)) != p.Bytes {
				return nil, fmt.Errorf("buffer %q has %d bytes on the device, the job gives %d", b.Name, p.Bytes, len(b.Data))
			}
			s.Buffers[b.Name] = p
			if b.Data != nil {
				globals = append(globals, placedImage{p.Addr, b.Data})
			}
			continue
		}
		next = (next + 255) &^ 255
		if next+uint64(len(b.Data)) > MaxMemory {
			return nil, fmt.Errorf("buffer %q does not fit below %#x", b.Name, MaxMemory)
		}
		s.Buffers[b.Name] = BufferPlace{next, uint64(len(b.Data))}
		globals = append(globals, placedImage{next, b.Data})
		next += max(uint64(len(b.Data)), 1)
		end = max(end, next)
	}
	for n, p := range known {
		if _, ok := s.Buffers[n]; !ok {
			s.Buffers[n] = p // the device's other buffers stay reachable by name
		}
	}
	switch {
	case j.GlobalBytes > 0 && j.GlobalBytes < end && dev == nil:
		return nil, fmt.Errorf("global_bytes %#x is smaller than the images, buffers and outputs (%#x)", j.GlobalBytes, end)
	case j.GlobalBytes > 0:
		end = max(end, j.GlobalBytes)
	case dev == nil:
		end = max(end, DefaultGlobalBytes)
	}
	if end > MaxMemory {
		return nil, fmt.Errorf("global memory of %#x bytes is larger than %#x", end, MaxMemory)
	}
	end = (end + 255) &^ 255
	if dev == nil {
		// with room for the textures, which the ISA places after it
		s.Global = make([]byte, end, end+j.imageRoom())
		segs, err := segments(far)
		if err != nil {
			return nil, err
		}
		s.GlobalSegments = segs
	} else {
		if end > uint64(len(dev.Data)) {
			if len(dev.Segments) > 0 && dev.Segments[0].Addr < end {
				return nil, fmt.Errorf("global memory of %#x bytes would overlap the segment at %#x", end, dev.Segments[0].Addr)
			}
			dev.Data = append(dev.Data, make([]byte, end-uint64(len(dev.Data)))...)
		}
		s.Global = dev.Data
		for i, f := range far {
			// a later launch writes into the segments the first one made
			if err := dev.Write(f.addr, f.data); err != nil {
				return nil, fmt.Errorf("memory image %d above %#x: %v (a device's segments are made by its first launch)", i, uint64(MaxMemory), err)
			}
		}
	}
	for _, g := range globals {
		copy(s.Global[g.addr:], g.data)
	}
	if err := s.packParams(); err != nil {
		return nil, err
	}
	return s, nil
}

// packParams packs the arguments with 4-byte pointers, each naturally
// aligned.
func (s *Setup) packParams() error {
	for i, a := range s.Job.Args {
		v := a.Bits
		switch a.Kind {
		case ArgPtr:
			v = s.Buffers[a.Name].Addr
		case ArgTex, ArgSurf:
			h, err := s.Job.ImageHandle(a)
			if err != nil {
				return fmt.Errorf("params[%d]: %v", i, err)
			}
			v = h
		}
		n := a.Size(4)
		for len(s.Params)%n != 0 {
			s.Params = append(s.Params, 0)
		}
		for k := range n {
			s.Params = append(s.Params, byte(v>>(8*k)))
		}
	}
	return nil
}

// ApplyOptions sets what the job says about how to run (workers, trace,
// step limit) in an engine configuration an ISA made.
func (s *Setup) ApplyOptions(cfg *Config) {
	if s.MaxSteps > 0 {
		cfg.MaxSteps = s.MaxSteps
	}
	if s.Job == nil {
		return
	}
	cfg.Workers = s.Job.Workers
	cfg.Budget, cfg.Deadline, cfg.BudgetShare = s.Job.Budget, s.Job.Deadline, s.Job.BudgetShare
	cfg.Progress = s.Job.Progress
	cfg.Schedule = s.Job.Schedule
	cfg.WarpCores, cfg.WarpCoresAfter = s.Job.WarpCores, s.Job.WarpCoresAfter
	if t := s.Job.Trace; t != nil && t.W != nil {
		cfg.Trace, cfg.TraceBlock, cfg.TraceWarp = t.W, t.Block, t.Warp
	}
}

// maxSteps converts a launch file's step limit.
func maxSteps(n uint64) int64 { return int64(min(n, math.MaxInt64)) }
