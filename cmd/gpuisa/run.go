package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
	"github.com/gpuisa/gpuisa/internal/safeio"
)

func runCommand() *command {
	return &command{
		name:    "run",
		args:    "LAUNCH.json",
		summary: "run an sm_1x, sm_2x or sm_5x kernel, or an SGX543 shader, as a launch file describes; check its expectations",
		doc: `The launch file (docs/launch.md) names the program (a cubin, raw code or a listing), the
grid, the memory and parameters, what to write back and what the run must produce.
After the run it prints warps, instructions executed, divergent branches and speed; a
fault (block, thread, pc, instruction, reason) or a failed expectation exits 1.
A launch file with "arch": "sgx543" runs a PS Vita GXP shader (docs/usse-launch.md):
its secondary program once, then the primary one per vertex or fragment; -trace prints
each executed instruction with the registers it wrote, -trace-block N only instance N.`,
		define: defineRun,
	}
}

func defineRun(fs *flag.FlagSet) func(*cmdIO, []string) int {
	var o runOptions
	fs.StringVar(&o.out, "out", "", "write the launch file's outputs to `DIR`")
	fs.BoolVar(&o.trace, "trace", false, "print every executed warp-instruction with its active and guard masks, and (sm_5x) the registers, predicates, condition code and memory it wrote")
	fs.IntVar(&o.traceBlock, "trace-block", -1, "trace only block `N` (linear index)")
	fs.IntVar(&o.traceWarp, "trace-warp", -1, "trace only warp `N` of each block")
	fs.Int64Var(&o.maxSteps, "max-steps", 0, "stop a block after `N` warp-instructions (default: launch file, else 2^24)")
	fs.IntVar(&o.workers, "workers", 0, "run `N` blocks in parallel (default: all cores)")
	fs.Int64Var(&o.budget, "budget", emu.DefaultBudget, "stop the run after `N` warp-instructions in all (all launches of a sequence), a block counting 16 before it runs (0: no limit)")
	fs.DurationVar(&o.timeout, "timeout", 0, "stop the run after `DURATION`, e.g. 30s (default: no limit)")
	fs.BoolVar(&o.outOnFault, "out-on-fault", false, "write the outputs (-out) also when the run faults: the memory as the fault left it")
	fs.DurationVar(&o.progress, "progress", time.Second, "print a progress line every `D` of a run that lasts longer (0: never)")
	fs.StringVar(&o.check, "check", "", "sanitizer checks, comma-separated `LIST` (sm_5x): memory (accesses outside the buffers and declared shared memory), race (conflicting accesses by warps no barrier orders), init (reads of shared or local memory never written), all")
	fs.BoolVar(&o.json, "json", false, "print the run's report as one JSON object (statistics, fault, sanitizer reports, each failed\nexpectation with its first differing values; docs/run-json.md) instead of the text lines;\n-trace then goes to standard error")
	fs.StringVar(&o.schedule, "schedule", "", "the order warps take turns in, comma-separated `LIST`: interleave (one instruction each), reverse (last warp first); default: up to 4096 instructions or a barrier each, first warp first")
	return func(cio *cmdIO, files []string) int {
		if len(files) != 1 {
			return findCommand("run").usageError(cio.stderr, "want one launch file, got %d", len(files))
		}
		return runLaunch(cio, files[0], o)
	}
}

// runOptions are run's flags.
type runOptions struct {
	out                   string
	trace                 bool
	traceBlock, traceWarp int
	maxSteps              int64
	workers               int
	budget                int64
	timeout               time.Duration
	outOnFault            bool
	progress              time.Duration
	check, schedule       string
	json                  bool
	report                *runReport // -json: what the run found, printed at its end
}

// runLaunch reads a launch file, runs it through the library (emu/all):
// its one launch or its sequence of launches, on one device; writes its
// outputs and checks every expectation.
func runLaunch(cio *cmdIO, path string, o runOptions) (status int) {
	traceTo := cio.stdout
	if o.json {
		o.report = &runReport{Launch: path}
		out := cio.stdout
		defer func() { o.report.write(out, status) }()
		traceTo = cio.stderr
		cio = &cmdIO{stdin: cio.stdin, stdout: io.Discard, stderr: cio.stderr} // the text lines
	}
	if code, ok := runShader(cio, path, o); ok {
		return code
	}
	stdout, stderr := cio.stdout, cio.stderr
	checks, err := emu.ParseChecks(o.check)
	if err != nil {
		return findCommand("run").usageError(stderr, "-check: %v", err)
	}
	schedule, err := emu.ParseSchedule(o.schedule)
	if err != nil {
		return findCommand("run").usageError(stderr, "-schedule: %v", err)
	}
	l, dir, text, err := readLaunch(path, cio.stdin)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa run: %s\n", message(err))
		o.report.failed(err, false)
		return 1
	}
	seq, err := l.NewSequence(all.NewDevice(), dir)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa run: %s\n", message(emu.LocateErrorOr(displayName(path), text, err, []string{"program"})))
		o.report.failed(err, false)
		return 1
	}
	name := displayName(path) // quoted: a file name is one line of a message
	limits := newRunLimits(o)
	var last *emu.Job
	progress := &emu.Progress{}
	var launches atomic.Int64
	seq.Adjust = func(job *emu.Job) {
		job.Workers = o.workers
		n := 0 // a launch of its own
		if len(l.Launches) > 0 {
			n = int(launches.Load()) + 1
		}
		limits.apply(job, progress, n)
		if o.maxSteps > 0 {
			job.MaxSteps = o.maxSteps
		}
		if o.trace || o.traceBlock >= 0 || o.traceWarp >= 0 {
			job.Trace = &emu.Trace{W: traceTo, Block: o.traceBlock, Warp: o.traceWarp}
		}
		job.Progress = progress
		job.Check, job.Schedule = checks, schedule
		launches.Add(1)
		last = job
	}
	var findings []string
	dropped := 0
	seq.After = func(n int, _ *emu.Job, r *emu.Result, _ error) {
		if r == nil {
			return
		}
		for _, f := range r.Findings {
			line := f.String()
			if len(l.Launches) > 0 {
				line = fmt.Sprintf("launch %d: %s", n, line)
			}
			findings = append(findings, line)
		}
		dropped += r.FindingsDropped
	}
	stop := showProgress(stderr, name, progress, &launches, o.progress)
	res, runErr := seq.Run()
	stop()
	if status := internalRunError(stderr, runErr); status != 0 {
		return status
	}
	if res == nil {
		// the program, or the launch against the architecture's limits
		fmt.Fprintf(stderr, "gpuisa run: %s\n", message(emu.LocateErrorOr(displayName(path), text, runErr, []string{"program"})))
		o.report.failed(runErr, false)
		return 1
	}
	st := seq.Stats
	o.report.kernelStats(res.Arch, last, seq.Launches, st)
	shape := fmt.Sprintf("grid %v block %v", last.Grid, last.Block)
	if seq.Launches > 1 {
		shape = fmt.Sprintf("%d launches", seq.Launches)
	}
	fmt.Fprintf(stdout, "%s: %s %s: %d blocks, %d warps, %d warp-instructions (%d thread-instructions), %d divergent branches, %v, %s\n",
		name, res.Arch, shape, st.Blocks, st.Warps, st.WarpInsts, st.ThreadInsts, st.Divergent,
		st.Duration.Round(time.Microsecond), speed(st))
	if o.report != nil {
		o.report.Findings, o.report.FindingsDropped = findings, dropped
	}
	if checks != 0 {
		for _, f := range findings {
			fmt.Fprintf(stderr, "gpuisa run: %s\n", f)
		}
		if len(findings) > 0 {
			more := ""
			if dropped > 0 {
				more = fmt.Sprintf(" (and %d not shown)", dropped)
			}
			fmt.Fprintf(stderr, "gpuisa run: %s: %d sanitizer reports%s\n", name, len(findings), more)
			status = 1
		} else {
			fmt.Fprintf(stdout, "%s: sanitizer (%s): no reports\n", name, o.check)
		}
	}
	if runErr != nil {
		var f *emu.Fault
		o.report.failed(runErr, errors.As(runErr, &f))
		if errors.As(runErr, &f) {
			fmt.Fprintf(stderr, "gpuisa run: %s: fault: %s\n", name, message(runErr))
		} else {
			// a step's problem found as the sequence runs (a template
			// expanded for a later repetition): at the step's line
			fmt.Fprintf(stderr, "gpuisa run: %s\n", message(emu.LocateError(name, text, runErr)))
		}
		if o.outOnFault {
			writeOutputs(cio, name, text, l, res, o.out)
		}
		return 1
	}
	if !writeOutputs(cio, name, text, l, res, o.out) {
		status = 1 // the expectations are still checked
	}
	if len(l.Expect) > 0 {
		n, err := l.Check(dir, res)
		o.report.checked(n, err)
		if err != nil {
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, e := range errs {
				fmt.Fprintf(stderr, "gpuisa run: FAIL %v\n", e)
			}
			fmt.Fprintf(stderr, "gpuisa run: %s: FAIL: %d of %d expectations failed (%d values checked)\n", name, len(errs), len(l.Expect), n)
			return 1
		}
		fmt.Fprintf(stdout, "%s: expectations met: %d values checked\n", name, n)
	}
	return status
}

// writeOutputs writes the launch file's outputs into dir (none without
// -out), each a local name checked again and written from the run's memory
// without a copy; it reports each that fails and goes on with the others.
func writeOutputs(cio *cmdIO, name string, text []byte, l *emu.Launch, res *emu.Result, dir string) bool {
	if dir == "" || len(l.Outputs) == 0 {
		return true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(cio.stderr, "gpuisa run: %s: %s\n", name, message(err))
		return false
	}
	ok := true
	for i, output := range l.Outputs {
		err := writeOutput(dir, output.File, func(w io.Writer) error { return l.WriteOutput(w, output, res) })
		if err != nil {
			reportOutputError(cio, name, text, i, output.File, err)
			ok = false
		}
	}
	return ok
}

// reportOutputError reports that output i could not be written, at its
// file's line and column in the launch file.
func reportOutputError(cio *cmdIO, name string, text []byte, i int, file string, err error) {
	err = fmt.Errorf("outputs[%d]: file %s: %s", i, safeio.Quoted(file), message(err))
	fmt.Fprintf(cio.stderr, "gpuisa run: %s\n", message(emu.LocateError(name, text, err)))
}

// showProgress prints a line to w every interval once a run has taken
// longer than that (0: never): launches, blocks (of those the launches
// begun so far have), warps and warp-instructions done, the rate, and how
// long the blocks begun still take at that rate. It returns the function
// that stops it.
func showProgress(w io.Writer, path string, p *emu.Progress, launches *atomic.Int64, every time.Duration) func() {
	if every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				insts, blocks, took := p.WarpInsts.Load(), p.Blocks.Load(), now.Sub(start)
				eta := ""
				if grid := p.GridBlocks.Load(); blocks > 0 && grid > blocks {
					left := time.Duration(float64(took) * float64(grid-blocks) / float64(blocks))
					eta = fmt.Sprintf(", about %v to go", left.Round(time.Second))
				}
				fmt.Fprintf(w, "gpuisa run: %s: %v: launch %d, %d of %d blocks and %d warps done, %d warp-instructions, %.1fM/s%s\n",
					path, took.Round(time.Second), launches.Load(), blocks, p.GridBlocks.Load(), p.Warps.Load(), insts,
					float64(insts)/took.Seconds()/1e6, eta)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// readLaunch reads a launch file through its size limit and parses it; it
// returns the directory its paths are relative to (from standard input,
// "-", the working directory) and its text, to place errors in.
func readLaunch(path string, stdin io.Reader) (*emu.Launch, string, []byte, error) {
	name, dir := path, filepath.Dir(path)
	var data []byte
	var err error
	if path == "-" {
		name, dir = "<stdin>", "."
		data, err = safeio.ReadAll(stdin, name, emu.MaxLaunchFileBytes)
	} else {
		data, err = safeio.ReadFile(path, emu.MaxLaunchFileBytes)
	}
	if err != nil {
		return nil, "", nil, err
	}
	l, err := emu.ParseLaunch(data)
	if err != nil {
		return nil, "", data, emu.LocateError(name, data, err)
	}
	return l, dir, data, nil
}

func speed(st emu.Stats) string {
	s := st.Duration.Seconds()
	if s <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fM warp-instructions/s", float64(st.WarpInsts)/s/1e6)
}
