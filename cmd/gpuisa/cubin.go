package main

import (
	"fmt"
	"io"

	"gpuisa/isa"
)

// disCubin lists every function of an ELF cubin.
func disCubin(w io.Writer, name string, data []byte, arch isa.Arch) []error {
	return []error{fmt.Errorf("ELF cubins are not supported yet")}
}
