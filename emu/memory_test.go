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

func TestAtomics(t *testing.T) {
	m := &Memory{Space: Global, Data: make([]byte, 64)}
	cases := []struct {
		op        AtomicOp
		old, a, b uint32
		want      uint32
	}{
		{AtomAdd, 5, 3, 0, 8}, {AtomExch, 5, 3, 0, 3}, {AtomCAS, 5, 5, 9, 9}, {AtomCAS, 5, 4, 9, 5},
		{AtomInc, 5, 5, 0, 0}, {AtomInc, 4, 5, 0, 5}, {AtomDec, 0, 7, 0, 7}, {AtomDec, 9, 7, 0, 7}, {AtomDec, 3, 7, 0, 2},
		{AtomMinS, 0xffffffff, 1, 0, 0xffffffff}, {AtomMinU, 0xffffffff, 1, 0, 1}, {AtomMaxS, 0xffffffff, 1, 0, 1},
		{AtomMaxU, 0xffffffff, 1, 0, 0xffffffff}, {AtomAnd, 6, 3, 0, 2}, {AtomOr, 6, 3, 0, 7}, {AtomXor, 6, 3, 0, 5},
	}
	for _, c := range cases {
		m.Store(8, 4, uint64(c.old))
		old, err := m.Atomic32(8, c.op, c.a, c.b)
		got, _ := m.Load(8, 4)
		if err != nil || old != c.old || uint32(got) != c.want {
			t.Errorf("op %d on %#x with %#x, %#x: old %#x, now %#x, %v; want %#x", c.op, c.old, c.a, c.b, old, got, err, c.want)
		}
	}
	if _, err := m.Atomic32(62, AtomAdd, 1, 0); err == nil {
		t.Error("misaligned atomic accepted")
	}
	m.Store(16, 8, 1<<40)
	if old, err := m.Atomic64(16, AtomAdd, 1<<40, 0); err != nil || old != 1<<40 {
		t.Errorf("Atomic64 = %#x, %v", old, err)
	}
	if v, _ := m.Load(16, 8); v != 1<<41 {
		t.Errorf("after Atomic64: %#x", v)
	}
}
