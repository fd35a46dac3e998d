package main

import (
	"encoding/binary"
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
	var code []byte
	x := uint64(5)
	for len(code) < 200000 { // about 3.5 MB of sgx543 listing
		x = x*6364136223846793005 + 1442695040888963407
		code = binary.LittleEndian.AppendUint64(code, x^x>>29)
	}
	raw := filepath.Join(dir, "raw.bin")
	if err := os.WriteFile(raw, code, 0o644); err != nil {
		t.Fatal(err)
	}
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
