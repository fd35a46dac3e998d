package main

import (
	"bytes"
	"io"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/isa/usse"
)

func isGXP(b []byte) bool { return bytes.HasPrefix(b, []byte("GXP\x00")) }

// disGXP lists a PlayStation Vita GXP shader: header comments, then both
// USSE programs.
func disGXP(w io.Writer, data []byte) []error {
	p, err := gxp.Parse(data)
	if err != nil {
		return []error{err}
	}
	derrs, _ := p.WriteListing(w, usse.WriteListing)
	var errs []error
	for _, e := range derrs {
		errs = append(errs, e)
	}
	return errs
}
