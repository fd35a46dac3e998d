// Command gen writes isa/maxwell/tables.go, print_gen.go and operands_gen.go from
// isa/maxwell/spec.txt.
// Run it with `go generate ./isa/maxwell`.
package main

import (
	"fmt"
	"os"

	"github.com/gpuisa/gpuisa/isa/maxwell/internal/spec"
)

func main() {
	src, err := os.ReadFile("spec.txt")
	if err != nil {
		fail(err)
	}
	s, err := spec.Parse(string(src))
	if err != nil {
		fail(err)
	}
	out, err := spec.Generate(s)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile("tables.go", out, 0o644); err != nil {
		fail(err)
	}
	printers, err := spec.GeneratePrinters(s)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile("print_gen.go", printers, 0o644); err != nil {
		fail(err)
	}
	operands, err := spec.GenerateOperands(s)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile("operands_gen.go", operands, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
