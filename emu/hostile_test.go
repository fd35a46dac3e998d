package emu

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestMemoryCountedOnce: a buffer from a file is read straight into place
// and, for a single run, handed over without a copy: a 1 GiB buffer cost
// 3 GB (the file's bytes, the setup's memory and the run's copy).
func TestMemoryCountedOnce(t *testing.T) {
	const n = 32 << 20
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, n), 0o644); err != nil {
		t.Fatal(err)
	}
	launch := `{"program": "p", "grid": [1], "block": [1], "buffers": {"b": {"file": "big.bin"}},
	  "memory": [{"addr": "0x100", "file": "big.bin", "bytes": 4096}]}`
	if err := os.WriteFile(filepath.Join(dir, "l.json"), []byte(launch), 0o644); err != nil {
		t.Fatal(err)
	}
	var s *Setup
	got := allocated(func() {
		var err error
		if s, err = LoadFile(filepath.Join(dir, "l.json")); err != nil {
			t.Fatal(err)
		}
		s.RunOnce = true
		if m := s.GlobalMemory(); &m.Data[0] != &s.Global[0] {
			t.Error("a single run's memory is a copy")
		}
	})
	if got > n+n/8 {
		t.Errorf("loading a %d-byte buffer allocated %d bytes", n, got)
	}
	if b := s.Buffers["b"]; b.Bytes != n || len(s.Global) < int(b.Addr+b.Bytes) {
		t.Errorf("buffer at %#x, %d bytes, global memory %d bytes", b.Addr, b.Bytes, len(s.Global))
	}
}
