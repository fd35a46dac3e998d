package maxwell

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"
)

// WriteListing streams exactly what Disassemble returns, also for inputs
// split over both workers and many blocks, with rejected words, an
// unaligned base and a truncated tail; a failing writer stops it with its
// error.
func TestWriteListingSameAsDisassemble(t *testing.T) {
	code := benchCode(randomValidWords(3000), 3*20000)
	binary.LittleEndian.PutUint64(code[8*1000+8:], 0xffffffffffffffff) // a rejected word
	code = append(code, 1, 2, 3)                                       // a truncated tail
	for _, base := range []uint64{0, 0xfff8} {
		want, wantErrs := Disassemble(nil, code, base, 52)
		var got bytes.Buffer
		errs, err := WriteListing(&got, code, base, 52)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("base %#x: streamed listing differs (%d vs %d bytes)", base, got.Len(), len(want))
		}
		if len(errs) != len(wantErrs) || len(errs) < 2 {
			t.Fatalf("base %#x: %d errors, want %d (at least 2)", base, len(errs), len(wantErrs))
		}
	}
	if _, err := WriteListing(failingWriter{}, code, 0, 52); err == nil {
		t.Fatal("a failing writer's error was not returned")
	}
}

// A listing whose texts do not all fit in the budget prints the rest again
// when it writes them: the same listing for every budget (none kept, a
// part of each worker's, all), with ??? operands (DEPBAR on scoreboard 6,
// a CAS pair past R255: TestListCubinQuestions' words) early and late,
// random words (many rejected) and an unaligned base.
func TestWriteListingBudget(t *testing.T) {
	var code []byte
	x := uint64(7)
	for len(code) < 5000*BundleSize { // over 4096 bundles: every worker lists a part
		x = x*6364136223846793005 + 1442695040888963407
		code = binary.LittleEndian.AppendUint64(code, x^x>>29)
	}
	for _, b := range []int{3, 2700, 4990} {
		binary.LittleEndian.PutUint64(code[b*BundleSize+16:], 0xf0f0000020000000|6<<26|7<<16)
		binary.LittleEndian.PutUint64(code[b*BundleSize+24:], 0xee5f71770ff21093)
	}
	for _, base := range []uint64{0, 0xfff8} {
		want, wantErrs := Disassemble(nil, code, base, 52)
		if !bytes.Contains(want, []byte(" ???")) || len(wantErrs) == 0 {
			t.Fatal("the code has no ??? operand or no rejected word")
		}
		for _, budget := range []int{0, 1000, 40000, 1 << 30} {
			var got bytes.Buffer
			errs, err := writeListing(&got, code, base, 52, budget, &textBound)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("base %#x, budget %d: listing differs (%d vs %d bytes)", base, budget, got.Len(), len(want))
			}
			n := 0 // the errors past isa.MaxListedErrors are counted in the last
			for _, e := range errs {
				n += e.Count()
			}
			if n != len(wantErrs) {
				t.Fatalf("base %#x, budget %d: %d errors, want %d", base, budget, n, len(wantErrs))
			}
		}
	}
}

// The memory of a raw listing does not grow with the code past the texts'
// budget: listing 4 times the code allocates about as much (the blocks
// being written, the kept texts and their facts, at most
// isa.MaxListedErrors errors), for code that repeats (texts kept) and
// code that does not (texts deferred, facts kept).
func TestWriteListingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("lists 10 MiB of code")
	}
	const budget = 256 << 10
	for _, distinct := range []int{3000, 4 << 20 / BundleSize * 3} {
		testWriteListingMemory(t, budget, distinct)
	}
}

func testWriteListingMemory(t *testing.T, budget, distinct int) {
	words := randomValidWords(distinct)
	alloc := func(size int) uint64 {
		code := benchCode(words, size/BundleSize*3)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := writeListing(io.Discard, code, 0, 52, budget, &textBound); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(1<<20), alloc(4<<20)
	t.Logf("%d distinct words: allocated %d KiB listing 1 MiB of code, %d KiB listing 4 MiB", distinct, small>>10, large>>10)
	if large > small+small/2 {
		t.Errorf("listing 4 MiB of code allocated %d KiB, 1 MiB %d KiB: memory grows with the code", large>>10, small>>10)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// The raw listing looks for a ??? operand only in the texts of forms that
// formFacts says can have one: no other form prints one, whatever its
// fields (every form with random field values under random control fields).
func TestFormFactsQuest(t *testing.T) {
	x := uint64(11)
	next := func() uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return x ^ x>>31
	}
	checked := 0
	for f := range forms {
		if formFacts[f]&factQuest != 0 {
			continue
		}
		for range 400 {
			w := forms[f].value | next()&^forms[f].mask
			ctrl := Ctrl(next()) & 0x1fffff
			inst, err := Decode(w, ctrl, 52, 0x100)
			if err != nil || int(inst.form) != f {
				continue
			}
			checked++
			if text := AppendText(nil, inst, 0x100); questAt(text) >= 0 {
				t.Fatalf("form %d (%s): %q has a ??? operand, but formFacts says it cannot", f, forms[f].name, text)
			}
		}
	}
	if checked < 50000 {
		t.Fatalf("only %d texts checked", checked)
	}
}
