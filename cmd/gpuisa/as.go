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
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/asm"
)

func cmdAs(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("as", flag.ContinueOnError)
	fs.SetOutput(stderr)
	archName := fs.String("arch", "", "target architecture: "+all.Names())
	out := fs.String("o", "", "output file (default: standard output)")
	asCubin := fs.Bool("cubin", false, "write an ELF cubin holding one kernel instead of raw code")
	kernel := fs.String("kernel", "", "with -cubin: the kernel's name (default: the file name)")
	params := fs.String("params", "", "with -cubin: the kernel parameters' sizes in bytes, e.g. 4,4,4,4")
	regs := fs.Int("regs", 16, "with -cubin: registers per thread")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *archName == "" {
		fmt.Fprintln(stderr, "usage: gpuisa as -arch A [-o OUT] [-cubin [-kernel NAME] [-params 4,4] [-regs N]] FILE")
		return 2
	}
	arch, err := all.Lookup(*archName)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa as: %v\n", err)
		return 2
	}
	name := fs.Arg(0)
	src, err := readInput(name, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa as: %v\n", err)
		return 1
	}
	if name == "-" {
		name = "<stdin>"
	}
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
	if *asCubin {
		if code, err = wrapCubin(code, arch, name, *kernel, *params, *regs); err != nil {
			fmt.Fprintf(stderr, "gpuisa as: %v\n", err)
			return 1
		}
	}
	if *out == "" {
		stdout.Write(code)
		return 0
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
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
