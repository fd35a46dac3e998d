package emu

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestMemoryBounds(t *testing.T) {
	m := &Memory{Space: Shared, Data: make([]byte, 16)}
	if err := m.Store(12, 4, 0xdeadbeef); err != nil {
		t.Fatal(err)
	}
	if v, err := m.Load(12, 4); err != nil || v != 0xdeadbeef {
		t.Fatalf("Load = %#x, %v", v, err)
	}
	if v, ok := m.Load32(12); !ok || v != 0xdeadbeef {
		t.Fatalf("Load32 = %#x, %v", v, ok)
	}
	for _, a := range []uint64{16, 13, 14, 1 << 40, math.MaxUint64, math.MaxUint64 - 2} {
		for _, size := range []int{1, 2, 4, 8} {
			_, err := m.Load(a, size)
			if a < 16 && a%uint64(size) == 0 && a+uint64(size) <= 16 {
				continue // a valid access
			}
			var mf *MemFault
			if !errors.As(err, &mf) {
				t.Errorf("Load(%#x, %d) = %v, want a fault", a, size, err)
			}
			if m.Store(a, size, 1) == nil {
				t.Errorf("Store(%#x, %d) succeeded", a, size)
			}
		}
	}
	if _, ok := m.Load32(0xfffffffc); ok {
		t.Error("Load32 past the end succeeded")
	}
	if m.Store32(13, 0) {
		t.Error("misaligned Store32 succeeded")
	}
	err := m.Fault(5, 4, false)
	if !strings.Contains(err.Error(), "misaligned 4-byte shared read at 0x5") {
		t.Errorf("fault text %q", err)
	}
	if _, err := m.Bytes(8, 16); err == nil {
		t.Error("Bytes past the end succeeded")
	}
	if err := m.Write(15, []byte{1, 2}); err == nil {
		t.Error("Write past the end succeeded")
	}
}
