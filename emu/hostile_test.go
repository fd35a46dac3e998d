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

// TestMemoryOnce: a buffer given with "bytes" is read straight into one
// allocation of its declared size (the file's bytes were read whole, then
// padded by appending), and the run works on the placed memory without a
// copy of it (a 1 GiB buffer cost 3 GB: the file's bytes, the setup's
// memory and the run's copy; now the file's bytes and the placed memory).
func TestMemoryOnce(t *testing.T) {
	const n = 32 << 20
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, n/2), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p"), make([]byte, 32), 0o644); err != nil {
		t.Fatal(err)
	}
	launch := `{"program": "p", "grid": [1], "block": [1], "buffers": {"b": {"file": "big.bin", "bytes": 33554432, "fill": 7}}}`
	l, err := ParseLaunch([]byte(launch))
	if err != nil {
		t.Fatal(err)
	}
	var j *Job
	got := allocated(func() {
		if j, err = l.Job(dir); err != nil {
			t.Fatal(err)
		}
	})
	if got > n+n/8 {
		t.Errorf("reading a %d-byte buffer allocated %d bytes", n, got)
	}
	if b := j.Buffers[0].Data; len(b) != n || b[n/2-1] != 0 || b[n/2] != 7 {
		t.Errorf("buffer of %d bytes", len(b))
	}
	var s *Setup
	got = allocated(func() {
		if s, err = j.Setup(); err != nil {
			t.Fatal(err)
		}
		s.Memory = &Memory{Space: Global, Data: s.Global}
		if m := s.GlobalMemory(); &m.Data[0] != &s.Global[0] {
			t.Error("the run's memory is a copy")
		}
	})
	if got > n+n/8 {
		t.Errorf("placing a %d-byte buffer allocated %d bytes", n, got)
	}
}

// bigMemExec is an Exec whose global memory is large: parallel rounds must
// not copy it (save would take a third copy of a launch's memory).
type bigMemExec struct {
	mem   Memory
	saved bool
}

func (x *bigMemExec) NumRegs() int                         { return 1 }
func (x *bigMemExec) InitBlock(*Block) error               { return nil }
func (x *bigMemExec) InitWarp(*Block, *Warp)               {}
func (x *bigMemExec) Run(b *Block, w *Warp, n int64) error { w.Steps++; w.Done = true; return nil }
func (x *bigMemExec) Where(uint32) (uint64, string)        { return 0, "" }
func (x *bigMemExec) GlobalMemory() *Memory                { return &x.mem }
func (x *bigMemExec) WarpAux() any                         { return nil }
func (x *bigMemExec) SaveAux(*Block) func()                { x.saved = true; return func() {} }

// TestParallelSkipsHugeMemory: a long block over more than MaxParallelCopy
// bytes of global memory runs the usual way; over less, its parallel rounds
// start (and save the block).
func TestParallelSkipsHugeMemory(t *testing.T) {
	for _, c := range []struct {
		bytes int
		save  bool
	}{{MaxParallelCopy + 1<<20, false}, {1 << 20, true}} {
		x := &bigMemExec{mem: Memory{Space: Global, Data: make([]byte, c.bytes)}} // untouched pages cost nothing
		cfg := Config{Grid: Dim3{1, 1, 1}, Block: Dim3{64, 1, 1}, MaxSteps: 1 << 40, parallel: 2, WarpCores: 2, WarpCoresAfter: 1}
		r := NewBlockRun(cfg, x)
		if err := r.Start(0); err != nil {
			t.Fatal(err)
		}
		r.B.Steps = 1 << 30 // long past the point where rounds are worth it
		r.tryParallel()
		if !r.triedParallel || x.saved != c.save {
			t.Errorf("%d bytes of global memory: tried %v, saved %v; want saved %v", c.bytes, r.triedParallel, x.saved, c.save)
		}
	}
}
