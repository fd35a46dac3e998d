package isa

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"strconv"
	"testing"
	"testing/iotest"
)

// lengthStep lists code whose instructions are as long as their first
// byte's low 4 bits say (0: 16 bytes), reporting a DecodeError for odd
// first bytes: boundaries that a guess at a part's start often misses.
func lengthStep(dst []byte, code []byte, off int, base uint64) ([]byte, int, *DecodeError) {
	n := int(code[off] & 15)
	if n == 0 {
		n = 16
	}
	n = min(n, len(code)-off)
	dst = strconv.AppendUint(dst, base+uint64(off), 16)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, '\n')
	if code[off]&1 != 0 {
		return dst, n, &DecodeError{Addr: base + uint64(off), Len: n, Err: ErrInvalid}
	}
	return dst, n, nil
}

// stepsPart is the PartFunc that lists a part with step in a loop.
func stepsPart(step StepFunc) PartFunc {
	return func(dst []byte, errs *PartErrors, code []byte, from, to int, base uint64) ([]byte, int) {
		off := from
		for off < to {
			var n int
			var de *DecodeError
			dst, n, de = step(dst, code, off, base)
			if de != nil {
				errs.Add(de)
			}
			off += n
		}
		return dst, off
	}
}

// lengthPart lists a part with lengthStep in a loop.
var lengthPart = stepsPart(lengthStep)

// The parallel listing is the sequential one, whatever the part size and
// wherever instructions cross the parts' boundaries; also when a PartFunc
// lists all but the first instructions of each part (marked parts of
// instructions of many lengths).
func TestWriteSteps(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, size := range []int{0, 1, 7, 100, 1000, 5000, 100000} {
		code := make([]byte, size)
		r.Read(code)
		want, wantErrs := ListSteps(nil, code, 0x100, lengthStep)
		for _, c := range []struct {
			part   int
			marked bool
		}{{1, false}, {3, false}, {16, false}, {64, false}, {1 << 20, false}, {3, true}, {64, true}, {1000, true}, {1 << 20, true}} {
			part := c.part
			var buf bytes.Buffer
			var errs []*DecodeError
			var newPart func() PartFunc
			if c.marked {
				newPart = func() PartFunc { return lengthPart }
			}
			sw := newWorkers(func() StepFunc { return lengthStep }, newPart, part, 1+size%5)
			sw.marked = c.marked
			_, err := sw.write(&buf, code, 0x100, len(code), func(e *DecodeError) { kept := *e; errs = append(errs, &kept) })
			if err != nil || !bytes.Equal(buf.Bytes(), want) || len(errs) != len(wantErrs) {
				t.Fatalf("size %d, parts of %d, marked %v: %d errors (want %d), %v; listing equal %v", size, part, c.marked, len(errs), len(wantErrs), err, bytes.Equal(buf.Bytes(), want))
			}
			for i := range errs {
				if *errs[i] != *wantErrs[i] {
					t.Fatalf("size %d, parts of %d: error %d %v, want %v", size, part, i, errs[i], wantErrs[i])
				}
			}
		}
	}
}

// Read a window at a time, the listing and its errors are still the
// sequential ones, whatever the window and the reader's chunks; also
// listed by parts (PartFunc) of an ISA of 4-byte instructions, where
// windows that are no multiple of 4 make parts start off an instruction
// (they are listed again by steps).
func TestWriteStepsFrom(t *testing.T) {
	for _, c := range []struct {
		seed                  int64
		step                  StepFunc
		part                  PartFunc
		marked                bool
		maxLen                int
		sizes, parts, windows []int
	}{
		// 300,000 bytes: the first read (firstWindow) and the doubling reads
		{2, lengthStep, nil, false, 16, []int{0, 1, 15, 16, 17, 100, 1000, 5000, 300000}, []int{1, 3, 16, 64}, []int{1, 5, 16, 100, 1 << 20}},
		{3, fixedStep, fixedPart, false, 4, []int{0, 1, 4, 15, 16, 17, 1000, 5001, 300000}, []int{4, 12, 64}, []int{4, 5, 16, 100, 1 << 20}},
		{4, lengthStep, lengthPart, true, 16, []int{0, 1, 17, 1000, 300000}, []int{3, 64, 2000}, []int{1, 100, 5000, 1 << 20}},
	} {
		r := rand.New(rand.NewSource(c.seed))
		var newPart func() PartFunc
		if c.part != nil {
			newPart = func() PartFunc { return c.part }
		}
		for _, size := range c.sizes {
			code := make([]byte, size)
			r.Read(code)
			want, wantErrs := ListSteps(nil, code, 0x100, c.step)
			for _, part := range c.parts {
				for _, window := range c.windows {
					// more workers than cores: parts are listed out of
					// order and wait for their slots and windows
					for _, workers := range []int{1, 2, 7} {
						if workers == 7 && size/part > 5000 {
							continue // slow, and no more to see
						}
						sw := newWorkers(func() StepFunc { return c.step }, newPart, part, workers)
						sw.marked = c.marked
						checkWriteFrom(t, sw, code, window, c.maxLen, want, wantErrs)
					}
				}
			}
		}
	}
}

// checkWriteFrom checks that sw lists code (loaded at 0x100) read a
// window at a time from a reader that returns half of each read as want,
// with the errors wantErrs.
func checkWriteFrom(t *testing.T, sw *stepWriter, code []byte, window, maxLen int, want []byte, wantErrs []*DecodeError) {
	t.Helper()
	var buf bytes.Buffer
	var errs []*DecodeError
	err := sw.writeFrom(&buf, iotest.HalfReader(bytes.NewReader(code)), 0x100, window, maxLen, func(e *DecodeError) { kept := *e; errs = append(errs, &kept) })
	if err != nil || !bytes.Equal(buf.Bytes(), want) || len(errs) != len(wantErrs) {
		t.Fatalf("%d bytes, parts of %d, window %d: %d errors (want %d), %v; listing equal %v", len(code), sw.partBytes, window, len(errs), len(wantErrs), err, bytes.Equal(buf.Bytes(), want))
	}
	for i := range errs {
		if *errs[i] != *wantErrs[i] {
			t.Fatalf("%d bytes, parts of %d, window %d: error %d %v, want %v", len(code), sw.partBytes, window, i, errs[i], wantErrs[i])
		}
	}
}

// A read error ends the listing and is returned.
func TestWriteStepsFromReadError(t *testing.T) {
	code := make([]byte, 4000)
	r := io.MultiReader(bytes.NewReader(code), iotest.ErrReader(errors.New("bad disk")))
	err := WriteStepsFrom(io.Discard, r, 0, func() StepFunc { return lengthStep }, 16, nil)
	if err == nil || err.Error() != "bad disk" {
		t.Fatalf("error %v", err)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n--; f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// The first write error ends the listing and is returned.
func TestWriteStepsError(t *testing.T) {
	code := make([]byte, 4000)
	for i := range code {
		code[i] = 4
	}
	_, err := newStepWriter(func() StepFunc { return lengthStep }, nil, 100).write(&failWriter{n: 2}, code, 0, len(code), func(*DecodeError) {})
	if err == nil || err.Error() != "disk full" {
		t.Fatalf("error %v", err)
	}
}

// fixedStep lists code of 4-byte instructions, reporting a DecodeError
// for odd first bytes (a truncated one for a short last instruction).
func fixedStep(dst []byte, code []byte, off int, base uint64) ([]byte, int, *DecodeError) {
	n := min(4, len(code)-off)
	dst = strconv.AppendUint(dst, base+uint64(off), 16)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, uint64(code[off]), 10)
	dst = append(dst, '\n')
	if n < 4 {
		return dst, n, &DecodeError{Addr: base + uint64(off), Len: n, Err: ErrTruncated}
	}
	if code[off]&1 != 0 {
		return dst, n, &DecodeError{Addr: base + uint64(off), Len: n, Err: ErrInvalid}
	}
	return dst, n, nil
}

// fixedPart is fixedStep's PartFunc.
var fixedPart = stepsPart(fixedStep)

// WriteParts lists code in memory by parts as ListSteps does, its errors
// counted past MaxListedErrors.
func TestWriteParts(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, size := range []int{0, 3, 4, 5001, 300000} {
		code := make([]byte, size)
		r.Read(code)
		want, wantErrs := ListSteps(nil, code, 0x100, fixedStep)
		var buf bytes.Buffer
		errs, err := WriteParts(&buf, code, 0x100, func() StepFunc { return fixedStep }, func() PartFunc { return fixedPart })
		count := 0
		for _, e := range errs {
			count += e.Count()
		}
		if err != nil || !bytes.Equal(buf.Bytes(), want) || count != len(wantErrs) {
			t.Fatalf("WriteParts of %d bytes: %d errors (want %d), %v; listing equal %v", size, count, len(wantErrs), err, bytes.Equal(buf.Bytes(), want))
		}
	}
}

// bufsWriter is a BuffersWriter that keeps what it is given, counting the
// calls and the buffers; after failAfter calls it fails.
type bufsWriter struct {
	bytes.Buffer
	calls, bufs, failAfter int
}

func (b *bufsWriter) WriteBuffers(bufs [][]byte) (int64, error) {
	if b.calls++; b.failAfter > 0 && b.calls > b.failAfter {
		return 0, errors.New("disk full")
	}
	n := 0
	for _, x := range bufs {
		b.bufs++
		k, _ := b.Write(x)
		n += k
	}
	return int64(n), nil
}

// A BuffersWriter gets a part listed again and the rest of the part in one
// call, and the listing is the sequential one; its error ends the
// listing.
func TestWriteStepsBuffers(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	code := make([]byte, 20000)
	r.Read(code)
	want, _ := ListSteps(nil, code, 0x100, lengthStep)
	for _, marked := range []bool{false, true} {
		var newPart func() PartFunc
		if marked {
			newPart = func() PartFunc { return lengthPart }
		}
		sw := newStepWriter(func() StepFunc { return lengthStep }, newPart, 300)
		sw.marked = marked
		var w bufsWriter
		if _, err := sw.write(&w, code, 0x100, len(code), nil); err != nil || !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("marked %v: listing equal %v, %v", marked, bytes.Equal(w.Bytes(), want), err)
		}
		if w.calls == 0 || w.calls >= w.bufs || w.Buffer.Len() == 0 {
			t.Fatalf("marked %v: %d calls for %d buffers", marked, w.calls, w.bufs)
		}
	}
	sw := newStepWriter(func() StepFunc { return lengthStep }, nil, 300)
	if _, err := sw.write(&bufsWriter{failAfter: 2}, code, 0, len(code), nil); err == nil || err.Error() != "disk full" {
		t.Fatalf("error %v", err)
	}
}

// kindErr is an error whose values are equal when their codes are, though
// each one boxed in an interface has its own data word.
type kindErr struct{ code int }

func (e kindErr) Error() string { return "kind " + strconv.Itoa(e.code) }

// kindWhy explains with its text: equal values, distinct words.
type kindWhy struct{ text string }

func (w kindWhy) Explain(uint64) string { return w.text }

// TestPartErrorsKinds: errors share a kind exactly when their error,
// detail, count and explainer are equal, whether or not their interface
// values are word for word the same; every error reads back as it was
// added, and AddInvalid adds what Add of a LazyDecodeError of ErrInvalid
// adds.
func TestPartErrorsKinds(t *testing.T) {
	boxed := func(code int) error { return kindErr{code} } // a new data word each call (codes past 255)
	explainer := func(text string) Explainer { return kindWhy{text} }
	in := []DecodeError{
		LazyDecodeError(0, 4, ErrInvalid, 1, invalidTestWhy{}),
		LazyDecodeError(4, 4, ErrInvalid, 2, invalidTestWhy{}), // the same words
		{Addr: 8, Len: 4, Err: boxed(1001)},
		{Addr: 12, Len: 4, Err: boxed(1001)}, // equal, other words
		{Addr: 16, Len: 4, Err: boxed(1002)},
		LazyDecodeError(20, 8, ErrInvalid, 3, explainer("a")),
		LazyDecodeError(28, 8, ErrInvalid, 4, explainer("a")), // equal, other words
		LazyDecodeError(36, 8, ErrInvalid, 5, explainer("b")),
		LazyDecodeError(44, 8, ErrTruncated, 6, explainer("b")),
		{Addr: 52, Len: 4, Err: ErrInvalid, Detail: "x"},
		{Addr: 56, Len: 4, Err: ErrInvalid, Detail: "y"},
		{Addr: 60, Len: 4, Err: ErrInvalid, Detail: "y", more: 3},
		LazyDecodeError(64, 4, ErrInvalid, 7, invalidTestWhy{}),
	}
	if sameWords(&in[2].Err, &in[3].Err) || sameWords(&in[5].why, &in[6].why) {
		t.Fatal("the test's equal values share their words")
	}
	var added, addedInvalid PartErrors
	for i := range in {
		e := &in[i]
		added.Add(e)
		if e.Err == ErrInvalid && e.why != nil {
			addedInvalid.AddInvalid(e.Addr, e.Len, e.raw, e.why)
		} else {
			addedInvalid.Add(e)
		}
	}
	for _, l := range []*PartErrors{&added, &addedInvalid} {
		if want := 10; len(l.kinds) != want {
			t.Errorf("%d kinds, want %d", len(l.kinds), want)
		}
		if l.Len() != len(in) {
			t.Fatalf("%d errors, want %d", l.Len(), len(in))
		}
		for i := range in {
			got, want := l.At(i), in[i]
			if got.Addr != want.Addr || got.Len != want.Len || got.raw != want.raw || !got.sameKind(&want) {
				t.Errorf("error %d reads back as %+v, want %+v", i, got, want)
			}
		}
	}
	if added.Reset(); added.Len() != 0 || len(added.kinds) != 0 {
		t.Error("Reset left errors")
	}
}

type invalidTestWhy struct{}

func (invalidTestWhy) Explain(uint64) string { return "test" }

// TestSlotRoomFreed: the listings and error records of full parts and
// the full windows of code read share one room of their own memory, given
// back when the listing ends (write error or not), and the listing is
// ListSteps'.
func TestSlotRoomFreed(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	code := make([]byte, 40*partBytes+17)
	r.Read(code)
	want, wantErrs := ListSteps(nil, code, 0x100, fixedStep)
	for _, failAfter := range []int{0, 3} {
		for _, read := range []bool{false, true} {
			sw := newWorkers(func() StepFunc { return fixedStep }, func() PartFunc { return fixedPart }, partBytes, 2)
			var got bufsWriter
			var w io.Writer = &got
			if failAfter > 0 {
				w = &failWriter{failAfter}
			}
			var err error
			errs := 0
			if read {
				err = sw.writeFrom(w, bytes.NewReader(code), 0x100, windowParts*partBytes, 4, func(*DecodeError) { errs++ })
			} else {
				_, err = sw.write(w, code, 0x100, len(code), func(*DecodeError) { errs++ })
			}
			if failAfter == 0 && (err != nil || !bytes.Equal(got.Bytes(), want) || errs != len(wantErrs)) {
				t.Fatalf("read %v: listing differs from ListSteps' (%v; %d errors, want %d)", read, err, errs, len(wantErrs))
			}
			if failAfter > 0 && err == nil {
				t.Fatalf("read %v: the write error was lost", read)
			}
			if sw.room != nil || sw.roomFree != nil {
				t.Errorf("read %v, failAfter %d: the room is still held", read, failAfter)
			}
			for i := range sw.slots {
				if sw.slots[i].part.out != nil || sw.slots[i].part.errs.recs != nil {
					t.Errorf("read %v, failAfter %d: slot %d still refers to the room", read, failAfter, i)
				}
			}
		}
	}
}
