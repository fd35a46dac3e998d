package inject

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/emu"
)

// Outcomes.
const (
	Masked = "Masked"
	SDC    = "SDC"
	DUE    = "DUE"
	Hang   = "Hang"
	NoSite = "NoSite" // the experiment's selection matches no dynamic instruction
)

// Masked subdivisions.
const (
	NeverRead   = "never-read"  // the corrupted value was never read (or a permanent fault never changed a value)
	Overwritten = "overwritten" // it was overwritten before any read
	ReadEqual   = "read"        // it was read, and the outputs are still equal
)

// NVBitFI names the NVBitFI outcome category an outcome maps onto.
func NVBitFI(outcome, sub string) string {
	switch outcome {
	case Masked:
		switch sub {
		case NeverRead:
			return "Masked: Error was never read"
		case Overwritten:
			return "Masked: Write before read"
		}
		return "Masked: other reasons"
	case SDC:
		return "SDC: Output file is different"
	case DUE:
		return "Pot DUE: Kernel Error"
	case Hang:
		return "DUE: Timeout"
	}
	return ""
}

// Region is what outputs are compared on: a buffer or a global range,
// read as elements of a type.
type Region struct {
	Name   string
	Buffer string
	Addr   uint64
	Bytes  uint64
	Type   string
}

// Output is a region's golden bytes.
type Output struct {
	Region
	Data []byte
}

// regions lists what SDC compares (Campaign.Compare), with buffer places
// from the launch's setup.
func (ld *Loaded) regions(bufs map[string]emu.BufferPlace) []Region {
	var out []Region
	place := func(name, typ string) {
		b := bufs[name]
		out = append(out, Region{Name: name, Buffer: name, Addr: b.Addr, Bytes: b.Bytes, Type: typeOr(typ)})
	}
	switch {
	case len(ld.Compare) > 0:
		for _, c := range ld.Compare {
			if c.Buffer != "" {
				place(c.Buffer, c.Type)
				continue
			}
			a, _ := strconv.ParseUint(c.Addr, 0, 64)
			out = append(out, Region{Name: fmt.Sprintf("global[%#x]", a), Addr: a, Bytes: uint64(c.Bytes), Type: typeOr(c.Type)})
		}
	case len(ld.Launch.Outputs) > 0:
		for _, o := range ld.Launch.Outputs {
			typ := ""
			for _, e := range ld.Launch.Expect {
				if e.Output != "" && e.Output == o.File || e.Words != "" && o.Buffer == "" {
					typ = e.Type
				}
			}
			if o.Buffer != "" {
				place(o.Buffer, typ)
				continue
			}
			a, _ := o.Addr.Uint(0)
			n, _ := o.Bytes.Uint(emu.MaxMemory + 1)
			out = append(out, Region{Name: o.File, Addr: a, Bytes: n, Type: typeOr(typ)})
		}
	case len(bufs) > 0:
		names := make([]string, 0, len(bufs))
		for n := range bufs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			place(n, "")
		}
	}
	return out
}

// readOutputs reads the compared regions from a result (the whole dense
// global memory when nothing else is named).
func (ld *Loaded) readOutputs(r *emu.Result) ([]Output, error) {
	rs := ld.regions(r.Buffers)
	if len(rs) == 0 {
		rs = []Region{{Name: "global", Bytes: uint64(len(r.Global)), Type: "u32"}}
	}
	out := make([]Output, len(rs))
	for i, rg := range rs {
		b, err := r.Read(rg.Addr, rg.Bytes)
		if err != nil {
			return nil, fmt.Errorf("output %s: %v", rg.Name, err)
		}
		out[i] = Output{Region: rg, Data: b}
	}
	return out, nil
}

// SDCInfo says how outputs differ.
type SDCInfo struct {
	First    string `json:"first"`    // the first differing element: region[index]
	Bytes    int    `json:"bytes"`    // differing bytes
	Elements int    `json:"elements"` // differing elements
	MaxAbs   string `json:"max_abs"`  // the largest absolute difference
	MaxRel   string `json:"max_rel"`  // the largest relative difference (floats)
}

// compare compares outputs with the golden ones (nil: equal).
func compare(golden []Output, r *emu.Result) *SDCInfo {
	var s *SDCInfo
	maxAbs, maxRel := 0.0, 0.0
	for _, g := range golden {
		got, err := r.Read(g.Addr, g.Bytes)
		if err != nil {
			got = nil
		}
		size := elemSizes[g.Type]
		for i := 0; i+size <= len(g.Data); i += size {
			want := g.Data[i : i+size]
			var have []byte
			if i+size <= len(got) {
				have = got[i : i+size]
			}
			diff := 0
			for j := range want {
				if have == nil || have[j] != want[j] {
					diff++
				}
			}
			if diff == 0 {
				continue
			}
			if s == nil {
				s = &SDCInfo{First: fmt.Sprintf("%s[%d]", g.Name, i/size)}
			}
			s.Bytes += diff
			s.Elements++
			if have == nil {
				maxAbs = math.Inf(1)
				continue
			}
			a, rel := elemError(g.Type, want, have)
			maxAbs, maxRel = math.Max(maxAbs, a), math.Max(maxRel, rel)
		}
	}
	if s != nil {
		s.MaxAbs = fmtFloat(maxAbs)
		s.MaxRel = fmtFloat(maxRel)
	}
	return s
}

// elemError is the absolute and relative difference of two elements (a
// NaN where the golden value is a number counts as infinite).
func elemError(typ string, want, have []byte) (float64, float64) {
	var x, y float64
	switch typ {
	case "u8":
		x, y = float64(want[0]), float64(have[0])
	case "u32":
		x, y = float64(binary.LittleEndian.Uint32(want)), float64(binary.LittleEndian.Uint32(have))
	case "s32":
		x, y = float64(int32(binary.LittleEndian.Uint32(want))), float64(int32(binary.LittleEndian.Uint32(have)))
	case "f32":
		x, y = float64(math.Float32frombits(binary.LittleEndian.Uint32(want))), float64(math.Float32frombits(binary.LittleEndian.Uint32(have)))
	case "f64":
		x, y = math.Float64frombits(binary.LittleEndian.Uint64(want)), math.Float64frombits(binary.LittleEndian.Uint64(have))
	}
	if math.IsNaN(x) && math.IsNaN(y) {
		return 0, 0
	}
	d := math.Abs(x - y)
	if math.IsNaN(d) {
		return math.Inf(1), math.Inf(1)
	}
	if x == 0 {
		return d, math.Inf(1)
	}
	return d, d / math.Abs(x)
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// classify names a faulty run's error: a Hang for the instruction budget,
// the step limit and barrier deadlocks, else a DUE named by its cause.
func classify(err error) (outcome, detail string) {
	var f *emu.Fault
	cause := err
	where := ""
	if errors.As(err, &f) {
		cause = f.Err
		where = fmt.Sprintf(" (block %v warp %d lane %d pc %#04x)", f.Block, f.Warp, f.Lane, f.PC)
	}
	switch {
	case errors.Is(cause, errBudget):
		return Hang, "instruction budget"
	case errors.Is(cause, emu.ErrStepLimit):
		return Hang, "block step limit"
	case errors.Is(cause, emu.ErrDeadlock):
		return Hang, "barrier deadlock" + where
	case errors.Is(cause, emu.ErrHostLoop):
		return Hang, "host loop limit: " + cause.Error()
	}
	var mf *emu.MemFault
	if errors.As(cause, &mf) {
		return DUE, memFaultName(mf) + where
	}
	msg := cause.Error()
	return DUE, strings.TrimSpace(msg) + where
}

// memFaultName names a memory fault: out-of-bounds or misaligned, the
// space, read or write, the address.
func memFaultName(e *emu.MemFault) string {
	what := "read"
	if e.Write {
		what = "write"
	}
	inside := e.InSegment || e.Addr < e.Limit && e.Limit-e.Addr >= uint64(e.Size)
	if e.Size > 1 && e.Addr%uint64(e.Size) != 0 && inside {
		return fmt.Sprintf("misaligned %s %s: %d bytes at %#x", e.Space, what, e.Size, e.Addr)
	}
	return fmt.Sprintf("out-of-bounds %s %s: %d bytes at %#x", e.Space, what, e.Size, e.Addr)
}

var errBudget = errors.New("instruction budget exhausted")
