package isa

import (
	"io"

	"github.com/gpuisa/gpuisa/isa/cfg"
	"github.com/gpuisa/gpuisa/isa/jsonl"
)

// DisassembleFunc appends a listing of code, loaded at address base, to dst and
// returns it. Instructions that do not decode are reported in errs (in address
// order) and the listing goes on after them.
type DisassembleFunc func(dst []byte, code []byte, base uint64) (out []byte, errs []*DecodeError)

// WriteListingFunc writes the listing DisassembleFunc would return to w,
// without holding all of it in memory. err is w's first write error.
type WriteListingFunc func(w io.Writer, code []byte, base uint64) (errs []*DecodeError, err error)

// WriteListingFromFunc writes the listing of the code read from r (loaded
// at base), reading it a window at a time: memory stays bounded however
// long the code is. Each decode error goes to onErr (nil: dropped) once its
// window is listed. err is r's first read error or w's first write error.
// w and onErr are called one call at a time, in order, but not always from
// the caller's goroutine: the listing's workers write what they list.
type WriteListingFromFunc func(w io.Writer, r io.Reader, base uint64, onErr func(*DecodeError)) error

// GraphsFunc returns the control-flow graphs of raw code loaded at base:
// the code entered at its first instruction, named name, then each
// subroutine its calls reach (cfg.Program). Encodings that do not decode
// are reported and pass control on.
type GraphsFunc func(code []byte, base uint64, name string) ([]cfg.Function, []*DecodeError)

// WriteJSONFunc writes the JSON Lines listing of raw code loaded at base
// (docs/listing-json.md), each record naming function and section when
// they are not "". err is w's first write error.
type WriteJSONFunc func(w *jsonl.Writer, code []byte, base uint64, function, section string) (errs []*DecodeError, err error)

// AssembleFunc turns assembler source into machine code. filename is used in
// error positions only. Errors are an ErrorList from package isa/asm.
type AssembleFunc func(filename string, src []byte) ([]byte, error)

// Arch is one registry entry: an architecture name and the functions that
// handle its machine code. Entries are plain values built by each ISA package;
// package isa/all collects them.
type Arch struct {
	Name        string // as the -arch flag spells it: "sm_10", "sm_52", "sgx543"
	ISA         string // family: "tesla", "fermi", "maxwell", "usse"
	SMVersion   int    // 10, 11, ... for NVIDIA targets (the ELF EF_CUDA_SM value); 0 otherwise
	Disassemble DisassembleFunc
	Assemble    AssembleFunc
	// WriteListing, when not nil, streams what Disassemble returns: for
	// ISAs whose listings of large files are worth not materializing.
	WriteListing WriteListingFunc
	// WriteListingFrom, when not nil, is WriteListing reading the code
	// from an io.Reader as it goes.
	WriteListingFrom WriteListingFromFunc
	Graphs           GraphsFunc
	WriteJSON        WriteJSONFunc
}
