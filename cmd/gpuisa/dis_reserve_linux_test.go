package main

import (
	"bytes"
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

// A reservingFile's WriteBuffers writes every buffer in order, after what
// its Write wrote, with empty buffers among them, and counts them in where
// its next write goes.
func TestWriteBuffers(t *testing.T) {
	bufs := [][]byte{nil, []byte("lines "), bytes.Repeat([]byte("ab"), 200000), {}, []byte("end\n")}
	want := bytes.Join(bufs, nil)
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
	if at := rf.(*reservingFile).at; at != int64(5+len(want)) {
		t.Fatalf("the next write would go at %d, want %d", at, 5+len(want))
	}
}
