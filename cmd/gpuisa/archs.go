package main

import (
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/isa/all"
)

func cmdArchs(stdout io.Writer) int {
	for _, a := range all.Archs() {
		fmt.Fprintf(stdout, "%-8s %s\n", a.Name, a.ISA)
	}
	return 0
}
