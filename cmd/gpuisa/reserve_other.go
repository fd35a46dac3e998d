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

// writeBuffers writes bufs to f in order, one write each (regular: f is a
// regular file, which changes nothing here).
func writeBuffers(f *os.File, bufs [][]byte, regular bool) (int64, error) {
	var total int64
	for _, b := range bufs {
		n, err := f.Write(b)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
