package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/safeio"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/asm"
	"github.com/gpuisa/gpuisa/isa/cubinasm"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

func asCommand() *command {
	return &command{
		name:    "as",
		args:    "FILE",
		summary: "assemble a listing into raw machine code or a cubin; rebuild or patch a cubin",
		doc: `FILE (- for standard input) is a listing in gpuisa's syntax or NVIDIA's: with or without
the address and hex columns, with labels, and the listings 'gpuisa dis' prints. Errors
are reported as file:line:col: message, and the exit status is 1.

A whole-cubin listing of an sm_5x cubin (what 'gpuisa dis' or nvdisasm print for it, with
or without -hex, VLIW braces or not) assembles back into the cubin: sections, symbols,
relocations, .nv.info attributes and constant banks as listed, the tables the listing
leaves out rebuilt as ptxas makes them (-arch is then optional). The cuobjdump-style
listing of an sm_1x/sm_2x cubin (with -cubin, or without -arch) gives a cubin with the
same functions and code, and with 'gpuisa dis -facts' listings (.cubin lines) the same
cubin; what a plain listing does not show takes defaults.

-patch ORIG.cubin -fun NAME replaces the code of one function of ORIG.cubin with the
code FILE assembles to (FILE: that function's lines, or a whole-cubin listing) and keeps
everything else; sizes, register and barrier counts, relocations, EXIT and SR_CTAID
offsets follow the new code.`,
		define: defineAs,
	}
}

func defineAs(fs *flag.FlagSet) func(*cmdIO, []string) int {
	archName := fs.String("arch", "", "target architecture `ARCH` (required but for whole-cubin listings): "+all.Names())
	out := fs.String("o", "", "write to `FILE` (default: standard output)")
	asCubin := fs.Bool("cubin", false, "write an ELF cubin holding one kernel instead of raw code")
	kernel := fs.String("kernel", "", "with -cubin: the kernel's `NAME` (default: the file name)")
	params := fs.String("params", "", "with -cubin: the kernel parameters' `SIZES` in bytes, e.g. 4,4,4,4")
	regs := fs.Int("regs", 16, "with -cubin: registers per thread")
	patch := fs.String("patch", "", "replace one function's code in cubin `ORIG` (with -fun) and write the result")
	fun := fs.String("fun", "", "with -patch: the `NAME` of the function to replace")
	check := fs.Bool("check", false, "sm_5x: check the result's control words for scheduling hazards (as 'gpuisa check' does;\nfindings on standard error, exit status 1 on an error, the output is still written)")
	return func(cio *cmdIO, files []string) int {
		stderr := cio.stderr
		c := findCommand("as")
		if len(files) != 1 {
			return c.usageError(stderr, "want one input file (- for standard input), got %d", len(files))
		}
		if (*patch == "") != (*fun == "") {
			return c.usageError(stderr, "-patch and -fun go together")
		}
		if *patch != "" {
			return patchCubin(cio, *patch, *fun, files[0], *out, *check)
		}
		if *asCubin && *archName != "" {
			// -cubin's flags are checked before anything is read
			arch, err := all.Lookup(*archName)
			if err != nil {
				return c.usageError(stderr, "%v", err)
			}
			if err := checkCubinFlags(arch, *kernel, *params, *regs); err != nil {
				return c.usageError(stderr, "%v", err)
			}
		}
		src, err := cio.readInput(files[0])
		if err != nil {
			if *archName == "" {
				return c.usageError(stderr, "-arch is required (one of %s)", all.Names())
			}
			fmt.Fprintf(stderr, "gpuisa as: %s\n", message(err))
			return 1
		}
		if cubinasm.IsCubinListing(src) {
			return rebuildCubin(cio, displayName(files[0]), src, *archName, *out, *check)
		}
		if cubinasm.IsCuobjdumpListing(src) && (*asCubin || *archName == "") {
			// an sm_1x/sm_2x cubin's listing: its functions' code
			b, defaulted, err := cubinasm.RebuildCuobjdump(displayName(files[0]), src)
			if err != nil {
				reportAsmError(stderr, err)
				return 1
			}
			// at each function's line, like an assembler's messages
			for _, d := range defaulted {
				fmt.Fprintln(stderr, safeio.Printable(fmt.Sprintf("%s: note: %s: %s", d.Pos, d.Name, cubinasm.Defaulted)))
			}
			return writeResult(cio, *out, b)
		}
		if *archName == "" {
			return c.usageError(stderr, "-arch is required (one of %s)", all.Names())
		}
		return assemble(cio, files[0], src, *archName, *out, *asCubin, *kernel, *params, *regs, *check)
	}
}

// reportAsmError prints an assembler error: each of an error list's errors
// on a line of its own.
func reportAsmError(stderr io.Writer, err error) {
	var el asm.ErrorList
	if errors.As(err, &el) {
		for _, e := range el {
			fmt.Fprintln(stderr, e)
		}
		return
	}
	fmt.Fprintf(stderr, "gpuisa as: %s\n", message(err))
}

// writeResult writes b to out, or to standard output.
func writeResult(cio *cmdIO, out string, b []byte) int {
	if out == "" {
		cio.stdout.Write(b)
		return 0
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		fmt.Fprintf(cio.stderr, "gpuisa as: %s\n", message(err))
		return 1
	}
	return 0
}

// checkOutput runs the scheduling checks on what as made (a cubin, or raw
// sm_5x code) and reports on standard error; it returns 1 on an error.
func checkOutput(cio *cmdIO, name string, b []byte, sm int) int {
	var errs, notes int
	if isELF(b) {
		var err error
		if errs, notes, err = checkCubin(cio.stderr, name, b, false); err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa as: -check: %s\n", message(err))
			return 1
		}
	} else {
		if sm < 50 || sm > 53 {
			fmt.Fprintf(cio.stderr, "gpuisa as: -check is for sm_5x code, not sm_%d\n", sm)
			return 1
		}
		errs, notes = reportHazards(cio.stderr, name, maxwell.Check(b, sm, maxwell.CheckOptions{Kernel: true}), false)
	}
	return summarize(cio.stderr, errs, notes)
}

// rebuildCubin assembles a whole-cubin listing back into the cubin.
func rebuildCubin(cio *cmdIO, name string, src []byte, archName, out string, check bool) int {
	l, err := cubinasm.Parse(name, src)
	if err != nil {
		reportAsmError(cio.stderr, err)
		return 1
	}
	if archName != "" {
		if want := fmt.Sprintf("sm_%d", l.SM()); archName != want {
			fmt.Fprintf(cio.stderr, "%s:%d:1: the listing's .headerflags are for %s, not -arch %s\n", name, l.FlagsLine, want, archName)
			return 1
		}
	}
	f, err := l.Build()
	if err != nil {
		reportAsmError(cio.stderr, err)
		return 1
	}
	b, err := cubin.Encode(f, cubin.EncodeOptions{ProgramHeaders: f.Type == cubin.ETExec})
	if err != nil {
		fmt.Fprintf(cio.stderr, "gpuisa as: %s\n", message(err))
		return 1
	}
	status := writeResult(cio, out, b)
	if check {
		status = max(status, checkOutput(cio, name, b, l.SM()))
	}
	return status
}

// patchCubin replaces function fun of cubin orig with the code of file.
func patchCubin(cio *cmdIO, orig, fun, file, out string, check bool) int {
	data, err := cio.readInput(orig)
	if err != nil {
		fmt.Fprintf(cio.stderr, "gpuisa as: %s\n", message(err))
		return 1
	}
	src, err := cio.readInput(file)
	if err != nil {
		fmt.Fprintf(cio.stderr, "gpuisa as: %s\n", message(err))
		return 1
	}
	b, warnings, err := cubinasm.Patch(data, fun, displayName(file), src)
	if err != nil {
		reportAsmError(cio.stderr, err)
		return 1
	}
	for _, w := range warnings {
		fmt.Fprintf(cio.stderr, "gpuisa as: warning: %s\n", w)
	}
	status := writeResult(cio, out, b)
	if check {
		status = max(status, checkOutput(cio, displayName(file), b, 0))
	}
	return status
}

// assemble runs the assembler on one listing and writes code or a cubin.
func assemble(cio *cmdIO, name string, src []byte, archName, out string, asCubin bool, kernel, params string, regs int, check bool) int {
	stderr := cio.stderr
	arch, err := all.Lookup(archName)
	if err != nil {
		return findCommand("as").usageError(stderr, "%v", err)
	}
	name = displayName(name)
	code, err := arch.Assemble(name, src)
	if err != nil {
		reportAsmError(stderr, err)
		return 1
	}
	if asCubin {
		if code, err = wrapCubin(code, arch, name, kernel, params, regs); err != nil {
			fmt.Fprintf(stderr, "gpuisa as: %s\n", message(err))
			return 1
		}
	}
	status := writeResult(cio, out, code)
	if check {
		status = max(status, checkOutput(cio, name, code, arch.SMVersion))
	}
	return status
}

// wrapCubin puts assembled code into a one-kernel cubin.
func wrapCubin(code []byte, arch isa.Arch, file, kernel, params string, regs int) ([]byte, error) {
	if arch.SMVersion == 0 {
		return nil, fmt.Errorf("-cubin needs an NVIDIA architecture, not %s", arch.Name)
	}
	if kernel == "" {
		kernel = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	var sizes []uint32
	if params != "" {
		for _, p := range strings.Split(params, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(p), 0, 32)
			if err != nil || n == 0 || n > 256 {
				return nil, fmt.Errorf("bad -params size %q", p)
			}
			sizes = append(sizes, uint32(n))
		}
	}
	return cubin.Write(cubin.DefaultModule(arch.SMVersion, kernel, code, regs, sizes...))
}
