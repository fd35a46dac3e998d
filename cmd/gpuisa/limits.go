package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/safeio"
	"github.com/gpuisa/gpuisa/isa/asm"
)

// maxInputBytes bounds a file dis lists or as assembles (docs/limits.md):
// it is read through this limit, so /dev/zero or an endless pipe fails
// with a message instead of taking all the memory there is.
const maxInputBytes = 256 << 20

// maxPrintedErrors bounds the errors dis prints for one file (a file of
// random bytes has one per word).
const maxPrintedErrors = 100

// runLimits are run's limits of the whole run: -budget and -timeout hold
// for all the launches of a sequence together (a sequence repeating a long
// kernel stops as surely as one launch of it).
type runLimits struct {
	budget   int64
	deadline time.Time
}

func newRunLimits(o runOptions) runLimits {
	r := runLimits{budget: o.budget}
	if o.budget == 0 {
		r.budget = -1 // no limit
	}
	if o.timeout > 0 {
		r.deadline = time.Now().Add(o.timeout)
	}
	return r
}

// apply puts the limits into the next job: the deadline, and what is left
// of the budget after the work done so far (p counts it; a block costs
// emu.BlockCost before it runs). launch is the job's number in a sequence
// (from 1; 0: a launch of its own), which the budget error names with the
// run's whole budget and what the earlier launches used.
func (r runLimits) apply(j *emu.Job, p *emu.Progress, launch int) {
	j.Budget, j.Deadline = r.budget, r.deadline
	if r.budget > 0 {
		used := p.WarpInsts.Load() + emu.BlockCost*p.Blocks.Load()
		j.Budget = max(1, r.budget-used)
		if launch > 0 {
			j.BudgetShare = emu.BudgetShare{Total: r.budget, Spent: used, Launch: launch}
		}
	}
}

// writeOutput writes an output file inside dir (the launch file's names are
// checked to be local when it is parsed; this is the second lock).
func writeOutput(dir, name string, write func(io.Writer) error) error {
	if !filepath.IsLocal(name) {
		return fmt.Errorf("%q is not a name inside %s", name, dir)
	}
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// tooLarge reports whether err is an input over its size limit (the
// NVIDIA drop-ins say so rather than "cannot open").
func tooLarge(err error) bool {
	var tl *safeio.TooLargeError
	return errors.As(err, &tl)
}

// message is err's text for stderr: control characters (a newline in a
// file name) escaped, so that one error is one line, except that the
// errors of an assembler's list come one a line, each with its position.
func message(err error) string {
	text := err.Error()
	var el asm.ErrorList
	if errors.As(err, &el) {
		return text
	}
	return safeio.Printable(text)
}
