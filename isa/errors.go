// Package isa holds what every instruction set in gpuisa shares: the errors a
// decoder returns, the registry entry each ISA provides, bit-field helpers and the
// listing writer that prints NVIDIA-style disassembly lines.
package isa

import (
	"errors"
	"fmt"
	"math/bits"
)

// Sentinel errors. Decoders wrap them in a *DecodeError so callers can test with
// errors.Is and still learn the address.
var (
	// ErrTruncated: the input ends inside an instruction.
	ErrTruncated = errors.New("truncated instruction")
	// ErrInvalid: the bits do not form an instruction the hardware (or the
	// reference tool) accepts.
	ErrInvalid = errors.New("invalid encoding")
	// ErrUnknownArch: the architecture name is not one gpuisa knows.
	ErrUnknownArch = errors.New("unknown architecture")
)

// DecodeError describes a failure to decode the instruction at Addr.
// Len is the number of bytes the caller should skip to resynchronise.
type DecodeError struct {
	Addr   uint64
	Len    int
	Err    error  // ErrTruncated or ErrInvalid
	Detail string // what was wrong, e.g. "unknown opcode 0x8/2"
	more   int    // ErrorsCapped: the errors this one stands for
	// a listing's error leaves Detail to why.Explain(raw), worked out only
	// when the error is shown (Error, Explain): listings report every word
	// that does not decode and show a hundred of them
	why Explainer
	raw uint64
}

// An Explainer says why the instruction raw did not decode (a DecodeError's
// Detail); a zero-size type costs no allocation as an interface value.
type Explainer interface {
	Explain(raw uint64) string
}

// LazyDecodeError is the DecodeError of the instruction raw at addr whose
// Detail is why.Explain(raw), left to the first Error or Explain call.
func LazyDecodeError(addr uint64, n int, err error, raw uint64, why Explainer) DecodeError {
	return DecodeError{Addr: addr, Len: n, Err: err, why: why, raw: raw}
}

// Explain sets Detail when it was left to an Explainer (LazyDecodeError).
func (e *DecodeError) Explain() {
	if e.why != nil {
		e.Detail, e.why = e.why.Explain(e.raw), nil
	}
}

func (e *DecodeError) Error() string {
	if e.more > 0 {
		return fmt.Sprintf("and %d more words that do not decode (not listed one by one), the last at /*%04x*/", e.more, e.Addr)
	}
	detail := e.Detail
	if e.why != nil {
		detail = e.why.Explain(e.raw)
	}
	// "/*%04x*/ %v: %s" without fmt: a damaged file has an error per word
	what := "<nil>"
	if e.Err != nil {
		what = e.Err.Error()
	}
	b := make([]byte, 0, 16+len(what)+2+len(detail))
	b = append(AppendHex(append(b, "/*"...), e.Addr, max(4, (bits.Len64(e.Addr)+3)/4)), "*/ "...)
	b = append(b, what...)
	if detail != "" {
		b = append(append(b, ": "...), detail...)
	}
	return string(b)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Count is how many errors e stands for: 1, or for the last error
// ErrorsCapped keeps, every error past the limit.
func (e *DecodeError) Count() int { return max(1, e.more) }
