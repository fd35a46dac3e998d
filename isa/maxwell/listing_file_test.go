package maxwell

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// bufferedFile is a FileWriter as gpuisa dis makes one: a buffer in front
// of a file.
type bufferedFile struct {
	*bufio.Writer
	f *os.File
}

func (b bufferedFile) File() (*os.File, error) { return b.f, b.Flush() }

// A listing written to a regular file (directly, or through a buffered
// FileWriter holding unwritten bytes) lands at the file's offset, byte for
// byte Disassemble's listing, and what is written next follows it; an
// append-mode file, a pipe and a plain buffer get the same bytes through
// the sequential path.
func TestWriteListingToFile(t *testing.T) {
	code := benchCode(randomValidWords(3000), 3*20000) // many blocks on every worker
	binary.LittleEndian.PutUint64(code[8*1000+8:], 0xffffffffffffffff)
	code = append(code, 1, 2, 3)
	const base = 0xfff8
	want, _ := Disassemble(nil, code, base, 52)
	prefix, suffix := []byte("before\n"), []byte("after\n")
	whole := append(append(append([]byte{}, prefix...), want...), suffix...)
	dir := t.TempDir()
	check := func(name string, got []byte) {
		t.Helper()
		if !bytes.Equal(got, whole) {
			t.Fatalf("%s: listing differs (%d vs %d bytes)", name, len(got), len(whole))
		}
	}

	// straight to an *os.File at a nonzero offset
	path := filepath.Join(dir, "direct.s")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(prefix)
	if _, _, ok, _ := positionedFile(f); !ok {
		t.Fatal("a regular file was not taken for positioned writes")
	}
	if _, err := WriteListing(f, code, base, 52); err != nil {
		t.Fatal(err)
	}
	f.Write(suffix)
	f.Close()
	got, _ := os.ReadFile(path)
	check("file", got)

	// through a buffer still holding the prefix
	path = filepath.Join(dir, "buffered.s")
	f, _ = os.Create(path)
	bw := bufio.NewWriterSize(f, 1<<16)
	bw.Write(prefix)
	if _, err := WriteListing(bufferedFile{bw, f}, code, base, 52); err != nil {
		t.Fatal(err)
	}
	bw.Write(suffix)
	bw.Flush()
	f.Close()
	got, _ = os.ReadFile(path)
	check("buffered file", got)

	// an append-mode file: positioned writes would all append
	path = filepath.Join(dir, "append.s")
	os.WriteFile(path, prefix, 0o644)
	f, _ = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if _, _, ok, _ := positionedFile(f); ok {
		t.Fatal("an append-mode file was taken for positioned writes")
	}
	if _, err := WriteListing(f, code, base, 52); err != nil {
		t.Fatal(err)
	}
	f.Write(suffix)
	f.Close()
	got, _ = os.ReadFile(path)
	check("append-mode file", got)

	// a pipe
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := positionedFile(pw); ok {
		t.Fatal("a pipe was taken for positioned writes")
	}
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	pw.Write(prefix)
	if _, err := WriteListing(pw, code, base, 52); err != nil {
		t.Fatal(err)
	}
	pw.Write(suffix)
	pw.Close()
	check("pipe", <-done)

	// a buffer
	var b bytes.Buffer
	b.Write(prefix)
	if _, err := WriteListing(&b, code, base, 52); err != nil {
		t.Fatal(err)
	}
	b.Write(suffix)
	check("buffer", b.Bytes())
}

// A FileWriter whose flush fails stops the listing with that error.
func TestWriteListingFileWriterError(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "x.s"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(failingWriter{}, 16)
	bw.Write([]byte("held back"))
	if _, err := WriteListing(bufferedFile{bw, f}, benchCode(randomValidWords(30), 300), 0, 52); err == nil {
		t.Fatal("the FileWriter's error was not returned")
	}
}

// The space a listing takes in a regular file is reserved before the
// positioned writes (preallocate); whether that works or fails, the file
// holds the same listing, and bytes the file already had past the listing
// stay as they were.
func TestWriteListingReserve(t *testing.T) {
	code := benchCode(randomValidWords(3000), 3*20000)
	want, _ := Disassemble(nil, code, 0, 52)
	header := (&layout{}).appendHeader(nil, 52)
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		reserve func(*os.File, int64, int64) error
	}{
		{"preallocate", preallocate},
		{"failing", func(*os.File, int64, int64) error { return errors.ErrUnsupported }},
		{"partial", func(f *os.File, off, size int64) error {
			// a filesystem that ran out of room part of the way
			preallocate(f, off, size/3)
			return errors.New("no space left on device")
		}},
	} {
		for _, tail := range []int{-1, 0, 100} { // -1: the file ends before the listing
			path := filepath.Join(dir, fmt.Sprintf("%s%d.s", tc.name, tail))
			old := bytes.Repeat([]byte{'x'}, 5+len(want)+tail)
			if tail < 0 {
				old = old[:5]
			}
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR, 0) // not truncated: 1<>path
			if err != nil {
				t.Fatal(err)
			}
			f.Seek(5, io.SeekStart)
			l := newLayout(code, 0, 52, true, textBudget, &textBound)
			if err := l.writeListingAt(f, 5, header, 2048, tc.reserve); err != nil {
				t.Fatal(err)
			}
			if at, _ := f.Seek(0, io.SeekCurrent); at != int64(5+len(want)) {
				t.Errorf("%s: offset %d after the listing, want %d", path, at, 5+len(want))
			}
			f.Close()
			got, _ := os.ReadFile(path)
			whole := append(append([]byte("xxxxx"), want...), bytes.Repeat([]byte{'x'}, max(tail, 0))...)
			if !bytes.Equal(got, whole) {
				t.Errorf("%s: file differs (%d vs %d bytes)", path, len(got), len(whole))
			}
		}
	}
}

// memFile is an io.WriterAt into memory that fails from its failAt-th
// write on (never when failAt is 0).
type memFile struct {
	mu     sync.Mutex
	b      []byte
	writes int
	failAt int
}

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
	if m.failAt > 0 && m.writes >= m.failAt {
		return 0, errors.New("disk full")
	}
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	copy(m.b[off:], p)
	return len(p), nil
}

// The writer and its helpers put every block at its offset, with one
// worker or several, and stop at the first write error without waiting
// forever or leaving a helper behind.
func TestWriteBlocksAt(t *testing.T) {
	code := benchCode(randomValidWords(3000), 3*40000)
	want, _ := Disassemble(nil, code, 0, 52)
	want = want[len((&layout{}).appendHeader(nil, 52)):]
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		l := newLayout(code, 0, 52, true, textBudget, &textBound)
		runtime.GOMAXPROCS(old)
		if len(l.chunks) != procs {
			t.Fatalf("%d chunks for GOMAXPROCS %d", len(l.chunks), procs)
		}
		for _, per := range []int{64, 2048} {
			m := &memFile{}
			if misfit, err := l.writeBlocksAt(m, 0, l.blocks(per)); misfit || err != nil {
				t.Fatalf("procs %d, %d bundles a block: misfit %v, err %v", procs, per, misfit, err)
			}
			if !bytes.Equal(m.b, want) {
				t.Fatalf("procs %d, %d bundles a block: listing differs", procs, per)
			}
			goroutines := runtime.NumGoroutine()
			for _, failAt := range []int{1, 2, 5, len(l.blocks(per))} {
				m := &memFile{failAt: failAt}
				if _, err := l.writeBlocksAt(m, 0, l.blocks(per)); err == nil {
					t.Errorf("procs %d: a failing write %d was not reported", procs, failAt)
				}
			}
			// the helpers of the failed listings end
			for i := 0; runtime.NumGoroutine() > goroutines && i < 100; i++ {
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > goroutines {
				t.Errorf("procs %d: %d goroutines left behind", procs, n-goroutines)
			}
		}
	}
}

// BenchmarkWriteListingFile writes the listing of 1,000,002 random words
// Decode accepts, all distinct (as in mxdiff -bench's file), to a regular
// new regular file, as `gpuisa dis -arch sm_52 f > out.s` does: both
// passes, the reserve and the positioned writes.
func BenchmarkWriteListingFile(b *testing.B) {
	code := benchCode(randomValidWords(1000002), 1000002)
	path := filepath.Join(b.TempDir(), "out.s")
	b.ReportAllocs()
	b.SetBytes(int64(len(code)))
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.Remove(path) // a new file each time (truncating a long one costs the next run)
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := WriteListing(f, code, 0, 52); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	cpu.Report(1000002, "insn")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000002, "ns/insn")
}

// WriteValidListing writes WriteListing's listing when every word
// decodes, to a buffer and to a file; when one does not, it writes
// nothing, to either, and returns every error Disassemble returns.
func TestWriteValidListing(t *testing.T) {
	code := benchCode(randomValidWords(300), 3*2000)
	want, _ := Disassemble(nil, code, 0, 52)
	var b bytes.Buffer
	if errs, err := WriteValidListing(&b, code, 0, 52); len(errs) != 0 || err != nil || !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("valid code: %d errors, %v; the listing is Disassemble's: %v", len(errs), err, bytes.Equal(b.Bytes(), want))
	}
	// every 97th bundle's second word made one that does not decode
	bad := append([]byte(nil), code...)
	for off := 16; off+8 <= len(bad); off += 97 * BundleSize {
		binary.LittleEndian.PutUint64(bad[off:], 0xffffffffffffffff)
	}
	_, wantErrs := Disassemble(nil, bad, 0x100, 52)
	if len(wantErrs) < 2 {
		t.Fatalf("the damaged code has %d errors", len(wantErrs))
	}
	path := filepath.Join(t.TempDir(), "x.s")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, w := range []io.Writer{&b, f} {
		b.Reset()
		errs, err := WriteValidListing(w, bad, 0x100, 52)
		if err != nil || len(errs) != len(wantErrs) {
			t.Fatalf("damaged code: %d errors (want %d), %v", len(errs), len(wantErrs), err)
		}
		for i := range errs {
			if errs[i].Error() != wantErrs[i].Error() {
				t.Fatalf("error %d: %v, want %v", i, errs[i], wantErrs[i])
			}
		}
	}
	if st, _ := f.Stat(); b.Len() != 0 || st.Size() != 0 {
		t.Fatalf("damaged code: %d bytes written to the buffer, %d to the file", b.Len(), st.Size())
	}
}
