package main

import (
	"io"
	"os"
	"syscall"
	"unsafe"
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

// writeBuffers writes bufs to f in order with writev, again from where a
// short write stopped: one system call for the listings of the parts that
// are ready together (isa.BuffersWriter).
//
// When f is a regular file (regular), the call is made without telling
// Go's scheduler (RawSyscall). A write of a listing's parts to the page
// cache takes 50-300 us. The scheduler's monitor takes the processor of a
// thread that has been in a system call for about 20 us, and wakes
// another thread to run it, which finds nothing to run; on two cores that
// thread takes one from the other worker, and the writer then waits to
// get a processor back. A write to a regular file does not wait for a
// reader, so holding the processor through it blocks nothing that could
// run. (A network or FUSE filesystem can still stall a write; the listing
// waits for it as it would anyway, and so does a garbage collection that
// starts meanwhile.) 1M random valid sgx543 words to a file made 600-1,100
// context switches, and make 150-290 this way (docs/limits.md, nineteenth
// session). Pipes and terminals, which can block for as long as the
// reader likes, are written the usual way.
func writeBuffers(f *os.File, bufs [][]byte, regular bool) (int64, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var iov [maxIovecs]syscall.Iovec
	var total int64
	skip := 0 // bytes of bufs[0] already written
	for {
		for len(bufs) > 0 && len(bufs[0]) == skip {
			bufs, skip = bufs[1:], 0
		}
		if len(bufs) == 0 {
			return total, nil
		}
		n := 0
		for i, b := range bufs {
			if n == len(iov) {
				break
			}
			if i == 0 {
				b = b[skip:]
			}
			if len(b) > 0 {
				iov[n].Base = &b[0]
				iov[n].SetLen(len(b))
				n++
			}
		}
		var done uintptr
		var errno syscall.Errno
		if err := sc.Write(func(fd uintptr) bool {
			call := syscall.Syscall
			if regular {
				call = syscall.RawSyscall
			}
			done, _, errno = call(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(n))
			return errno != syscall.EAGAIN
		}); err != nil {
			return total, err
		}
		switch {
		case errno == syscall.EINTR:
			continue
		case errno != 0:
			return total, &os.PathError{Op: "write", Path: f.Name(), Err: errno}
		case done == 0:
			return total, &os.PathError{Op: "write", Path: f.Name(), Err: io.ErrShortWrite}
		}
		total += int64(done)
		for left := int(done); left > 0; {
			if k := len(bufs[0]) - skip; k <= left {
				left -= k
				bufs, skip = bufs[1:], 0
			} else {
				skip += left
				left = 0
			}
		}
	}
}

// maxIovecs is how many buffers one writev takes here (a round has 8).
const maxIovecs = 64
