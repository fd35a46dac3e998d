package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gpuisa/gpuisa/emu"
	eusse "github.com/gpuisa/gpuisa/emu/usse"
	"github.com/gpuisa/gpuisa/internal/safeio"
)

// runShader runs a shader launch file (arch sgx543, docs/usse-launch.md)
// and reports whether path was one; other launch files are left to
// runLaunch (from standard input, the text read is put back in cio).
func runShader(cio *cmdIO, path string, o runOptions) (int, bool) {
	var data []byte
	var err error
	if path == "-" {
		data, err = safeio.ReadAll(cio.stdin, "<stdin>", emu.MaxLaunchFileBytes)
		cio.stdin = bytes.NewReader(data)
	} else {
		data, err = safeio.ReadFile(path, emu.MaxLaunchFileBytes)
	}
	if err != nil || !eusse.IsLaunch(data) {
		return 0, false // runLaunch reports the error
	}
	stdout, stderr := cio.stdout, cio.stderr
	l, err := eusse.ParseLaunch(data)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa run: %s\n", message(emu.LocateErrorOr(displayName(path), data, err, []string{"program"})))
		o.report.failed(err, false)
		return 1, true
	}
	dir := filepath.Dir(path)
	if path == "-" {
		dir = "."
	}
	cfg := eusse.Config{MaxSteps: o.maxSteps, TraceInstance: -1, Workers: o.workers}
	if o.trace || o.traceBlock >= 0 {
		cfg.Trace, cfg.TraceInstance = stdout, o.traceBlock
		if o.report != nil {
			cfg.Trace = stderr // stdout is the report
		}
	}
	out, err := eusse.Run(l, dir, cfg)
	if out == nil {
		fmt.Fprintf(stderr, "gpuisa run: %s\n", message(emu.LocateErrorOr(displayName(path), data, err, []string{"program"})))
		o.report.failed(err, false)
		return 1, true
	}
	st := out.Stats
	if r := o.report; r != nil {
		r.Arch, r.Program = eusse.Arch, out.Prog.GXP.Kind.String()
		r.ShaderStats = &shaderStats{Instances: int64(st.Instances), Discarded: int64(st.Discarded), Instructions: int64(st.Instructions),
			DurationNS: st.Duration.Nanoseconds()}
	}
	rate := "-"
	if s := st.Duration.Seconds(); s > 0 {
		rate = fmt.Sprintf("%.1fM instructions/s", float64(st.Instructions)/s/1e6)
	}
	fmt.Fprintf(stdout, "%s: %s %s program: %d instances (%d discarded), %d instructions, %v, %s\n",
		filepath.Base(path), eusse.Arch, out.Prog.GXP.Kind, st.Instances, st.Discarded, st.Instructions,
		st.Duration.Round(time.Microsecond), rate)
	if err != nil {
		var f *eusse.Fault
		o.report.failed(err, errors.As(err, &f))
		if errors.As(err, &f) {
			fmt.Fprintf(stderr, "gpuisa run: fault: %v\n", f)
		} else {
			fmt.Fprintf(stderr, "gpuisa run: %s\n", message(err))
		}
		return 1, true
	}
	return finishShader(cio, displayName(path), data, out, o), true
}

// finishShader writes the outputs and checks the expectations.
func finishShader(cio *cmdIO, name string, text []byte, out *eusse.Outcome, o runOptions) int {
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa run: %s\n", message(err))
			return 1
		}
		for i, x := range out.Setup.Launch.Outputs {
			b, err := out.Setup.OutputBytes(x, out.Result)
			if err == nil {
				// as a CUDA launch's outputs: a name may hold directories
				err = writeOutput(o.out, x.File, func(w io.Writer) error { _, err := w.Write(b); return err })
			}
			if err != nil {
				reportOutputError(cio, name, text, i, x.File, err)
				return 1
			}
		}
	}
	if len(out.Setup.Launch.Expect) > 0 {
		n, err := out.Setup.Check(out.Result)
		o.report.checked(n, err)
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa run: FAIL %v\n", err)
			return 1
		}
		fmt.Fprintf(cio.stdout, "expectations met: %d values checked\n", n)
	}
	return 0
}
