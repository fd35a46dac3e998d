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

// cmdRun runs a kernel described by a launch file (see LAUNCH.md).
func cmdRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the launch file's outputs to `DIR`")
	trace := fs.Bool("trace", false, "print every executed warp-instruction with its active and guard masks")
	traceBlock := fs.Int("trace-block", -1, "trace only block `N` (linear index)")
	traceWarp := fs.Int("trace-warp", -1, "trace only warp `N` of each block")
	maxSteps := fs.Int64("max-steps", 0, "stop a block after `N` warp-instructions (default: launch file, else 2^26)")
	workers := fs.Int("workers", 0, "blocks run in parallel (default: all cores)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gpuisa run [-out DIR] [-trace] LAUNCH.json")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	path := fs.Arg(0)
	setup, err := emu.LoadFile(path)
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
		cfg.Workers = *workers
		if *maxSteps > 0 {
			cfg.MaxSteps = *maxSteps
		}
		if *trace || *traceBlock >= 0 || *traceWarp >= 0 {
			cfg.Trace, cfg.TraceBlock, cfg.TraceWarp = stdout, *traceBlock, *traceWarp
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
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintf(stderr, "gpuisa run: %v\n", err)
			return 1
		}
		for _, o := range setup.Launch.Outputs {
			b, err := setup.OutputBytes(o, res)
			if err == nil {
				err = os.WriteFile(filepath.Join(*out, o.File), b, 0o644)
			}
			if err != nil {
				fmt.Fprintf(stderr, "gpuisa run: output %s: %v\n", o.File, err)
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
