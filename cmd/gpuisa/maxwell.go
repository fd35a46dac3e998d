package main

import (
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// disMaxwellCubin lists an sm_5x cubin as nvdisasm does (maxwell.ListCubin):
// by default as `nvdisasm -hex -novliw file.cubin`.
func disMaxwellCubin(w io.Writer, f *cubin.File, a isa.Arch, opts maxwell.ListOptions) []error {
	out, derrs := maxwell.ListCubin(nil, f, opts)
	w.Write(out)
	var errs []error
	for _, e := range derrs {
		errs = append(errs, fmt.Errorf("%s: %w", a.Name, e))
	}
	return errs
}
