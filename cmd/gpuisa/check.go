package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/cubinasm"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

func checkCommand() *command {
	return &command{
		name:    "check",
		args:    "FILE",
		summary: "check sm_5x code's control words for scheduling hazards",
		doc: `FILE is an sm_5x cubin, a whole-cubin listing, or a listing of raw code (with -arch).
Every function is checked along its control flow for what its control words fail to
keep apart: a variable-latency result (memory, texture, MUFU, conversions, doubles)
read or overwritten before a wait on its write barrier; a source of one overwritten
before a wait on its read barrier; a wait on a barrier nothing sets; a fixed-latency
result read before its latency passed (6 cycles, 2 for a variable-latency reader, 13
for predicates: the least ptxas leaves); dual-issued pairs the hardware cannot pair.
Register bank conflicts that no operand reuse hides are notes (-notes lists them).
Findings are listed as FILE: FUNCTION: /*ADDR*/ error: KIND: what; the exit status is 1
when there is an error. ptxas's code has none (the 110 oracle cubins).`,
		define: defineCheck,
	}
}

func defineCheck(fs *flag.FlagSet) func(*cmdIO, []string) int {
	archName := fs.String("arch", "", "architecture `ARCH` of a listing of raw code (sm_50, sm_52, sm_53)")
	notes := fs.Bool("notes", false, "list the notes (register bank conflicts) too, not only their number")
	device := fs.Bool("device", false, "raw code is a device function (its caller may have set barriers), not a kernel")
	return func(cio *cmdIO, files []string) int {
		c := findCommand("check")
		if len(files) != 1 {
			return c.usageError(cio.stderr, "want one input file (- for standard input), got %d", len(files))
		}
		src, err := cio.readInput(files[0])
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa check: %s\n", message(err))
			return 1
		}
		name := displayName(files[0])
		var data []byte
		switch {
		case isELF(src):
			data = src
		case cubinasm.IsCubinListing(src):
			if data, err = cubinasm.Assemble(name, src); err != nil {
				reportAsmError(cio.stderr, err)
				return 1
			}
		default:
			if *archName == "" {
				return c.usageError(cio.stderr, "a listing of raw code needs -arch")
			}
			arch, err := all.Lookup(*archName)
			if err != nil || arch.ISA != "maxwell" {
				return c.usageError(cio.stderr, "-arch: the checks are for sm_50, sm_52 and sm_53")
			}
			code, err := arch.Assemble(name, src)
			if err != nil {
				reportAsmError(cio.stderr, err)
				return 1
			}
			errs, ns := reportHazards(cio.stdout, name, maxwell.Check(code, arch.SMVersion, maxwell.CheckOptions{Kernel: !*device}), *notes)
			return summarize(cio.stdout, errs, ns)
		}
		errs, ns, err := checkCubin(cio.stdout, name, data, *notes)
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa check: %s: %s\n", name, message(err))
			return 1
		}
		return summarize(cio.stdout, errs, ns)
	}
}

// checkCubin checks every function of an sm_5x cubin and lists the
// findings; it returns the numbers of errors and notes.
func checkCubin(w io.Writer, name string, data []byte, notes bool) (errs, ns int, err error) {
	f, err := cubin.Parse(data)
	if err != nil {
		return 0, 0, err
	}
	if sm := f.SM(); sm < 50 || sm > 53 {
		return 0, 0, fmt.Errorf("the checks are for sm_5x code, not sm_%d", sm)
	}
	for i := range f.Functions {
		fn := &f.Functions[i]
		e, n := reportHazards(w, name+": "+fn.Name, maxwell.Check(fn.Code, f.SM(), maxwell.FunctionCheckOptions(f, fn)), notes)
		errs, ns = errs+e, ns+n
	}
	return errs, ns, nil
}

// reportHazards lists findings (notes only when asked) and counts them.
func reportHazards(w io.Writer, where string, hs []maxwell.Hazard, notes bool) (errs, ns int) {
	for _, h := range hs {
		if h.Severity == maxwell.SevNote {
			ns++
			if !notes {
				continue
			}
		} else {
			errs++
		}
		fmt.Fprintf(w, "%s: %v\n", where, h)
	}
	return errs, ns
}

func summarize(w io.Writer, errs, notes int) int {
	fmt.Fprintf(w, "%d errors, %d notes\n", errs, notes)
	if errs > 0 {
		return 1
	}
	return 0
}
