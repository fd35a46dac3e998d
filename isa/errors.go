// Package isa holds what every instruction set in gpuisa shares: the errors a
// decoder returns, the registry entry each ISA provides, bit-field helpers and the
// listing writer that prints NVIDIA-style disassembly lines.
package isa

import (
	"errors"
	"fmt"
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
}

func (e *DecodeError) Error() string {
	if e.more > 0 {
		return fmt.Sprintf("and %d more words that do not decode (not listed one by one), the last at /*%04x*/", e.more, e.Addr)
	}
	if e.Detail == "" {
		return fmt.Sprintf("/*%04x*/ %v", e.Addr, e.Err)
	}
	return fmt.Sprintf("/*%04x*/ %v: %s", e.Addr, e.Err, e.Detail)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Count is how many errors e stands for: 1, or for the last error
// ErrorsCapped keeps, every error past the limit.
func (e *DecodeError) Count() int { return max(1, e.more) }
