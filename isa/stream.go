package isa

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
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

// partBytes is the code one worker lists at a time: 0.2-0.4 MB of Tesla
// listing, which stays in the core's cache until it is written (128 KiB
// parts took 3 MB buffers and more host instructions). A round holds
// roundShare of them per worker.
const partBytes = 16 << 10

// roundShare is the parts per worker in a round of WriteParts: a round is
// listed while the one before is written, and ends when its last part is
// listed; with several parts each, a worker that the writes slow down lists
// fewer of them instead of the other worker waiting for it (one part
// each, 1M random USSE words listed to a file took about 15% more wall
// time than two: 331 -> 285 ms median, same CPU time, same memory as 32 KiB
// parts one each). The wait at a round's end is at most about a part's
// listing, so fewer, longer rounds wait less in all: four parts each took
// 113 ms at best against 124 ms with two (21 alternated runs each of
// random USSE words on a loaded machine; 8 parts 119 ms) for 2 MB more.
const roundShare = 4

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
// past the first MaxListedErrors its Detail may be left to Error. maxLen is the longest instruction in bytes: a window's
// instructions are listed only when the bytes of the longest one are all
// in memory, so the listing is byte for byte WriteSteps'. err is r's first
// read error or w's first write error.
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
			buf = make([]byte, size+maxLen)
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
// it can (writev): the streamed listings hand it a round of parts at once,
// and a regular file takes a round of 1.6 MB in one system call for about
// two thirds of the system time of one call per part (the kernel can fill
// larger page-cache pages).
type BuffersWriter interface {
	io.Writer
	WriteBuffers(bufs [][]byte) (int64, error)
}

// stepWriter lists parts of code on every core: one StepFunc per worker and
// the double-buffered parts, reused from call to call.
type stepWriter struct {
	workers   int
	partBytes int
	steps     []StepFunc // the last one for parts listed again
	parts     []PartFunc // nil, or one per worker: they list the parts
	marked    bool       // steps list (and mark) each part's first instructions
	bufs      [2][]part
	reported  int         // decode errors passed on so far
	fix       part        // a part listed again from where the one before ended
	cur       DecodeError // the error onErr is given
	next      int         // where the next instruction starts in the whole code
}

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
	workers := max(1, runtime.GOMAXPROCS(0))
	sw := &stepWriter{workers: workers, partBytes: partBytes, steps: make([]StepFunc, workers+1)}
	for k := range sw.steps {
		sw.steps[k] = newStep()
	}
	if newPart != nil {
		sw.parts = make([]PartFunc, workers)
		for k := range sw.parts {
			sw.parts[k] = newPart()
		}
	}
	sw.bufs = [2][]part{make([]part, workers*roundShare), make([]part, workers*roundShare)}
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

// round is the parts one round of workers lists: parts first.. of win.
type round struct {
	win   codeWindow
	first int
	n     int
}

// stream lists the windows next returns, one after the other, as one
// code loaded at base: a round of parts (one per worker) is listed while
// the round before is written, from one window to the next without a
// pause. A window is kept until its parts are written: next may reuse the
// memory of the window two before.
func (sw *stepWriter) stream(w io.Writer, base uint64, next func() (codeWindow, bool), onErr func(*DecodeError)) error {
	if onErr == nil {
		onErr = func(*DecodeError) {}
	}
	workers, partBytes, steps, bufs := sw.workers, sw.partBytes, sw.steps, sw.bufs
	var win codeWindow
	taken, nparts, more := 0, 0, true
	// take returns the next round's parts: at most one window's
	take := func() (round, bool) {
		for more && taken == nparts {
			if win, more = next(); more {
				taken, nparts = 0, (win.limit+partBytes-1)/partBytes
			}
		}
		if !more {
			return round{}, false
		}
		rd := round{win: win, first: taken, n: min(workers*roundShare, nparts-taken)}
		taken += rd.n
		return rd, true
	}
	// a round's parts go to the workers as they come free (each worker
	// takes the next part not yet taken): a worker slowed down (by the
	// writes of the round before, on the same cores) lists fewer of them
	// rather than holding up the round
	render := func(set []part, rd round) *sync.WaitGroup {
		var wg sync.WaitGroup
		var claimed atomic.Int32
		for w := 0; w < min(workers, rd.n); w++ {
			var lister PartFunc
			if sw.parts != nil {
				lister = sw.parts[w]
			}
			wg.Go(func() {
				for k := int(claimed.Add(1)) - 1; k < rd.n; k = int(claimed.Add(1)) - 1 {
					from := (rd.first + k) * partBytes
					to := min(from+partBytes, rd.win.limit)
					out := set[k].out[:0]
					if want := outPerByte * (to - from); cap(out) < want {
						out = make([]byte, 0, want) // at once: no garbage from growing
					}
					set[k] = listPartWith(out, set[k].errs.reset(), rd.win.code, base+uint64(rd.win.org), steps[w], lister, sw.marked, from, to)
				}
			})
		}
		return &wg
	}
	cur, ok := take()
	if !ok {
		return nil
	}
	out := roundWriter{w: w}
	out.bw, _ = w.(BuffersWriter)
	pending := render(bufs[0], cur)
	sw.next = 0 // where the next instruction starts in the whole code
	for r := 0; ok; r++ {
		pending.Wait()
		set, rd := bufs[r%2], cur
		if cur, ok = take(); ok {
			pending = render(bufs[(r+1)%2], cur)
		}
		if err := sw.writeRound(&out, set, rd, base, onErr); err != nil {
			if ok {
				pending.Wait()
			}
			return err
		}
	}
	return nil
}

// writeRound writes the listing of round rd's parts (set) to out, each
// from where the instruction after the part before starts, and their
// decode errors to onErr. The parts' listings go out in one WriteBuffers
// call when out takes it.
func (sw *stepWriter) writeRound(out *roundWriter, set []part, rd round, base uint64, onErr func(*DecodeError)) error {
	code, org, addr := rd.win.code, rd.win.org, base+uint64(rd.win.org)
	for k := 0; k < rd.n; k++ {
		p := &set[k]
		text, errs, errFrom := p.out, &p.errs, 0
		next := sw.next - org // in code
		if to := min((rd.first+k+1)*sw.partBytes, rd.win.limit); p.from != next && next < to {
			// off the guess: listed again up to where it meets it, in
			// sw.fix, which must be written before it is listed into again
			if err := out.flush(); err != nil {
				return err
			}
			var join int
			sw.fix, join = rejoin(sw.fix, p, code, addr, sw.steps[sw.workers], next, to)
			text, errs = sw.fix.out, &sw.fix.errs
			if join >= 0 {
				h := p.heads[join]
				sw.deliver(errs, 0, onErr)
				errs, errFrom = &p.errs, h.errs
				if len(text) <= h.out { // one write: the fix goes before the rest
					text = p.out[h.out-copy(p.out[h.out-len(text):], text):]
				} else if err := out.add(text); err != nil {
					return err
				} else {
					text = p.out[h.out:]
				}
				sw.next = org + p.end
			} else {
				sw.next = org + sw.fix.end
			}
		} else if p.from != next {
			continue // the part before ran past all of this one
		} else {
			sw.next = org + p.end
		}
		sw.deliver(errs, errFrom, onErr)
		if err := out.add(text); err != nil {
			return err
		}
	}
	return out.flush()
}

// roundWriter writes a round's listings to w: one Write each, or, when w
// is a BuffersWriter, all at once when the round is flushed.
type roundWriter struct {
	w     io.Writer
	bw    BuffersWriter // w, when it takes buffers
	batch [][]byte      // what add kept for flush (bw only)
}

func (o *roundWriter) add(b []byte) error {
	if o.bw != nil {
		o.batch = append(o.batch, b)
		return nil
	}
	_, err := o.w.Write(b)
	return err
}

func (o *roundWriter) flush() error {
	if len(o.batch) == 0 {
		return nil
	}
	_, err := o.bw.WriteBuffers(o.batch)
	clear(o.batch) // no references kept to the parts' buffers
	o.batch = o.batch[:0]
	return err
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
