package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpuisa/gpuisa/emu"
)

func launchCommand() *command {
	return &command{
		name:    "launch",
		args:    "init KERNEL.cubin",
		summary: "write a launch file skeleton from a cubin's own metadata (launch init)",
		doc: `launch init reads the cubin (or a fatbin of one architecture) and writes a launch file
for one of its kernels: the architecture, the kernel, its parameters (count, offsets and
sizes from .nv.info), its local memory and required block shape, a zeroed buffer and an
output for every pointer-sized parameter, 0 for the others. Fill the buffers, the values,
the grid and the block, add expectations (docs/launch.md), and 'gpuisa run' it.`,
		define: defineLaunch,
	}
}

func defineLaunch(fs *flag.FlagSet) func(*cmdIO, []string) int {
	kernel := fs.String("kernel", "", "the kernel `NAME` (default: the cubin's only kernel)")
	out := fs.String("o", "", "write the launch file to `FILE` (default: standard output); the program path is relative to it")
	return func(cio *cmdIO, args []string) int {
		c := findCommand("launch")
		if len(args) == 0 || args[0] != "init" {
			return c.usageError(cio.stderr, "the only subcommand is init")
		}
		if len(args) != 2 {
			return c.usageError(cio.stderr, "want one cubin, got %d", len(args)-1)
		}
		path := args[1]
		if path == "-" {
			return c.usageError(cio.stderr, "the launch file names its cubin by path: give a file, not standard input")
		}
		data, err := cio.readInput(path) // through the input limit
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa launch: %s\n", message(err))
			return 1
		}
		program, err := programPath(path, *out)
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa launch: %s\n", message(err))
			return 1
		}
		text, err := emu.Skeleton(program, data, *kernel)
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa launch: %s\n", message(err))
			return 1
		}
		if *out == "" {
			cio.stdout.Write(text)
			return 0
		}
		if err := os.WriteFile(*out, text, 0o644); err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa launch: %s\n", message(err))
			return 1
		}
		return 0
	}
}

// programPath is the cubin's path as the launch file written to out names
// it: relative to out's directory (to the working directory for standard
// output).
func programPath(cubin, out string) (string, error) {
	dir := "."
	if out != "" {
		dir = filepath.Dir(out)
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	absCubin, err := filepath.Abs(cubin)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absCubin)
	if err != nil {
		return absCubin, nil
	}
	return filepath.ToSlash(rel), nil
}
