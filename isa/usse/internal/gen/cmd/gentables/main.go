// Command gentables writes tables.go from usse.spec (run by go generate in
// package usse).
package main

import (
	"fmt"
	"os"

	"github.com/gpuisa/gpuisa/isa/usse/internal/gen"
)

func main() {
	src, err := os.ReadFile("usse.spec")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := gen.Generate(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile("tables.go", out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
