package maxwell

import (
	"os"
	"syscall"
)

// appendMode says f's descriptor has O_APPEND (a shell's >>): Linux's
// pwrite then appends whatever the offset.
func appendMode(f *os.File) bool {
	sc, err := f.SyscallConn()
	if err != nil {
		return true
	}
	flags := 0
	var ferr syscall.Errno
	if err := sc.Control(func(fd uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		flags, ferr = int(r), e
	}); err != nil || ferr != 0 {
		return true
	}
	return flags&syscall.O_APPEND != 0
}

// preallocate allocates size bytes of f from off (fallocate without
// FALLOC_FL_KEEP_SIZE: f grows to off+size at once), keeping what f holds.
// Filesystems without fallocate return an error and nothing changes.
func preallocate(f *os.File, off, size int64) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := sc.Control(func(fd uintptr) {
		ferr = syscall.Fallocate(int(fd), 0, off, size)
	}); err != nil {
		return err
	}
	return ferr
}
