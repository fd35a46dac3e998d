package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/asm"
)

func asCommand() *command {
	return &command{
		name:    "as",
		args:    "FILE",
		summary: "assemble a listing into raw machine code, or into a cubin with -cubin",
		doc: `FILE (- for standard input) is a listing in gpuisa's syntax or NVIDIA's: with or without
the address and hex columns, with labels, and the listings 'gpuisa dis' prints. Errors
are reported as file:line:col: message, and the exit status is 1.`,
		define: defineAs,
	}
}

func defineAs(fs *flag.FlagSet) func(*cmdIO, []string) int {
	archName := fs.String("arch", "", "target architecture `ARCH` (required): "+all.Names())
	out := fs.String("o", "", "write to `FILE` (default: standard output)")
	asCubin := fs.Bool("cubin", false, "write an ELF cubin holding one kernel instead of raw code")
	kernel := fs.String("kernel", "", "with -cubin: the kernel's `NAME` (default: the file name)")
	params := fs.String("params", "", "with -cubin: the kernel parameters' `SIZES` in bytes, e.g. 4,4,4,4")
	regs := fs.Int("regs", 16, "with -cubin: registers per thread")
	return func(cio *cmdIO, files []string) int {
		stderr := cio.stderr
		c := findCommand("as")
		if len(files) != 1 {
			return c.usageError(stderr, "want one input file (- for standard input), got %d", len(files))
		}
		if *archName == "" {
			return c.usageError(stderr, "-arch is required (one of %s)", all.Names())
		}
		return assemble(cio, files[0], *archName, *out, *asCubin, *kernel, *params, *regs)
	}
}

// assemble runs the assembler on one listing and writes code or a cubin.
func assemble(cio *cmdIO, name, archName, out string, asCubin bool, kernel, params string, regs int) int {
	stdout, stderr := cio.stdout, cio.stderr
	arch, err := all.Lookup(archName)
	if err != nil {
		return findCommand("as").usageError(stderr, "%v", err)
	}
	if asCubin {
		if err := checkCubinFlags(arch, kernel, params, regs); err != nil {
			return findCommand("as").usageError(stderr, "%v", err)
		}
	}
	src, err := cio.readInput(name)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa as: %v\n", err)
		return 1
	}
	name = displayName(name)
	code, err := arch.Assemble(name, src)
	if err != nil {
		var el asm.ErrorList
		if errors.As(err, &el) {
			for _, e := range el {
				fmt.Fprintln(stderr, e)
			}
		} else {
			fmt.Fprintf(stderr, "gpuisa as: %v\n", err)
		}
		return 1
	}
	if asCubin {
		if code, err = wrapCubin(code, arch, name, kernel, params, regs); err != nil {
			fmt.Fprintf(stderr, "gpuisa as: %v\n", err)
			return 1
		}
	}
	if out == "" {
		stdout.Write(code)
		return 0
	}
	if err := os.WriteFile(out, code, 0o644); err != nil {
		fmt.Fprintf(stderr, "gpuisa as: %v\n", err)
		return 1
	}
	return 0
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
