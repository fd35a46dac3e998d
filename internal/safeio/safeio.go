// Package safeio reads files and streams through a size limit, so that a
// huge file, /dev/zero or an endless pipe costs at most the limit (checked
// before reading where the size is known) instead of all the memory there
// is. docs/limits.md lists the limits the tool uses.
package safeio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gpuisa/gpuisa/internal/pagemem"
)

// TooLargeError is a file or stream longer than its limit.
type TooLargeError struct {
	Name  string
	Size  int64 // the file's size when known, else -1 (a stream)
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size >= 0 {
		return fmt.Sprintf("%s: %d bytes, more than the limit of %s", Quoted(e.Name), e.Size, Bytes(e.Limit))
	}
	return fmt.Sprintf("%s: more than the limit of %s", Quoted(e.Name), Bytes(e.Limit))
}

// Quoted is a file name as messages show it: as it is, or in Go quotes
// when it holds a control character (a newline in a name must not start
// a line of its own in a message).
func Quoted(name string) string {
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return strconv.Quote(name)
		}
	}
	return name
}

// Printable is text for a one-line message: control characters (a newline
// in a name read from a file) and bytes that are not UTF-8 escaped as Go
// writes them in quotes (\n, \x00, \xd0), the rest as it is.
func Printable(text string) string {
	clean := true
	for _, r := range text {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, "\\x%02x", text[i])
		case r < 0x20 || r == 0x7f:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(text[i : i+n])
		}
		i += n
	}
	return b.String()
}

// quotedPath quotes the path of an *os.PathError for messages.
func quotedPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return &os.PathError{Op: pe.Op, Path: Quoted(pe.Path), Err: pe.Err}
	}
	return err
}

// Bytes formats a byte count for people: "256 MiB", "48 KiB", "100 bytes".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFile reads the named file when it holds at most limit bytes. A
// regular file's size is checked before anything is read or allocated;
// other files (pipes, devices) are read until the limit is passed.
func ReadFile(name string, limit int64) ([]byte, error) {
	data, _, err := readFile(name, limit, heapBuffer)
	return data, err
}

// ReadFileOwned is ReadFile for a caller that gives the memory back: a
// regular file of pagemem.HugeMin bytes or more is read into memory of its
// own (pagemem.Alloc: in huge pages, where a 10 MB input in 4 KiB pages
// cost 30 ms of page faults), which release frees. The caller calls
// release once nothing uses data any more (data must not be used after
// it); release is never nil.
func ReadFileOwned(name string, limit int64) (data []byte, release func(), err error) {
	return readFile(name, limit, pagemem.Alloc)
}

// heapBuffer is a buffer of the Go heap, with nothing to free.
func heapBuffer(n int) ([]byte, func()) { return make([]byte, n), func() {} }

// readFile is ReadFile with a sized file's buffer from alloc.
func readFile(name string, limit int64, alloc func(int) ([]byte, func())) ([]byte, func(), error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, func() {}, quotedPath(err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > limit {
			return nil, func() {}, &TooLargeError{Name: name, Size: fi.Size(), Limit: limit}
		}
		return readSized(f, name, fi.Size(), limit, alloc)
	}
	data, err := ReadAll(f, name, limit)
	return data, func() {}, err
}

// readSized reads a file whose size was size when it was opened (it may
// have changed since) into a buffer from alloc, and returns the buffer's
// free (a file that grew is joined into the heap, its buffer freed).
func readSized(f *os.File, name string, size, limit int64, alloc func(int) ([]byte, func())) ([]byte, func(), error) {
	buf, free := alloc(int(size + 1)) // one more byte sees a file that grew
	n, err := readParts(f, buf)
	switch {
	case err == nil: // grew: read the rest through the limit
		rest, err := ReadAll(f, name, limit-int64(n))
		if err != nil {
			free()
			var tl *TooLargeError
			if errors.As(err, &tl) {
				tl.Limit = limit
			}
			return nil, func() {}, err
		}
		data := make([]byte, n+len(rest)) // a new array (append of nothing would not be): buf may go
		copy(data[copy(data, buf[:n]):], rest)
		free()
		return data, func() {}, nil
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return buf[:n], free, nil
	}
	free()
	return nil, func() {}, fmt.Errorf("%s: %w", name, err)
}

// parallelRead is the size from which readParts reads a file in parts.
const parallelRead = 4 << 20

// readParts is io.ReadFull(f, buf) from f's start, reading a large file
// in a part per core at once: a large input is read before anything else
// can start (a raw sm_5x listing of 10 MB waits about 8 ms, most of it the
// kernel giving the buffer its pages, which several cores do faster). f's
// offset is left after the bytes read.
func readParts(f *os.File, buf []byte) (int, error) {
	parts := min(runtime.GOMAXPROCS(0), 4)
	if len(buf) < parallelRead || parts < 2 {
		return io.ReadFull(f, buf)
	}
	got := make([]int, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	per := (len(buf) + parts - 1) / parts
	for k := range parts {
		lo, hi := k*per, min((k+1)*per, len(buf))
		wg.Go(func() { got[k], errs[k] = f.ReadAt(buf[lo:hi], int64(lo)) })
	}
	wg.Wait()
	// the bytes read from the start on (a part read short ends them: the
	// file shrank)
	n := 0
	for k := range parts {
		n += got[k]
		if errs[k] != nil && errs[k] != io.EOF {
			return n, errs[k]
		}
		if got[k] < min((k+1)*per, len(buf))-k*per {
			break
		}
	}
	if _, err := f.Seek(int64(n), io.SeekStart); err != nil {
		return n, err
	}
	switch {
	case n == len(buf):
		return n, nil
	case n == 0:
		return 0, io.EOF
	}
	return n, io.ErrUnexpectedEOF
}

// ReadAll reads r to its end when that is at most limit bytes; name is
// used in errors. It reads into pieces that grow with what arrives (64 KiB
// first, at most 16 MiB each) and joins them once at the end, so an input
// costs about twice its size, and an endless one about the limit before it
// is refused (a buffer doubling up to the limit held three times it). A
// reader that knows what is left (Len, as bytes.Reader and strings.Reader
// have) is read into one piece of that size: a short input in memory does
// not cost 64 KiB.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	var pieces [][]byte
	var total int64
	size := min(limit+1, 64<<10)
	if l, ok := r.(interface{ Len() int }); ok {
		size = min(limit+1, int64(l.Len())+1) // +1: room to see the end
	}
	for {
		buf := make([]byte, 0, size)
		for len(buf) < cap(buf) {
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if total+int64(len(buf)) > limit {
				return nil, &TooLargeError{Name: name, Size: -1, Limit: limit}
			}
			if err == io.EOF {
				pieces = append(pieces, buf)
				return join(pieces, total+int64(len(buf))), nil
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		pieces = append(pieces, buf)
		total += int64(len(buf))
		size = min(max(size*2, 64<<10), 16<<20, limit+1-total)
	}
}

// join is the pieces as one slice (the piece itself when there is one).
func join(pieces [][]byte, total int64) []byte {
	if len(pieces) == 1 {
		return pieces[0]
	}
	out := make([]byte, 0, total)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out
}

// ReadPrefix reads at most n bytes from the start of the named file into
// dst (which must hold n bytes) and returns how many it read: a file longer
// than n is not an error, its tail is not read.
func ReadPrefix(name string, dst []byte) (int, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, quotedPath(err)
	}
	defer f.Close()
	n, err := io.ReadFull(f, dst)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	if err != nil {
		return n, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// Size is the size of the named file when it is a regular file, else -1
// (pipes and devices say nothing until read).
func Size(name string) (int64, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return 0, quotedPath(err)
	}
	if !fi.Mode().IsRegular() {
		return -1, nil
	}
	return fi.Size(), nil
}

// LimitedReader reads R until Limit bytes have passed, then fails with a
// *TooLargeError naming Name: a stream consumed piece by piece (a listing
// written as its code is read) stops at the same limit a whole read has.
type LimitedReader struct {
	R     io.Reader
	Name  string
	Limit int64
	read  int64
}

func (l *LimitedReader) Read(p []byte) (int, error) {
	if l.read >= l.Limit {
		// one byte more tells a stream of exactly Limit bytes from a longer one
		var one [1]byte
		if n, _ := io.ReadFull(l.R, one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, &TooLargeError{Name: l.Name, Size: -1, Limit: l.Limit}
	}
	if int64(len(p)) > l.Limit-l.read {
		p = p[:l.Limit-l.read]
	}
	n, err := l.R.Read(p)
	l.read += int64(n)
	return n, err
}
