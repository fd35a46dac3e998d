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

// MaxListedErrors bounds the decode errors a streaming disassembler keeps:
// code of nothing but invalid words must not cost memory per word. The
// errors past it are counted in one last error (ErrorsCapped).
const MaxListedErrors = 1000

// ErrorsCapped adds e to errs while there are fewer than MaxListedErrors,
// and otherwise counts it in errs' last element, which then stands for
// every error past the limit (its Error says how many, and where the last
// was).
func ErrorsCapped(errs []*DecodeError, e *DecodeError) []*DecodeError {
	if len(errs) < MaxListedErrors {
		return append(errs, e)
	}
	if len(errs) == MaxListedErrors {
		errs = append(errs, &DecodeError{Err: e.Err})
	}
	last := errs[len(errs)-1]
	last.more++
	last.Addr, last.Len = e.Addr, e.Len
	return errs
}
