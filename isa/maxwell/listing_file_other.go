//go:build !linux

package maxwell

import (
	"errors"
	"os"
)

// appendMode reports every file as appending where the descriptor's flags
// are not checked here: the listing is then written sequentially.
func appendMode(f *os.File) bool { return true }

// preallocate is not done where fallocate is not checked: the listing is
// written without it.
func preallocate(f *os.File, off, size int64) error { return errors.ErrUnsupported }
