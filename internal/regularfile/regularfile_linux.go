package regularfile

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// maxIovecs is how many buffers one writev takes here (a round of listed
// parts has at most 8).
const maxIovecs = 64

// Writev writes bufs to f in order with writev, again from where a short
// write stopped: one system call for the listings of the parts that are
// ready together.
func Writev(f *os.File, bufs [][]byte) (int64, error) {
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
		done, err := call(f, sc, syscall.SYS_WRITEV, uintptr(unsafe.Pointer(&iov[0])), uintptr(n), 0)
		if err != nil {
			return total, err
		}
		total += int64(done)
		for left := done; left > 0; {
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

// WriteAt writes all of b to f at offset off with pwrite, again from where
// a short write stopped.
func WriteAt(f *os.File, b []byte, off int64) (int, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	done := 0
	for done < len(b) {
		rest := b[done:]
		n, err := call(f, sc, syscall.SYS_PWRITE64, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)), uintptr(off+int64(done)))
		if err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

// call makes one write system call on f's descriptor (RawSyscall6), again
// when a signal interrupted it, and returns the bytes written, at least
// one, or the error.
func call(f *os.File, sc syscall.RawConn, trap, a1, a2, a3 uintptr) (int, error) {
	for {
		var n uintptr
		var errno syscall.Errno
		if err := sc.Write(func(fd uintptr) bool {
			n, _, errno = syscall.RawSyscall6(trap, fd, a1, a2, a3, 0, 0)
			return errno != syscall.EAGAIN
		}); err != nil {
			return 0, err
		}
		switch {
		case errno == syscall.EINTR:
			continue
		case errno != 0:
			return 0, &os.PathError{Op: "write", Path: f.Name(), Err: errno}
		case n == 0:
			return 0, &os.PathError{Op: "write", Path: f.Name(), Err: io.ErrShortWrite}
		}
		return int(n), nil
	}
}
