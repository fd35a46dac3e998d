package isa

import (
	"fmt"
	"testing"
)

// TestDecodeErrorText: Error, written without fmt, says what
// "/*%04x*/ %v: %s" said.
func TestDecodeErrorText(t *testing.T) {
	for _, addr := range []uint64{0, 8, 0xfff, 0x1234, 0x12345, 0xffffffff, 1 << 63} {
		for _, err := range []error{ErrInvalid, ErrTruncated, nil} {
			for _, detail := range []string{"", "opcode 0x3f: no such form"} {
				e := &DecodeError{Addr: addr, Err: err, Detail: detail}
				want := fmt.Sprintf("/*%04x*/ %v", addr, err)
				if detail != "" {
					want = fmt.Sprintf("/*%04x*/ %v: %s", addr, err, detail)
				}
				if got := e.Error(); got != want {
					t.Errorf("got %q, want %q", got, want)
				}
			}
		}
	}
}
