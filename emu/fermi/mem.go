package fermi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/gpuisa/gpuisa/emu"
)

// Generic addresses (LD, ST, LDU, ATOM, RED, LDLK, STUL): sm_2x maps a
// window of the generic address space onto the block's shared memory and
// another onto the thread's local memory; the rest is global memory. The
// windows are where nouveau's Fermi compute setup puts them (the
// SHARED_BASE and LOCAL_BASE methods of nvc0_compute.c: 0xfe << 24 and
// 0xff << 24), which is also what S2R SR_SWINLO / SR_LWINLO return here;
// NVIDIA's driver does not document its choice. Global memory is the
// launch's dense region at address 0 (its buffers start at 0x100), in 32-
// and 64-bit builds alike.
const (
	SharedWindow = 0xfe000000
	LocalWindow  = 0xff000000
	WindowSize   = 1 << 24
)

// address is lane l's address of memory operand m: 32 bits, or (wide, a
// .E access) the 64-bit register pair plus the offset.
func address(regs []uint32, m *opnd, wide bool, l int) uint64 {
	base := uint64(regs[int(m.row)*32+l])
	if m.row == rowRZ {
		base = 0
	}
	if wide {
		if m.row != rowRZ {
			base |= uint64(hiReg(regs, int(m.row), l)) << 32
		}
		return base + uint64(m.imm)
	}
	return uint64(uint32(base + uint64(m.imm)))
}

// generic resolves a generic address to a memory and an offset in it.
func (k *Kernel) generic(b *emu.Block, w *emu.Warp, addr uint64, l int, local *emu.Memory) (*emu.Memory, uint64, error) {
	switch {
	case addr >= SharedWindow && addr < SharedWindow+WindowSize:
		return &b.Shared, addr - SharedWindow, nil
	case addr >= LocalWindow && addr < LocalWindow+WindowSize:
		if err := k.localOf(w, l, local); err != nil {
			return nil, 0, err
		}
		return local, addr - LocalWindow, nil
	}
	return k.Global, addr, nil
}

// laneMem is the memory and address lane l's access of operand m goes to.
func (k *Kernel) laneMem(b *emu.Block, w *emu.Warp, o *op, m *opnd, wide bool, l int, local *emu.Memory) (*emu.Memory, uint64, error) {
	regs := w.Regs
	switch {
	case o.kind == kLds || o.kind == kSts || (o.kind == kStul || o.kind == kLdlk) && o.flags&fShared != 0:
		return &b.Shared, address(regs, m, false, l), nil
	}
	switch o.kind {
	case kLdl, kStl:
		if err := k.localOf(w, l, local); err != nil {
			return nil, 0, err
		}
		return local, address(regs, m, false, l), nil
	case kLdc:
		return &k.Const[m.bank], address(regs, m, false, l), nil
	}
	return k.generic(b, w, address(regs, m, wide, l), l, local)
}

// extend sign-extends a loaded 8- or 16-bit value when signed.
func extend(v uint64, size uint8, signed bool) uint32 {
	if !signed {
		return uint32(v)
	}
	switch size {
	case 1:
		return uint32(int32(int8(v)))
	case 2:
		return uint32(int32(int16(v)))
	}
	return uint32(v)
}

// mem runs the loads and stores.
func (k *Kernel) mem(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	regs := w.Regs
	local := emu.Memory{Space: emu.Local}
	switch o.kind {
	case kLdLdu:
		// both loads read before either register is written
		var lo, hi [32][4]uint32
		ldKind := kLd
		if o.flags&fShared != 0 {
			ldKind = kLds
		}
		if err := k.loadLanes(b, w, ldKind, &o.s[0], o.size, o.sub != 0, o.flags&fE != 0 && o.flags&fShared == 0, mask, &local, &lo); err != nil {
			return err
		}
		wideU := o.flags&fUniform != 0 || o.flags&fShared != 0 && o.flags&fE != 0
		if err := k.loadLanes(b, w, kLd, &o.s[1], o.size2, o.sub2 != 0, wideU, mask, &local, &hi); err != nil {
			return err
		}
		putLanes(regs, &o.d, o.size, mask, &lo)
		putLanes(regs, &o.d2, o.size2, mask, &hi)
		return nil
	case kLd, kLds, kLdl, kLdc, kLdlk:
		m := &o.s[0]
		if o.size == 4 && o.kind != kLdlk {
			if k.load32Fast(b, w, o, m, mask, sc) {
				return nil
			}
		}
		if o.size < 4 && k.loadSmallFast(b, w, o, m, mask, sc) {
			return nil
		}
		var vals [32][4]uint32
		if o.kind == kLdlk {
			return k.loadLock(b, w, o, mask, sc, &local)
		}
		if err := k.loadLanes(b, w, o.kind, m, o.size, o.flags&fSigned != 0, o.flags&fE != 0, mask, &local, &vals); err != nil {
			return err
		}
		putLanes(regs, &o.d, o.size, mask, &vals)
		return nil
	}
	// stores
	m := &o.s[0]
	if o.size == 4 && o.kind != kStul && k.store32Fast(b, w, o, m, mask, sc) {
		return nil
	}
	if o.size < 4 && k.storeSmallFast(b, w, o, m, mask, sc) {
		return nil
	}
	size := int(o.size)
	words := max(1, size/4)
	v := &o.s[1]
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		mem, addr, err := k.laneMem(b, w, o, m, o.flags&fE != 0, l, &local)
		if err != nil {
			return &laneErr{l, err}
		}
		if o.kind == kStul {
			k.unlock(b, w, o, mem, addr, l, sc)
		}
		if mem == &b.Shared {
			sc.wroteShared(addr + uint64(size))
		}
		if size <= 8 {
			x := uint64(srcWord(regs, v, 0, l))
			if size == 8 {
				x |= uint64(srcWord(regs, v, 1, l)) << 32
			}
			if err := mem.Store(addr, size, x); err != nil {
				return &laneErr{l, err}
			}
			continue
		}
		buf, err := mem.Slice(addr, size, true)
		if err != nil {
			return &laneErr{l, err}
		}
		for i := range words {
			binary.LittleEndian.PutUint32(buf[4*i:], srcWord(regs, v, i, l))
		}
	}
	return nil
}

// srcWord is word i of a multi-register source in lane l (RZ and past R62: 0).
func srcWord(regs []uint32, v *opnd, i, l int) uint32 {
	if v.kind != oReg {
		return 0
	}
	r := int(v.row) + i
	if v.row == rowRZ || r >= rowRZ {
		return 0
	}
	return regs[r*32+l]
}

// loadLanes reads the lanes of mask into vals (words of each access).
func (k *Kernel) loadLanes(b *emu.Block, w *emu.Warp, kd kind, m *opnd, size uint8, signed, wide bool, mask uint32,
	local *emu.Memory, vals *[32][4]uint32) error {
	tmp := op{kind: kd}
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		mem, addr, err := k.laneMem(b, w, &tmp, m, wide, l, local)
		if err != nil {
			return &laneErr{l, err}
		}
		if size <= 8 {
			v, err := mem.Load(addr, int(size))
			if err != nil {
				return &laneErr{l, err}
			}
			vals[l][0] = extend(v, size, signed)
			vals[l][1] = uint32(v >> 32)
			continue
		}
		buf, err := mem.Slice(addr, int(size), false)
		if err != nil {
			return &laneErr{l, err}
		}
		for i := range 4 {
			vals[l][i] = binary.LittleEndian.Uint32(buf[4*i:])
		}
	}
	return nil
}

// putLanes writes loaded words to the destination registers.
func putLanes(regs []uint32, d *opnd, size uint8, mask uint32, vals *[32][4]uint32) {
	words := max(1, int(size)/4)
	for i := range words {
		row := dstRow(d, i) * 32
		for mm := mask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			regs[row+l] = vals[l][i]
		}
	}
}

// load32Fast is a 32-bit load whose lanes all fall in one dense memory
// (shared, constant, or global below the windows): false sends the
// instruction the general way.
func (k *Kernel) load32Fast(b *emu.Block, w *emu.Warp, o *op, m *opnd, mask uint32, sc *scratch) bool {
	data, limit, ok := k.dense32(b, o, m)
	if !ok {
		return false
	}
	regs := w.Regs
	base := rowOf(regs, m.row)
	off := uint32(m.imm)
	r := &sc.r
	p := unsafe.Pointer(unsafe.SliceData(data))
	if mask == ^uint32(0) {
		// check every lane's address first (the general path reports a
		// fault), then read the little-endian words in place
		if first, ok := consecutive(base, off, limit); ok {
			// one 128-byte run: the common coalesced access
			copyLanes(rowAt(regs, dstRow(&o.d, 0)), (*lanes)(unsafe.Add(p, first)))
			return true
		}
		d := rowAt(regs, dstRow(&o.d, 0))
		if d != base {
			// straight into the destination: a lane out of range leaves
			// it partly written, and the general way rewrites or faults
			return gatherChecked(d, p, base, off, limit)
		}
		if !gatherChecked(r, p, base, off, limit) {
			return false
		}
		copyLanes(d, r)
		return true
	}
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		if a > limit || a&3 != 0 {
			return false
		}
		r[l] = *(*uint32)(unsafe.Add(p, a))
	}
	write(regs, dstRow(&o.d, 0), mask, r)
	return true
}

// inBounds reports whether every lane's address base[l]+off (in 32 bits)
// is aligned (no bit of align set) and at or below limit: the highest
// address is (two running maxima, compare and move, no branch), and
// returns it.
func inBounds(base *lanes, off, limit, alignBits uint32) (uint32, bool) {
	var align, hi0, hi1 uint32
	qb := qd(base)
	for g := range qb {
		q := &qb[g]
		a0, a1, a2, a3 := q[0]+off, q[1]+off, q[2]+off, q[3]+off
		align |= a0 | a1 | a2 | a3
		hi0 = max(hi0, a0, a1)
		hi1 = max(hi1, a2, a3)
	}
	hi := max(hi0, hi1)
	return hi, align&alignBits == 0 && hi <= limit
}

// consecutive reports whether lane l's address base[l]+off is first+4*l,
// with first aligned and the whole run at or below limit+3. It compares
// two lanes at a time as one 64-bit word (the host is little-endian, as
// the in-place loads assume); base[0] is low enough that the expected
// pairs never carry from one lane into the next.
func consecutive(base *lanes, off, limit uint32) (first uint32, ok bool) {
	b0 := base[0]
	if base[31] != b0+31*4 {
		return 0, false // most other accesses fail here, before the loop
	}
	// sixteen pairs, unrolled: the step stays in a register
	p := (*[16]uint64)(unsafe.Pointer(base))
	step := uint64(8<<32 | 8)
	want := uint64(b0) | uint64(b0+4)<<32
	dev := p[0] ^ want
	want += step
	dev |= p[1] ^ want
	want += step
	dev |= p[2] ^ want
	want += step
	dev |= p[3] ^ want
	want += step
	dev |= p[4] ^ want
	want += step
	dev |= p[5] ^ want
	want += step
	dev |= p[6] ^ want
	want += step
	dev |= p[7] ^ want
	want += step
	dev |= p[8] ^ want
	want += step
	dev |= p[9] ^ want
	want += step
	dev |= p[10] ^ want
	want += step
	dev |= p[11] ^ want
	want += step
	dev |= p[12] ^ want
	want += step
	dev |= p[13] ^ want
	want += step
	dev |= p[14] ^ want
	want += step
	dev |= p[15] ^ want
	first = b0 + off
	return first, dev == 0 && uint64(b0)+31*4 <= math.MaxUint32 && first&3 == 0 && uint64(first)+31*4 <= uint64(limit)
}

// gatherChecked is inBounds and gather in one pass, four lanes checked
// before they are read; false: a lane is out of bounds or misaligned (r is
// then partly written).
func gatherChecked(r *lanes, p unsafe.Pointer, base *lanes, off, limit uint32) bool {
	qr, qb := qd(r), qd(base)
	for g := range qr {
		a0, a1, a2, a3 := qb[g][0]+off, qb[g][1]+off, qb[g][2]+off, qb[g][3]+off
		if (a0|a1|a2|a3)&3 != 0 || max(a0, a1, a2, a3) > limit {
			return false
		}
		qr[g][0] = *(*uint32)(unsafe.Add(p, a0))
		qr[g][1] = *(*uint32)(unsafe.Add(p, a1))
		qr[g][2] = *(*uint32)(unsafe.Add(p, a2))
		qr[g][3] = *(*uint32)(unsafe.Add(p, a3))
	}
	return true
}

// scatter writes lane l's word v[l] at p+base[l]+off in lane order (in
// bounds: inBounds).
func scatter(p unsafe.Pointer, base *lanes, off uint32, v *lanes) {
	qb, qv := qd(base), qd(v)
	for g := range qb {
		*(*uint32)(unsafe.Add(p, qb[g][0]+off)) = qv[g][0]
		*(*uint32)(unsafe.Add(p, qb[g][1]+off)) = qv[g][1]
		*(*uint32)(unsafe.Add(p, qb[g][2]+off)) = qv[g][2]
		*(*uint32)(unsafe.Add(p, qb[g][3]+off)) = qv[g][3]
	}
}

// dense32 is the memory a 32-bit access of o goes to when it is one dense
// region, and the highest address a word can start at.
func (k *Kernel) dense32(b *emu.Block, o *op, m *opnd) (data []byte, limit uint32, ok bool) {
	var mem *emu.Memory
	switch o.kind {
	case kLds, kSts:
		mem = &b.Shared
	case kLdc:
		mem = &k.Const[m.bank]
	case kLd, kSt:
		if o.flags&fE != 0 {
			return nil, 0, false
		}
		mem = k.Global
	default:
		return nil, 0, false
	}
	data = mem.Data
	if len(data) < 4 {
		return nil, 0, false
	}
	n := uint64(len(data)) - 4
	if o.kind == kLd || o.kind == kSt {
		n = min(n, SharedWindow-4) // generic addresses from the windows on are not global
	}
	return data, uint32(min(n, 1<<32-1)), true
}

// storeRows are a store's address row, offset and value row (zeros for
// RZ or a value that is not a register).
func storeRows(regs []uint32, o *op, m *opnd) (base *lanes, off uint32, v *lanes) {
	base, off, v = rowOf(regs, m.row), uint32(m.imm), rowOf(regs, o.s[1].row)
	if o.s[1].kind != oReg {
		v = &zeroLanes
	}
	return base, off, v
}

// lanesFit reports whether the address base[l]+off of every lane of mask
// is aligned (no bit of align set) and at most limit, and returns the
// highest.
func lanesFit(base *lanes, off, mask, limit, align uint32) (uint32, bool) {
	var bad, hi uint32
	for mm := mask; mm != 0; mm &= mm - 1 {
		a := base[bits.TrailingZeros32(mm)] + off
		bad |= a&align | b2u(a > limit)
		hi = max(hi, a)
	}
	return hi, bad == 0
}

// store32Fast is load32Fast's counterpart for 32-bit stores.
func (k *Kernel) store32Fast(b *emu.Block, w *emu.Warp, o *op, m *opnd, mask uint32, sc *scratch) bool {
	data, limit, ok := k.dense32(b, o, m)
	if !ok {
		return false
	}
	base, off, v := storeRows(w.Regs, o, m)
	p := unsafe.Pointer(unsafe.SliceData(data))
	// check every lane first: a faulting lane must leave memory untouched
	if mask == ^uint32(0) {
		if first, ok := consecutive(base, off, limit); ok {
			copyLanes((*lanes)(unsafe.Add(p, first)), v)
			if o.kind == kSts {
				sc.wroteShared(uint64(first) + 4*emu.WarpSize)
			}
			return true
		}
		hi, ok := inBounds(base, off, limit, 3)
		if !ok {
			return false
		}
		scatter(p, base, off, v)
		if o.kind == kSts {
			sc.wroteShared(uint64(hi) + 4)
		}
		return true
	}
	hi, ok := lanesFit(base, off, mask, limit, 3)
	if !ok {
		return false
	}
	if o.kind == kSts {
		sc.wroteShared(uint64(hi) + 4)
	}
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		*(*uint32)(unsafe.Add(p, base[l]+off)) = v[l]
	}
	return true
}

// smallFast is loadSmallFast's and storeSmallFast's memory: the dense
// region of dense32, the highest address an access of o.size bytes can
// start at, and o.size-1 (the alignment bits).
func (k *Kernel) smallFast(b *emu.Block, o *op, m *opnd) (p unsafe.Pointer, limit, align uint32, ok bool) {
	data, limit32, ok := k.dense32(b, o, m)
	if !ok || o.size != 1 && o.size != 2 {
		return nil, 0, 0, false
	}
	// dense32's limit is the end less 4, at most 2^32-1
	limit = uint32(min(uint64(limit32)+4-uint64(o.size), 1<<32-1))
	return unsafe.Pointer(unsafe.SliceData(data)), limit, uint32(o.size) - 1, true
}

// loadSmallFast is load32Fast for 8- and 16-bit loads (LD, LDS, LDC .U8
// .S8 .U16 .S16).
func (k *Kernel) loadSmallFast(b *emu.Block, w *emu.Warp, o *op, m *opnd, mask uint32, sc *scratch) bool {
	p, limit, align, ok := k.smallFast(b, o, m)
	if !ok {
		return false
	}
	regs := w.Regs
	base := rowOf(regs, m.row)
	off := uint32(m.imm)
	if _, ok := lanesFit(base, off, mask, limit, align); !ok {
		return false
	}
	r := &sc.r
	signed := o.flags&fSigned != 0
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		q := unsafe.Add(p, base[l]+off)
		var v uint32
		switch {
		case o.size == 1 && signed:
			v = uint32(int32(*(*int8)(q)))
		case o.size == 1:
			v = uint32(*(*uint8)(q))
		case signed:
			v = uint32(int32(*(*int16)(q)))
		default:
			v = uint32(*(*uint16)(q))
		}
		r[l] = v
	}
	write(regs, dstRow(&o.d, 0), mask, r)
	return true
}

// storeSmallFast is store32Fast for 8- and 16-bit stores (ST, STS).
func (k *Kernel) storeSmallFast(b *emu.Block, w *emu.Warp, o *op, m *opnd, mask uint32, sc *scratch) bool {
	p, limit, align, ok := k.smallFast(b, o, m)
	if !ok {
		return false
	}
	base, off, v := storeRows(w.Regs, o, m)
	// check every lane first: a faulting lane must leave memory untouched
	var hi uint32
	if mask == ^uint32(0) {
		hi, ok = inBounds(base, off, limit, align)
	} else {
		hi, ok = lanesFit(base, off, mask, limit, align)
	}
	if !ok {
		return false
	}
	if o.kind == kSts {
		sc.wroteShared(uint64(hi) + uint64(o.size))
	}
	if mask == ^uint32(0) && o.size == 1 {
		// bytes of the whole warp (the BWT's flags), four lanes a step
		qb, qv := qd(base), qd(v)
		for g := range qb {
			*(*uint8)(unsafe.Add(p, qb[g][0]+off)) = uint8(qv[g][0])
			*(*uint8)(unsafe.Add(p, qb[g][1]+off)) = uint8(qv[g][1])
			*(*uint8)(unsafe.Add(p, qb[g][2]+off)) = uint8(qv[g][2])
			*(*uint8)(unsafe.Add(p, qb[g][3]+off)) = uint8(qv[g][3])
		}
		return true
	}
	// one loop per size: the lane loop itself has no branch
	if o.size == 1 {
		for mm := mask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			*(*uint8)(unsafe.Add(p, base[l]+off)) = uint8(v[l])
		}
		return true
	}
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		*(*uint16)(unsafe.Add(p, base[l]+off)) = uint16(v[l])
	}
	return true
}

// atom runs ATOM (returning the old value) and RED on generic addresses;
// the lanes apply in lane order, atomically with respect to other blocks.
func (k *Kernel) atom(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	regs := w.Regs
	local := emu.Memory{Space: emu.Local}
	var olds [32][2]uint32
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		mem, addr, err := k.generic(b, w, address(regs, &o.s[0], o.flags&fE != 0, l), l, &local)
		if err != nil {
			return &laneErr{l, err}
		}
		if mem == &b.Shared {
			sc.wroteShared(addr + uint64(o.size))
		}
		if o.size == 8 {
			x := uint64(srcWord(regs, &o.s[1], 0, l)) | uint64(srcWord(regs, &o.s[1], 1, l))<<32
			y := uint64(srcWord(regs, &o.s[2], 0, l)) | uint64(srcWord(regs, &o.s[2], 1, l))<<32
			op := atomicOp64[o.sub]
			old, err := mem.Atomic64(addr, op, x, y)
			if err != nil {
				return &laneErr{l, err}
			}
			olds[l] = [2]uint32{uint32(old), uint32(old >> 32)}
			continue
		}
		x, y := srcWord(regs, &o.s[1], 0, l), srcWord(regs, &o.s[2], 0, l)
		var old uint32
		if o.flags&fFloat != 0 {
			old, err = atomicFAdd(mem, addr, x)
		} else {
			old, err = mem.Atomic32(addr, atomicOp(o.sub, o.flags&fSignedAtom != 0), x, y)
		}
		if err != nil {
			return &laneErr{l, err}
		}
		olds[l][0] = old
	}
	if o.kind == kAtom {
		for i := range int(o.size) / 4 {
			row := dstRow(&o.d, i) * 32
			for mm := mask; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				regs[row+l] = olds[l][i]
			}
		}
	}
	return nil
}

// atomicOp maps the atomop table to the engine's operations.
func atomicOp(sub uint8, signed bool) emu.AtomicOp {
	switch sub {
	case atomMin:
		if signed {
			return emu.AtomMinS
		}
		return emu.AtomMinU
	case atomMax:
		if signed {
			return emu.AtomMaxS
		}
		return emu.AtomMaxU
	}
	return [...]emu.AtomicOp{atomAdd: emu.AtomAdd, atomInc: emu.AtomInc, atomDec: emu.AtomDec, atomAnd: emu.AtomAnd,
		atomOr: emu.AtomOr, atomXor: emu.AtomXor, atomExch: emu.AtomExch, atomCAS: emu.AtomCAS}[sub]
}

// atomicFAdd adds a float atomically (denormals flushed, rounding to
// nearest: .ADD.F32.FTZ.RN) with a compare-and-swap loop.
func atomicFAdd(mem *emu.Memory, addr uint64, x uint32) (uint32, error) {
	for {
		old, err := mem.Load(addr, 4)
		if err != nil {
			return 0, err
		}
		f := fadd32(math.Float32frombits(flush32(uint32(old))), math.Float32frombits(flush32(x)), 0)
		nv := fout(f, fFTZ)
		got, err := mem.Atomic32(addr, emu.AtomCAS, uint32(old), nv)
		if err != nil {
			return 0, err
		}
		if got == uint32(old) {
			return got, nil
		}
	}
}

// globalLocks are the words of global memory locked by LDLK, for every
// block of a launch.
type globalLocks struct {
	mu    sync.Mutex
	owner map[uint64]uint64 // address -> block<<32 | thread, +1
}

var errLockSpace = errors.New("lock outside global and shared memory")

// loadLock is LDLK/LDSLK: each lane, in lane order, loads the word and
// takes its lock unless another thread holds it; the predicate says
// whether it got it.
func (k *Kernel) loadLock(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch, local *emu.Memory) error {
	regs := w.Regs
	var got uint32
	var vals [32][4]uint32
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var mem *emu.Memory
		var addr uint64
		var err error
		if o.flags&fShared != 0 {
			mem, addr = &b.Shared, address(regs, &o.s[0], false, l)
		} else {
			mem, addr, err = k.generic(b, w, address(regs, &o.s[0], o.flags&fE != 0, l), l, local)
			if err != nil {
				return &laneErr{l, err}
			}
		}
		owner := uint64(b.Index)<<32 | uint64(w.Index*32+l) + 1
		if k.lock(mem, addr, owner, b, sc) {
			got |= 1 << l
		}
		v, err := mem.Load(addr, int(min(o.size, 8)))
		if err != nil {
			return &laneErr{l, err}
		}
		vals[l][0], vals[l][1] = extend(v, o.size, o.flags&fSigned != 0), uint32(v>>32)
	}
	putLanes(regs, &o.d, o.size, mask, &vals)
	setPred(regs, &o.d2, mask, got)
	return nil
}

// lock takes the lock of the word at addr for owner; false when another
// owner holds it.
func (k *Kernel) lock(mem *emu.Memory, addr, owner uint64, b *emu.Block, sc *scratch) bool {
	if mem.Space == emu.Shared {
		if sc.locks == nil {
			sc.locks = map[lockKey]uint32{}
		}
		key := lockKey{true, addr}
		if h, ok := sc.locks[key]; ok && uint64(h) != owner&0xffffffff {
			return false
		}
		sc.locks[key] = uint32(owner)
		return true
	}
	k.glocks.mu.Lock()
	defer k.glocks.mu.Unlock()
	if k.glocks.owner == nil {
		k.glocks.owner = map[uint64]uint64{}
	}
	if h, ok := k.glocks.owner[addr]; ok && h != owner {
		return false
	}
	k.glocks.owner[addr] = owner
	return true
}

// unlock releases the lock of the word a store-and-unlock writes.
func (k *Kernel) unlock(b *emu.Block, w *emu.Warp, o *op, mem *emu.Memory, addr uint64, l int, sc *scratch) {
	if mem.Space == emu.Shared {
		delete(sc.locks, lockKey{true, addr})
		return
	}
	k.glocks.mu.Lock()
	delete(k.glocks.owner, addr)
	k.glocks.mu.Unlock()
}

// Texture is a buffer texture (tex1Dfetch): elements of Channels 32-bit
// words at Addr in global memory.
type Texture struct {
	Name     string
	Addr     uint64
	Elements uint64
	Channels int
}

// tldFast is tld for the usual case: one 32-bit channel, wholly inside
// the dense part of global memory, read to one register; false: tld must
// run (nothing was written).
func (k *Kernel) tldFast(w *emu.Warp, o *op, mask uint32, sc *scratch) bool {
	slot := int(o.sub)
	if slot >= len(k.Textures) || o.lanes != 1 {
		return false
	}
	t := &k.Textures[slot]
	data := k.Global.Data
	if t.Channels != 1 || t.Addr&3 != 0 || t.Elements > uint64(len(data))/4 || t.Addr > uint64(len(data))-4*t.Elements {
		return false
	}
	texels := data[t.Addr : t.Addr+4*t.Elements]
	p := unsafe.Pointer(unsafe.SliceData(texels))
	idx := rowOf(w.Regs, o.s[0].row)
	if mask == ^uint32(0) {
		// every lane, into the destination row itself (lane l reads
		// only its own index, so the index row may be the destination)
		tldLanes(rowAt(w.Regs, dstRow(&o.d, 0)), idx, p, t.Elements)
		return true
	}
	r := &sc.r
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var v uint32
		if i := uint64(idx[l]); i < t.Elements {
			v = *(*uint32)(unsafe.Add(p, 4*i))
		}
		r[l] = v
	}
	write(w.Regs, dstRow(&o.d, 0), mask, r)
	return true
}

// tldLanes fetches texel idx[l] of the n at p for every lane (0 past the
// end), four lanes a step.
func tldLanes(r, idx *lanes, p unsafe.Pointer, n uint64) {
	fetch := func(i uint32) uint32 {
		if uint64(i) < n {
			return *(*uint32)(unsafe.Add(p, 4*uint64(i)))
		}
		return 0
	}
	qr, qi := qd(r), qd(idx)
	for g := range qr {
		qr[g][0] = fetch(qi[g][0])
		qr[g][1] = fetch(qi[g][1])
		qr[g][2] = fetch(qi[g][2])
		qr[g][3] = fetch(qi[g][3])
	}
}

// tld is TLD.LZ of a 1D buffer texture: each lane fetches the element its
// register indexes (0 outside the texture, as tex1Dfetch does) and writes
// the channels the mask enables to consecutive registers.
func (k *Kernel) tld(w *emu.Warp, o *op, mask uint32) error {
	regs := w.Regs
	slot := int(o.sub)
	if slot >= len(k.Textures) {
		return fmt.Errorf("texture %d is not bound (the launch has %d buffer textures)", slot, len(k.Textures))
	}
	t := &k.Textures[slot]
	var vals [32][4]uint32
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		i := uint64(regs[int(o.s[0].row)*32+l])
		if o.s[0].row == rowRZ {
			i = 0
		}
		if i >= t.Elements {
			continue
		}
		for c := range t.Channels {
			a := t.Addr + (i*uint64(t.Channels)+uint64(c))*4
			if a < 1<<32 {
				if v, ok := k.Global.Load32(uint32(a)); ok {
					vals[l][c] = v
					continue
				}
			}
			v, err := k.Global.Load(a, 4)
			if err != nil {
				return &laneErr{l, err}
			}
			vals[l][c] = uint32(v)
		}
	}
	n := 0
	for c := range 4 {
		if o.lanes>>c&1 == 0 {
			continue
		}
		row := dstRow(&o.d, n) * 32
		n++
		for mm := mask; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			regs[row+l] = vals[l][c]
		}
	}
	return nil
}

// atomicOp64 is the memory operation of a 64-bit atomic's o.sub (lowering
// allows these three).
var atomicOp64 = [...]emu.AtomicOp{atomAdd: emu.AtomAdd, atomExch: emu.AtomExch, atomCAS: emu.AtomCAS}
