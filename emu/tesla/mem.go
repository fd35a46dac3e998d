package tesla

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpuisa/gpuisa/emu"
)

// Memory operands and instructions: g[] and c[] sources, global, local and
// shared loads and stores, global atomics.

// loadMem reads a g[] or c[] operand: address register + offset, with an
// optional post-increment of the address register by the offset.
func (k *Kernel) loadMem(w *emu.Warp, m *emu.Memory, s *src, mask uint32, buf *lanes) error {
	var arow []uint32
	if s.areg != 0 {
		arow = w.Regs[(rowAddr+int(s.areg))*32 : (rowAddr+int(s.areg))*32+32]
		if s.inc && mask != ^uint32(0) {
			w.Regs[rowUni*32+int(s.areg)] = 0 // some lanes advance, others not
		}
	}
	size := int(s.size)
	if size == 4 && !s.inc {
		// the common case: aligned words, inlined bounds checks
		data := m.Data
		n := uint32(len(data))
		shape := uint32(0)
		if arow != nil {
			shape = w.Regs[rowUni*32+int(s.areg)]
		}
		if arow == nil || shape == addrUniform {
			// one address for the whole warp
			a := s.off
			if arow != nil {
				a += arow[0]
			}
			if a&3 != 0 || a >= n || n-a < 4 {
				return &laneErr{firstLane(mask), m.Fault(uint64(a), 4, false)}
			}
			v := binary.LittleEndian.Uint32(data[a:])
			for l := range buf {
				buf[l] = v
			}
			return nil
		}
		if a := arow[0] + s.off; shape == addrWords && mask == ^uint32(0) && a&3 == 0 && uint64(a)+128 <= uint64(n) {
			// 32 consecutive words: one bounds check
			d := (*[128]byte)(data[a : a+128])
			for l := 0; l < 32; l += 2 { // two lanes per load
				v := binary.LittleEndian.Uint64(d[4*l:])
				buf[l], buf[l+1] = uint32(v), uint32(v>>32)
			}
			return nil
		}
		if mask == ^uint32(0) {
			for l := range buf {
				a := arow[l] + s.off
				// one test for both: a misaligned address lands far past the end
				if uint64(a)|uint64(a&3)<<40+4 > uint64(n) {
					return &laneErr{l, m.Fault(uint64(a), 4, false)}
				}
				buf[l] = binary.LittleEndian.Uint32(data[a:])
			}
			return nil
		}
		for l := range 32 {
			if mask&(1<<l) == 0 {
				continue
			}
			a := arow[l] + s.off
			if a&3 != 0 || a >= n || n-a < 4 {
				return &laneErr{l, m.Fault(uint64(a), 4, false)}
			}
			buf[l] = binary.LittleEndian.Uint32(data[a:])
		}
		return nil
	}
	for l := range 32 {
		if mask&(1<<l) == 0 {
			continue
		}
		a := laneAddr(s, arow, l)
		if size == 4 {
			v, ok := m.Load32(a)
			if !ok {
				return &laneErr{l, m.Fault(uint64(a), 4, false)}
			}
			buf[l] = v
			continue
		}
		v, err := m.Load(uint64(a), size)
		if err != nil {
			return &laneErr{l, err}
		}
		if s.signed {
			v = uint64(int64(int16(v)))
		}
		buf[l] = uint32(v)
	}
	return nil
}

// memOp runs the global, local and shared-store instructions.
func (k *Kernel) memOp(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	size := int(o.size)
	nregs := max(1, size/4)
	var addrs *lanes
	var mem *emu.Memory
	var local bool
	switch o.kind {
	case opGLd, opGSt:
		a, err := k.fetch(b, w, &o.s[0], mask, &sc.a)
		if err != nil {
			return err
		}
		addrs, mem = a, k.Global
	case opLLd, opLSt:
		if k.LocalBytes == 0 {
			return errNoLocal
		}
		local = true
		fallthrough
	case opSSt:
		s := &o.s[0]
		var arow []uint32
		if s.areg != 0 {
			arow = w.Regs[(rowAddr+int(s.areg))*32 : (rowAddr+int(s.areg))*32+32]
			if s.inc && mask != ^uint32(0) {
				w.Regs[rowUni*32+int(s.areg)] = 0
			}
		}
		for l := range 32 {
			if mask&(1<<l) == 0 {
				continue
			}
			a := laneAddr(s, arow, l)
			sc.a[l] = a
		}
		addrs, mem = &sc.a, &b.Shared
	}
	var lm emu.Memory // one lane's local memory
	laneMem := func(l int) *emu.Memory {
		if !local {
			return mem
		}
		lm = emu.Memory{Space: emu.Local, Data: w.Local[l*k.LocalBytes : (l+1)*k.LocalBytes]}
		return &lm
	}
	if size == 4 && !local && o.dst == dReg && (o.kind == opGLd || o.kind == opSSt || o.kind == opGSt) {
		if o.kind == opGLd {
			return loadWords(mem, addrs, mask, (*lanes)(w.Regs[int(o.drow)*32:]), o.ccw, w, o, sc)
		}
	}
	switch o.kind {
	case opGLd, opLLd:
		dst := int(o.drow)
		for l := range 32 {
			if mask&(1<<l) == 0 {
				continue
			}
			m := laneMem(l)
			a := uint64(addrs[l])
			if size > 4 && a%uint64(size) != 0 {
				return &laneErr{l, m.Fault(a, size, false)}
			}
			for j := 0; j < nregs; j++ {
				sz := min(size, 4)
				v, err := m.Load(a+uint64(4*j), sz)
				if err != nil {
					return &laneErr{l, err}
				}
				if o.signed {
					if sz == 1 {
						v = uint64(int64(int8(v)))
					} else if sz == 2 {
						v = uint64(int64(int16(v)))
					}
				}
				if o.dst == dNone || dst+j >= numGPR || dst+j == zeroReg {
					continue
				}
				switch o.dst {
				case dReg:
					w.Regs[(dst+j)*32+l] = uint32(v)
				case dLo:
					w.Regs[dst*32+l] = w.Regs[dst*32+l]&0xffff0000 | uint32(v)&0xffff
				case dHi:
					w.Regs[dst*32+l] = w.Regs[dst*32+l]&0xffff | uint32(v)<<16
				}
			}
		}
		if o.ccw {
			// flags of the (first) loaded value
			row := (*lanes)(w.Regs[dst*32:])
			for l := range sc.f {
				sc.f[l] = intFlags(row[l], true)
			}
			writeFlags(w, o, mask, &sc.f)
		}
		return nil
	}
	// stores: the value operand (a register, a pair or a quad for 64/128 bits)
	v := &o.s[1]
	if size == 4 && !local && !o.hi && v.kind == sReg && v.row < numGPR && v.row != zeroReg {
		return storeWords(mem, addrs, mask, (*lanes)(w.Regs[int(v.row)*32:]))
	}
	for l := range 32 {
		if mask&(1<<l) == 0 {
			continue
		}
		m := laneMem(l)
		a := uint64(addrs[l])
		if size > 4 && a%uint64(size) != 0 {
			return &laneErr{l, m.Fault(a, size, true)}
		}
		for j := 0; j < nregs; j++ {
			var x uint32
			switch v.kind {
			case sReg:
				if int(v.row)+j < numGPR && int(v.row)+j != zeroReg {
					x = w.Regs[(int(v.row)+j)*32+l]
				}
			case sLo:
				x = w.Regs[int(v.row)*32+l] & 0xffff
			case sHi:
				x = w.Regs[int(v.row)*32+l] >> 16
			case sImm:
				x = k.Prog.imms[v.row][l]
			}
			if err := m.Store(a+uint64(4*j), min(size, 4), uint64(x)); err != nil {
				return &laneErr{l, err}
			}
		}
	}
	if o.hi && o.kind == opSSt {
		unlock(w, sc, addrs, mask)
	}
	return nil
}

// loadWords is the 32-bit global load into a register.
func loadWords(m *emu.Memory, addrs *lanes, mask uint32, dst *lanes, ccw bool, w *emu.Warp, o *op, sc *scratch) error {
	data := m.Data
	n := uint32(len(data))
	for l := range 32 {
		if mask&(1<<l) == 0 {
			continue
		}
		a := addrs[l]
		if a&3 != 0 || a >= n || n-a < 4 {
			return &laneErr{l, m.Fault(uint64(a), 4, false)}
		}
		dst[l] = binary.LittleEndian.Uint32(data[a:])
	}
	if ccw {
		for l := range sc.f {
			sc.f[l] = intFlags(dst[l], true)
		}
		writeFlags(w, o, mask, &sc.f)
	}
	return nil
}

// storeWords is the 32-bit store of a register.
func storeWords(m *emu.Memory, addrs *lanes, mask uint32, src *lanes) error {
	for ; mask != 0; mask &= mask - 1 {
		l := bits.TrailingZeros32(mask)
		if !m.Store32(addrs[l], src[l]) {
			return &laneErr{l, m.Fault(uint64(addrs[l]), 4, true)}
		}
	}
	return nil
}

// atom runs GATOM and GRED lane by lane, in lane order.
func (k *Kernel) atom(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	addrs, err := k.fetch(b, w, &o.s[0], mask, &sc.a)
	if err != nil {
		return err
	}
	op := emu.AtomicOp(o.mode)
	for l := range 32 {
		if mask&(1<<l) == 0 {
			continue
		}
		a := uint64(addrs[l])
		if o.size == 8 {
			x, y := pairBits(w, &o.s[1], l), pairBits(w, &o.s[2], l)
			old, err := k.Global.Atomic64(a, op, x, y)
			if err != nil {
				return &laneErr{l, err}
			}
			if o.dst == dReg && int(o.drow)+1 < numGPR {
				w.Regs[int(o.drow)*32+l] = uint32(old)
				w.Regs[(int(o.drow)+1)*32+l] = uint32(old >> 32)
			}
			continue
		}
		var x, y uint32
		if o.s[1].kind == sReg {
			x = w.Regs[int(o.s[1].row)*32+l]
		}
		if o.s[2].kind == sReg {
			y = w.Regs[int(o.s[2].row)*32+l]
		}
		old, err := k.Global.Atomic32(a, op, x, y)
		if err != nil {
			return &laneErr{l, err}
		}
		if o.dst == dReg {
			w.Regs[int(o.drow)*32+l] = old
		}
	}
	return nil
}

// Shared-memory locks (sm_12): G2R.LCK locks a word for its thread and
// loads it, setting the condition register as a SET that holds (S) on
// success and as one that fails (Z) when another thread holds the word
// (nouveau branches on LT after it); R2G.UNL stores and unlocks. Lanes try
// in lane order, so in a warp contending for one word the lowest lane wins
// and the others retry.
func (k *Kernel) lockLoad(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	if sc.locks == nil {
		sc.locks = map[uint32]uint32{}
	}
	s := &o.s[0]
	var arow []uint32
	if s.areg != 0 {
		arow = w.Regs[(rowAddr+int(s.areg))*32 : (rowAddr+int(s.areg))*32+32]
		if s.inc {
			w.Regs[rowUni*32+int(s.areg)] = 0
		}
	}
	flags := (*lanes)(w.Regs[(rowCond+int(o.ccr))*32:])
	for l := range 32 {
		if mask&(1<<l) == 0 {
			continue
		}
		a := laneAddr(s, arow, l)
		me := uint32(w.Index*emu.WarpSize+l) + 1
		if owner := sc.locks[a]; owner != 0 && owner != me {
			flags[l] = flagZ
			continue
		}
		v, ok := b.Shared.Load32(a)
		if !ok {
			return &laneErr{l, b.Shared.Fault(uint64(a), 4, false)}
		}
		sc.locks[a] = me
		flags[l] = flagS
		switch o.dst {
		case dReg:
			w.Regs[int(o.drow)*32+l] = v
		case dLo:
			w.Regs[int(o.drow)*32+l] = w.Regs[int(o.drow)*32+l]&0xffff0000 | v&0xffff
		case dHi:
			w.Regs[int(o.drow)*32+l] = w.Regs[int(o.drow)*32+l]&0xffff | v<<16
		}
	}
	return nil
}

// unlock releases the shared words the lanes of an R2G.UNL stored to.
func unlock(w *emu.Warp, sc *scratch, addrs *lanes, mask uint32) {
	for l := range 32 {
		if mask&(1<<l) != 0 && sc.locks[addrs[l]] == uint32(w.Index*emu.WarpSize+l)+1 {
			delete(sc.locks, addrs[l])
		}
	}
}

// laneAddr is lane l's address of a memory operand: the offset, plus the
// lane's address register when there is one; with post-increment (A1+++x)
// the access uses the register and the register advances by the offset.
func laneAddr(s *src, arow []uint32, l int) uint32 {
	if arow == nil {
		return s.off
	}
	if s.inc {
		a := arow[l]
		arow[l] += s.off
		return a
	}
	return s.off + arow[l]
}
