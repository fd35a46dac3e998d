package emu

import (
	"bytes"
	"fmt"
	"maps"
)

// Preparer is a Loaded that can make a launch's Exec and engine
// configuration without running it, for callers that run the blocks
// themselves (BlockRun; fault injection). Emulators made with Loader are
// Preparers.
type Preparer interface {
	Prepare(s *Setup) (Exec, Config, error)
}

// preparedLoad is what Loader makes: a Loaded that is also a Preparer.
type preparedLoad func(s *Setup) (Exec, Config, error)

func (p preparedLoad) Prepare(s *Setup) (Exec, Config, error) { return p(s) }

func (p preparedLoad) Run(s *Setup) (Stats, error) {
	x, cfg, err := p(s)
	if err != nil {
		return Stats{}, err
	}
	return Run(cfg, x)
}

// Prepared is a job placed on a device, ready to run block by block: the
// ISA's Exec and the engine configuration of its launch.
type Prepared struct {
	Exec   Exec
	Config Config
	Setup  *Setup
}

// Prepare places a job on the device as Run does, but runs nothing: the
// caller runs its blocks (BlockRun), on the device's global memory
// (Memory), and reads the result with Result.
func (d *Device) Prepare(j *Job) (*Prepared, error) {
	s, loaded, err := d.place(j)
	if err != nil {
		return nil, err
	}
	p, ok := loaded.(Preparer)
	if !ok {
		return nil, fmt.Errorf("%s: the %s emulator runs launches only whole", j.Program.Name, s.Arch)
	}
	x, cfg, err := p.Prepare(s)
	if err != nil {
		return nil, err
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	return &Prepared{Exec: x, Config: cfg, Setup: s}, nil
}

// Memory is the device's global memory (nil before its first job). A
// caller that runs blocks itself may save and restore its contents.
func (d *Device) Memory() *Memory { return d.mem }

// Result is the device's memory and buffers now, as Run returns them.
func (d *Device) Result(arch string, st Stats) *Result {
	if d.mem == nil {
		return &Result{Arch: arch, Stats: st}
	}
	return d.result(arch, st)
}

// DeviceState is a saved copy of a device's global memory and buffer
// places (Device.Save), to go back to (Device.Restore) or compare with
// (Device.Same). Saving into the same DeviceState again reuses its
// storage.
type DeviceState struct {
	data     []byte
	segs     []Segment
	buffers  map[string]BufferPlace
	reserved map[any]uint64 // Memory.Reserved: where programs' own data lie
}

// Save copies the device's global memory and buffer places into s.
func (d *Device) Save(s *DeviceState) {
	s.buffers = make(map[string]BufferPlace, len(d.buffers))
	for k, v := range d.buffers {
		s.buffers[k] = v
	}
	if d.mem == nil {
		s.data, s.segs = s.data[:0], s.segs[:0]
		return
	}
	s.data = append(s.data[:0], d.mem.Data...)
	s.reserved = maps.Clone(d.mem.Reserved)
	if len(s.segs) != len(d.mem.Segments) {
		s.segs = make([]Segment, len(d.mem.Segments))
	}
	for i, sg := range d.mem.Segments {
		s.segs[i] = Segment{Addr: sg.Addr, Data: append(s.segs[i].Data[:0], sg.Data...)}
	}
}

// Restore puts back what Save saved, in the device's own memory (the Execs
// of launches prepared on the device see the restored contents).
func (d *Device) Restore(s *DeviceState) {
	d.buffers = make(map[string]BufferPlace, len(s.buffers))
	for k, v := range s.buffers {
		d.buffers[k] = v
	}
	if d.mem == nil {
		return
	}
	d.mem.Data = append(d.mem.Data[:0], s.data...)
	d.mem.Reserved = maps.Clone(s.reserved)
	if len(d.mem.Segments) != len(s.segs) {
		d.mem.Segments = make([]Segment, len(s.segs))
	}
	for i, sg := range s.segs {
		d.mem.Segments[i] = Segment{Addr: sg.Addr, Data: append(d.mem.Segments[i].Data[:0], sg.Data...)}
	}
}

// Same reports whether the device's global memory equals what s holds.
func (d *Device) Same(s *DeviceState) bool {
	if d.mem == nil {
		return len(s.data) == 0 && len(s.segs) == 0
	}
	if !bytes.Equal(d.mem.Data, s.data) || len(d.mem.Segments) != len(s.segs) {
		return false
	}
	for i, sg := range s.segs {
		if d.mem.Segments[i].Addr != sg.Addr || !bytes.Equal(d.mem.Segments[i].Data, sg.Data) {
			return false
		}
	}
	return true
}

// Span is a range of addresses [Addr, Addr+Len) of a memory.
type Span struct {
	Addr, Len uint64
}

// Diff lists where the device's global memory differs from what s holds
// (sorted; the memory must have the shape s saved: regions do not move).
func (d *Device) Diff(s *DeviceState) []Span {
	if d.mem == nil {
		return nil
	}
	var out []Span
	diff := func(base uint64, a, b []byte) {
		for i := 0; i < len(a) && i < len(b); {
			if a[i] == b[i] {
				// skip equal bytes eight at a time
				for i+8 <= len(a) && i+8 <= len(b) && string(a[i:i+8]) == string(b[i:i+8]) {
					i += 8
				}
				for i < len(a) && i < len(b) && a[i] == b[i] {
					i++
				}
				continue
			}
			j := i
			for j < len(a) && j < len(b) && a[j] != b[j] {
				j++
			}
			out = append(out, Span{base + uint64(i), uint64(j - i)})
			i = j
		}
	}
	diff(0, d.mem.Data, s.data)
	for i := range min(len(d.mem.Segments), len(s.segs)) {
		diff(s.segs[i].Addr, d.mem.Segments[i].Data, s.segs[i].Data)
	}
	return out
}

// RestoreExcept puts back what s holds, except the bytes of keep.
func (d *Device) RestoreExcept(s *DeviceState, keep []Span) {
	if d.mem == nil {
		return
	}
	var kept [][]byte
	for _, k := range keep {
		b, err := d.mem.Bytes(k.Addr, k.Len)
		if err != nil {
			b = nil
		}
		kept = append(kept, b)
	}
	d.Restore(s)
	for i, k := range keep {
		if kept[i] != nil {
			d.mem.Write(k.Addr, kept[i])
		}
	}
}
