package maxwell

import (
	"fmt"
	"sync"

	"github.com/gpuisa/gpuisa/emu"
)

// What a program's launches share, so that a launch after the first costs
// little more than running it: the lowered code, and on a device (a
// sequence of launches over one global memory) where the program's global
// variables and its constant window live.

// reuse is an Image's state across launches. A Device reads a program once
// (emu.Loader) and so has an Image, and a reuse, of its own.
type reuse struct {
	mu sync.Mutex
	// lowered programs by the device address the global variables'
	// relocations point to (0: none): relocated code lowers once per address
	lowered map[uint64]*Program
	// the last launch's resolved code: the values its constant operands
	// read, and what they made (shared by the launches that read the same;
	// nothing writes them while a kernel runs)
	resolved resolved
}

type resolved struct {
	prog  *Program
	keys  []uint64
	ops   []op
	bcast []lanes
	fuse  []uint8
	adds  []addRows
	steps []step
	need  int
}

// lower returns the image's code lowered, with the global variables'
// relocations pointing at globalsAt.
func (img *Image) lower(sm int, globalsAt uint64) (*Program, error) {
	r := img.state()
	r.mu.Lock()
	p, ok := r.lowered[globalsAt]
	r.mu.Unlock()
	if ok {
		return p, nil
	}
	code := img.Code
	if globalsAt != 0 {
		var err error
		if code, err = relocate(code, img.Relocs, globalsAt); err != nil {
			return nil, err
		}
	}
	p, err := Lower(code, sm)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.lowered == nil {
		r.lowered = map[uint64]*Program{}
	}
	r.lowered[globalsAt] = p
	r.mu.Unlock()
	return p, nil
}

func (img *Image) state() *reuse {
	img.once.Do(func() { img.reuse = &reuse{} })
	return img.reuse
}

// reserved is the key of a program's data in a device memory's Reserved.
type reserved struct {
	img  *Image
	what string
}

// placed reports where the program's global variables and constant window
// are in the device memory m (nil: a launch of its own), when an earlier
// launch on m put them there: a program's __device__ variables keep their
// place and values from one launch to the next, as on a GPU.
func (img *Image) placed(m *emu.Memory) (globalsAt, constAt uint64, ok bool) {
	if m == nil || m.Reserved == nil {
		return 0, 0, false
	}
	globalsAt, ok = m.Reserved[reserved{img, "globals"}]
	constAt = m.Reserved[reserved{img, "constant window"}]
	return globalsAt, constAt, ok
}

// place records where the program's data went in the device memory m.
func (img *Image) place(m *emu.Memory, globalsAt, constAt uint64) {
	if m == nil {
		return
	}
	if m.Reserved == nil {
		m.Reserved = map[any]uint64{}
	}
	m.Reserved[reserved{img, "globals"}] = globalsAt
	m.Reserved[reserved{img, "constant window"}] = constAt
}

// reserve appends n bytes (256-aligned) to the dense region of global
// memory and returns their offset.
func reserve(g *emu.Memory, n uint64, what string) (uint64, error) {
	at := (uint64(len(g.Data)) + 255) &^ 255
	switch {
	case at+n > emu.MaxMemory:
		return 0, fmt.Errorf("%s (%d bytes) do not fit in global memory", what, n)
	case len(g.Segments) > 0 && g.Segments[0].Addr < at+n:
		return 0, fmt.Errorf("global memory image at %#x overlaps the dense region (%#x bytes with the %s)", g.Segments[0].Addr, at+n, what)
	}
	g.Data = append(g.Data, make([]byte, at+n-uint64(len(g.Data)))...)
	return at, nil
}

// resolveShared gives k the code resolved for its constant banks, reusing
// the previous launch's when its constant operands read the same values
// (a host loop's launches usually differ in a parameter or two, or none).
func (k *Kernel) resolveShared(img *Image) {
	r := img.state()
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &r.resolved
	if c.prog == k.Prog && c.keys != nil {
		i, same := 0, true
		k.constOperands(func(x *opnd) {
			same = same && i < len(c.keys) && c.keys[i] == k.constValue(x)
			i++
		})
		if same && i == len(c.keys) {
			k.ops, k.bcast, k.fuse, k.adds = c.ops, c.bcast, c.fuse, c.adds
			k.steps, k.rowsNeed = c.steps, c.need
			return
		}
	}
	k.resolve()
	k.fuse, k.adds = k.fusions()
	k.steps, k.rowsNeed = k.plan()
	c.prog, c.ops, c.bcast, c.fuse, c.adds = k.Prog, k.ops, k.bcast, k.fuse, k.adds
	c.steps, c.need = k.steps, k.rowsNeed
	c.keys = []uint64{}
	k.constOperands(func(x *opnd) { c.keys = append(c.keys, k.constValue(x)) })
}

// constOperands calls f with each constant operand resolve gives a value
// (every c[bank][offset] but LDC's address), in program order.
func (k *Kernel) constOperands(f func(x *opnd)) {
	for oi := range k.Prog.ops {
		o := &k.Prog.ops[oi]
		if o.kind == kLdc {
			continue
		}
		for j := range o.s {
			if x := &o.s[j]; x.kind == oConst {
				f(x)
			}
		}
	}
}

// constValue is the 64 bits a constant operand reads in this launch.
func (k *Kernel) constValue(x *opnd) uint64 {
	m := &k.Const[x.bank]
	lo, _ := m.Load32(uint32(x.imm))
	hi, _ := m.Load32(uint32(x.imm + 4))
	return uint64(lo) | uint64(hi)<<32
}
