package maxwell

import (
	"io"
	"os"
	"sync/atomic"

	"github.com/gpuisa/gpuisa/internal/pagemem"
	"github.com/gpuisa/gpuisa/internal/regularfile"
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

// writeListingAt writes l's listing, header first, to f at offset start
// (every line's length is known once the column is: each block has its
// offset), then moves f's offset past the listing, so what is written to
// f next follows it.
//
// The listing's bytes are first reserved with reserve (preallocate): ext4
// then skips the delayed allocation of every 4 KiB block in the writes; a
// reserve that fails changes nothing.
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
	misfit, err := l.writeBlocksAt(regularWriterAt{f}, start, blocks)
	if err != nil {
		return err
	}
	if l.tooWide.Load() {
		return errTooWide
	}
	end := start + int64(l.size(0, l.n))
	if misfit {
		// a block was not as long as its lines should be (see
		// Disassemble): lay the listing out again serially, each line at
		// the next offset
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
	}
	_, err = f.Seek(end, io.SeekStart)
	return err
}

// writeBlocksAt lays out blocks and writes each at its offset from start.
// One goroutine, the caller, does every write: a filesystem lets one write
// into a file go on at a time (ext4 locks the file), and a second writer
// would spin on that lock instead of laying out. The other workers lay
// blocks out ahead into a few buffers; the writer lays one out itself
// only when none is ready. misfit says a block was not the length its
// lines should be; err is the first write error. Both stop the work.
func (l *layout) writeBlocksAt(f io.WriterAt, start int64, blocks []block) (misfit bool, err error) {
	type laidOut struct {
		i   int
		buf []byte
	}
	helpers := len(l.chunks) - 1
	// blocks laid out and not yet written, at most: laying a block out
	// (printing its deferred texts) takes longer than writing it, and a
	// helper must not wait for a buffer while the writer writes the others
	ahead := 6 * helpers
	// the buffers (ahead for the helpers, one for the writer) are one
	// room of their own: pagemem.Alloc, in huge pages (fresh 4 KiB pages
	// cost 1,400 faults listing 1M sm_52 instructions)
	blockSize := 0
	for _, bl := range blocks {
		blockSize = max(blockSize, l.size(bl.from, bl.to))
	}
	room, freeRoom := pagemem.Alloc((ahead + 1) * blockSize)
	free := make(chan []byte, ahead)
	for k := range ahead {
		free <- room[k*blockSize : k*blockSize : (k+1)*blockSize]
	}
	ready := make(chan laidOut, ahead) // never full: each holds a buffer from free
	var next atomic.Int64              // the next block to lay out
	var stop atomic.Bool
	var wg safeGroup
	for range helpers {
		wg.Go(func() {
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(blocks) {
					return
				}
				buf, ok := <-free
				if !ok {
					return
				}
				bl := blocks[i]
				ready <- laidOut{i, l.lines(buf[:0], bl.ch, bl.from, bl.to)}
			}
		})
	}
	helpersDone := make(chan struct{})
	go func() {
		defer close(helpersDone)
		wg.wg.Wait()
	}()
	// however the writer leaves, a helper waiting for a buffer stops
	defer close(free)
	defer stop.Store(true)

	write := func(i int, buf []byte) {
		if misfit || err != nil {
			return
		}
		bl := blocks[i]
		if l.tooWide.Load() {
			stop.Store(true) // the listing is laid out again
			return
		}
		if len(buf) != l.size(bl.from, bl.to) {
			misfit = true
			stop.Store(true)
			return
		}
		if _, err = f.WriteAt(buf, start+int64(l.size(0, bl.from))); err != nil {
			stop.Store(true)
		}
	}
	own := room[ahead*blockSize : ahead*blockSize : (ahead+1)*blockSize] // the writer's buffer
	for {
		select {
		case r := <-ready:
			write(r.i, r.buf)
			free <- r.buf
			continue
		default:
		}
		if !stop.Load() {
			if i := int(next.Add(1) - 1); i < len(blocks) {
				// nothing laid out yet: lay out the next block here
				bl := blocks[i]
				own = l.lines(own[:0], bl.ch, bl.from, bl.to)
				write(i, own)
				continue
			}
		}
		// every block is taken: write the helpers' last ones
		select {
		case r := <-ready:
			write(r.i, r.buf)
			free <- r.buf
		case <-helpersDone:
			for {
				select {
				case r := <-ready:
					write(r.i, r.buf)
				default:
					wg.Wait() // a helper's panic is raised here
					freeRoom()
					return misfit, err
				}
			}
		}
	}
}

// regularWriterAt writes to f, a regular file, with pwrite made outside
// the scheduler (package regularfile says why).
type regularWriterAt struct{ f *os.File }

func (w regularWriterAt) WriteAt(b []byte, off int64) (int, error) {
	return regularfile.WriteAt(w.f, b, off)
}
