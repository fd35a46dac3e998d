package isa

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gpuisa/gpuisa/internal/pagemem"
)

// StepFunc appends the listing line(s) of the instruction at code[off:]
// (code loaded at base) to dst and returns how many bytes it took (at
// least 1) and its decode error, if it did not decode. The error is copied
// before the next call, so a StepFunc may return the same one each time
// (no allocation per word that does not decode).
type StepFunc func(dst []byte, code []byte, off int, base uint64) (out []byte, n int, err *DecodeError)

// A PartFunc lists the instructions that start in [from, to) of code
// (loaded at base), the first at from: it appends their lines to dst and
// their decode errors to errs, and returns where the instruction after
// them starts. An ISA whose instructions all have one length lists a
// part with one call (WriteParts, WritePartsFrom), not one per
// instruction; one of several lengths lists all but a part's first
// instructions so (WriteMarkedParts, WriteMarkedPartsFrom).
type PartFunc func(dst []byte, errs *PartErrors, code []byte, from, to int, base uint64) (out []byte, next int)

// PartStep is the StepFunc of an ISA whose PartFunc part can list a single
// instruction: part over [off, off+1). Its errors go through its own
// PartErrors, and the error it returns is the same each time (StepFunc's
// errors are copied).
func PartStep(part PartFunc) StepFunc {
	var one PartErrors
	var err DecodeError
	return func(dst []byte, code []byte, off int, base uint64) ([]byte, int, *DecodeError) {
		one.Reset()
		dst, next := part(dst, &one, code, off, off+1, base)
		if one.Len() == 0 {
			return dst, next - off, nil
		}
		err = one.At(0)
		return dst, next - off, &err
	}
}

// ListSteps lists all of code with step: the Disassemble of ISAs whose
// lines do not depend on each other.
func ListSteps(dst []byte, code []byte, base uint64, step StepFunc) ([]byte, []*DecodeError) {
	p := listPart(dst, PartErrors{}, code, base, step, 0, len(code))
	if len(p.errs.recs) == 0 {
		return p.out, nil
	}
	all := make([]DecodeError, len(p.errs.recs))
	errs := make([]*DecodeError, len(all))
	for i := range all {
		all[i] = p.errs.At(i)
		all[i].Explain()
		errs[i] = &all[i]
	}
	return p.out, errs
}

// PartErrors holds the decode errors of a part (PartFunc) with no pointer
// per error for the collector to scan (a part of random words has
// thousands, and the memory is reused from round to round): each error's
// address, length and value, and what it shares with the one before it
// (its error, detail and explainer) once for a run of them (kinds).
// AddInvalid records the common error, a word that does not decode, in a
// few stores. The zero value is empty and ready to use.
type PartErrors struct {
	recs  []errRec
	kinds []DecodeError // Err, Detail, more and why of recs' errors
}

type errRec struct {
	addr, raw uint64
	n, kind   int32
}

// Add appends a copy of e.
func (l *PartErrors) Add(e *DecodeError) {
	k := len(l.kinds) - 1
	if k < 0 || !l.kinds[k].sameKind(e) {
		l.kinds = append(l.kinds, DecodeError{Err: e.Err, Detail: e.Detail, more: e.more, why: e.why})
		k++
	}
	l.recs = append(l.recs, errRec{addr: e.Addr, raw: e.raw, n: int32(e.Len), kind: int32(k)})
}

// AddInvalid appends LazyDecodeError(addr, n, ErrInvalid, raw, why), the
// error of a word that does not decode, without making it: random code is
// mostly such words.
func (l *PartErrors) AddInvalid(addr uint64, n int, raw uint64, why Explainer) {
	k := len(l.kinds) - 1
	if k < 0 || !l.kinds[k].lazyInvalid(why) {
		l.kinds = append(l.kinds, DecodeError{Err: ErrInvalid, why: why})
		k++
	}
	l.recs = append(l.recs, errRec{addr: addr, raw: raw, n: int32(n), kind: int32(k)})
}

// Len is the number of errors.
func (l *PartErrors) Len() int { return len(l.recs) }

// At returns error i.
func (l *PartErrors) At(i int) DecodeError {
	r := l.recs[i]
	e := l.kinds[r.kind]
	e.Addr, e.Len, e.raw = r.addr, int(r.n), r.raw
	return e
}

// Reset empties l, keeping its memory.
func (l *PartErrors) Reset() { *l = l.reset() }

func (l PartErrors) reset() PartErrors { return PartErrors{l.recs[:0], l.kinds[:0]} }

// lazyInvalid reports whether e is the kind of AddInvalid's errors
// explained by why.
func (e *DecodeError) lazyInvalid(why Explainer) bool {
	return e.more == 0 && e.Detail == "" &&
		(sameWords(&e.Err, &ErrInvalid) || e.Err == ErrInvalid) &&
		(sameWords(&e.why, &why) || e.why == why)
}

// sameKind reports whether e and o share their error, detail, count and
// explainer. The errors of a part come from a few call sites, so their
// interface values are nearly always word for word the same: that test
// answers without the runtime's comparison call, and == decides the rest
// (random sm_1x bytes: 5% of the listing's host instructions).
func (e *DecodeError) sameKind(o *DecodeError) bool {
	return e.more == o.more && e.Detail == o.Detail &&
		(sameWords(&e.Err, &o.Err) || e.Err == o.Err) &&
		(sameWords(&e.why, &o.why) || e.why == o.why)
}

// sameWords reports whether the interface values at a and b have the same
// type and data words, which makes them equal.
func sameWords[T any](a, b *T) bool {
	return *(*[2]uintptr)(unsafe.Pointer(a)) == *(*[2]uintptr)(unsafe.Pointer(b))
}

// part is the listing of the instructions starting in [from, to) of the
// code when the first starts at from; end is where the one after them
// starts.
type part struct {
	out  []byte
	errs PartErrors
	from int
	end  int
	// where its first instructions start, and their listings: a part
	// whose guess was wrong is listed again only until it meets one
	heads  [headMarks]head
	nheads int
}

// head is where one of a part's first instructions starts (off) and where
// its listing and errors (errs.recs) start in the part's.
type head struct{ off, out, errs int }

// headMarks is how many of a part's first instructions are marked: a
// listing from the wrong byte runs into the right one within a few
// instructions (a misread long instruction is often short).
const headMarks = 64

func listPart(dst []byte, errs PartErrors, code []byte, base uint64, step StepFunc, from, to int) part {
	return listPartWith(dst, errs, code, base, step, nil, false, from, to)
}

// listPartWith is listPart by lister's one call when there is one; the
// part then marks only its first instruction (a part listed again meets
// it there or nowhere). When marked is set, step lists (and marks) the
// part's first headMarks instructions and lister the rest: instructions of
// more than one length, where a part listed again may meet any of them.
func listPartWith(dst []byte, errs PartErrors, code []byte, base uint64, step StepFunc, lister PartFunc, marked bool, from, to int) part {
	if lister != nil && !marked {
		p := part{from: from, nheads: 1}
		p.heads[0] = head{from, len(dst), len(errs.recs)}
		dst, p.end = lister(dst, &errs, code, from, to, base)
		p.out, p.errs = dst, errs
		return p
	}
	p := part{from: from}
	off := from
	for off < to && (lister == nil || p.nheads < headMarks) {
		if p.nheads < headMarks {
			p.heads[p.nheads] = head{off, len(dst), len(errs.recs)}
			p.nheads++
		}
		var n int
		var de *DecodeError
		dst, n, de = step(dst, code, off, base)
		if de != nil {
			errs.Add(de)
		}
		off += max(n, 1)
	}
	if lister != nil && off < to {
		dst, off = lister(dst, &errs, code, off, to, base)
	}
	p.out, p.errs, p.end = dst, errs, off
	return p
}

// rejoin lists the instructions from next (where the part before p ended)
// to to, the end of p's share of the code, until one starts where p's
// guess started one, from which p's listing is the right one: fix is the
// listing up to there, and join the index of that instruction in p.heads
// (-1 when fix is the whole listing).
func rejoin(fix part, p *part, code []byte, base uint64, step StepFunc, next, to int) (part, int) {
	dst, errs := fix.out[:0], fix.errs.reset()
	off, j := next, 0
	for off < to {
		for j < p.nheads && p.heads[j].off < off {
			j++
		}
		if j < p.nheads && p.heads[j].off == off {
			return part{out: dst, errs: errs, from: next, end: off}, j
		}
		var n int
		var de *DecodeError
		dst, n, de = step(dst, code, off, base)
		if de != nil {
			errs.Add(de)
		}
		off += max(n, 1)
	}
	return part{out: dst, errs: errs, from: next, end: off}, -1
}

// partBytes is the code one worker lists at a time: 0.1-0.2 MB of
// listing, which the worker most often writes itself right after, from its
// core's cache (128 KiB parts took 3 MB buffers and more host
// instructions). Since writes to a regular file no longer hand the
// processor over (gpuisa dis), 8 KiB parts list 1M instructions to a file
// 1-10% faster than 16 KiB ones on 8 of 9 inputs, 4 KiB 2-19% slower
// (docs/limits.md, nineteenth session).
const partBytes = 8 << 10

// WriteSteps writes what ListSteps(newStep()) returns to w, a part of the
// code at a time, each listed on its own core while the parts before it
// are written: memory does not grow with the code (but for the decode
// errors). A part is listed from its first byte on the guess that an
// instruction starts there; when the part before it ended elsewhere (an
// instruction across the boundary), it is listed again from there, so the
// listing is exactly ListSteps'. newStep makes one StepFunc per worker.
// err is w's first write error.
func WriteSteps(w io.Writer, code []byte, base uint64, newStep func() StepFunc) (errs []*DecodeError, err error) {
	return WriteParts(w, code, base, newStep, nil)
}

// WriteParts is WriteSteps with each part listed by a PartFunc (newPart
// makes one per worker; nil: by steps). newStep still lists a part again
// from where the one before it ended, which for instructions of one
// length never happens.
func WriteParts(w io.Writer, code []byte, base uint64, newStep func() StepFunc, newPart func() PartFunc) (errs []*DecodeError, err error) {
	return writeParts(w, code, base, newStep, newPart, false)
}

// WriteMarkedParts is WriteParts for an ISA of more than one instruction
// length: newStep lists each part's first instructions, marking where
// they start, and newPart's PartFunc the rest. A part listed from a wrong
// guess at its first instruction is listed again only until it meets one
// of them, as with WriteSteps, while most instructions are still listed
// by the PartFunc's loop.
func WriteMarkedParts(w io.Writer, code []byte, base uint64, newStep func() StepFunc, newPart func() PartFunc) (errs []*DecodeError, err error) {
	return writeParts(w, code, base, newStep, newPart, true)
}

func writeParts(w io.Writer, code []byte, base uint64, newStep func() StepFunc, newPart func() PartFunc, marked bool) (errs []*DecodeError, err error) {
	sw := newStepWriter(newStep, newPart, partBytes)
	sw.marked = marked
	// memory must not grow per invalid word
	_, err = sw.write(w, code, base, len(code), func(e *DecodeError) {
		if len(errs) < MaxListedErrors {
			kept := *e // e is the part's, reused
			e = &kept
		}
		errs = ErrorsCapped(errs, e)
	})
	return errs, err
}

// WriteStepsFrom is WriteSteps of the code read from r, which is read a
// window at a time: memory stays bounded however long the code is, and
// each decode error goes to onErr (in address order) as soon as its window
// is listed. onErr's error is valid during the call only (keep a copy);
// past the first MaxListedErrors its Detail may be left to Error. w and
// onErr are called one call at a time, in order, from the workers (not
// always the caller's goroutine). maxLen is the longest instruction in
// bytes: a window's instructions are listed only when the bytes of the
// longest one are all in memory, so the listing is byte for byte
// WriteSteps'. err is r's first read error or w's first write error.
func WriteStepsFrom(w io.Writer, r io.Reader, base uint64, newStep func() StepFunc, maxLen int, onErr func(*DecodeError)) error {
	return WritePartsFrom(w, r, base, newStep, nil, maxLen, onErr)
}

// WritePartsFrom is WriteStepsFrom with each part listed by a PartFunc
// (as WriteParts).
func WritePartsFrom(w io.Writer, r io.Reader, base uint64, newStep func() StepFunc, newPart func() PartFunc, maxLen int, onErr func(*DecodeError)) error {
	sw := newStepWriter(newStep, newPart, partBytes)
	return sw.writeFrom(w, r, base, windowParts*partBytes, maxLen, onErr)
}

// WriteMarkedPartsFrom is WriteStepsFrom with each part listed as
// WriteMarkedParts lists it.
func WriteMarkedPartsFrom(w io.Writer, r io.Reader, base uint64, newStep func() StepFunc, newPart func() PartFunc, maxLen int, onErr func(*DecodeError)) error {
	sw := newStepWriter(newStep, newPart, partBytes)
	sw.marked = true
	return sw.writeFrom(w, r, base, windowParts*partBytes, maxLen, onErr)
}

// outPerByte is about the most listing a byte of code makes: sm_1x short
// instructions make 24 bytes a byte, more with texts past the hex column.
// A part's buffer is that big from the start: one that grows copies itself
// into new memory, whose pages the kernel must fault in (at 24, random
// valid sm_1x code grew nearly every buffer once: 1,900 more page faults
// in a listing of 1M instructions, 6 ms of CPU time). The capacity a
// listing leaves unused is never touched and costs no memory.
const outPerByte = 28

// windowParts is the number of parts WriteStepsFrom reads at a time (the
// listing goes on across reads: the size only sets how many there are).
const windowParts = 16

// firstWindow is the size of WriteStepsFrom's first read.
const firstWindow = 64 << 10

func (sw *stepWriter) writeFrom(w io.Writer, r io.Reader, base uint64, window, maxLen int, onErr func(*DecodeError)) error {
	// Two buffers take turns: a window is read into one while the last
	// parts of the window before, in the other, are still being written
	// (they may be listed again from there). A window starts where the one
	// before stopped listing (its limit), so a part at the start of each is
	// a guess like any other. Start small (a short file costs no full
	// window) and grow fourfold while the reads fill the buffer, up to
	// window.
	var bufs [2][]byte
	sw.window, sw.maxLen = window, maxLen
	size := min(window, firstWindow)
	var prev codeWindow
	turn, eof := 0, false
	var rerr error
	next := func() (codeWindow, bool) {
		if eof {
			return codeWindow{}, false
		}
		buf := bufs[turn]
		if len(buf) < size+maxLen {
			if size == window {
				buf = sw.windowRoom(turn)
			} else {
				buf = make([]byte, size+maxLen)
			}
			bufs[turn] = buf
		}
		turn ^= 1
		held := copy(buf, prev.code[prev.limit:]) // instructions running past the last limit
		n, err := io.ReadFull(r, buf[held:])
		held += n
		eof = err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			rerr, eof = err, true
			return codeWindow{}, false
		}
		win := codeWindow{code: buf[:held], org: prev.org + prev.limit, limit: held}
		if !eof {
			win.limit = held - maxLen // instructions starting before it are listed now
		}
		prev = win
		size = min(4*size, window)
		return win, true
	}
	err := sw.stream(w, base, next, onErr)
	if rerr != nil {
		return rerr
	}
	return err
}

// codeWindow is code in memory: the instructions that start in [0, limit)
// of code are listed from it (they may read code past limit). org is the
// offset of code[0] in the whole code.
type codeWindow struct {
	code       []byte
	org, limit int
}

// A BuffersWriter writes several buffers, in order, with one call where
// it can (writev): the streamed listings hand it the parts that are ready
// to be written together (and a part listed again from where the one
// before it ended with the rest of the part).
type BuffersWriter interface {
	io.Writer
	WriteBuffers(bufs [][]byte) (int64, error)
}

// stepWriter lists parts of code on every core: each worker takes the
// next part and lists it into its slot of a ring (by the part's number);
// the parts are written in order by whichever worker finds the next one
// ready after listing its own (most often it is its own, still in its
// cache). A worker waits only when the ring is full (a worker woken from
// sleep may start late, and one that waits leaves a core idle).
type stepWriter struct {
	workers   int
	partBytes int
	steps     []StepFunc // one per worker
	parts     []PartFunc // nil, or one per worker: they list the parts
	marked    bool       // steps list (and mark) each part's first instructions
	slots     []partSlot // part n is listed into slots[n%len(slots)]
	batch     [][]byte   // the listings the writer writes next, in order
	reported  int        // decode errors passed on so far
	window    int        // the size of the windows read (writeFrom), or 0
	maxLen    int        // the longest instruction (writeFrom)
	room      []byte     // the stream's room (roomAt)
	roomFree  func()
	roomOnce  sync.Once
	cur       DecodeError // the error onErr is given
	next      int         // where the next instruction starts in the whole code
}

// partSlot holds a listed part until it is written: its listing (and
// when it is listed again from where the part before ended, fix), the
// window of its code and where its share of the code ends (to).
type partSlot struct {
	part  part
	fix   part
	win   codeWindow
	to    int
	ready bool // listed and not yet written
}

// slotsPerWorker is the ring's slots per worker: the parts listed and not
// yet written. With more than one, a worker that lists its part before
// the part before it is listed goes on to the next part; with four, the
// ring is rarely full on a busy machine.
const slotsPerWorker = 4

// deliver passes errs' errors from the one at from on to onErr.
func (sw *stepWriter) deliver(errs *PartErrors, from int, onErr func(*DecodeError)) {
	for i := from; i < len(errs.recs); i++ {
		// At, written in place (one copy of the kind, not two)
		r := &errs.recs[i]
		sw.cur = errs.kinds[r.kind]
		sw.cur.Addr, sw.cur.Len, sw.cur.raw = r.addr, int(r.n), r.raw
		if sw.reported < MaxListedErrors {
			sw.cur.Explain() // the Detail of the errors a caller may keep
		}
		sw.reported++
		onErr(&sw.cur)
	}
}

func newStepWriter(newStep func() StepFunc, newPart func() PartFunc, partBytes int) *stepWriter {
	return newWorkers(newStep, newPart, partBytes, max(1, runtime.GOMAXPROCS(0)))
}

// newWorkers is newStepWriter with the given number of workers.
func newWorkers(newStep func() StepFunc, newPart func() PartFunc, partBytes, workers int) *stepWriter {
	sw := &stepWriter{workers: workers, partBytes: partBytes, steps: make([]StepFunc, workers), slots: make([]partSlot, slotsPerWorker*workers)}
	for k := range sw.steps {
		sw.steps[k] = newStep()
	}
	if newPart != nil {
		sw.parts = make([]PartFunc, workers)
		for k := range sw.parts {
			sw.parts[k] = newPart()
		}
	}
	return sw
}

// write lists the instructions of code (loaded at base) that start before
// limit, the first at code[0], and returns where the one after them starts.
// Instructions may read code past limit.
func (sw *stepWriter) write(w io.Writer, code []byte, base uint64, limit int, onErr func(*DecodeError)) (next int, err error) {
	done := false
	err = sw.stream(w, base, func() (codeWindow, bool) {
		if done {
			return codeWindow{}, false
		}
		done = true
		return codeWindow{code: code, limit: limit}, true
	}, onErr)
	return sw.next, err
}

// partOutput is where stream writes the parts, and how.
type partOutput struct {
	w     io.Writer
	bw    BuffersWriter // w, when it takes buffers
	base  uint64
	onErr func(*DecodeError)
}

// stream lists the windows next returns, one after the other, as one
// code loaded at base, on every core (stepWriter).
func (sw *stepWriter) stream(w io.Writer, base uint64, next func() (codeWindow, bool), onErr func(*DecodeError)) error {
	if onErr == nil {
		onErr = func(*DecodeError) {}
	}
	out := partOutput{w: w, base: base, onErr: onErr}
	out.bw, _ = w.(BuffersWriter)
	q := &partQueue{next: next, partBytes: sw.partBytes}
	q.written.L = &q.mu
	sw.next = 0
	var wg sync.WaitGroup
	for k := 1; k < sw.workers; k++ {
		wg.Go(func() { sw.work(k, q, &out) })
	}
	sw.work(0, q, &out)
	wg.Wait()
	sw.freeRoom()
	return q.err
}

// The room of a stream: the memory of its full-size parts' listings and
// decode error records and of its full-size windows of code, one piece
// of its own in huge pages (pagemem.Alloc: 2.5 MB, which in 4 KiB pages
// took 620 faults, 7 ms of CPU time on this VM), made by whichever worker
// first needs it and given back when the stream ends.

// roomLayout is the size of each slot's listing and error records and of
// each window buffer in the room (0: sw reads no windows).
func (sw *stepWriter) roomLayout() (out, recs, win int) {
	out = outPerByte * sw.partBytes
	recs = sw.partBytes / 4 * int(unsafe.Sizeof(errRec{})) // an error a 4-byte word at most
	win = (sw.window + sw.maxLen + 7) &^ 7
	if sw.window == 0 {
		win = 0
	}
	return out, recs, win
}

// roomAt returns the room's size bytes at off, making the room first.
func (sw *stepWriter) roomAt(off, size int) []byte {
	sw.roomOnce.Do(func() {
		out, recs, win := sw.roomLayout()
		sw.room, sw.roomFree = pagemem.Alloc(len(sw.slots)*(out+recs) + 2*win)
	})
	return sw.room[off : off+size : off+size]
}

// slotRoom returns slot i's listing room (empty, of full-part capacity).
func (sw *stepWriter) slotRoom(i int) []byte {
	out, _, _ := sw.roomLayout()
	return sw.roomAt(i*out, out)[:0]
}

// slotRecs returns slot i's room for error records (empty).
func (sw *stepWriter) slotRecs(i int) []errRec {
	out, recs, _ := sw.roomLayout()
	b := sw.roomAt(len(sw.slots)*out+i*recs, recs)
	return unsafe.Slice((*errRec)(unsafe.Pointer(unsafe.SliceData(b))), recs/int(unsafe.Sizeof(errRec{})))[:0]
}

// windowRoom returns window buffer t (0 or 1), window+maxLen bytes.
func (sw *stepWriter) windowRoom(t int) []byte {
	out, recs, win := sw.roomLayout()
	return sw.roomAt(len(sw.slots)*(out+recs)+t*win, sw.window+sw.maxLen)
}

// freeRoom gives the room back once every worker is done and every part
// written (the writers keep no listing: io.Writer).
func (sw *stepWriter) freeRoom() {
	if sw.roomFree == nil {
		return
	}
	for i := range sw.slots {
		sw.slots[i].part.out, sw.slots[i].part.errs.recs = nil, nil
	}
	sw.roomFree()
	sw.room, sw.roomFree, sw.roomOnce = nil, nil, sync.Once{}
}

// work is worker k: it lists the parts it takes from q, and writes those
// that are ready in order when no other worker is writing.
func (sw *stepWriter) work(k int, q *partQueue, out *partOutput) {
	var lister PartFunc
	if sw.parts != nil {
		lister = sw.parts[k]
	}
	for {
		win, i, n, ok := q.take()
		// its slot is free once the part listed there before is written
		if !ok || !q.waitWritten(n-len(sw.slots)+1) {
			return
		}
		s := &sw.slots[n%len(sw.slots)]
		from := i * sw.partBytes
		s.win, s.to = win, min(from+sw.partBytes, win.limit)
		buf, errs := s.part.out[:0], s.part.errs.reset()
		if want := outPerByte * (s.to - from); cap(buf) < want {
			if want == outPerByte*sw.partBytes {
				buf = sw.slotRoom(n % len(sw.slots))
				if cap(errs.recs) == 0 {
					errs.recs = sw.slotRecs(n % len(sw.slots))
				}
			} else {
				buf = make([]byte, 0, want) // at once: no garbage from growing
			}
		}
		s.part = listPartWith(buf, errs, win.code, out.base+uint64(win.org), sw.steps[k], lister, sw.marked, from, s.to)
		sw.ready(k, q, s, out)
	}
}

// ready marks slot s listed, and unless another worker is writing, writes
// the parts that are ready in order, with worker k's StepFunc for any part
// listed again: all that are ready at once in one call when out takes
// buffers (fewer, longer writes fill the page cache in larger pages).
func (sw *stepWriter) ready(k int, q *partQueue, s *partSlot, out *partOutput) {
	q.mu.Lock()
	defer q.mu.Unlock()
	s.ready = true
	if q.writing {
		return // the writer will find it
	}
	q.writing = true
	for q.err == nil {
		first, n := q.done, 0
		for n < len(sw.slots) && sw.slots[(first+n)%len(sw.slots)].ready {
			n++
		}
		if n == 0 {
			break
		}
		q.mu.Unlock()
		for i := range n {
			sw.addPart(&sw.slots[(first+i)%len(sw.slots)], sw.steps[k], out)
		}
		err := out.flush(sw)
		q.mu.Lock()
		for i := range n {
			sw.slots[(first+i)%len(sw.slots)].ready = false
		}
		q.done += n
		q.doneFast.Store(int64(q.done))
		q.err = err
		q.written.Broadcast()
	}
	q.writing = false
}

// addPart adds the listing of s's part, from where the instruction after
// the part before starts, to what sw writes next (sw.batch), and passes its
// decode errors to out.onErr.
func (sw *stepWriter) addPart(s *partSlot, step StepFunc, out *partOutput) {
	p, win := &s.part, s.win
	text, errs, errFrom := p.out, &p.errs, 0
	switch next := sw.next - win.org; {
	case p.from == next:
		sw.next = win.org + p.end
	case next >= s.to:
		return // the part before ran past all of this one
	default:
		// off the guess: listed again up to where it meets it
		var join int
		s.fix, join = rejoin(s.fix, p, win.code, out.base+uint64(win.org), step, next, s.to)
		if join < 0 {
			text, errs = s.fix.out, &s.fix.errs
			sw.next = win.org + s.fix.end
			break
		}
		h := p.heads[join]
		sw.deliver(&s.fix.errs, 0, out.onErr)
		errFrom = h.errs
		if fix := s.fix.out; len(fix) <= h.out { // one buffer: the fix goes before the rest
			text = p.out[h.out-copy(p.out[h.out-len(fix):], fix):]
		} else {
			sw.batch = append(sw.batch, fix)
			text = p.out[h.out:]
		}
		sw.next = win.org + p.end
	}
	sw.deliver(errs, errFrom, out.onErr)
	sw.batch = append(sw.batch, text)
}

// flush writes sw.batch to out.w and empties it.
func (out *partOutput) flush(sw *stepWriter) error {
	var err error
	if out.bw != nil && len(sw.batch) > 1 {
		_, err = out.bw.WriteBuffers(sw.batch)
	} else {
		for _, b := range sw.batch {
			if _, err = out.w.Write(b); err != nil {
				break
			}
		}
	}
	clear(sw.batch) // no references kept to the slots' buffers
	sw.batch = sw.batch[:0]
	return err
}

// A partQueue hands out the parts of the windows, in order, to the
// workers, and counts the parts written.
type partQueue struct {
	taking    sync.Mutex // held while a part is taken (and a window read)
	next      func() (codeWindow, bool)
	partBytes int
	cur, prev queuedWindow // the window parts are taken from, and the one before
	taken     int          // parts taken, in all windows
	ended     bool         // next has no more windows

	mu      sync.Mutex
	written sync.Cond // signalled when a part is written (or failed)
	done    int       // parts written (or passed over), in order
	writing bool      // a worker is writing the parts that are ready
	err     error     // the first write error: nothing is written after it

	doneFast atomic.Int64 // done, read without the lock
}

// spinWait is how long a worker waits for parts to be written before it
// sleeps. A core left idle can be slow to wake (a virtual one: up to 3 ms
// here), and a worker woken meanwhile may wait behind the worker that woke
// it, on its core; but a worker spinning while the writer is the slower
// (short GXP lines: a part is written in about the time it is listed)
// slows it down (2 ms of spinning: 1M GXP words 64 -> 78 ms).
const spinWait = 100 * time.Microsecond

// spin waits up to spinWait for the first n parts to be written, letting
// other goroutines run, and reports whether they were.
func (q *partQueue) spin(n int) bool {
	var start time.Time
	for i := 0; q.doneFast.Load() < int64(n); i++ {
		if i&15 == 0 {
			if i == 0 {
				start = time.Now()
			} else if time.Since(start) > spinWait {
				return false
			}
		}
		runtime.Gosched()
	}
	return true
}

// queuedWindow is a window and the number of the first of its n parts.
type queuedWindow struct {
	win      codeWindow
	first, n int
}

// take returns the next part: its window, its index there and its number
// in all windows; ok is false when there are none left (or a write
// failed).
func (q *partQueue) take() (win codeWindow, i, n int, ok bool) {
	q.taking.Lock()
	defer q.taking.Unlock()
	for q.taken == q.cur.first+q.cur.n {
		// next reads into the memory of the window before this one:
		// its parts must all be written (they may list code of the
		// window after them, this one, which stays)
		if q.ended || !q.waitWritten(q.prev.first+q.prev.n) {
			return codeWindow{}, 0, 0, false
		}
		next, more := q.next()
		if !more {
			q.ended = true
			return codeWindow{}, 0, 0, false
		}
		q.prev, q.cur = q.cur, queuedWindow{win: next, first: q.taken, n: (next.limit + q.partBytes - 1) / q.partBytes}
	}
	n = q.taken
	q.taken++
	return q.cur.win, n - q.cur.first, n, true
}

// waitWritten waits until the first n parts are written, and reports
// whether they were (no write failed).
func (q *partQueue) waitWritten(n int) bool {
	if q.spin(n) {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.done < n && q.err == nil {
		q.written.Wait()
	}
	return q.err == nil
}

// MaxListedErrors bounds the decode errors a streaming disassembler keeps:
// code of nothing but invalid words must not cost memory per word. The
// errors past it are counted in one last error (ErrorsCapped).
const MaxListedErrors = 1000

// ErrorsCapped adds e to errs while there are fewer than MaxListedErrors,
// and otherwise counts it in errs' last element, which then stands for
// every error past the limit (its Error says how many, and where the last
// was).
func ErrorsCapped(errs []*DecodeError, e *DecodeError) []*DecodeError {
	if len(errs) < MaxListedErrors {
		return append(errs, e)
	}
	if len(errs) == MaxListedErrors {
		errs = append(errs, &DecodeError{Err: e.Err})
	}
	last := errs[len(errs)-1]
	last.more++
	last.Addr, last.Len = e.Addr, e.Len
	return errs
}
