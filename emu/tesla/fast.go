package tesla

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/emu"
)

// Fast paths for the instructions that dominate real kernels' inner loops
// (a tiled matrix multiply is shared loads, address adds and multiply-adds),
// run when every lane of the warp executes: no guard to honour per lane, no
// operand copies, results straight into the destination row. Lowering marks
// the candidates (op.fast); anything a fast path does not cover at run time
// falls back to the general route, which gives the same results.
type fastKind uint8

const (
	fastNone    fastKind = iota
	fastFMad             // FMAD d, g[]/R, R, R without modifiers
	fastADA              // ADA A, A, imm
	fastMovLoad          // MOV R, g[] (a full-warp shared load)
)

// classifyFast picks the fast path of a lowered op, if any.
func classifyFast(o *op) fastKind {
	plain := func(s *src) bool { return !s.neg && !s.abs && !s.not }
	switch o.kind {
	case opFMad:
		s0, s1, s2 := &o.s[0], &o.s[1], &o.s[2]
		if o.mode == 0 && !o.sat && !o.ccw && o.dst == dReg && plain(s0) && plain(s1) && plain(s2) &&
			(s0.kind == sReg || s0.kind == sShared && s0.size == 4 && !s0.inc) &&
			s1.kind == sReg && s2.kind == sReg {
			return fastFMad
		}
	case opADA:
		if o.dst == dReg && !o.ccw && o.aw && o.drow >= rowAddr && o.s[0].kind == sReg && o.s[0].row >= rowAddr && o.s[1].kind == sImm {
			return fastADA
		}
	case opMov:
		if o.mode == 0 && o.b32 && o.dst == dReg && !o.ccw && o.s[0].kind == sShared {
			return fastMovLoad
		}
	}
	return fastNone
}

// execFast runs o for a full warp if its fast path applies and reports
// whether it did.
func (k *Kernel) execFast(b *emu.Block, w *emu.Warp, o *op) (bool, error) {
	regs := w.Regs
	switch o.fast {
	case fastFMad:
		r := (*lanes)(regs[int(o.drow)*32:])
		y, z := (*lanes)(regs[int(o.s[1].row)*32:]), (*lanes)(regs[int(o.s[2].row)*32:])
		s0 := &o.s[0]
		if s0.kind == sReg {
			fmadLanes((*lanes)(regs[int(s0.row)*32:]), y, z, r)
			return true, nil
		}
		// a g[] factor that is one word for the whole warp
		a := s0.off
		if s0.areg != 0 {
			if regs[rowUni*32+int(s0.areg)] != addrUniform {
				return false, nil
			}
			a += regs[(rowAddr+int(s0.areg))*32]
		}
		data := b.Shared.Data
		if a&3 != 0 || uint64(a)+4 > uint64(len(data)) {
			return false, nil // the general route reports the fault
		}
		fmadLanesUniform(binary.LittleEndian.Uint32(data[a:]), y, z, r)
		return true, nil
	case fastADA:
		r, x := (*lanes)(regs[int(o.drow)*32:]), (*lanes)(regs[int(o.s[0].row)*32:])
		n := k.Prog.imms[o.s[1].row][0]
		for l := range r {
			r[l] = x[l] + n
		}
		// a constant added to every lane keeps the source's shape
		regs[rowUni*32+int(o.drow-rowAddr)] = regs[rowUni*32+int(o.s[0].row-rowAddr)]
		return true, nil
	case fastMovLoad:
		return true, k.loadMem(w, &b.Shared, &o.s[0], ^uint32(0), (*lanes)(regs[int(o.drow)*32:]))
	}
	return false, nil
}
