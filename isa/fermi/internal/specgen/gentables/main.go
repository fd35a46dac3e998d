// Command gentables regenerates isa/fermi/tables.go from isa/fermi/fermi.spec.
// Run it with `go generate ./isa/fermi`.
package main

import (
	"fmt"
	"os"

	"github.com/gpuisa/gpuisa/isa/fermi/internal/specgen"
)

func main() {
	src, err := os.ReadFile("fermi.spec")
	if err == nil {
		var s *specgen.Spec
		if s, err = specgen.Parse(string(src)); err == nil {
			var out []byte
			if out, err = specgen.Generate(s); err == nil {
				err = os.WriteFile("tables.go", out, 0o644)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentables:", err)
		os.Exit(1)
	}
}
