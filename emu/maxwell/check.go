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
