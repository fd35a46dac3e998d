package tesla

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/internal/listtest"
	"github.com/gpuisa/gpuisa/isa"
)

// randomValidCode is n random valid instructions (a fixed seed): every
// form with random operands, the mix listing speed is measured on.
func randomValidCode(n int) []byte {
	return listtest.RandomCode(n, func(w []byte) int {
		if inst, err := Decode(w, 0); err == nil {
			return int(inst.Len)
		}
		return 0
	})
}

// writeListing is the streamed listing dis -arch prints for a raw file.
func writeListing(w io.Writer, code io.Reader, base uint64) error {
	return WriteListingFrom(w, code, base, nil)
}

// TestListingUnchanged: the listing of random valid instructions is byte
// for byte what the printer printed before its hot paths were rewritten
// (the oracle tests check real code against NVIDIA's or Sony's listings). If
// the text of an instruction changes on purpose, put the new hash here.
func TestListingUnchanged(t *testing.T) {
	code := randomValidCode(1 << 17)
	out, errs := Disassemble(nil, code, 0x1000)
	if len(errs) > 0 {
		t.Fatalf("%d decode errors, first %v", len(errs), errs[0])
	}
	listtest.CheckUnchanged(t, code, out, writeListing, "d7566bf62edc07bacaaa01fbc6a0f4cb3c509576289fdd9a9902d0788fd577ad")
}

// BenchmarkWriteListingRandom is the streamed listing (dis -arch of a raw
// file) of 1M random valid instructions, to io.Discard.
func BenchmarkWriteListingRandom(b *testing.B) {
	const n = 1 << 20
	listtest.BenchWrite(b, randomValidCode(n), n, writeListing)
}

// randomWords is n random 32-bit words (a fixed seed): most do not decode.
func randomWords(n int) []byte {
	r := rand.New(rand.NewPCG(13, 5))
	code := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(code[4*i:], r.Uint32())
	}
	return code
}

// TestWordsListingUnchanged: the listing of random words (mostly .word
// lines, written by their own fast path) and its errors are byte for byte
// what they were before the fast paths, streamed or not.
func TestWordsListingUnchanged(t *testing.T) {
	code := randomWords(1 << 16)
	out, errs := Disassemble(nil, code, 0x1000)
	listtest.CheckUnchanged(t, code, out, writeListing, "126bc4758bad7de442bf5076fab9612c00a2b0b80b0f1c10dd87f1573def68b2")
	var msgs bytes.Buffer
	for _, e := range errs {
		fmt.Fprintln(&msgs, e)
	}
	var streamed bytes.Buffer
	if err := WriteListingFrom(io.Discard, bytes.NewReader(code), 0x1000, func(e *isa.DecodeError) { fmt.Fprintln(&streamed, e) }); err != nil {
		t.Fatal(err)
	}
	if streamed.String() != msgs.String() {
		t.Errorf("the streamed listing's errors differ from Disassemble's")
	}
	listtest.CheckHash(t, fmt.Sprintf("%d errors", len(errs)), msgs.Bytes(), "df65717ee8bb56f9f6c0476a554acdbc71d0ea657e744b8a2ec00f00e0e4f682")
}

// BenchmarkWriteListingWords is the streamed listing of 1M random 32-bit
// words (most of them .word lines and decode errors), to io.Discard.
func BenchmarkWriteListingWords(b *testing.B) {
	const n = 1 << 20
	listtest.BenchWrite(b, randomWords(n), n, writeListing)
}

// TestLineCacheListing: the streamed listing, which copies the lines it
// printed before from its line cache, is Disassemble's (which prints every
// line) on real code that repeats (decuda's kernels) between stretches of
// random code, where the cache rests and starts again.
func TestLineCacheListing(t *testing.T) {
	var real []byte
	for _, k := range decudaKernels(t) {
		real = append(real, k.code...)
	}
	var code []byte
	random := randomValidCode(1 << 14)
	for range 3 {
		code = append(code, random...)
		for range 4 {
			code = append(code, real...)
		}
	}
	want, _ := Disassemble(nil, code, 0x1000)
	var got bytes.Buffer
	if err := writeListing(&got, bytes.NewReader(code), 0x1000); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the streamed listing (%d bytes) differs from Disassemble's (%d bytes)", got.Len(), len(want))
	}
	// the cache found lines: the test exercised it
	l := newLister(new(lineCache))
	isa.ListSteps(nil, code, 0x1000, l.step)
	if l.lines.hits == 0 {
		t.Errorf("the line cache found no line")
	}
}

// BenchmarkWriteListingReal is the streamed listing of 1M instructions of
// decuda's kernels, repeated, to io.Discard.
func BenchmarkWriteListingReal(b *testing.B) {
	var unit, code []byte
	for _, k := range decudaKernels(b) {
		unit = append(unit, k.code...)
	}
	n := 0
	for n < 1<<20 {
		code = append(code, unit...)
		for pc := 0; pc < len(unit); n++ {
			inst, _ := Decode(unit[pc:], 0)
			pc += max(int(inst.Len), 4)
		}
	}
	listtest.BenchWrite(b, code, n, writeListing)
}

// TestLineCacheColdStart: code listed once that repeats its instructions
// only after a first stretch of new ones (a cold cache finds nothing at
// first) still finds its repeats: the cache does not rest on its first
// poor windows. Random code leaves it resting nearly always.
func TestLineCacheColdStart(t *testing.T) {
	fresh := randomValidCode(1000)  // two windows of lines not seen before
	repeats := randomValidCode(200) // then 200 instructions, 20 times
	code := append([]byte(nil), fresh...)
	for range 20 {
		code = append(code, repeats...)
	}
	l := newLister(new(lineCache))
	isa.ListSteps(nil, code, 0x1000, l.step)
	if l.lines.hits < 19*200/2 {
		t.Errorf("the line cache found %d lines of %d repeated", l.lines.hits, 19*200)
	}
	random := randomValidCode(1 << 17)
	l = newLister(new(lineCache))
	looked, lines := 0, 0
	for pc := 0; pc < len(random); lines++ {
		if l.lines.pause == 0 {
			looked++
		}
		_, n, _ := l.step(nil, random, pc, 0)
		pc += max(n, 1)
	}
	if looked > lines/25 {
		t.Errorf("random code looked the cache up in %d of its %d lines", looked, lines)
	}
}
