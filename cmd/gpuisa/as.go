package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"gpuisa/isa/all"
	"gpuisa/isa/asm"
)

func cmdAs(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("as", flag.ContinueOnError)
	fs.SetOutput(stderr)
	archName := fs.String("arch", "", "target architecture: "+all.Names())
	out := fs.String("o", "", "output file (default: standard output)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *archName == "" {
		fmt.Fprintln(stderr, "usage: gpuisa as -arch A [-o OUT] FILE")
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
