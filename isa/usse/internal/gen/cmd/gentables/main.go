// Command gentables writes tables.go and print_gen.go from usse.spec (run
// by go generate in package usse).
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
	for _, out := range []struct {
		name string
		gen  func([]byte) ([]byte, error)
	}{{"tables.go", gen.Generate}, {"print_gen.go", gen.GeneratePrinters}} {
		text, err := out.gen(src)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(out.name, text, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
