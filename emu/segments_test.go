package emu

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sparse is a space with a 64-byte dense region and two segments, one far
// above 4 GiB and one at the top of the address space.
func sparse() *Memory {
	return &Memory{Space: Global, Data: make([]byte, 64), Segments: []Segment{
		{Addr: 0x1_0000_0100, Data: make([]byte, 256)},
		{Addr: math.MaxUint64 - 255, Data: make([]byte, 256)},
	}}
}

func TestSegmentAccess(t *testing.T) {
	m := sparse()
	for _, a := range []uint64{0, 56, 0x1_0000_0100, 0x1_0000_01f8, math.MaxUint64 - 7} {
		if err := m.Store(a, 8, a^0x0123456789abcdef); err != nil {
			t.Fatalf("Store(%#x): %v", a, err)
		}
		if v, err := m.Load(a, 8); err != nil || v != a^0x0123456789abcdef {
			t.Errorf("Load(%#x) = %#x, %v", a, v, err)
		}
		if v, err := m.Load(a+4, 4); err != nil || v != (a^0x0123456789abcdef)>>32 {
			t.Errorf("Load(%#x) = %#x, %v", a+4, v, err)
		}
	}
	if got := m.Segments[0].Data[0xf8]; got != (0xf8 ^ 0xef) {
		t.Errorf("segment byte %#x", got)
	}
	// Load32/Store32 are the dense fast path only
	if _, ok := m.Load32(0x100); ok {
		t.Error("Load32 outside the dense region succeeded")
	}
	// 16-byte accesses (LDG.E.128) and their faults
	b, err := m.Slice(0x1_0000_0110, 16, true)
	if err != nil || len(b) != 16 {
		t.Fatalf("Slice = %d bytes, %v", len(b), err)
	}
	if _, err := m.Slice(0x1_0000_0118, 16, false); err == nil || !strings.Contains(err.Error(), "misaligned 16-byte global read at 0x100000118") {
		t.Errorf("misaligned Slice in a segment: %v", err)
	}
	// atomics in a segment
	m.Store(0x1_0000_0140, 4, 7)
	if old, err := m.Atomic32(0x1_0000_0140, AtomAdd, 5, 0); err != nil || old != 7 {
		t.Errorf("Atomic32 = %d, %v", old, err)
	}
	if v, _ := m.Load(0x1_0000_0140, 4); v != 12 {
		t.Errorf("after Atomic32: %d", v)
	}
	m.Store(0x1_0000_0148, 8, 1<<40)
	if old, err := m.Atomic64(0x1_0000_0148, AtomCAS, 1<<40, 3); err != nil || old != 1<<40 {
		t.Errorf("Atomic64 = %#x, %v", old, err)
	}
	if v, _ := m.Load(0x1_0000_0148, 8); v != 3 {
		t.Errorf("after Atomic64: %#x", v)
	}
	if err := m.Write(0x1_0000_01fe, []byte{1, 2}); err != nil {
		t.Errorf("Write at a segment's end: %v", err)
	}
	if b, err := m.Bytes(0x1_0000_01fe, 2); err != nil || !bytes.Equal(b, []byte{1, 2}) {
		t.Errorf("Bytes = %v, %v", b, err)
	}
}

func TestSegmentFaults(t *testing.T) {
	m := sparse()
	for _, c := range []struct {
		addr uint64
		size int
		text string
	}{
		{64, 4, "4-byte global read at 0x40 is outside memory (0x40 bytes at 0 and 2 further segments)"},
		{0x1_0000_00fc, 4, "at 0x1000000fc is outside memory"},  // just below a segment
		{0x1_0000_0200, 1, "at 0x100000200 is outside memory"},  // just past it
		{0x1_0000_01fc, 8, "8-byte global read at 0x1000001fc"}, // straddles its end
		{0x1_0000_0102, 4, "misaligned 4-byte global read at 0x100000102"},
		{1 << 40, 2, "at 0x10000000000 is outside memory"},
		{math.MaxUint64, 2, "at 0xffffffffffffffff is outside memory"},
	} {
		_, err := m.Load(c.addr, c.size)
		var mf *MemFault
		if !errors.As(err, &mf) || mf.Addr != c.addr || mf.Size != c.size || !strings.Contains(err.Error(), c.text) {
			t.Errorf("Load(%#x, %d) = %v, want a fault %q", c.addr, c.size, err, c.text)
		}
		if err := m.Store(c.addr, c.size, 1); err == nil {
			t.Errorf("Store(%#x, %d) succeeded", c.addr, c.size)
		}
		if _, err := m.Atomic32(c.addr&^3, AtomAdd, 1, 0); err == nil && c.size == 4 && c.addr%4 == 0 {
			t.Errorf("Atomic32(%#x) succeeded", c.addr)
		}
	}
	if err := m.Write(0x1_0000_01ff, []byte{1, 2}); err == nil {
		t.Error("Write across a segment's end succeeded")
	}
	if _, err := m.Bytes(60, 8); err == nil {
		t.Error("Bytes across the dense region's end succeeded")
	}
	if err := m.Fault(0x1_0000_0102, 4, true); !strings.Contains(err.Error(), "misaligned 4-byte global write") {
		t.Errorf("Fault: %v", err)
	}
}

// TestLoadFarImages: global images at or above MaxMemory get segments (256
// byte aligned, merged when they touch), buffers stay dense, outputs and
// expectations read segments.
func TestLoadFarImages(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.bin", []byte{1, 2, 3, 4, 5, 6, 7, 8})
	write("p", nil)
	write("tsv", []byte("addr\texp\n0x200000000\t0x4030201\n0x200000104\t0x99999999\n"))
	l, err := ParseLaunch([]byte(`{"program": "p", "grid": [1], "block": [32],
	  "memory": [
	    {"space": "global", "addr": "0x200000000", "file": "a.bin"},
	    {"space": "global", "addr": "0x200000104", "bytes": 4, "fill": "0x99"},
	    {"space": "global", "addr": "0x200000300", "bytes": 4, "fill": "0x11"},
	    {"space": "global", "addr": "0xfffffffffffffff0", "bytes": 16, "fill": "0x22"},
	    {"space": "global", "addr": "0x100", "bytes": 4, "fill": "0x33"}],
	  "buffers": {"x": {"bytes": 64, "fill": "0x44"}},
	  "outputs": [{"space": "global", "addr": "0x200000000", "bytes": 8, "file": "o.bin"}],
	  "expect": [{"output": "o.bin", "file": "a.bin", "type": "u8"}, {"space": "global", "words": "tsv"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(l, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Global) != DefaultGlobalBytes || s.Global[0x100] != 0x33 || s.Buffers["x"].Addr != 0x200 {
		t.Errorf("dense region %#x bytes, buffer x at %#x", len(s.Global), s.Buffers["x"].Addr)
	}
	var got [][2]uint64
	for _, sg := range s.GlobalSegments {
		got = append(got, [2]uint64{sg.Addr, uint64(len(sg.Data))})
	}
	want := [][2]uint64{{0x2_0000_0000, 0x200}, {0x2_0000_0300, 0x100}, {math.MaxUint64 - 255, 0x100}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("segments %#x, want %#x", got, want)
	}
	m := s.GlobalMemory()
	if v, err := m.Load(0x2_0000_0104, 4); err != nil || v != 0x99999999 {
		t.Errorf("merged image: %#x, %v", v, err)
	}
	if v, err := m.Load(math.MaxUint64-7, 8); err != nil || v != 0x2222222222222222 {
		t.Errorf("top image: %#x, %v", v, err)
	}
	m.Segments[0].Data[0] = 0xee // a copy: the setup keeps its images
	if s.GlobalSegments[0].Data[0] != 1 {
		t.Error("GlobalMemory shares the setup's segments")
	}
	r := &Result{Global: s.Global, Segments: s.GlobalSegments}
	if b, err := s.OutputBytes(l.Outputs[0], r); err != nil || b[7] != 8 {
		t.Errorf("output: %v, %v", b, err)
	}
	if n, err := s.Check(r); err != nil || n != 8+2 {
		t.Errorf("expectations: %d, %v", n, err)
	}
	for text, msg := range map[string]string{
		`{"space": "global", "addr": "0x3ffffff0", "bytes": 32}`:           "ends past 0x40000000",
		`{"space": "shared", "addr": "0x40000000", "bytes": 4}`:            "memory[0].addr",
		`{"space": "global", "addr": "0x40000000", "bytes": "0x40000001"}`: "memory[0].bytes",
	} {
		l, err := ParseLaunch([]byte(`{"program": "p", "grid": [1], "block": [1], "memory": [` + text + `]}`))
		if err == nil {
			_, err = Load(l, dir)
		}
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", text, err, msg)
		}
	}
	// the segments together are bounded like the dense region
	l, _ = ParseLaunch([]byte(`{"program": "p", "grid": [1], "block": [1], "memory": [
	  {"addr": "0x100000000", "bytes": "0x30000000"}, {"addr": "0x200000000", "bytes": "0x30000000"}]}`))
	if _, err := Load(l, dir); err == nil || !strings.Contains(err.Error(), "need more than") {
		t.Errorf("2 x 768 MiB of segments: %v", err)
	}
}
