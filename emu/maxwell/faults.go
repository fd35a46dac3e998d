package maxwell

import (
	"errors"
	"sort"

	"github.com/gpuisa/gpuisa/emu"
)

// place is a launch buffer in global memory.
type place struct {
	name        string
	addr, bytes uint64 // offset into global memory, size
}

// placeList sorts the launch's buffers by address.
func placeList(m map[string]emu.BufferPlace) []place {
	l := make([]place, 0, len(m))
	for n, b := range m {
		l = append(l, place{n, b.Addr, b.Bytes})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].addr < l[j].addr || l[i].addr == l[j].addr && l[i].name < l[j].name })
	return l
}

// locate completes a global memory fault of op o with the address the
// kernel computed (64-bit addresses start at GlobalBase) and the buffer it
// falls in or lies nearest to.
func (k *Kernel) locate(o *op, err error) {
	var mf *emu.MemFault
	if !errors.As(err, &mf) || mf.Space != emu.Global {
		return
	}
	mf.Device, mf.HasDevice = mf.Addr, true
	if o.flags&fE != 0 || o.kind == kLd || o.kind == kSt {
		mf.Device = mf.Addr + GlobalBase
	}
	if b, ok := nearest(k.buffers, mf.Addr); ok {
		mf.Buffer, mf.BufferOffset, mf.BufferBytes = b.name, int64(mf.Addr-b.addr), b.bytes
	}
}

// nearest is the buffer holding addr, else the closest one before or after it.
func nearest(l []place, addr uint64) (place, bool) {
	if len(l) == 0 {
		return place{}, false
	}
	i := sort.Search(len(l), func(i int) bool { return l[i].addr > addr }) // first buffer after addr
	if i > 0 && addr-l[i-1].addr < max(l[i-1].bytes, 1) {
		return l[i-1], true // inside
	}
	switch {
	case i == 0:
		return l[0], true
	case i == len(l):
		return l[i-1], true
	}
	before, after := addr-(l[i-1].addr+l[i-1].bytes), l[i].addr-addr
	if after < before {
		return l[i], true
	}
	return l[i-1], true
}
