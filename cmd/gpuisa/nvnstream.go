package main

import (
	"bytes"
	"io"

	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// nvnWriter annotates a listing with NVN comments as it passes through
// (dis -nvn), a line at a time, so the listing is never held whole: it
// keeps only a partial last line between writes. Close annotates that line.
type nvnWriter struct {
	w       io.Writer
	partial []byte
	out     []byte
}

func (n *nvnWriter) Write(b []byte) (int, error) {
	n.partial = append(n.partial, b...)
	end := bytes.LastIndexByte(n.partial, '\n')
	if end < 0 {
		return len(b), nil
	}
	n.out = maxwell.AnnotateNVN(n.out[:0], n.partial[:end+1])
	_, err := n.w.Write(n.out)
	n.partial = append(n.partial[:0], n.partial[end+1:]...)
	return len(b), err
}

// Close annotates and writes what is left (a last line without newline).
func (n *nvnWriter) Close() error {
	if len(n.partial) == 0 {
		return nil
	}
	n.out = maxwell.AnnotateNVN(n.out[:0], n.partial)
	n.partial = n.partial[:0]
	_, err := n.w.Write(n.out)
	return err
}
