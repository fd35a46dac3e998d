package main

import (
	"flag"
	"fmt"

	"github.com/gpuisa/gpuisa/isa/all"
)

func archsCommand() *command {
	return &command{
		name:    "archs",
		summary: "list the architectures (the names -arch and launch files take) and their ISA",
		define: func(fs *flag.FlagSet) func(*cmdIO, []string) int {
			return func(io *cmdIO, args []string) int {
				if len(args) != 0 {
					return findCommand("archs").usageError(io.stderr, "takes no arguments")
				}
				for _, a := range all.Archs() {
					fmt.Fprintf(io.stdout, "%-8s %s\n", a.Name, a.ISA)
				}
				return 0
			}
		},
	}
}
