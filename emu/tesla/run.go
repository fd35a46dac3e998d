package tesla

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/gpuisa/gpuisa/emu"
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
	// locks holds the shared words locked by G2R.LCK: address -> thread+1
	locks map[uint32]uint32
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
	clear(b.Aux.(*scratch).locks)
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
// The other registers the program uses start at zero (as on FlexGrip).
func (k *Kernel) InitWarp(b *emu.Block, w *emu.Warp) {
	clear(w.Regs[:k.Prog.gprRows*32])
	clear(w.Regs[rowCond*32:])
	for l := range emu.WarpSize {
		t := b.Dim.At(w.Index*emu.WarpSize + l)
		w.Regs[l] = t[0] | t[1]<<16 | t[2]<<26
	}
}

var (
	errTrap    = errors.New("trap")
	errPastEnd = errors.New("execution ran past the end of the program")
	errNoLocal = errors.New("local memory access, but the launch gives no local memory (local_bytes)")
)

// Run implements emu.Exec: the interpreter loop.
func (k *Kernel) Run(b *emu.Block, w *emu.Warp, budget int64) error {
	p := k.Prog
	ops := p.ops
	sc := b.Aux.(*scratch)
	regs := w.Regs
	probe := b.Probe // fault injection's hook (nil: none); it is set between Run calls
	for n := int64(0); n < budget; n++ {
		if w.Done || w.AtBarrier || w.Fault != nil {
			return nil
		}
		pc := w.PC
		if int(pc) >= len(ops) {
			addr, _ := p.Where(pc)
			return b.Fault(w, firstLane(w.Active), addr, "", errPastEnd)
		}
		o := &ops[pc]
		if o.quick && w.Active == ^uint32(0) && b.Trace == nil && probe == nil {
			// an unguarded fast-path op for the whole warp: no join, guard,
			// trace or exit to look at
			w.Rejoined = false
			w.Steps++
			w.ThreadSteps += 32
			w.PC = pc + 1
			done, err := k.execFast(b, w, o)
			if err != nil {
				return k.fault(b, w, pc, err)
			}
			if done {
				continue
			}
			w.Steps-- // not this time (a g[] factor that is not uniform): the general route
			w.ThreadSteps -= 32
			w.PC = pc
		}
		if o.join {
			if !w.Join() {
				n-- // switching paths executes nothing: budget counts instructions
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
		if probe != nil {
			mask = probe.Before(b, w, pc, mask)
		}
		w.PC = pc + 1
		if err := k.exec(b, w, o, mask, sc); err != nil {
			return k.fault(b, w, pc, err)
		}
		if o.exit {
			w.Exit(w.Active)
		}
		if probe != nil {
			probe.After(b, w, pc, mask)
		}
	}
	return nil
}

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
	if o.fast != fastNone && mask == ^uint32(0) {
		if done, err := k.execFast(b, w, o); done {
			return err
		}
	}
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
		// .ARV arrives, .WAIT waits, both (or neither) do both
		arrive, wait := o.size&1 != 0, o.size&2 != 0
		if o.size == 0 {
			arrive, wait = true, true
		}
		return b.Barrier(w, int(o.mode), int(o.target), arrive, wait)
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
	case opLock:
		return k.lockLoad(b, w, o, mask, sc)
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
		a := int(o.drow - rowAddr)
		switch {
		case o.kind == opADA && mask == ^uint32(0) && o.s[0].kind == sZero:
			w.Regs[rowUni*32+a] = addrUniform
		case o.kind == opADA && mask == ^uint32(0):
			// a constant added to every lane keeps the source's shape
			w.Regs[rowUni*32+a] = w.Regs[rowUni*32+int(o.s[0].row-rowAddr)]
		default:
			noteUniform(w, a)
		}
	}
	return nil
}

// noteUniform records the shape of address register a for g[] and c[]
// reads: addrUniform when every lane holds the same value, addrWords when
// lane l holds lane 0's value + 4l, else 0.
func noteUniform(w *emu.Warp, a int) {
	row := (*lanes)(w.Regs[(rowAddr+a)*32:])
	uni, words := true, true
	for l, v := range row {
		uni = uni && v == row[0]
		words = words && v == row[0]+uint32(4*l)
	}
	k := uint32(0)
	switch {
	case uni:
		k = addrUniform
	case words:
		k = addrWords
	}
	w.Regs[rowUni*32+a] = k
}

// Address register shapes (row rowUni).
const (
	addrUniform = 1
	addrWords   = 2
)

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
