// Command gpuisa disassembles, assembles and runs GPU machine code: NVIDIA
// Tesla (sm_10..sm_13), Fermi (sm_20/21), Maxwell (sm_50/52/53) and PowerVR
// SGX543 USSE. `gpuisa help` lists the commands; `gpuisa help COMMAND` gives
// a command's flags (both are made from the flag sets in cli.go's commands).
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpuisa/gpuisa/internal/safeio"
)

func main() {
	args := os.Args[1:]
	// installed or linked as nvdisasm or cuobjdump, it is that tool
	switch name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"); name {
	case "nvdisasm", "cuobjdump":
		args = append([]string{name}, args...)
	}
	os.Exit(run(args, os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status (0 success, 1
// failure, 2 misuse).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeOverview(stderr)
		return 2
	}
	cio := &cmdIO{stdin: stdin, stdout: stdout, stderr: stderr}
	switch args[0] {
	case "-h", "-help", "--help":
		writeOverview(stdout)
		return 0
	case "-version", "--version":
		args[0] = "version"
	}
	c := findCommand(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "gpuisa: unknown command %q (commands: %s)\nRun 'gpuisa help' for usage.\n", args[0], commandNames())
		return 2
	}
	return guard(stderr, c.name, func() int { return c.invoke(args[1:], cio) })
}

// readInput reads a file, or standard input for "-", through the input
// size limit (docs/limits.md; tests may lower it).
func (c *cmdIO) readInput(name string) ([]byte, error) {
	if name == "-" {
		return safeio.ReadAll(c.stdin, "<stdin>", c.limit())
	}
	return safeio.ReadFile(name, c.limit())
}

// limit is the input size limit.
func (c *cmdIO) limit() int64 {
	if c.inputLimit > 0 {
		return c.inputLimit
	}
	return maxInputBytes
}
