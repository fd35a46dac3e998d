package tesla

import (
	"maps"

	"github.com/gpuisa/gpuisa/emu"
)

var _ emu.Inspector = (*Kernel)(nil)

// What fault injection (emu/inject) needs: the registers each lowered op
// reads and writes, its groups and unit (emu.Inspector), and a copy of the
// block state for checkpoints.

// CloneAux implements emu.AuxCloner: the shared-memory locks are state.
func (s *scratch) CloneAux() any {
	c := &scratch{}
	if s.locks != nil {
		c.locks = maps.Clone(s.locks)
	}
	return c
}

// rowReg names a register row: a general register, a condition register or
// an address register.
func rowReg(row int) emu.Reg {
	switch {
	case row < numGPR:
		return emu.Reg{File: emu.RegGPR, N: uint16(row)}
	case row < rowAddr:
		return emu.Reg{File: emu.RegCC, N: uint16(row - rowCond)}
	case row < rowUni:
		return emu.Reg{File: emu.RegAddr, N: uint16(row - rowAddr)}
	}
	return emu.Reg{}
}

// rowRegs appends the registers of rows row..row+n-1 (a 64- or 128-bit group
// stops at the last general register; R124 is no register).
func rowRegs(out []emu.Reg, row, n int) []emu.Reg {
	for i := range n {
		r := row + i
		if r == zeroReg || row < numGPR && r >= numGPR {
			continue
		}
		if g := rowReg(r); g.File != emu.RegNone {
			out = append(out, g)
		}
	}
	return out
}

// srcRegs appends the registers source s reads: its register (n words
// wide), or the address register of a memory operand.
func srcRegs(out []emu.Reg, s *src, n int) []emu.Reg {
	switch s.kind {
	case sReg:
		return rowRegs(out, int(s.row), n)
	case sLo, sHi:
		return rowRegs(out, int(s.row), 1)
	case sShared, sConst, sNone:
		if s.areg != 0 {
			out = append(out, emu.Reg{File: emu.RegAddr, N: uint16(s.areg)})
		}
	}
	return out
}

var fp32Kinds = map[opKind]bool{opFAdd: true, opFMul: true, opFMad: true, opFSet: true, opFMax: true, opFMin: true, opSlct: true}
var sfuKinds = map[opKind]bool{opRcp: true, opRsq: true, opLg2: true, opSin: true, opCos: true, opEx2: true, opRRO: true, opCvt: true}
var fp64Kinds = map[opKind]bool{opDFma: true, opDAdd: true, opDMul: true, opDMin: true, opDMax: true, opDSet: true}

// Sites implements emu.Inspector.
func (k *Kernel) Sites() []emu.Site {
	p := k.Prog
	sites := make([]emu.Site, len(p.ops))
	for i := range p.ops {
		sites[i] = p.site(i)
	}
	return sites
}

func (p *Program) site(i int) emu.Site {
	o := &p.ops[i]
	st := emu.Site{Op: "?"}
	if o.kind != opInvalid {
		st.Op = p.insts[i].Resolve().Mnemonic
	}
	if o.cond != condAlway {
		st.Guard = emu.Reg{File: emu.RegCC, N: uint16(o.pred)}
	}
	size := int(o.size)
	words := max(1, size/4)
	switch o.kind {
	case opGLd, opGSt, opLLd, opLSt, opSSt, opAtom, opRed, opLock:
		st.Mem = true
	}
	for j := range o.s {
		st.Mem = st.Mem || o.s[j].kind == sShared || o.s[j].kind == sConst
	}
	switch o.kind {
	case opRet, opBrk, opKil:
		st.Groups = emu.GroupBranch // guarded control: a wrong guard sends lanes elsewhere
		return st
	case opInvalid, opUnsupported, opNop, opTrap, opSSY, opPBK, opPret, opBar:
		return st
	case opBra, opCal:
		st.Groups, st.Target, st.HasTarget = emu.GroupBranch, o.target, true
		return st
	case opBrx:
		st.Src = srcRegs(st.Src, &o.s[0], 1)
		return st
	case opVote:
		// the input is a condition register in every running lane
		st.Src = append(st.Src, emu.Reg{File: emu.RegCC, N: uint16(o.carry)})
		st.Dst = append(st.Dst, emu.Reg{File: emu.RegCC, N: uint16(o.ccr)})
		st.CrossLane, st.Groups, st.Unit = true, emu.GroupCC, emu.UnitInt
		return st
	case opGSt, opLSt, opSSt:
		st.Groups, st.Unit = emu.GroupST, emu.UnitLSU
		a := &o.s[0]
		st.Addr = srcRegs(st.Addr, a, 1)
		if a.kind == sNone {
			st.Offset = int64(a.off)
		}
		st.Value = srcRegs(st.Value, &o.s[1], words)
		st.Src = append(append(st.Src, st.Addr...), st.Value...)
		if a.inc {
			st.Partial = append(st.Partial, st.Addr...)
		}
		return st
	}
	// the sources
	n0, n := 1, 1
	switch {
	case fp64Kinds[o.kind]:
		n0, n = 2, 2
	case o.kind == opCvt && cvtType(o.mode2).wide():
		n0 = 2
	case (o.kind == opAtom || o.kind == opRed) && o.size == 8:
		n0, n = 1, 2
	}
	for j := range o.s {
		w := n
		if j == 0 {
			w = n0
		}
		st.Src = srcRegs(st.Src, &o.s[j], w)
		if s := &o.s[j]; s.inc && (s.kind == sShared || s.kind == sConst || s.kind == sNone) && s.areg != 0 {
			st.Partial = append(st.Partial, emu.Reg{File: emu.RegAddr, N: uint16(s.areg)})
		}
	}
	if (o.kind == opIAdd || o.kind == opIMad) && o.mode == 3 {
		st.Src = append(st.Src, emu.Reg{File: emu.RegCC, N: uint16(o.carry)})
	}
	// the destination
	dw := 1
	switch {
	case fp64Kinds[o.kind] && o.kind != opDSet:
		dw = 2
	case o.kind == opCvt && cvtType(o.mode).wide():
		dw = 2
	case o.kind == opGLd || o.kind == opLLd:
		dw = words
	case o.kind == opAtom && o.size == 8:
		dw = 2
	}
	partial := o.dst == dLo || o.dst == dHi || o.kind == opLock || o.kind == opMov && o.mode != 0
	if o.dst != dNone {
		if partial {
			st.Partial = rowRegs(st.Partial, int(o.drow), dw)
		} else {
			st.Dst = rowRegs(st.Dst, int(o.drow), dw)
		}
	}
	if o.ccw {
		st.Dst = append(st.Dst, emu.Reg{File: emu.RegCC, N: uint16(o.ccr)})
	}
	// groups and unit
	st.Groups |= emu.DestGroups(st.Dst, st.Partial)
	switch {
	case fp32Kinds[o.kind]:
		st.Groups |= emu.GroupFP32
		st.Unit = emu.UnitFP32
	case fp64Kinds[o.kind]:
		st.Groups |= emu.GroupFP64
		st.Unit = emu.UnitFP64
	case sfuKinds[o.kind]:
		st.Unit = emu.UnitSFU
	case o.kind == opGLd || o.kind == opLLd || o.kind == opLock || o.kind == opAtom || o.kind == opRed:
		st.Unit = emu.UnitLSU
		if o.dst != dNone {
			st.Groups |= emu.GroupLD
		}
		if o.kind == opAtom || o.kind == opRed {
			st.Addr = srcRegs(nil, &o.s[0], 1)
		} else {
			st.Addr = srcRegs(nil, &o.s[0], 1)
			if o.s[0].kind == sNone {
				st.Offset = int64(o.s[0].off)
			}
		}
	default:
		st.Unit = emu.UnitInt
		if o.kind == opMov && o.s[0].kind == sShared {
			st.Groups |= emu.GroupLD // ld.shared
		}
	}
	return st
}

// GPR reads and writes need no translation; address registers keep a
// shape note for the fast g[] path, which a write by hand invalidates.

// Reg implements emu.Inspector.
func (k *Kernel) Reg(w *emu.Warp, r emu.Reg, l int) uint32 {
	switch r.File {
	case emu.RegGPR:
		if r.N == zeroReg || int(r.N) >= numGPR {
			return 0
		}
		return w.Regs[int(r.N)*32+l]
	case emu.RegCC:
		if r.N < 4 {
			return w.Regs[(rowCond+int(r.N))*32+l] & 15
		}
	case emu.RegAddr:
		if r.N < 16 {
			return w.Regs[(rowAddr+int(r.N))*32+l]
		}
	}
	return 0
}

// SetReg implements emu.Inspector.
func (k *Kernel) SetReg(w *emu.Warp, r emu.Reg, l int, v uint32) {
	switch r.File {
	case emu.RegGPR:
		if r.N != zeroReg && int(r.N) < numGPR {
			w.Regs[int(r.N)*32+l] = v
		}
	case emu.RegCC:
		if r.N < 4 {
			w.Regs[(rowCond+int(r.N))*32+l] = v & 15
		}
	case emu.RegAddr:
		if r.N > 0 && r.N < 16 {
			w.Regs[(rowAddr+int(r.N))*32+l] = v
			w.Regs[rowUni*32+int(r.N)] = 0 // shape unknown now
		}
	}
}

// Index implements emu.Inspector.
func (k *Kernel) Index(addr uint64) (uint32, bool) {
	if addr > 1<<32-1 {
		return 0, false
	}
	i, ok := k.Prog.index[uint32(addr)]
	return i, ok
}

// Accesses implements emu.Inspector: g[] and shared operands, global and
// local loads and stores, atomics and locks.
func (k *Kernel) Accesses(b *emu.Block, w *emu.Warp, pc uint32, l int, into []emu.Access) ([]emu.Access, bool) {
	if int(pc) >= len(k.Prog.ops) {
		return into, true
	}
	o := &k.Prog.ops[pc]
	laneAt := func(s *src) uint64 {
		a := s.off
		if s.areg != 0 {
			ar := w.Regs[(rowAddr+int(s.areg))*32+l]
			if s.inc {
				a = ar
			} else {
				a += ar
			}
		}
		return uint64(a)
	}
	regAt := func(s *src) uint64 {
		if s.kind == sReg {
			return uint64(w.Regs[int(s.row)*32+l])
		}
		return 0
	}
	size := int(o.size)
	switch o.kind {
	case opGLd, opGSt:
		sp := emu.Global
		return append(into, emu.Access{Space: sp, Addr: regAt(&o.s[0]), Size: size, Read: o.kind == opGLd, Write: o.kind == opGSt}), true
	case opLLd, opLSt:
		return append(into, emu.Access{Space: emu.Local, Addr: laneAt(&o.s[0]), Size: size, Read: o.kind == opLLd, Write: o.kind == opLSt}), true
	case opSSt:
		into = append(into, emu.Access{Space: emu.Shared, Addr: laneAt(&o.s[0]), Size: size, Write: true})
	case opAtom, opRed:
		return append(into, emu.Access{Space: emu.Global, Addr: regAt(&o.s[0]), Size: size, Read: true, Write: true}), true
	case opLock:
		return append(into, emu.Access{Space: emu.Shared, Addr: laneAt(&o.s[0]), Size: 4, Read: true}), true
	}
	for j := range o.s {
		s := &o.s[j]
		switch s.kind {
		case sShared:
			into = append(into, emu.Access{Space: emu.Shared, Addr: laneAt(s), Size: int(s.size), Read: true})
		case sConst:
			into = append(into, emu.Access{Space: emu.Constant, Addr: laneAt(s), Size: int(s.size), Read: true})
		}
	}
	return into, true
}
