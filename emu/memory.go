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
	Limit uint64 // the size of the space's dense region (at address 0)
	// Segments is the number of the space's further segments (a sparse
	// space, see Memory); InSegment says the bytes lie in one of them.
	Segments  int
	InSegment bool
	// What the ISA adds when it knows it (zero otherwise): Device is the
	// address the kernel computed, when it differs from Addr (Maxwell's
	// global memory starts at 4 GiB); Buffer is the launch buffer the
	// access falls in or lies nearest to, BufferOffset the access's
	// offset from the buffer's start (negative before it, BufferBytes or
	// more past its end).
	Device       uint64
	HasDevice    bool // Device is set
	Buffer       string
	BufferOffset int64
	BufferBytes  uint64
}

func (e *MemFault) Error() string {
	what := "read"
	if e.Write {
		what = "write"
	}
	inside := e.InSegment || e.Addr < e.Limit && e.Limit-e.Addr >= uint64(e.Size)
	if e.Size > 1 && e.Addr%uint64(e.Size) != 0 && inside {
		return fmt.Sprintf("misaligned %d-byte %s %s at %#x", e.Size, e.Space, what, e.Addr) + e.where()
	}
	if e.Segments > 0 {
		return fmt.Sprintf("%d-byte %s %s at %#x is outside memory (%#x bytes at 0 and %d further segments)",
			e.Size, e.Space, what, e.Addr, e.Limit, e.Segments) + e.where()
	}
	return fmt.Sprintf("%d-byte %s %s at %#x is out of bounds (size %#x)", e.Size, e.Space, what, e.Addr, e.Limit) + e.where()
}

// where is the device address and buffer part of the message.
func (e *MemFault) where() string {
	s := ""
	if e.HasDevice && e.Device != e.Addr {
		s = "; device address " + DeviceHex(e.Device)
	}
	if e.Buffer == "" {
		return s
	}
	switch off := e.BufferOffset; {
	case off < 0:
		s += fmt.Sprintf("; %d bytes before buffer %q (%d bytes)", -off, e.Buffer, e.BufferBytes)
	case uint64(off) >= e.BufferBytes:
		s += fmt.Sprintf("; %d bytes past the end of buffer %q (%d bytes, offset %#x)", uint64(off)-e.BufferBytes, e.Buffer, e.BufferBytes, off)
	default:
		s += fmt.Sprintf("; offset %#x of buffer %q (%d bytes)", off, e.Buffer, e.BufferBytes)
	}
	return s
}

// DeviceHex writes a 64-bit device address with its high word apart:
// 0x1_00401100.
func DeviceHex(a uint64) string {
	if a>>32 == 0 {
		return fmt.Sprintf("%#x", a)
	}
	return fmt.Sprintf("%#x_%08x", a>>32, uint32(a))
}

// Memory is one bounds-checked, little-endian memory space. Accesses must be
// naturally aligned. Methods return a *MemFault instead of panicking.
//
// A space is a dense region at address 0 (Data) and, optionally, further
// segments at arbitrary 64-bit addresses, so that a kernel can touch
// addresses far apart without the gap being allocated. Accesses look at the
// dense region first (the common case costs what it did without segments),
// then search the segments; an access must lie within one region. Data and
// every segment must start 8-byte aligned (as make allocates it, at an
// address that is a multiple of 8) for the atomics.
type Memory struct {
	Space    Space
	Data     []byte
	Segments []Segment // sorted by address, disjoint, none overlapping Data
	// Reserved records where an emulator put a program's own data in the
	// dense region (a cubin's global variables, a constant bank's copy),
	// under a key of the emulator's: the later launches on this memory (a
	// Device's) find them there with the values the kernels left, and a
	// Device's Clone keeps them.
	Reserved map[any]uint64
}

// Segment is a region of a sparse space at a fixed address.
type Segment struct {
	Addr uint64
	Data []byte
}

// segment returns the bytes from addr to the end of the segment holding
// [addr, addr+n), or nil.
func (m *Memory) segment(addr, n uint64) []byte {
	segs := m.Segments
	// the last segment starting at or below addr
	lo, hi := 0, len(segs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if segs[mid].Addr <= addr {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return nil
	}
	s := &segs[lo-1]
	off := addr - s.Addr
	if off >= uint64(len(s.Data)) || uint64(len(s.Data))-off < n {
		return nil
	}
	return s.Data[off:]
}

// span returns the bytes from addr on (at least n of them) in the dense
// region or a segment, or nil when [addr, addr+n) is not within one region.
func (m *Memory) span(addr, n uint64) []byte {
	if addr < uint64(len(m.Data)) && uint64(len(m.Data))-addr >= n {
		return m.Data[addr:]
	}
	if len(m.Segments) == 0 {
		return nil
	}
	return m.segment(addr, n)
}

// at returns the bytes of a naturally aligned size-byte access at addr.
func (m *Memory) at(addr uint64, size int, write bool) ([]byte, error) {
	b := m.span(addr, uint64(size))
	if b == nil || addr%uint64(size) != 0 {
		return nil, m.fault(addr, size, write, b != nil)
	}
	return b, nil
}

func (m *Memory) fault(addr uint64, size int, write, inside bool) *MemFault {
	return &MemFault{Space: m.Space, Addr: addr, Size: size, Write: write, Limit: uint64(len(m.Data)),
		Segments: len(m.Segments), InSegment: inside && addr >= uint64(len(m.Data))}
}

// Slice returns the bytes of a naturally aligned size-byte access at addr
// (for accesses wider than Load and Store handle, such as 128-bit ones).
func (m *Memory) Slice(addr uint64, size int, write bool) ([]byte, error) {
	b, err := m.at(addr, size, write)
	if err != nil {
		return nil, err
	}
	return b[:size], nil
}

// Load reads a size-byte (1, 2, 4 or 8) little-endian value.
func (m *Memory) Load(addr uint64, size int) (uint64, error) {
	b, err := m.at(addr, size, false)
	if err != nil {
		return 0, err
	}
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
	b, err := m.at(addr, size, true)
	if err != nil {
		return err
	}
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

// Load32 is Load for the common 32-bit case in the dense region; ok is
// false otherwise (Load then reads segments or names the fault).
func (m *Memory) Load32(addr uint32) (uint32, bool) {
	if addr&3 != 0 || uint64(addr)+4 > uint64(len(m.Data)) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(m.Data[addr:]), true
}

// Store32 is Store for the common 32-bit case in the dense region; ok is
// false otherwise.
func (m *Memory) Store32(addr uint32, v uint32) bool {
	if addr&3 != 0 || uint64(addr)+4 > uint64(len(m.Data)) {
		return false
	}
	binary.LittleEndian.PutUint32(m.Data[addr:], v)
	return true
}

// Fault builds the error for a failed access.
func (m *Memory) Fault(addr uint64, size int, write bool) error {
	_, err := m.at(addr, size, write)
	if err == nil {
		return m.fault(addr, size, write, false)
	}
	return err
}

// region returns the n bytes at addr, which must lie within one region
// (n may be 0 anywhere a region starts or ends).
func (m *Memory) region(addr, n uint64, write bool) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	b := m.span(addr, n)
	if b == nil {
		return nil, m.fault(addr, int(min(n, 1<<30)), write, false)
	}
	return b[:n], nil
}

// Bytes returns a copy of n bytes at addr (within one region).
func (m *Memory) Bytes(addr, n uint64) ([]byte, error) {
	b, err := m.region(addr, n, false)
	if err != nil {
		return nil, err
	}
	return append([]byte{}, b...), nil
}

// Write copies b to addr (within one region).
func (m *Memory) Write(addr uint64, b []byte) error {
	d, err := m.region(addr, uint64(len(b)), true)
	if err != nil {
		return err
	}
	copy(d, b)
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
	word, err := m.at(addr, 4, true)
	if err != nil {
		return 0, err
	}
	p := (*uint32)(unsafe.Pointer(&word[0]))
	for {
		old := atomic.LoadUint32(p)
		if atomic.CompareAndSwapUint32(p, old, op.apply32(old, a, b)) {
			return old, nil
		}
	}
}

// Atomic64 is Atomic32 for aligned 64-bit words (add, exchange, CAS).
func (m *Memory) Atomic64(addr uint64, op AtomicOp, a, b uint64) (uint64, error) {
	word, err := m.at(addr, 8, true)
	if err != nil {
		return 0, err
	}
	p := (*uint64)(unsafe.Pointer(&word[0]))
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
