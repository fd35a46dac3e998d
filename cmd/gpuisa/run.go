package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
)

func runCommand() *command {
	return &command{
		name:    "run",
		args:    "LAUNCH.json",
		summary: "run an sm_1x or sm_5x kernel as a launch file describes; check its expectations",
		doc: `The launch file (docs/launch.md) names the program (a cubin, raw code or a listing), the
grid, the memory and parameters, what to write back and what the run must produce.
After the run it prints warps, instructions executed, divergent branches and speed; a
fault (block, thread, pc, instruction, reason) or a failed expectation exits 1.`,
		define: defineRun,
	}
}

func defineRun(fs *flag.FlagSet) func(*cmdIO, []string) int {
	var o runOptions
	fs.StringVar(&o.out, "out", "", "write the launch file's outputs to `DIR`")
	fs.BoolVar(&o.trace, "trace", false, "print every executed warp-instruction with its active and guard masks")
	fs.IntVar(&o.traceBlock, "trace-block", -1, "trace only block `N` (linear index)")
	fs.IntVar(&o.traceWarp, "trace-warp", -1, "trace only warp `N` of each block")
	fs.Int64Var(&o.maxSteps, "max-steps", 0, "stop a block after `N` warp-instructions (default: launch file, else 2^26)")
	fs.IntVar(&o.workers, "workers", 0, "run `N` blocks in parallel (default: all cores)")
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
}

// runLaunch reads a launch file, runs it through the library's entry point
// (emu/all), writes its outputs and checks its expectations.
func runLaunch(cio *cmdIO, path string, o runOptions) int {
	stdout, stderr := cio.stdout, cio.stderr
	l, dir, err := readLaunch(path, cio.stdin)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa run: %v\n", err)
		return 1
	}
	// one launch, or the launch file's sequence of launches, on one device
	seq, err := l.NewSequence(all.NewDevice(), dir)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa run: %s: %v\n", path, err)
		return 1
	}
	var last *emu.Job
	seq.Adjust = func(job *emu.Job) {
		job.Workers = o.workers
		if o.maxSteps > 0 {
			job.MaxSteps = o.maxSteps
		}
		if o.trace || o.traceBlock >= 0 || o.traceWarp >= 0 {
			job.Trace = &emu.Trace{W: stdout, Block: o.traceBlock, Warp: o.traceWarp}
		}
		last = job
	}
	res, runErr := seq.Run()
	if res == nil {
		fmt.Fprintf(stderr, "gpuisa run: %s: %v\n", path, runErr)
		return 1
	}
	st := seq.Stats
	shape := fmt.Sprintf("grid %v block %v", last.Grid, last.Block)
	if seq.Launches > 1 {
		shape = fmt.Sprintf("%d launches", seq.Launches)
	}
	fmt.Fprintf(stdout, "%s: %s %s: %d blocks, %d warps, %d warp-instructions (%d thread-instructions), %d divergent branches, %v, %s\n",
		filepath.Base(path), res.Arch, shape, st.Blocks, st.Warps, st.WarpInsts, st.ThreadInsts, st.Divergent,
		st.Duration.Round(time.Microsecond), speed(st))
	if runErr != nil {
		var f *emu.Fault
		if errors.As(runErr, &f) {
			fmt.Fprintf(stderr, "gpuisa run: fault: %v\n", f)
		} else {
			fmt.Fprintf(stderr, "gpuisa run: %v\n", runErr)
		}
		return 1
	}
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			fmt.Fprintf(stderr, "gpuisa run: %v\n", err)
			return 1
		}
		for _, output := range l.Outputs {
			b, err := l.OutputBytes(output, res)
			if err == nil {
				err = os.WriteFile(filepath.Join(o.out, output.File), b, 0o644)
			}
			if err != nil {
				fmt.Fprintf(stderr, "gpuisa run: output %s: %v\n", output.File, err)
				return 1
			}
		}
	}
	if len(l.Expect) > 0 {
		n, err := l.Check(dir, res)
		if err != nil {
			fmt.Fprintf(stderr, "gpuisa run: FAIL %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "expectations met: %d values checked\n", n)
	}
	return 0
}

// readLaunch reads and parses a launch file and returns the directory its
// paths are relative to: from standard input ("-"), the working directory.
func readLaunch(path string, stdin io.Reader) (*emu.Launch, string, error) {
	data, err := readInput(path, stdin)
	if err != nil {
		return nil, "", err
	}
	name, dir := path, filepath.Dir(path)
	if path == "-" {
		name, dir = "<stdin>", "."
	}
	l, err := emu.ParseLaunch(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	return l, dir, nil
}

func speed(st emu.Stats) string {
	s := st.Duration.Seconds()
	if s <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fM warp-instructions/s", float64(st.WarpInsts)/s/1e6)
}
