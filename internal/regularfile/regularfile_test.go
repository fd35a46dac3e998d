package regularfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testBuffers are buffers of several sizes, empty ones among them, and
// what they make one after the other.
func testBuffers() (bufs [][]byte, all []byte) {
	for i, n := range []int{0, 5, 70000, 0, 1, 300000, 4096, 0, 123457} {
		b := make([]byte, n)
		for k := range b {
			b[k] = byte(i*7 + k%251)
		}
		bufs = append(bufs, b)
		all = append(all, b...)
	}
	return bufs, all
}

// Writev writes every buffer in order, also when a write takes only part
// of them (a pipe takes at most its capacity at a time) and with empty
// buffers among them; to a regular file, after what the file held.
func TestWritev(t *testing.T) {
	bufs, want := testBuffers()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	n, err := Writev(w, bufs)
	w.Close()
	if b := <-got; err != nil || n != int64(len(want)) || !bytes.Equal(b, want) {
		t.Fatalf("pipe: %d of %d bytes written, %v; content equal %v", n, len(want), err, bytes.Equal(b, want))
	}
	path := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("head\n")
	if n, err := Writev(f, bufs); err != nil || n != int64(len(want)) {
		t.Fatalf("file: %d of %d bytes written, %v", n, len(want), err)
	}
	f.Close()
	if b, _ := os.ReadFile(path); !bytes.Equal(b, append([]byte("head\n"), want...)) {
		t.Fatal("file: content differs")
	}
}

// WriteAt writes what it is given at its offset, past the end of the file
// too, and leaves the file's offset where it was.
func TestWriteAt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.s")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("ab"), 300000)
	if n, err := WriteAt(f, []byte("XY"), 3); n != 2 || err != nil {
		t.Fatalf("WriteAt: %d, %v", n, err)
	}
	if n, err := WriteAt(f, big, 12); n != len(big) || err != nil {
		t.Fatalf("WriteAt: %d, %v", n, err)
	}
	if at, _ := f.Seek(0, io.SeekCurrent); at != 0 {
		t.Fatalf("the file's offset moved to %d", at)
	}
	f.Close()
	got, _ := os.ReadFile(path)
	want := append([]byte("012XY56789\x00\x00"), big...)
	if !bytes.Equal(got, want) {
		t.Fatalf("the file holds %q..., want %q...", got[:16], want[:16])
	}
}

// A write the file refuses (a descriptor open only for reading) is an
// error naming the file, from both.
func TestWriteRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.s")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := WriteAt(ro, []byte("Z"), 0); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("WriteAt to a read-only descriptor: %v, want an error naming %s", err, path)
	}
	if _, err := Writev(ro, [][]byte{[]byte("Z")}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Writev to a read-only descriptor: %v, want an error naming %s", err, path)
	}
}
