package cubin

import (
	"errors"
	"fmt"

	"github.com/gpuisa/gpuisa/internal/safeio"
)

// ErrFormat is wrapped by every *FormatError, so callers can test for a
// malformed input with errors.Is(err, cubin.ErrFormat).
var ErrFormat = errors.New("malformed cubin")

// FormatError reports malformed input: the byte offset in the file where the
// problem was found and what was wrong there.
type FormatError struct {
	Off int64  // byte offset in the input
	Msg string // what was wrong, e.g. "section 3 data [0x40, 0x1040) past end of file (0x200 bytes)"
}

func (e *FormatError) Error() string { return fmt.Sprintf("cubin: offset 0x%x: %s", e.Off, e.Msg) }

// Unwrap makes errors.Is(err, ErrFormat) true.
func (e *FormatError) Unwrap() error { return ErrFormat }

// errAt is the FormatError at off; names read from the file may hold any
// bytes, so the message is made printable on one line.
func errAt(off uint64, format string, args ...any) error {
	return &FormatError{Off: int64(off), Msg: safeio.Printable(fmt.Sprintf(format, args...))}
}
