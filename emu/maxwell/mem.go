package maxwell

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/gpuisa/gpuisa/emu"
)

// GlobalBase is the device address of global memory's first byte: kernels
// see buffers above 4 GiB, as on a 64-bit host, so that ptxas's generic
// address tests (a non-zero high word is global) hold.
const GlobalBase = 1 << 32

// address is lane l's byte address of memory operand m: for 64-bit (global)
// addresses the offset into global memory (past its end when below
// GlobalBase, so that the access faults).
func (k *Kernel) address(regs []uint32, m *opnd, wide bool, l int) uint64 {
	r := int(m.row) * 32
	base := uint64(regs[r+l])
	if wide {
		base |= uint64(regs[r+32+l]) << 32
		return base + m.imm - GlobalBase
	}
	return uint64(uint32(base + m.imm))
}

// laneMem is the memory and address a lane's access goes to.
func (k *Kernel) laneMem(b *emu.Block, w *emu.Warp, o *op, m *opnd, l int, local *emu.Memory) (*emu.Memory, uint64, error) {
	regs := w.Regs
	switch o.kind {
	case kLd, kSt:
		return k.generic(b, w, m, o.flags&fE != 0, l, local)
	case kLdg, kStg:
		return k.Global, k.address(regs, m, o.flags&fE != 0, l), nil
	case kLds, kSts:
		return &b.Shared, k.address(regs, m, false, l), nil
	case kLdl, kStl:
		if k.LocalBytes == 0 {
			return nil, 0, errNoLocal
		}
		lb := k.LocalBytes
		local.Data = w.Local[l*lb : (l+1)*lb : (l+1)*lb]
		return local, k.address(regs, m, false, l), nil
	}
	return nil, 0, errors.New("not a memory instruction")
}

// Generic addresses (LD, ST): a non-zero high word is global memory (at
// GlobalBase); below 4 GiB, [SharedWindow, SharedWindow+16 MiB) is the
// block's shared memory and the rest the thread's local memory, which is
// how ptxas's code treats them (a local variable's generic address is its
// local address; shared addresses are masked to 24 bits).
const SharedWindow = 1 << 24

func (k *Kernel) generic(b *emu.Block, w *emu.Warp, m *opnd, wide bool, l int, local *emu.Memory) (*emu.Memory, uint64, error) {
	regs := w.Regs
	r := int(m.row) * 32
	addr := uint64(regs[r+l])
	if wide {
		addr |= uint64(regs[r+32+l]) << 32
	}
	addr += m.imm
	if !wide {
		addr = uint64(uint32(addr))
	}
	switch {
	case addr>>32 != 0:
		return k.Global, addr - GlobalBase, nil
	case addr>>24 == SharedWindow>>24:
		return &b.Shared, addr & (SharedWindow - 1), nil
	}
	if k.LocalBytes == 0 {
		return nil, 0, errNoLocal
	}
	lb := k.LocalBytes
	local.Data = w.Local[l*lb : (l+1)*lb : (l+1)*lb]
	return local, addr, nil
}

func (k *Kernel) mem(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	switch o.kind {
	case kLdg, kLds, kStg, kSts:
		if !k.slow && k.memFast(b, w, o, mask, sc) {
			return nil
		}
	}
	regs := w.Regs
	local := emu.Memory{Space: emu.Local}
	size := int(o.size)
	words := max(1, size/4)
	switch o.kind {
	case kLdc:
		s := &o.s[0]
		d := int(o.d.row) * 32
		for l := range 32 {
			if mask>>l&1 == 0 {
				continue
			}
			addr := s.imm
			if s.kind == oCIdx {
				addr = uint64(regs[int(s.row)*32+l] + uint32(s.imm))
			}
			if err := k.load(k.constWindow(s.bank, addr, size), addr, size, o.flags&fSigned != 0, regs, d, l); err != nil {
				return &laneErr{l, err}
			}
		}
		return nil
	case kLd, kLdg, kLds, kLdl:
		if w.Track != nil {
			k.track(b, w, o, mask, sc)
		}
		m := &o.s[0]
		d := int(o.d.row) * 32
		// all lanes read before any register is written (the address may be the destination)
		var vals [32][4]uint32
		for l := range 32 {
			if mask>>l&1 == 0 {
				continue
			}
			mm, addr, err := k.laneMem(b, w, o, m, l, &local)
			if err != nil {
				return &laneErr{l, err}
			}
			if size <= 8 {
				v, err := mm.Load(addr, size)
				if err != nil {
					return &laneErr{l, err}
				}
				if o.flags&fSigned != 0 {
					if size == 1 {
						v = uint64(int64(int8(v)))
					} else if size == 2 {
						v = uint64(int64(int16(v)))
					}
				}
				vals[l][0], vals[l][1] = uint32(v), uint32(v>>32)
				continue
			}
			b, err := mm.Slice(addr, 16, false)
			if err != nil {
				return &laneErr{l, err}
			}
			for i := range 4 {
				vals[l][i] = binary.LittleEndian.Uint32(b[4*i:])
			}
		}
		for l := range 32 {
			if mask>>l&1 == 0 {
				continue
			}
			for i := range words {
				regs[d+32*i+l] = vals[l][i]
			}
		}
		return nil
	default: // stores
		if w.Track != nil {
			k.track(b, w, o, mask, sc)
		}
		m := &o.d
		s := int(o.s[0].row) * 32
		for l := range 32 {
			if mask>>l&1 == 0 {
				continue
			}
			mm, addr, err := k.laneMem(b, w, o, m, l, &local)
			if err != nil {
				return &laneErr{l, err}
			}
			if size <= 8 {
				v := uint64(regs[s+l])
				if size == 8 {
					v |= uint64(regs[s+32+l]) << 32
				}
				if err := mm.Store(addr, size, v); err != nil {
					return &laneErr{l, err}
				}
				continue
			}
			b, err := mm.Slice(addr, 16, true)
			if err != nil {
				return &laneErr{l, err}
			}
			for i := range 4 {
				binary.LittleEndian.PutUint32(b[4*i:], regs[s+32*i+l])
			}
		}
	}
	return nil
}

// load reads size bytes into the register rows at d (lane l).
func (k *Kernel) load(m *emu.Memory, addr uint64, size int, signed bool, regs []uint32, d, l int) error {
	v, err := m.Load(addr, min(size, 8))
	if err != nil {
		return err
	}
	if signed && size == 1 {
		v = uint64(int64(int8(v)))
	} else if signed && size == 2 {
		v = uint64(int64(int16(v)))
	}
	regs[d+l] = uint32(v)
	if size == 8 {
		regs[d+32+l] = uint32(v >> 32)
	}
	return nil
}

var atomOps = [...]emu.AtomicOp{aAdd: emu.AtomAdd, aInc: emu.AtomInc, aDec: emu.AtomDec, aAnd: emu.AtomAnd,
	aOr: emu.AtomOr, aXor: emu.AtomXor, aExch: emu.AtomExch, aCas: emu.AtomCAS}

// atom runs ATOM (global), ATOMS (shared) and RED (global, no result), lane
// by lane in lane order.
func (k *Kernel) atom(b *emu.Block, w *emu.Warp, o *op, mask uint32) error {
	regs := w.Regs
	m := &o.s[0]
	mem := k.Global
	wide := o.flags&fE != 0
	if o.kind == kAtoms {
		mem, wide = &b.Shared, false
	}
	d := int(o.d.row) * 32
	signed := o.flags&fSigned != 0
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		addr := k.address(regs, m, wide, l)
		var old uint64
		var err error
		if o.size == 8 {
			x := k.val64(regs, &o.s[1], l)
			y := uint64(0)
			if o.sub == aCas {
				y = k.val64(regs, &o.s[2], l)
			}
			switch o.sub {
			case aAdd, aExch, aCas:
				op := emu.AtomAdd
				switch o.sub {
				case aExch:
					op = emu.AtomExch
				case aCas:
					op = emu.AtomCAS
				}
				old, err = mem.Atomic64(addr, op, x, y)
			default:
				old, err = casLoop64(mem, addr, func(v uint64) uint64 { return apply64(o.sub, v, x, signed) })
			}
		} else {
			x := k.val(regs, &o.s[1], l)
			y := uint32(0)
			if o.sub == aCas {
				y = k.val(regs, &o.s[2], l)
			}
			var o32 uint32
			switch {
			case o.dt == tF32:
				o32, err = casLoop32(mem, addr, func(v uint32) uint32 {
					return math.Float32bits(math.Float32frombits(flush(v)) + math.Float32frombits(flush(x)))
				})
			case o.sub == aMin || o.sub == aMax:
				op := emu.AtomMinU
				switch {
				case o.sub == aMin && signed:
					op = emu.AtomMinS
				case o.sub == aMax && signed:
					op = emu.AtomMaxS
				case o.sub == aMax:
					op = emu.AtomMaxU
				}
				o32, err = mem.Atomic32(addr, op, x, 0)
			default:
				o32, err = mem.Atomic32(addr, atomOps[o.sub], x, y)
			}
			old = uint64(o32)
		}
		if err != nil {
			return &laneErr{l, err}
		}
		if o.kind != kRed {
			regs[d+l] = uint32(old)
			if o.size == 8 {
				regs[d+32+l] = uint32(old >> 32)
			}
		}
	}
	return nil
}

func apply64(op uint8, v, x uint64, signed bool) uint64 {
	switch op {
	case aMin:
		if signed && int64(x) < int64(v) || !signed && x < v {
			return x
		}
	case aMax:
		if signed && int64(x) > int64(v) || !signed && x > v {
			return x
		}
	case aAnd:
		return v & x
	case aOr:
		return v | x
	case aXor:
		return v ^ x
	case aInc:
		if v >= x {
			return 0
		}
		return v + 1
	case aDec:
		if v == 0 || v > x {
			return x
		}
		return v - 1
	}
	return v
}

func casLoop32(m *emu.Memory, addr uint64, f func(uint32) uint32) (uint32, error) {
	for {
		old, err := m.Atomic32(addr, emu.AtomAdd, 0, 0)
		if err != nil {
			return 0, err
		}
		got, err := m.Atomic32(addr, emu.AtomCAS, old, f(old))
		if err != nil || got == old {
			return got, err
		}
	}
}

func casLoop64(m *emu.Memory, addr uint64, f func(uint64) uint64) (uint64, error) {
	for {
		old, err := m.Atomic64(addr, emu.AtomAdd, 0, 0)
		if err != nil {
			return 0, err
		}
		got, err := m.Atomic64(addr, emu.AtomCAS, old, f(old))
		if err != nil || got == old {
			return got, err
		}
	}
}

// memOf is the memory of a global or shared access and whether its
// addresses are 64-bit.
func (k *Kernel) memOf(b *emu.Block, o *op) (*emu.Memory, bool) {
	if o.kind == kLds || o.kind == kSts {
		return &b.Shared, false
	}
	return k.Global, o.flags&fE != 0
}
