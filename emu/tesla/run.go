package tesla

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"gpuisa/emu"
)

type lanes = [32]uint32

// zeroLanes is read-only: the value of R124.
var zeroLanes lanes

// Kernel is a lowered program with the memory of one launch; it implements
// emu.Exec with the sm_1x launch convention.
type Kernel struct {
	Prog       *Program
	Global     *emu.Memory
	Const      [16]emu.Memory
	Params     []byte
	Shared     []emu.SharedImage
	LocalBytes int // per thread
	Grid       emu.Dim3
	Block      emu.Dim3
}

// scratch is per-block working storage for operands and results.
type scratch struct {
	a, b, c, r, f, r2 lanes
}

// NumRegs implements emu.Exec.
func (k *Kernel) NumRegs() int { return numRows }

// Where implements emu.Exec.
func (k *Kernel) Where(pc uint32) (uint64, string) { return k.Prog.Where(pc) }

// InitBlock writes the sm_1x launch words and the parameters to shared memory:
// u16 ntid.x/y/z at 0x02/0x04/0x06, nctaid.x/y at 0x08/0x0a, ctaid.x/y at
// 0x0c/0x0e, parameter bytes from 0x10.
func (k *Kernel) InitBlock(b *emu.Block) error {
	if b.Aux == nil {
		b.Aux = new(scratch)
	}
	m := &b.Shared
	for _, img := range k.Shared {
		if err := m.Write(img.Addr, img.Data); err != nil {
			return fmt.Errorf("shared memory image: %v", err)
		}
	}
	words := []uint32{0, k.Block[0], k.Block[1], k.Block[2], k.Grid[0], k.Grid[1], b.ID[0], b.ID[1]}
	for i, v := range words {
		if err := m.Store(uint64(2*i), 2, uint64(v)); err != nil {
			return fmt.Errorf("launch words: %v", err)
		}
	}
	if err := m.Write(0x10, k.Params); err != nil {
		return fmt.Errorf("parameters: %v", err)
	}
	for i := range b.Warps {
		w := &b.Warps[i]
		if need := k.LocalBytes * emu.WarpSize; len(w.Local) != need {
			w.Local = make([]byte, need)
		}
	}
	return nil
}

// InitWarp sets R0 = tid.x | tid.y<<16 | tid.z<<26 in every lane.
func (k *Kernel) InitWarp(b *emu.Block, w *emu.Warp) {
	for l := range emu.WarpSize {
		t := b.Dim.At(w.Index*emu.WarpSize + l)
		w.Regs[l] = t[0] | t[1]<<16 | t[2]<<26
	}
}

var (
	errTrap       = errors.New("trap")
	errPastEnd    = errors.New("execution ran past the end of the program")
	errNoLocal    = errors.New("local memory access, but the launch gives no local memory (local_bytes)")
	errTexture    = errors.New("texture fetches are not supported")
	errBadSpecial = errors.New("unknown special register")
)

// Run implements emu.Exec: the interpreter loop.
func (k *Kernel) Run(b *emu.Block, w *emu.Warp, budget int64) error {
	p := k.Prog
	ops := p.ops
	sc := b.Aux.(*scratch)
	regs := w.Regs
	for n := int64(0); n < budget; n++ {
		if w.Done || w.AtBarrier || w.Fault != nil {
			return nil
		}
		pc := w.PC
		if int(pc) >= len(ops) {
			return b.Fault(w, firstLane(w.Active), uint64(p.Where2(pc)), "", errPastEnd)
		}
		o := &ops[pc]
		if o.join {
			if !w.Join() {
				continue
			}
		} else {
			w.Rejoined = false
		}
		w.Steps++
		w.ThreadSteps += int64(bits.OnesCount32(w.Active))
		mask := w.Active
		if o.cond != condAlway {
			mask = guardMask(regs, mask, o.pred, o.cond)
		}
		if b.Trace != nil {
			fmt.Fprintf(b.Trace, "block %v warp %d %#04x %08x/%08x %s\n", b.ID, w.Index, o.addr, w.Active, mask, p.Text(int(pc)))
		}
		w.PC = pc + 1
		if err := k.exec(b, w, o, mask, sc); err != nil {
			return k.fault(b, w, pc, err)
		}
		if o.exit {
			w.Exit(w.Active)
		}
	}
	return nil
}

// Where2 is the byte address for a program index, also past the end.
func (p *Program) Where2(pc uint32) uint64 { a, _ := p.Where(pc); return a }

type laneErr struct {
	lane int
	err  error
}

func (e *laneErr) Error() string { return e.err.Error() }
func (e *laneErr) Unwrap() error { return e.err }

func (k *Kernel) fault(b *emu.Block, w *emu.Warp, pc uint32, err error) error {
	lane := firstLane(w.Active)
	var le *laneErr
	if errors.As(err, &le) {
		lane, err = le.lane, le.err
	}
	addr, text := k.Prog.Where(pc)
	return b.Fault(w, lane, addr, strings.TrimSuffix(text, ";"), err)
}

func firstLane(m uint32) int {
	if m == 0 {
		return 0
	}
	return bits.TrailingZeros32(m)
}

// fetch returns source i of o for the lanes in mask (other lanes may hold
// anything). Registers are returned in place, without copying.
func (k *Kernel) fetch(b *emu.Block, w *emu.Warp, s *src, mask uint32, buf *lanes) (*lanes, error) {
	switch s.kind {
	case sReg:
		return (*lanes)(w.Regs[int(s.row)*32:]), nil
	case sZero, sNone:
		return &zeroLanes, nil
	case sImm:
		return &k.Prog.imms[s.row], nil
	case sLo:
		r := (*lanes)(w.Regs[int(s.row)*32:])
		for l := range buf {
			buf[l] = r[l] & 0xffff
		}
		return buf, nil
	case sHi:
		r := (*lanes)(w.Regs[int(s.row)*32:])
		for l := range buf {
			buf[l] = r[l] >> 16
		}
		return buf, nil
	case sShared:
		return buf, k.loadMem(w, &b.Shared, s, mask, buf)
	case sConst:
		return buf, k.loadMem(w, &k.Const[s.bank], s, mask, buf)
	}
	return nil, fmt.Errorf("bad source kind %d", s.kind)
}

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
		if arow == nil || w.Regs[rowUni*32+int(s.areg)] != 0 {
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
		a := s.off
		if arow != nil {
			if s.inc {
				a = arow[l]
				arow[l] += s.off
			} else {
				a += arow[l]
			}
		}
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

// write stores r to the destination for the lanes in mask.
func write(w *emu.Warp, o *op, mask uint32, r *lanes) {
	if o.dst == dNone {
		return
	}
	row := (*lanes)(w.Regs[int(o.drow)*32:])
	switch o.dst {
	case dReg:
		if mask == ^uint32(0) {
			*row = *r
			return
		}
		for l := range 32 {
			if mask&(1<<l) != 0 {
				row[l] = r[l]
			}
		}
	case dLo:
		for l := range 32 {
			if mask&(1<<l) != 0 {
				row[l] = row[l]&0xffff0000 | r[l]&0xffff
			}
		}
	case dHi:
		for l := range 32 {
			if mask&(1<<l) != 0 {
				row[l] = row[l]&0xffff | r[l]<<16
			}
		}
	}
}

// writeFlags stores per-lane flags f to the condition register when the
// instruction writes one.
func writeFlags(w *emu.Warp, o *op, mask uint32, f *lanes) {
	if !o.ccw {
		return
	}
	row := (*lanes)(w.Regs[(rowCond+int(o.ccr))*32:])
	for l := range 32 {
		if mask&(1<<l) != 0 {
			row[l] = f[l]
		}
	}
}

// exec runs one instruction for the lanes in mask.
func (k *Kernel) exec(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	switch o.kind {
	case opNop:
		return nil
	case opInvalid, opUnsupported:
		return k.Prog.errs[w.PC-1]
	case opTrap:
		if mask != 0 {
			return errTrap
		}
		return nil
	case opBra:
		w.Branch(mask, o.target, w.PC)
		return nil
	case opCal:
		w.Call(o.target, w.PC)
		return nil
	case opRet:
		if mask != 0 {
			w.Ret(mask)
		}
		return nil
	case opSSY:
		w.Push(emu.StackSync, o.target)
		return nil
	case opPBK:
		w.Push(emu.StackBreak, o.target)
		return nil
	case opBrk:
		if mask != 0 {
			w.Break(mask)
		}
		return nil
	case opKil:
		if mask != 0 {
			w.Exit(mask)
		}
		return nil
	case opPret:
		w.Push(emu.StackCall, o.target)
		return nil
	case opBrx:
		return k.brx(b, w, o, mask, sc)
	case opVote:
		// true: the flags of a SET result that holds (S), false: zero (Z)
		in := guardMask(w.Regs, mask, o.carry, o.size)
		ok := in != 0
		if o.mode == 1 {
			ok = in == mask
		}
		v := uint32(flagZ)
		if ok {
			v = flagS
		}
		row := (*lanes)(w.Regs[(rowCond+int(o.ccr))*32:])
		for l := range 32 {
			if mask&(1<<l) != 0 {
				row[l] = v
			}
		}
		return nil
	case opBar:
		w.AtBarrier, w.Barrier = true, o.mode
		return nil
	}
	if o.kind == opMov && o.mode != 0 {
		mask &= quadLanes(o.mode) // MOV with a lane mask
	}
	if mask == 0 {
		return nil
	}
	switch o.kind {
	case opGLd, opGSt, opLLd, opLSt, opSSt:
		return k.memOp(b, w, o, mask, sc)
	case opAtom, opRed:
		return k.atom(b, w, o, mask, sc)
	case opS2R:
		var v uint32
		switch o.mode {
		case 0: // physid: SM 0
		case 1: // clock: this warp's instruction count
			v = uint32(w.Steps)
		default:
			v = 0
		}
		for l := range sc.r {
			sc.r[l] = v
		}
		write(w, o, mask, &sc.r)
		return nil
	}
	if o.kind == opMov && mask == ^uint32(0) && o.dst == dReg && !o.ccw && o.s[0].kind == sShared {
		// a full-warp load from shared memory: straight into the register
		return k.loadMem(w, &b.Shared, &o.s[0], mask, (*lanes)(w.Regs[int(o.drow)*32:]))
	}
	a, err := k.fetch(b, w, &o.s[0], mask, &sc.a)
	if err != nil {
		return err
	}
	var s1, s2 *lanes
	if o.s[1].kind != sNone {
		if s1, err = k.fetch(b, w, &o.s[1], mask, &sc.b); err != nil {
			return err
		}
	}
	if o.s[2].kind != sNone {
		if s2, err = k.fetch(b, w, &o.s[2], mask, &sc.c); err != nil {
			return err
		}
	}
	r, f := &sc.r, &sc.f
	direct := mask == ^uint32(0) && o.dst == dReg
	if direct {
		// every lane writes: compute straight into the destination row. Each
		// lane reads its own sources before writing, so aliasing is harmless.
		r = (*lanes)(w.Regs[int(o.drow)*32:])
	}
	switch o.kind {
	case opMov, opA2R, opC2R:
		for l := range r {
			r[l] = a[l]
		}
		if o.kind == opMov && !o.b32 {
			for l := range r {
				r[l] &= 0xffff
			}
		}
		if o.ccw {
			for l := range f {
				f[l] = intFlags(r[l], o.b32)
			}
		}
	case opR2C:
		for l := range r {
			r[l] = a[l] & 15
		}
	case opR2A:
		for l := range r {
			r[l] = a[l] << (s1[l] & 31)
		}
	case opADA:
		for l := range r {
			r[l] = a[l] + s1[l]
		}
	default:
		if ok := k.alu(o, mask, a, s1, s2, r, f, w); !ok {
			if ok := k.falu(o, mask, a, s1, s2, r, f, w); !ok {
				return fmt.Errorf("op %d not implemented", o.kind)
			}
		}
	}
	if !direct {
		write(w, o, mask, r)
	}
	writeFlags(w, o, mask, f)
	if o.aw {
		noteUniform(w, int(o.drow-rowAddr))
	}
	return nil
}

// noteUniform records whether address register a has one value in all lanes.
func noteUniform(w *emu.Warp, a int) {
	row := w.Regs[(rowAddr+a)*32 : (rowAddr+a)*32+32]
	u := uint32(1)
	for _, v := range row[1:] {
		if v != row[0] {
			u = 0
			break
		}
	}
	w.Regs[rowUni*32+a] = u
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
			a := s.off
			if arow != nil {
				if s.inc {
					a = arow[l]
					arow[l] += s.off
				} else {
					a += arow[l]
				}
			}
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

// brx branches each lane to the code address it reads from c[]: the first
// lane's group goes on, every other target (and the lanes whose guard
// failed, at the next instruction) waits on the stack.
func (k *Kernel) brx(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	next := w.PC
	if rest := w.Active &^ mask; rest != 0 {
		w.Diverge(next, rest)
	}
	if mask == 0 {
		return nil
	}
	t, err := k.fetch(b, w, &o.s[0], mask, &sc.a)
	if err != nil {
		return err
	}
	first := firstLane(mask)
	for m := mask; m != 0; m &= m - 1 {
		if l := firstLane(m); t[l] != t[first] {
			if _, ok := k.Prog.index[t[l]]; !ok {
				return &laneErr{l, fmt.Errorf("indirect branch to %#x, not the start of an instruction", t[l])}
			}
			var group uint32
			for g := m; g != 0; g &= g - 1 {
				if j := firstLane(g); t[j] == t[l] {
					group |= 1 << j
				}
			}
			mask &^= group
			m &^= group
			m |= 1 << l // keep the loop's invariant: the current bit is cleared next
			w.Diverge(k.Prog.index[t[l]], group)
		}
	}
	pc, ok := k.Prog.index[t[first]]
	if !ok {
		return &laneErr{first, fmt.Errorf("indirect branch to %#x, not the start of an instruction", t[first])}
	}
	w.PC = pc
	return nil
}
