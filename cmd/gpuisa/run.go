package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
	emaxwell "github.com/gpuisa/gpuisa/emu/maxwell"
	"github.com/gpuisa/gpuisa/emu/tesla"
)

func runCommand() *command {
	return &command{
		name:    "run",
		args:    "LAUNCH.json",
		summary: "run an sm_1x or sm_5x kernel, or an SGX543 shader, as a launch file describes; check its expectations",
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
	fs.BoolVar(&o.trace, "trace", false, "print every executed warp-instruction with its active and guard masks")
	fs.IntVar(&o.traceBlock, "trace-block", -1, "trace only block `N` (linear index)")
	fs.IntVar(&o.traceWarp, "trace-warp", -1, "trace only warp `N` of each block")
	fs.Int64Var(&o.maxSteps, "max-steps", 0, "stop a block after `N` warp-instructions (default: launch file, else 2^26)")
	fs.IntVar(&o.workers, "workers", 0, "blocks run in parallel (default: all cores)")
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

// runLaunch loads a launch file, runs it, writes its outputs and checks it.
func runLaunch(cio *cmdIO, path string, o runOptions) int {
	if code, ok := runShader(cio, path, o); ok {
		return code
	}
	stdout, stderr := cio.stdout, cio.stderr
	setup, err := loadLaunch(path, cio.stdin)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa run: %v\n", err)
		return 1
	}
	arch := setup.Launch.Arch
	if arch == "" {
		// a cubin says its architecture; raw code and listings need "arch"
		arch = cubinArch(setup)
		if arch == "" {
			fmt.Fprintf(stderr, "gpuisa run: %s: the launch file needs \"arch\" for a raw or listing program\n", path)
			return 1
		}
		setup.Launch.Arch = arch
	}
	adjust := func(cfg *emu.Config) {
		cfg.Workers = o.workers
		if o.maxSteps > 0 {
			cfg.MaxSteps = o.maxSteps
		}
		if o.trace || o.traceBlock >= 0 || o.traceWarp >= 0 {
			cfg.Trace, cfg.TraceBlock, cfg.TraceWarp = stdout, o.traceBlock, o.traceWarp
		}
	}
	var (
		stats  emu.Stats
		res    *emu.Result
		runErr error
	)
	switch {
	case tesla.IsArch(arch):
		outcome, err := tesla.RunSetup(setup, adjust)
		if outcome == nil {
			fmt.Fprintf(stderr, "gpuisa run: %s: %v\n", path, err)
			return 1
		}
		stats, res, runErr = outcome.Stats, outcome.Result, err
	case emaxwell.IsArch(arch):
		outcome, err := emaxwell.RunSetup(setup, adjust)
		if outcome == nil {
			fmt.Fprintf(stderr, "gpuisa run: %s: %v\n", path, err)
			return 1
		}
		stats, res, runErr = outcome.Stats, outcome.Result, err
	default:
		fmt.Fprintf(stderr, "gpuisa run: %s: arch %q cannot be run yet (sm_10..sm_13, sm_50..sm_53)\n", path, arch)
		return 1
	}
	st := stats
	fmt.Fprintf(stdout, "%s: %s grid %v block %v: %d blocks, %d warps, %d warp-instructions (%d thread-instructions), %d divergent branches, %v, %s\n",
		filepath.Base(path), arch, setup.Grid, setup.Block, st.Blocks, st.Warps, st.WarpInsts, st.ThreadInsts, st.Divergent,
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
		for _, output := range setup.Launch.Outputs {
			b, err := setup.OutputBytes(output, res)
			if err == nil {
				err = os.WriteFile(filepath.Join(o.out, output.File), b, 0o644)
			}
			if err != nil {
				fmt.Fprintf(stderr, "gpuisa run: output %s: %v\n", output.File, err)
				return 1
			}
		}
	}
	if len(setup.Launch.Expect) > 0 {
		n, err := setup.Check(res)
		if err != nil {
			fmt.Fprintf(stderr, "gpuisa run: FAIL %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "expectations met: %d values checked\n", n)
	}
	return 0
}

// loadLaunch reads a launch file; from standard input ("-"), paths in it
// are relative to the working directory.
func loadLaunch(path string, stdin io.Reader) (*emu.Setup, error) {
	if path != "-" {
		return emu.LoadFile(path)
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return nil, err
	}
	l, err := emu.ParseLaunch(data)
	if err != nil {
		return nil, fmt.Errorf("<stdin>: %w", err)
	}
	s, err := emu.Load(l, ".")
	if err != nil {
		return nil, fmt.Errorf("<stdin>: %w", err)
	}
	return s, nil
}

func speed(st emu.Stats) string {
	s := st.Duration.Seconds()
	if s <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fM warp-instructions/s", float64(st.WarpInsts)/s/1e6)
}

// cubinArch is the architecture of the launch's program when it is an ELF
// cubin, else "".
func cubinArch(s *emu.Setup) string {
	p := s.Launch.Program
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.Dir, p)
	}
	data, err := os.ReadFile(p)
	if err != nil || !isELF(data) {
		return ""
	}
	f, err := cubin.Parse(data)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("sm_%d", f.SM())
}
