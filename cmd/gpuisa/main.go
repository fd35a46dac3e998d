// Command gpuisa disassembles, assembles and runs GPU machine code.
//
//	gpuisa dis [-arch A] [-base ADDR] FILE...   list machine code (cubin, or raw with -arch; - is stdin)
//	gpuisa as -arch A [-o OUT] FILE              assemble a listing into raw machine code
//	gpuisa archs                                 list the supported architectures
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage:
  gpuisa dis [-arch A] [-base ADDR] FILE...   disassemble (cubin, or raw binary with -arch; - reads stdin)
  gpuisa as -arch A [-o OUT] FILE             assemble a listing into raw machine code
  gpuisa archs                                list the supported architectures
  gpuisa version                              print the module version
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "dis":
		return cmdDis(args[1:], stdin, stdout, stderr)
	case "as":
		return cmdAs(args[1:], stdin, stdout, stderr)
	case "run":
		return cmdRun(args[1:], stdin, stdout, stderr)
	case "archs":
		return cmdArchs(stdout)
	case "version":
		return cmdVersion(stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "gpuisa: unknown command %q\n%s", args[0], usage)
	return 2
}

// readInput reads a file, or standard input for "-".
func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}
