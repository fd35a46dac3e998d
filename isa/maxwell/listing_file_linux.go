package maxwell

import (
	"io"
	"os"
	"syscall"
	"unsafe"
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

// regularWriterAt writes to f, a regular file, with pwrite made without
// telling Go's scheduler (RawSyscall6). A block of listing takes 0.1-0.5 ms
// to write to the page cache; in a system call that long the scheduler's
// monitor hands the writer's processor to another thread, which finds
// nothing to run but takes a core from a worker, and the writer waits to
// get a processor back. A write to a regular file waits for no reader, so
// holding the processor through it blocks nothing that could run (the
// same for gpuisa dis's streamed listings: docs/limits.md, nineteenth
// session).
type regularWriterAt struct{ f *os.File }

func newRegularWriterAt(f *os.File) io.WriterAt { return regularWriterAt{f} }

func (w regularWriterAt) WriteAt(b []byte, off int64) (int, error) {
	sc, err := w.f.SyscallConn()
	if err != nil {
		return 0, err
	}
	done := 0
	for done < len(b) {
		var n uintptr
		var errno syscall.Errno
		rest := b[done:]
		if err := sc.Write(func(fd uintptr) bool {
			n, _, errno = syscall.RawSyscall6(syscall.SYS_PWRITE64, fd, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)), uintptr(off+int64(done)), 0, 0)
			return errno != syscall.EAGAIN
		}); err != nil {
			return done, err
		}
		switch {
		case errno == syscall.EINTR:
			continue
		case errno != 0:
			return done, &os.PathError{Op: "write", Path: w.f.Name(), Err: errno}
		case n == 0:
			return done, &os.PathError{Op: "write", Path: w.f.Name(), Err: io.ErrShortWrite}
		}
		done += int(n)
	}
	return done, nil
}
