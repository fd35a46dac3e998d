package safeio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/pagemem"
)

type endless struct{}

func (endless) Read(b []byte) (int, error) { clear(b); return len(b), nil }

func TestReadAllLimit(t *testing.T) {
	_, err := ReadAll(endless{}, "<stdin>", 1<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != -1 || err.Error() != "<stdin>: more than the limit of 1 MiB" {
		t.Errorf("endless stream: %v", err)
	}
	b, err := ReadAll(strings.NewReader(strings.Repeat("x", 1<<20)), "s", 1<<20)
	if err != nil || len(b) != 1<<20 {
		t.Errorf("exactly the limit: %d bytes, %v", len(b), err)
	}
	if _, err := ReadAll(strings.NewReader(strings.Repeat("x", 1<<20+1)), "s", 1<<20); err == nil {
		t.Error("one byte past the limit was read")
	}
}

// TestReadAllMemory: refusing an endless stream allocates about the limit
// (a doubling buffer allocated twice the limit, and held three times it at
// its peak), and a stream that ends comes back whole.
func TestReadAllMemory(t *testing.T) {
	const limit = 64 << 20
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	if _, err := ReadAll(endless{}, "<stdin>", limit); err == nil {
		t.Fatal("endless stream read")
	}
	runtime.ReadMemStats(&b)
	if got := b.TotalAlloc - a.TotalAlloc; got > limit*5/4 {
		t.Errorf("refusing an endless stream allocated %d MiB for a limit of %d MiB", got>>20, limit>>20)
	}
	data := []byte(strings.Repeat("0123456789", 3<<20))
	got, err := ReadAll(strings.NewReader(string(data)), "s", limit)
	if err != nil || string(got) != string(data) {
		t.Errorf("30 MiB stream: %d bytes back, %v", len(got), err)
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(5 << 30) // sparse: the size alone is checked, nothing read
	f.Close()
	_, err = ReadFile(p, 1<<30)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 5<<30 || !strings.Contains(err.Error(), "5368709120 bytes, more than the limit of 1 GiB") {
		t.Errorf("large file: %v", err)
	}
	os.WriteFile(p, []byte("hello"), 0o644)
	if b, err := ReadFile(p, 5); err != nil || string(b) != "hello" {
		t.Errorf("%q %v", b, err)
	}
	buf := make([]byte, 3)
	if n, err := ReadPrefix(p, buf); n != 3 || err != nil || string(buf) != "hel" {
		t.Errorf("prefix %q %d %v", buf, n, err)
	}
	buf = make([]byte, 8)
	if n, err := ReadPrefix(p, buf); n != 5 || err != nil {
		t.Errorf("prefix of a shorter file: %d %v", n, err)
	}
	if n, err := Size(p); n != 5 || err != nil {
		t.Errorf("size %d %v", n, err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{256 << 20: "256 MiB", 48 << 10: "48 KiB", 1 << 30: "1 GiB", 100: "100 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// A large file is read in parts at once, and like a small one it is read
// whole even when it grew or shrank after its size was taken.
func TestReadSizedParts(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	data := make([]byte, 3*parallelRead+12345)
	for i := range data {
		data[i] = byte(i * 7 / 5)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 1<<30); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("whole file: %d bytes, %v", len(b), err)
	}
	for _, size := range []int64{
		1000,                     // small, grew
		parallelRead + 1,         // grew past a part
		int64(len(data)) - 1,     // grew by a byte
		int64(len(data)) + 1,     // shrank by a byte
		int64(len(data)) * 2,     // shrank to the first half of the parts
		int64(len(data)) * 4 / 3, // shrank within the last part
	} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, alloc := range []func(int) ([]byte, func()){heapBuffer, pagemem.Alloc} {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			b, release, err := readSized(f, p, size, 1<<30, alloc)
			if err != nil || !bytes.Equal(b, data) {
				t.Errorf("size %d taken: %d bytes read, %v", size, len(b), err)
			}
			release()
		}
		f.Close()
	}
	f, _ := os.Open(p)
	defer f.Close()
	if _, _, err := readSized(f, p, int64(len(data))-10, int64(len(data))-5, pagemem.Alloc); err == nil {
		t.Error("a file that grew past the limit was read")
	}
	if b, release, err := ReadFileOwned(p, 1<<30); err != nil || !bytes.Equal(b, data) {
		t.Errorf("ReadFileOwned: %d bytes, %v", len(b), err)
	} else {
		release()
	}
}

// TestReadAllLen: a reader that tells its length is read into one piece
// of that size, and one whose length grows past it is still read whole.
func TestReadAllLen(t *testing.T) {
	data := strings.Repeat("x", 5000)
	if n := testing.AllocsPerRun(10, func() {
		b, err := ReadAll(strings.NewReader(data), "s", 1<<20)
		if err != nil || string(b) != data {
			t.Fatalf("got %d bytes, %v", len(b), err)
		}
	}); n > 3 {
		t.Errorf("%v allocations reading 5000 bytes that tell their length", n)
	}
	r := &growing{Reader: strings.NewReader(""), rest: []byte(data)}
	if b, err := ReadAll(r, "g", 1<<20); err != nil || string(b) != data {
		t.Errorf("a growing reader: got %d bytes, %v", len(b), err)
	}
}

// growing says it is empty, then has more.
type growing struct {
	*strings.Reader
	rest []byte
}

func (g *growing) Read(p []byte) (int, error) {
	if len(g.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.rest)
	g.rest = g.rest[n:]
	return n, nil
}

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"section .text.k", "section .text.k"},
		{"a\nb", `a\nb`},
		{"x\xd0y", `x\xd0y`},
		{"tab\there", `tab\there`},
		{"π ok", "π ok"},
		{"\x7f", `\x7f`},
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
