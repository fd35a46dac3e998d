package maxwell

import (
	"fmt"

	"github.com/gpuisa/gpuisa/emu"
)

// The sanitizer's view of a launch (emu/sanitize.go): which parts of global
// memory it owns, and each lane's memory accesses.

// CheckInfo implements emu.Checkable: the buffers, the launch's global
// memory images, the cubin's global variables and constant-bank copy, the
// textures' images; the declared shared memory (static and dynamic, before
// the hardware's rounding) and the launch's shared images.
func (k *Kernel) CheckInfo() emu.CheckInfo {
	info := emu.CheckInfo{Regions: append([]emu.Region(nil), k.regions...), SharedSize: k.sharedDeclared, GlobalBase: GlobalBase}
	for _, sg := range k.Global.Segments {
		info.Regions = append(info.Regions, emu.Region{Name: fmt.Sprintf("the memory image at %#x", GlobalBase+sg.Addr), Addr: sg.Addr, Size: uint64(len(sg.Data))})
	}
	for _, im := range k.Shared {
		info.SharedImages = append(info.SharedImages, emu.Region{Name: "shared image", Addr: im.Addr, Size: uint64(len(im.Data))})
	}
	return info
}

// launchRegions notes the setup's buffers and global memory images.
func (k *Kernel) launchRegions(s *emu.Setup) {
	for name, b := range s.Buffers {
		k.regions = append(k.regions, emu.Region{Name: fmt.Sprintf("buffer %q", name), Addr: b.Addr, Size: b.Bytes})
	}
	if s.Job != nil {
		for _, m := range s.Job.Memory {
			if m.Space == emu.Global && m.Addr < emu.MaxMemory {
				k.regions = append(k.regions, emu.Region{Name: fmt.Sprintf("the memory image at %#x", GlobalBase+m.Addr), Addr: m.Addr, Size: uint64(len(m.Data))})
			}
		}
	}
}

// check gives the sanitizer an instruction's accesses, the bytes written
// read back after it ran.
func (k *Kernel) check(b *emu.Block, w *emu.Warp, o *op, pc uint64, text string, acc []access) {
	atomic := o.kind == kAtom || o.kind == kAtoms || o.kind == kRed
	for i := range acc {
		a := &acc[i]
		var value []byte
		if a.write {
			value = a.view
		}
		b.Check.Access(b, w, a.lane, pc, text, a.space, a.addr, a.size, a.write || atomic, atomic, value)
	}
}

// syncPoint reports whether an instruction must not run in a parallel
// round: its effect depends on the order of warps (barriers, atomics,
// surface writes).
func syncPoint(o *op) bool {
	switch o.kind {
	case kBar, kAtom, kAtoms, kRed:
		return true
	case kTex:
		switch o.tx.op {
		case tSust, tSured, tSuatom:
			return true
		}
	}
	return false
}

// GlobalMemory implements emu.ParallelExec.
func (k *Kernel) GlobalMemory() *emu.Memory { return k.Global }

// WarpAux implements emu.ParallelExec: a warp's own working rows.
func (k *Kernel) WarpAux() any { return new(scratch) }

// SaveAux implements emu.ParallelExec: the barrier reductions' state.
func (k *Kernel) SaveAux(b *emu.Block) func() {
	sc := b.Aux.(*scratch)
	red, last := sc.red, append([]uint8(nil), sc.lastBar...)
	return func() { sc.red, sc.lastBar = red, append(sc.lastBar[:0], last...) }
}

// track records a parallel round's plain global and shared accesses
// (emu.Track): the common forms' addresses straight from the registers,
// the others through accesses.
func (k *Kernel) track(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) {
	t := w.Track
	switch o.kind {
	case kLdg, kStg, kLds, kSts:
		m := &o.s[0]
		write := o.kind == kStg || o.kind == kSts
		if write {
			m = &o.d
		}
		space, wide := emu.Global, o.flags&fE != 0
		if o.kind == kLds || o.kind == kSts {
			space, wide = emu.Shared, false
		}
		set, shift := t.Lines(space, write)
		span := uint64(max(int(o.size), 1)) - 1
		last := ^uint64(0)
		r := int(m.row) * 32
		for l := range 32 {
			if mask>>l&1 == 0 {
				continue
			}
			// k.address, inline: coalesced lanes share lines
			addr := uint64(w.Regs[r+l])
			if wide {
				addr = (addr | uint64(w.Regs[r+32+l])<<32) + m.imm - GlobalBase
			} else {
				addr = uint64(uint32(addr + m.imm))
			}
			for ln := addr >> shift; ln <= (addr+span)>>shift; ln++ {
				if ln != last {
					set.Mark(ln)
					last = ln
				}
			}
		}
	case kLd, kSt, kLdl, kStl:
		sc.checked = k.accesses(b, w, o, mask, sc.checked[:0])
		for _, a := range sc.checked {
			t.Access(a.space, a.addr, a.size, a.write)
		}
	}
}
