package main

import (
	"os"
	"syscall"
)

const canReserve = true

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: the blocks are allocated, the
// file's size stays.
const fallocKeepSize = 1

// reserveBlocks allocates size bytes of f's blocks from off without
// changing f's size or content. Filesystems without fallocate return an
// error and nothing changes.
func reserveBlocks(f *os.File, off, size int64) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := sc.Control(func(fd uintptr) {
		ferr = syscall.Fallocate(int(fd), fallocKeepSize, off, size)
	}); err != nil {
		return err
	}
	return ferr
}
