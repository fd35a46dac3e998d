package maxwell

import (
	"io"
	"os"
	"sync/atomic"
)

// A FileWriter is a writer in front of a file (a bufio.Writer on standard
// output, say) that can hand the file over: File writes out whatever the
// writer holds and returns the file, which is then written directly.
// WriteListing uses it to write a long listing from every core at once.
type FileWriter interface {
	io.Writer
	File() (*os.File, error)
}

// positionedFile returns the file behind w and its current offset when a
// listing can be written to it with WriteAt at computed offsets: a regular
// file not in append mode (pwrite ignores the offset there). ok is false
// for anything else (a pipe, a terminal, /dev/null, a buffer); err is the
// error of a FileWriter handing its file over.
func positionedFile(w io.Writer) (f *os.File, at int64, ok bool, err error) {
	switch w := w.(type) {
	case *os.File:
		f = w
	case FileWriter:
		if f, err = w.File(); err != nil {
			return nil, 0, false, err
		}
	default:
		return nil, 0, false, nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || appendMode(f) {
		return nil, 0, false, nil
	}
	at, serr := f.Seek(0, io.SeekCurrent)
	return f, at, serr == nil, nil
}

// writeListingAt writes l's listing, header first, to f at offset start:
// every worker lays out and writes its own blocks at their offsets (every
// line's length is known once the column is), then f's offset is moved
// past the listing, so what is written to f next follows it.
//
// The listing's bytes are first reserved with reserve (preallocate): ext4
// then skips the delayed allocation of every 4 KiB block in the writes,
// which it serialises per file; a reserve that fails changes nothing.
func (l *layout) writeListingAt(f *os.File, start int64, header []byte, blockBundles int, reserve func(f *os.File, off, size int64) error) error {
	size := int64(len(header) + l.size(0, l.n))
	oldSize := int64(-1) // f's size before a reserve that succeeded
	if fi, err := f.Stat(); err == nil && reserve(f, start, size) == nil {
		oldSize = fi.Size()
	}
	if _, err := f.WriteAt(header, start); err != nil {
		return err
	}
	start += int64(len(header))
	blocks := l.blocks(blockBundles)
	var next atomic.Int64 // the next block to lay out
	var failed atomic.Bool
	errs := make([]error, len(l.chunks))
	misfit := make([]bool, len(l.chunks))
	var wg safeGroup
	for k := range l.chunks {
		wg.Go(func() {
			var buf []byte
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(blocks) {
					return
				}
				bl := blocks[i]
				buf = l.lines(buf[:0], bl.ch, bl.from, bl.to)
				if len(buf) != l.size(bl.from, bl.to) {
					misfit[k] = true // see Disassemble
					failed.Store(true)
					return
				}
				if _, err := f.WriteAt(buf, start+int64(l.size(0, bl.from))); err != nil {
					errs[k] = err
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	end := start + int64(l.size(0, l.n))
	for k := range misfit {
		if !misfit[k] {
			continue
		}
		// lay the listing out again serially, each line at the next offset
		end = start
		var buf []byte
		for _, bl := range blocks {
			buf = l.lines(buf[:0], bl.ch, bl.from, bl.to)
			if _, err := f.WriteAt(buf, end); err != nil {
				return err
			}
			end += int64(len(buf))
		}
		if oldSize >= 0 && end < start+int64(l.size(0, l.n)) {
			// the space reserved past the listing is not part of it
			if err := f.Truncate(max(end, oldSize)); err != nil {
				return err
			}
		}
		break
	}
	_, err := f.Seek(end, io.SeekStart)
	return err
}
