//go:build !linux

package main

import (
	"errors"
	"os"
)

const canReserve = false

func reserveBlocks(f *os.File, off, size int64) error {
	return errors.New("no block reservation on this system")
}
