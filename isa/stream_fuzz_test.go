package isa

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// FuzzWriteStepsFrom lists fuzzed code through the streamed pipeline with
// fuzzed part, window and worker counts (parts listed out of order, slots
// and windows reused, parts listed again where an instruction crosses into
// them) and checks it against the sequential listing: the same bytes and
// the same errors, in order.
func FuzzWriteStepsFrom(f *testing.F) {
	f.Add([]byte{0x13, 0x04, 0x22, 0x05, 0x31, 0x11, 0x00}, uint8(3), uint8(5), uint8(2), false)
	f.Add(bytes.Repeat([]byte{0x07, 0x01, 0x02, 0x08, 0x03}, 200), uint8(17), uint8(40), uint8(7), true)
	f.Fuzz(func(t *testing.T, code []byte, part, window, workers uint8, marked bool) {
		partBytes := 1 + int(part)%64
		win := 16 + int(window) // windows under the longest instruction are TestWriteStepsFrom's (slow)
		n := 1 + int(workers)%8
		var newPart func() PartFunc
		if marked {
			newPart = func() PartFunc { return lengthPart }
		}
		want, wantErrs := ListSteps(nil, code, 0x100, lengthStep)
		sw := newWorkers(func() StepFunc { return lengthStep }, newPart, partBytes, n)
		sw.marked = marked
		var buf bytes.Buffer
		var errs []DecodeError
		err := sw.writeFrom(&buf, iotest.HalfReader(bytes.NewReader(code)), 0x100, win, 16, func(e *DecodeError) { errs = append(errs, *e) })
		if err != nil || !bytes.Equal(buf.Bytes(), want) || len(errs) != len(wantErrs) {
			t.Fatalf("%d bytes, parts of %d, window %d, %d workers: %d errors (want %d), %v; listing equal %v", len(code), partBytes, win, n, len(errs), len(wantErrs), err, bytes.Equal(buf.Bytes(), want))
		}
		for i := range errs {
			if errs[i] != *wantErrs[i] {
				t.Fatalf("error %d %v, want %v", i, &errs[i], wantErrs[i])
			}
		}
	})
}
