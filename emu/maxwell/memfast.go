package maxwell

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"

	"github.com/gpuisa/gpuisa/emu"
)

// The fast path of the plain loads and stores: LDG, STG, LDS and STS of 4,
// 8 or 16 bytes in the dense part of global memory or in shared memory.
// The general path (mem) asks the memory for every lane, with its checks;
// here a warp's addresses are checked all together (alignment, bounds),
// then accessed without further tests. When the active lanes access
// consecutive elements in lane order, or all the same one (the usual
// coalesced and uniform patterns), that is one check and a copy. Anything
// else (a lane that would fault, far segments, narrower or generic
// accesses) returns false having changed nothing: mem then runs the
// access and names the fault. In a parallel round the accesses are
// recorded here too, by range when they are contiguous.

// memFast runs o if it can and reports whether it did.
func (k *Kernel) memFast(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) bool {
	if mask == ^uint32(0) && o.size == 4 && o.flags&fE != 0 && hostLE && (o.kind == kLdg || o.kind == kStg) &&
		k.coalesced32(w, o, o.kind == kStg) {
		return true
	}
	return k.memOther(b, w, o, mask, sc)
}

// memOther is memFast but for coalesced32 (tried before, or known not to
// apply).
func (k *Kernel) memOther(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) bool {
	size := uint64(o.size)
	if size != 4 && size != 8 && size != 16 {
		return false
	}
	if mask == 0 {
		return true
	}
	mem, wide := k.memOf(b, o)
	data := mem.Data
	store := o.kind == kStg || o.kind == kSts
	m, v := &o.s[0], int(o.d.row)*32 // the address, and the value's rows
	if store {
		m, v = &o.d, int(o.s[0].row)*32
	}
	regs := w.Regs
	// the address register of the last scattered access: likely the same
	// addresses (an accumulator), which warpRun would not take
	tried := sc.seen.w == w && sc.seen.row == m.row
	known := tried && sc.seen.same(w, data, mask, m, size, wide, regs) // the addresses are in sc.addrs
	if !known {
		if start, step, ok := warpRun(regs, int(m.row)*32, m.imm, wide, uint32(size), mask); ok {
			first, last := bits.TrailingZeros32(mask), 31-bits.LeadingZeros32(mask)
			span := uint64(last-first)*uint64(step) + size
			if start&(size-1) != 0 || start >= uint64(len(data)) || uint64(len(data))-start < span || !wide && start+span > 1<<32 {
				return false
			}
			if w.Track != nil {
				w.Track.AccessRange(mem.Space, start, start+span, store)
			}
			run := data[start : start+span]
			if store {
				storeRun(run, regs, v, int(size/4), step, mask)
			} else {
				loadRun(run, regs, v, int(size/4), step, mask)
			}
			return true
		}
		if !tried && sc.seen.same(w, data, mask, m, size, wide, regs) {
			known = true
		}
	}
	addrs := &sc.addrs
	if !known {
		if !laneAddrs(regs, m, wide, mask, size, uint64(len(data)), addrs) {
			sc.seen.w = nil
			return false
		}
		sc.seen.keep(w, data, mask, m, size, wide, regs)
	}
	if t := w.Track; t != nil {
		// an accumulator's lanes, loaded and stored again and again: once
		// a round
		seen := &sc.seen
		if seen.track != t || seen.round != t.Round {
			seen.track, seen.round, seen.tracked = t, t.Round, 0
		}
		if bit := uint8(1) << b2u32(store); seen.tracked&bit == 0 {
			track(t, mem.Space, store, addrs, mask, size)
			seen.tracked |= bit
		}
	}
	words := int(size / 4)
	if words == 1 && mask == ^uint32(0) && hostLE {
		if store {
			scatter(data, addrs, (*lanes)(regs[v:]))
		} else {
			gather((*lanes)(regs[v:]), data, addrs)
		}
		return true
	}
	if store {
		if words == 1 && mask == ^uint32(0) {
			src := (*lanes)(regs[v:])
			for l := range 32 { // in lane order: the last lane's value stays
				binary.LittleEndian.PutUint32(data[addrs[l]:], src[l])
			}
			return true
		}
		if words == 1 && hostLE {
			src := (*lanes)(regs[v:])
			p := unsafe.Pointer(unsafe.SliceData(data))
			for m := mask; m != 0; m &= m - 1 { // in lane order (offsets checked)
				l := bits.TrailingZeros32(m)
				*(*uint32)(unsafe.Add(p, addrs[l])) = src[l]
			}
			return true
		}
		for l := range 32 {
			if mask>>l&1 != 0 {
				for i := range words {
					binary.LittleEndian.PutUint32(data[addrs[l]+4*uint64(i):], regs[v+32*i+l])
				}
			}
		}
		return true
	}
	// the addresses are in addrs: a destination that is also the address
	// may be written at once
	if words == 1 && mask == ^uint32(0) {
		dst := (*lanes)(regs[v:])
		for l := range 32 {
			dst[l] = binary.LittleEndian.Uint32(data[addrs[l]:])
		}
		return true
	}
	if words == 1 && hostLE {
		dst := (*lanes)(regs[v:])
		p := unsafe.Pointer(unsafe.SliceData(data))
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			dst[l] = *(*uint32)(unsafe.Add(p, addrs[l]))
		}
		return true
	}
	for l := range 32 {
		if mask>>l&1 != 0 {
			for i := range words {
				regs[v+32*i+l] = binary.LittleEndian.Uint32(data[addrs[l]+4*uint64(i):])
			}
		}
	}
	return true
}

// coalesced32 runs the commonest access, if it is one: a 32-bit LDG.E or
// STG.E of every lane to consecutive words in the dense region.
func (k *Kernel) coalesced32(w *emu.Warp, o *op, store bool) bool {
	m, v := &o.s[0], &o.d
	if store {
		m, v = &o.d, &o.s[0]
	}
	regs := w.Regs
	r := int(m.row) * 32
	data := k.Global.Data
	start, ok := rowRun32(regLanes(regs, int(v.row)*32), regLanes(regs, r), regLanes(regs, r+32),
		unsafe.SliceData(data), uint64(len(data)), m.imm-GlobalBase, store)
	if ok && w.Track != nil {
		w.Track.AccessRange(k.Global.Space, start, start+128, store)
	}
	return ok
}

// warpRun reports whether the active lanes' addresses (rows r, and r+1
// when wide) lie size bytes apart in lane order (lane l at the first
// active lane's plus (l-first)*size), or are all the same, and gives the
// first active lane's offset in memory and the step (size or 0). The low
// words must not wrap between the first and last active lane, so that the
// high word is the same for all.
func warpRun(regs []uint32, r int, imm uint64, wide bool, size uint32, mask uint32) (start uint64, step uint32, ok bool) {
	first, last := bits.TrailingZeros32(mask), 31-bits.LeadingZeros32(mask)
	lo := (*lanes)(regs[r:])
	switch dist := lo[last] - lo[first]; {
	case dist == 0:
	case dist == size*uint32(last-first):
		step = size
	default:
		return 0, 0, false
	}
	if uint64(lo[first])+uint64(last-first)*uint64(step) > math.MaxUint32 {
		return 0, 0, false
	}
	want := lo[first] - uint32(first)*step // lane 0's place in the run
	var bad uint32
	if wide {
		hi := (*lanes)(regs[r+32:])
		h0 := hi[first]
		if mask == ^uint32(0) && hostLE {
			if !runPairs(lo, hi, want, step, h0) {
				return 0, 0, false
			}
		} else if contiguous(mask) {
			// a range of lanes (a loop whose later lanes finished first):
			// only those, without lane tests
			want += uint32(first) * step
			for l := first; l <= last; l++ {
				bad |= (lo[l] ^ want) | (hi[l] ^ h0)
				want += step
			}
		} else {
			for l := range 32 {
				active := -(mask >> l & 1) // all ones in an active lane
				bad |= ((lo[l] ^ want) | (hi[l] ^ h0)) & active
				want += step
			}
		}
		return uint64(h0)<<32 | uint64(lo[first]) + imm - GlobalBase, step, bad == 0
	}
	if contiguous(mask) {
		want += uint32(first) * step
		for l := first; l <= last; l++ {
			bad |= lo[l] ^ want
			want += step
		}
		return uint64(lo[first] + uint32(imm)), step, bad == 0
	}
	for l := range 32 {
		bad |= (lo[l] ^ want) & -(mask >> l & 1)
		want += step
	}
	return uint64(lo[first] + uint32(imm)), step, bad == 0
}

// contiguous reports whether mask (not 0) is one run of set bits.
func contiguous(mask uint32) bool {
	m := mask >> bits.TrailingZeros32(mask)
	return m&(m+1) == 0
}

// runPairs reports whether lane l of lo is want+l*step and every lane of
// hi is h (the run must not wrap in 32 bits).
func runPairs(lo, hi *lanes, want, step, h uint32) bool {
	first := [4]uint32{want, want + step, want + 2*step, want + 3*step}
	return !runDiffers(lo, hi, &first, step, h)
}

// loadRun loads the active lanes' elements of words words from run (the
// first active lane's at 0, step bytes apart) into the rows at d.
func loadRun(run []byte, regs []uint32, d, words int, step uint32, mask uint32) {
	if mask == ^uint32(0) && words == 1 {
		row := (*lanes)(regs[d:])
		if step == 0 {
			v := binary.LittleEndian.Uint32(run)
			for l := range 32 {
				row[l] = v
			}
			return
		}
		if hostLE {
			*row = *rowBytes(run)
			return
		}
		src := (*[128]byte)(run)
		for l := range 32 {
			row[l] = binary.LittleEndian.Uint32(src[4*l:])
		}
		return
	}
	if words == 1 && step == 4 && hostLE && contiguous(mask) {
		// a range of lanes: a copy
		first, n := bits.TrailingZeros32(mask), bits.OnesCount32(mask)
		row := (*lanes)(regs[d:])
		copy(row[first:first+n], unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(run))), n))
		return
	}
	off := uint64(0)
	for l := bits.TrailingZeros32(mask); l < 32; l++ {
		if mask>>l&1 != 0 {
			for i := range words {
				regs[d+32*i+l] = binary.LittleEndian.Uint32(run[off+4*uint64(i):])
			}
		}
		off += uint64(step)
	}
}

// storeRun stores the active lanes' elements from the rows at s into run
// (as loadRun); with step 0 every lane stores to the same element and the
// last active lane's value stays.
func storeRun(run []byte, regs []uint32, s, words int, step uint32, mask uint32) {
	if step == 0 {
		l := 31 - bits.LeadingZeros32(mask)
		for i := range words {
			binary.LittleEndian.PutUint32(run[4*i:], regs[s+32*i+l])
		}
		return
	}
	if mask == ^uint32(0) && words == 1 {
		row := (*lanes)(regs[s:])
		if hostLE {
			*rowBytes(run) = *row
			return
		}
		dst := (*[128]byte)(run)
		for l := range 32 {
			binary.LittleEndian.PutUint32(dst[4*l:], row[l])
		}
		return
	}
	if words == 1 && step == 4 && hostLE && contiguous(mask) {
		first, n := bits.TrailingZeros32(mask), bits.OnesCount32(mask)
		row := (*lanes)(regs[s:])
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(run))), n), row[first:first+n])
		return
	}
	off := uint64(0)
	for l := bits.TrailingZeros32(mask); l < 32; l++ {
		if mask>>l&1 != 0 {
			for i := range words {
				binary.LittleEndian.PutUint32(run[off+4*uint64(i):], regs[s+32*i+l])
			}
		}
		off += uint64(step)
	}
}

// seenAddrs remembers the last access laneAddrs checked (its addresses
// are in scratch.addrs): a loop that loads or stores the same scattered
// elements again and again (an accumulator in memory, one per thread,
// maybe by several instructions of an unrolled loop) compares the address
// registers instead of checking every lane again.
type seenAddrs struct {
	w         *emu.Warp // nil: none
	data      *byte     // the memory, and its size
	n         int
	mask      uint32
	imm, size uint64 // the address's offset, the access's size
	wide      bool
	row       uint16     // the address register's row (a hint: the values are compared)
	rows      [64]uint32 // the address registers (the high words' row too when wide)
	// in a parallel round: the record the access went to, its round,
	// and whether the reads (bit 0) and writes (bit 1) are recorded
	track   *emu.Track
	round   uint64
	tracked uint8
}

// same reports whether warp w accesses, for the lanes in mask, the same
// memory with an access of the same size at the same offset from the same
// address register values (the rows at r) as the access remembered.
func (s *seenAddrs) same(w *emu.Warp, data []byte, mask uint32, m *opnd, size uint64, wide bool, regs []uint32) bool {
	if s.w != w || s.mask != mask || s.imm != m.imm || s.size != size || s.wide != wide ||
		s.data != unsafe.SliceData(data) || s.n != len(data) {
		return false
	}
	r, n := int(m.row)*32, 32
	if wide {
		n = 64
	}
	return equalWords(s.rows[:n], regs[r:r+n])
}

// keep remembers an access whose addresses laneAddrs checked.
func (s *seenAddrs) keep(w *emu.Warp, data []byte, mask uint32, m *opnd, size uint64, wide bool, regs []uint32) {
	s.w, s.data, s.n, s.mask, s.imm, s.size, s.wide, s.row = w, unsafe.SliceData(data), len(data), mask, m.imm, size, wide, m.row
	s.track, s.tracked = nil, 0
	r, n := int(m.row)*32, 32
	if wide {
		n = 64
	}
	copy(s.rows[:n], regs[r:r+n])
}

// laneAddrs computes the active lanes' offsets in memory into addrs and
// reports whether all are aligned to size and inside n bytes.
func laneAddrs(regs []uint32, m *opnd, wide bool, mask uint32, size, n uint64, addrs *[32]uint64) bool {
	if n < size || n >= 1<<62 {
		return false
	}
	lim := n - size
	r := int(m.row) * 32
	// past's top bit: some lane's offset beyond lim (offsets of 2^63 or
	// more show in or's top bit, where lim - a would not)
	var or, past uint64
	if mask == ^uint32(0) && wide { // the usual case without lane tests
		rlo, rhi := (*lanes)(regs[r:]), (*lanes)(regs[r+32:])
		off := m.imm - GlobalBase
		for l := range 32 {
			a := uint64(rlo[l]) | uint64(rhi[l])<<32 + off
			addrs[l] = a
			or |= a
			past |= lim - a
		}
	} else {
		for l := range 32 {
			if mask>>l&1 == 0 {
				continue
			}
			a := uint64(regs[r+l])
			if wide {
				a = a | uint64(regs[r+32+l])<<32 + m.imm - GlobalBase
			} else {
				a = uint64(uint32(a + m.imm))
			}
			addrs[l] = a
			or |= a
			past |= lim - a
		}
	}
	return or&(size-1) == 0 && (or|past)>>63 == 0
}

// track records the lanes' accesses in a parallel round (lines the warp
// touched). The offsets are aligned to size (laneAddrs), so an access no
// larger than a line lies in one.
func track(t *emu.Track, space emu.Space, write bool, addrs *[32]uint64, mask uint32, size uint64) {
	set, shift := t.Lines(space, write)
	if set == nil {
		return
	}
	if size <= 1<<shift {
		for l := range 32 {
			if mask>>l&1 != 0 {
				set.Mark(addrs[l] >> shift)
			}
		}
		return
	}
	for l := range 32 {
		if mask>>l&1 != 0 {
			set.MarkRange(addrs[l]>>shift, (addrs[l]+size-1)>>shift)
		}
	}
}
