package isa

import "io"

// FlushSize is how much listing a streaming disassembler collects before
// writing it out: its memory stays near this, whatever the code's size.
const FlushSize = 64 << 10

// Flusher writes a listing out in pieces for a disassembly loop that
// appends lines to a buffer: the loop calls Flush when the buffer holds
// FlushSize bytes and goes on with what it returns (the buffer, emptied).
// Err is the first write error; later writes are skipped.
type Flusher struct {
	W   io.Writer
	Err error
}

// Flush writes b and returns it emptied.
func (f *Flusher) Flush(b []byte) []byte {
	if f.Err == nil && len(b) > 0 {
		_, f.Err = f.W.Write(b)
	}
	return b[:0]
}

// Due reports whether a buffer of n bytes should be flushed (never for a
// nil Flusher: the listing is wanted whole).
func (f *Flusher) Due(n int) bool { return f != nil && n >= FlushSize }
