package emu

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Space names a memory space in errors and launch files.
type Space uint8

const (
	Global Space = iota
	Shared
	Constant
	Local
)

var spaceNames = [...]string{"global", "shared", "constant", "local"}

func (s Space) String() string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	return fmt.Sprintf("space%d", s)
}

// MemFault is an access outside a space or at a misaligned address.
type MemFault struct {
	Space Space
	Addr  uint64
	Size  int
	Write bool
	Limit uint64 // the space's size
}

func (e *MemFault) Error() string {
	what := "read"
	if e.Write {
		what = "write"
	}
	if e.Size > 1 && e.Addr%uint64(e.Size) != 0 && e.Addr+uint64(e.Size) <= e.Limit {
		return fmt.Sprintf("misaligned %d-byte %s %s at %#x", e.Size, e.Space, what, e.Addr)
	}
	return fmt.Sprintf("%d-byte %s %s at %#x is out of bounds (size %#x)", e.Size, e.Space, what, e.Addr, e.Limit)
}

// Memory is one bounds-checked, little-endian memory space. Accesses must be
// naturally aligned. Methods return a *MemFault instead of panicking. Data
// must start 8-byte aligned (as make allocates it) for the atomics.
type Memory struct {
	Space Space
	Data  []byte
}

func (m *Memory) check(addr uint64, size int, write bool) error {
	if addr%uint64(size) != 0 || addr >= uint64(len(m.Data)) || uint64(len(m.Data))-addr < uint64(size) {
		return &MemFault{Space: m.Space, Addr: addr, Size: size, Write: write, Limit: uint64(len(m.Data))}
	}
	return nil
}

// Load reads a size-byte (1, 2, 4 or 8) little-endian value.
func (m *Memory) Load(addr uint64, size int) (uint64, error) {
	if err := m.check(addr, size, false); err != nil {
		return 0, err
	}
	b := m.Data[addr:]
	switch size {
	case 1:
		return uint64(b[0]), nil
	case 2:
		return uint64(binary.LittleEndian.Uint16(b)), nil
	case 4:
		return uint64(binary.LittleEndian.Uint32(b)), nil
	}
	return binary.LittleEndian.Uint64(b), nil
}

// Store writes a size-byte (1, 2, 4 or 8) little-endian value.
func (m *Memory) Store(addr uint64, size int, v uint64) error {
	if err := m.check(addr, size, true); err != nil {
		return err
	}
	b := m.Data[addr:]
	switch size {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
	return nil
}

// Load32 is Load for the common 32-bit case; ok is false on a fault (call
// Fault32 for the error).
func (m *Memory) Load32(addr uint32) (uint32, bool) {
	if addr&3 != 0 || uint64(addr)+4 > uint64(len(m.Data)) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(m.Data[addr:]), true
}

// Store32 is Store for the common 32-bit case; ok is false on a fault.
func (m *Memory) Store32(addr uint32, v uint32) bool {
	if addr&3 != 0 || uint64(addr)+4 > uint64(len(m.Data)) {
		return false
	}
	binary.LittleEndian.PutUint32(m.Data[addr:], v)
	return true
}

// Fault builds the error for a failed access.
func (m *Memory) Fault(addr uint64, size int, write bool) error {
	return &MemFault{Space: m.Space, Addr: addr, Size: size, Write: write, Limit: uint64(len(m.Data))}
}

// Bytes returns a copy of n bytes at addr.
func (m *Memory) Bytes(addr, n uint64) ([]byte, error) {
	if addr > uint64(len(m.Data)) || uint64(len(m.Data))-addr < n {
		return nil, &MemFault{Space: m.Space, Addr: addr, Size: int(min(n, 1<<30)), Limit: uint64(len(m.Data))}
	}
	return append([]byte(nil), m.Data[addr:addr+n]...), nil
}

// Write copies b to addr.
func (m *Memory) Write(addr uint64, b []byte) error {
	if addr > uint64(len(m.Data)) || uint64(len(m.Data))-addr < uint64(len(b)) {
		return &MemFault{Space: m.Space, Addr: addr, Size: len(b), Write: true, Limit: uint64(len(m.Data))}
	}
	copy(m.Data[addr:], b)
	return nil
}

// AtomicOp is a read-modify-write operation on memory.
type AtomicOp uint8

const (
	AtomAdd AtomicOp = iota
	AtomExch
	AtomCAS // compare with a, store b
	AtomInc // old >= a ? 0 : old+1
	AtomDec // old == 0 || old > a ? a : old-1
	AtomMinS
	AtomMinU
	AtomMaxS
	AtomMaxU
	AtomAnd
	AtomOr
	AtomXor
)

func (op AtomicOp) apply32(old, a, b uint32) uint32 {
	switch op {
	case AtomAdd:
		return old + a
	case AtomExch:
		return a
	case AtomCAS:
		if old == a {
			return b
		}
		return old
	case AtomInc:
		if old >= a {
			return 0
		}
		return old + 1
	case AtomDec:
		if old == 0 || old > a {
			return a
		}
		return old - 1
	case AtomMinS:
		return uint32(min(int32(old), int32(a)))
	case AtomMinU:
		return min(old, a)
	case AtomMaxS:
		return uint32(max(int32(old), int32(a)))
	case AtomMaxU:
		return max(old, a)
	case AtomAnd:
		return old & a
	case AtomOr:
		return old | a
	case AtomXor:
		return old ^ a
	}
	return old
}

// Atomic32 applies op to the aligned word at addr atomically (blocks run in
// parallel) and returns the old value.
func (m *Memory) Atomic32(addr uint64, op AtomicOp, a, b uint32) (uint32, error) {
	if err := m.check(addr, 4, true); err != nil {
		return 0, err
	}
	p := (*uint32)(unsafe.Pointer(&m.Data[addr]))
	for {
		old := atomic.LoadUint32(p)
		if atomic.CompareAndSwapUint32(p, old, op.apply32(old, a, b)) {
			return old, nil
		}
	}
}

// Atomic64 is Atomic32 for aligned 64-bit words (add, exchange, CAS).
func (m *Memory) Atomic64(addr uint64, op AtomicOp, a, b uint64) (uint64, error) {
	if err := m.check(addr, 8, true); err != nil {
		return 0, err
	}
	p := (*uint64)(unsafe.Pointer(&m.Data[addr]))
	for {
		old := atomic.LoadUint64(p)
		nv := old
		switch op {
		case AtomAdd:
			nv = old + a
		case AtomExch:
			nv = a
		case AtomCAS:
			if old == a {
				nv = b
			}
		default:
			return 0, fmt.Errorf("64-bit atomic operation %d not supported", op)
		}
		if atomic.CompareAndSwapUint64(p, old, nv) {
			return old, nil
		}
	}
}
