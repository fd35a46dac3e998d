package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// dis streaming raw code to a regular file (which reserves the file's
// blocks ahead: reservingFile) prints what it prints to a buffer, after
// and before bytes others write to the file, and leaves no blocks
// reserved past the file's end.
func TestDisReservesBlocks(t *testing.T) {
	dir := t.TempDir()
	x := uint64(5)
	raw := writeRandomCode(t, dir, "raw.bin", &x, 200000) // about 3.5 MB of sgx543 listing
	for _, arch := range []string{"sgx543", "sm_20"} {
		args := []string{"dis", "-arch", arch, raw}
		var st syscall.Stat_t
		disToFile(t, filepath.Join(dir, "out.s"), args, func(f *os.File) {
			if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
				t.Fatal(err)
			}
		})
		// without the release, at least 1 MB more than the listing
		if blocks := st.Blocks * 512; blocks > st.Size+256<<10 {
			t.Fatalf("%v: %d bytes of blocks for a file of %d", args, blocks, st.Size)
		}
	}
}

// writeBuffers writes every buffer in order, also when writev takes only
// part of them (a pipe takes at most its capacity at a time) and with
// empty buffers among them; to a regular file, a reservingFile's
// WriteBuffers does the same.
func TestWriteBuffers(t *testing.T) {
	var bufs [][]byte
	var want []byte
	for i, n := range []int{0, 5, 70000, 0, 1, 300000, 4096, 0, 123457} {
		b := make([]byte, n)
		for k := range b {
			b[k] = byte(i*7 + k%251)
		}
		bufs = append(bufs, b)
		want = append(want, b...)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	n, err := writeBuffers(w, bufs, false)
	w.Close()
	if b := <-got; err != nil || n != int64(len(want)) || !bytes.Equal(b, want) {
		t.Fatalf("pipe: %d of %d bytes written, %v; content equal %v", n, len(want), err, bytes.Equal(b, want))
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rf, _ := newReservingFile(f)
	if _, err := rf.Write([]byte("head\n")); err != nil {
		t.Fatal(err)
	}
	if n, err := rf.(*reservingFile).WriteBuffers(bufs); err != nil || n != int64(len(want)) {
		t.Fatalf("file: %d of %d bytes written, %v", n, len(want), err)
	}
	if b, _ := os.ReadFile(f.Name()); !bytes.Equal(b, append([]byte("head\n"), want...)) {
		t.Fatal("file: content differs")
	}
}
