package usse

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/gpuisa/gpuisa/isa"
)

// listingByWord is the listing of code made word by word with the public
// API (Decode, AppendText, Style.AppendLine) and its decode errors: what
// the lister's cached lines and its errors taken from shared room must
// equal.
func listingByWord(code []byte, base uint64) ([]byte, []string) {
	var out []byte
	var errs []string
	for off := 0; off+Len <= len(code); off += Len {
		addr := base + uint64(off)
		in, err := Decode(code[off:], addr)
		if err != nil {
			errs = append(errs, err.Error())
		}
		text := append(AppendText(nil, in, addr), " ;"...)
		out = Style.AppendLine(out, addr, text, in.Raw, 16)
	}
	if tail := len(code) % Len; tail != 0 {
		// a truncated last word: an error, no line
		_, err := Decode(code[len(code)-tail:], base+uint64(len(code)-tail))
		errs = append(errs, err.Error())
	}
	return out, errs
}

// TestListerMatchesWordByWord: the listing of random words (a third do
// not decode), of words repeated far past the line cache's start, and of
// words that share cache slots, is byte for byte the word-by-word listing,
// errors included.
func TestListerMatchesWordByWord(t *testing.T) {
	code := randomBytes(3 * cacheAfter)
	valid := randomValidCode(64)
	for i := 0; i < 4*cacheAfter; i++ {
		code = append(code, valid[8*(i%64):8*(i%64)+8]...)
	}
	// words of one slot: each replaces the other's line end
	var same []uint64
	for w := uint64(0); len(same) < 2; w++ {
		if _, err := DecodeWord(w<<20|0x1234, 0); err == nil && cacheSlot(w<<20|0x1234) == cacheSlot(0x1234) {
			same = append(same, w<<20|0x1234)
		}
	}
	for i := 0; i < cacheAfter; i++ {
		code = binary.LittleEndian.AppendUint64(code, same[i%2])
	}
	code = append(code, randomBytes(cacheAfter)...)
	want, wantErrs := listingByWord(code, 0x100)
	got, errs := Disassemble(nil, code, 0x100)
	if !bytes.Equal(got, want) {
		t.Errorf("Disassemble differs from the word-by-word listing")
	}
	var streamed bytes.Buffer
	if err := WriteListingFrom(&streamed, bytes.NewReader(code), 0x100, nil); err != nil || !bytes.Equal(streamed.Bytes(), want) {
		t.Errorf("WriteListingFrom differs from the word-by-word listing (%v)", err)
	}
	if len(errs) != len(wantErrs) || len(errs) < cacheAfter {
		t.Fatalf("%d errors, want %d (and at least %d)", len(errs), len(wantErrs), cacheAfter)
	}
	for i, e := range errs {
		if e.Error() != wantErrs[i] {
			t.Fatalf("error %d: %q, want %q", i, e.Error(), wantErrs[i])
		}
		if !errors.Is(e, isa.ErrInvalid) {
			t.Fatalf("error %d: %v is not ErrInvalid", i, e)
		}
	}
}

// TestListingParts: listed a part at a time on every core (isa.WriteParts,
// from memory and from a reader that returns half of each read), code of
// many parts (32 KiB each) with a truncated last word lists byte for byte
// as word by word, errors in order.
func TestListingParts(t *testing.T) {
	code := append(randomBytes(5*4096+17), 0xaa, 0xbb, 0xcc)
	want, wantErrs := listingByWord(code, 0x2000)
	var buf bytes.Buffer
	errs, err := WriteListing(&buf, code, 0x2000)
	if err != nil || !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("WriteListing differs from the word-by-word listing (%v)", err)
	}
	if len(errs) != min(len(wantErrs), isa.MaxListedErrors+1) {
		t.Fatalf("WriteListing: %d errors, want %d", len(errs), min(len(wantErrs), isa.MaxListedErrors+1))
	}
	for i := 0; i < isa.MaxListedErrors; i++ {
		if errs[i].Error() != wantErrs[i] {
			t.Fatalf("WriteListing error %d: %q, want %q", i, errs[i].Error(), wantErrs[i])
		}
	}
	buf.Reset()
	var got []string
	err = WriteListingFrom(&buf, iotest.HalfReader(bytes.NewReader(code)), 0x2000, func(e *isa.DecodeError) { got = append(got, e.Error()) })
	if err != nil || !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("WriteListingFrom differs from the word-by-word listing (%v)", err)
	}
	if !slices.Equal(got, wantErrs) {
		t.Fatalf("WriteListingFrom: %d errors, want %d (or in another order)", len(got), len(wantErrs))
	}
}

// TestLineCacheProbes: a lister probes before it stores line ends:
// random words, which do not repeat, leave no line end in the cache (its
// 512 KiB of ends are never touched), and repeated words are served from
// it once a probe has seen them repeat.
func TestLineCacheProbes(t *testing.T) {
	ends := func(c *lineCache) int {
		n := 0
		for _, l := range c.lens {
			if l != 0 && l != probed {
				n++
			}
		}
		return n
	}
	l := newLister()
	var errs isa.PartErrors
	code := randomBytes(cacheAfter + 4*cacheWindow)
	l.part(nil, &errs, code, 0, len(code), 0)
	if l.cache == nil {
		t.Fatal("no line cache after listing more than cacheAfter words")
	}
	if n := ends(l.cache); n != 0 {
		t.Errorf("random words: %d line ends stored, want none", n)
	}
	valid := randomValidCode(64)
	var rep []byte
	for len(rep) < 8*4*cacheWindow {
		rep = append(rep, valid...)
	}
	l = newLister()
	code = append(randomBytes(cacheAfter), rep...)
	got, _ := l.part(nil, &errs, code, 0, len(code), 0)
	if n := ends(l.cache); n == 0 || l.probing {
		t.Errorf("repeated words after cacheAfter random ones: %d line ends stored, probing %v", n, l.probing)
	}
	if want, _ := listingByWord(code, 0); !bytes.Equal(got, want) {
		t.Errorf("the cached listing differs from the word-by-word one")
	}
}
