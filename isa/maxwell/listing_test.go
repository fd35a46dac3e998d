package maxwell

import (
	"bytes"
	"encoding/binary"
	"errors"
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

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
