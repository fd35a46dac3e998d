package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/emu"
)

// runReport is what run -json prints instead of its text lines: one JSON
// object (docs/run-json.md, docs/run.schema.json). Its methods do nothing
// on a nil report (run without -json).
type runReport struct {
	Launch          string        `json:"launch"`
	Arch            string        `json:"arch,omitempty"`
	Program         string        `json:"program,omitempty"` // sgx543: vertex or fragment
	Grid            []uint32      `json:"grid,omitempty"`
	Block           []uint32      `json:"block,omitempty"`
	Launches        int           `json:"launches,omitempty"`
	Stats           *runStats     `json:"stats,omitempty"`
	ShaderStats     *shaderStats  `json:"shader_stats,omitempty"`
	Findings        []string      `json:"findings,omitempty"`
	FindingsDropped int           `json:"findings_dropped,omitempty"`
	Fault           string        `json:"fault,omitempty"`
	Error           string        `json:"error,omitempty"`
	Expect          *expectReport `json:"expectations,omitempty"`
	OK              bool          `json:"ok"` // the exit status is 0
}

// runStats are a kernel run's counts (all launches of a sequence).
type runStats struct {
	Blocks             int64 `json:"blocks"`
	Warps              int64 `json:"warps"`
	WarpInstructions   int64 `json:"warp_instructions"`
	ThreadInstructions int64 `json:"thread_instructions"`
	DivergentBranches  int64 `json:"divergent_branches"`
	DurationNS         int64 `json:"duration_ns"`
}

// shaderStats are a shader run's counts.
type shaderStats struct {
	Instances    int64 `json:"instances"`
	Discarded    int64 `json:"discarded"`
	Instructions int64 `json:"instructions"`
	DurationNS   int64 `json:"duration_ns"`
}

// expectReport is the launch file's expectations after the run.
type expectReport struct {
	Checked    int              `json:"checked"` // values compared
	Mismatches []mismatchReport `json:"mismatches,omitempty"`
	Errors     []string         `json:"errors,omitempty"` // expectations that could not be checked
}

// mismatchReport is one failed expectation (emu.Mismatch).
type mismatchReport struct {
	Expect    int          `json:"expect"`
	What      string       `json:"what"`
	Type      string       `json:"type"`
	Tolerance string       `json:"tolerance"`
	Count     int          `json:"count"`
	Total     int          `json:"total"`
	First     []diffReport `json:"first"`
}

// diffReport is one differing element (emu.Diff).
type diffReport struct {
	Name     string `json:"name"`
	Addr     uint64 `json:"addr"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
	Distance string `json:"distance"`
}

// kernelStats records an NVIDIA kernel run's statistics.
func (r *runReport) kernelStats(arch string, last *emu.Job, launches int, st emu.Stats) {
	if r == nil {
		return
	}
	r.Arch, r.Launches = arch, launches
	if last != nil && launches == 1 {
		r.Grid, r.Block = last.Grid[:], last.Block[:]
	}
	r.Stats = &runStats{Blocks: st.Blocks, Warps: st.Warps, WarpInstructions: st.WarpInsts,
		ThreadInstructions: st.ThreadInsts, DivergentBranches: st.Divergent, DurationNS: st.Duration.Nanoseconds()}
}

// failed records why the run failed: a fault or another error.
func (r *runReport) failed(err error, fault bool) {
	if r == nil || err == nil {
		return
	}
	if fault {
		r.Fault = err.Error()
	} else {
		r.Error = err.Error()
	}
}

// checked records what the expectations' check (emu Setup.Check) found.
func (r *runReport) checked(n int, err error) {
	if r == nil {
		return
	}
	r.Expect = &expectReport{Checked: n}
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var m *emu.Mismatch
		if !errors.As(e, &m) {
			r.Expect.Errors = append(r.Expect.Errors, e.Error())
			continue
		}
		mr := mismatchReport{Expect: m.Expect, What: m.What, Type: m.Type, Tolerance: m.Tolerance, Count: m.Count, Total: m.Total,
			First: []diffReport{}}
		for _, d := range m.First {
			mr.First = append(mr.First, diffReport{Name: d.Name, Addr: d.Addr, Expected: d.Expected, Got: d.Got, Distance: d.Distance})
		}
		r.Expect.Mismatches = append(r.Expect.Mismatches, mr)
	}
}

// write prints the report for a run that exits with status.
func (r *runReport) write(w io.Writer, status int) {
	if r == nil {
		return
	}
	r.OK = status == 0
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		b = []byte(fmt.Sprintf(`{"launch": %q, "error": %q, "ok": false}`, r.Launch, err.Error()))
	}
	w.Write(append(b, '\n'))
}
