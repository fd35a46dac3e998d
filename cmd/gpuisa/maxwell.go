package main

import (
	"fmt"
	"io"

	"gpuisa/binfmt/cubin"
	"gpuisa/isa"
)

// disMaxwellCubin lists the functions of an sm_5x cubin: each function's raw
// nvdisasm listing (which starts with its .headerflags line) under a
// "Function :" header.
func disMaxwellCubin(w io.Writer, f *cubin.File, a isa.Arch) []error {
	var errs []error
	var buf []byte
	fmt.Fprintf(w, "\n\tcode for %s\n", a.Name)
	for _, fn := range f.Functions {
		fmt.Fprintf(w, "\t\tFunction : %s\n", fn.Name)
		var derrs []*isa.DecodeError
		buf, derrs = a.Disassemble(buf[:0], fn.Code, 0)
		w.Write(buf)
		for _, e := range derrs {
			errs = append(errs, fmt.Errorf("function %s: %w", fn.Name, e))
		}
		fmt.Fprint(w, "\t\t..........\n\n\n")
	}
	return errs
}
