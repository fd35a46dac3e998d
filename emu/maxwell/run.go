package maxwell

import (
	"errors"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/gpuisa/gpuisa/emu"
)

type lanes = [32]uint32

// Kernel is a lowered program with the memory of one launch; it implements
// emu.Exec with ptxas's sm_5x launch convention.
type Kernel struct {
	Prog       *Program
	ops        []op // Prog's ops with constant operands resolved for this launch
	Global     *emu.Memory
	Const      [16]emu.Memory
	Shared     []emu.SharedImage
	LocalBytes int // per thread
	Grid       emu.Dim3
	Block      emu.Dim3
	bcast      []lanes   // immediates and constants broadcast to every lane
	tex        *texUnit  // textures and surfaces (tex_load.go), nil without
	fuse       []uint8   // per op: the instruction group it starts (fuse.go)
	adds       []addRows // per op: a fuseAdd64 group's rows
	steps      []step    // per op: how runFast runs it (dispatch.go)
	rowsNeed   int       // the register words steps' rows need
	// slow runs every instruction by the general paths (tests compare)
	slow    bool
	buffers []place // the launch's buffers by address, for fault messages
	// what the sanitizer needs (check.go): the launch's parts of global
	// memory, the declared shared memory
	regions        []emu.Region
	sharedDeclared int
	texReads       *[]emu.Access // not nil: texel reads are noted here (inject.go's copies)
}

// scratch is per-block working storage.
type scratch struct {
	a, b, c lanes
	r       lanes      // results of the lanes in a partial mask
	addrs   [32]uint64 // a memory access's lane addresses (memfast.go)
	seen    seenAddrs  // the access whose addresses are in addrs
	// ccAll: compute every condition-code flag, also those no later
	// instruction reads (ccflow.go): traces and probes see them
	ccAll   bool
	red     [emu.NumBarriers]reduction
	lastBar []uint8 // per warp: the barrier of its last BAR.RED
	trace   traceState
	checked []access // the sanitizer's accesses of the current instruction
}

// reduction is a BAR.RED in progress on one barrier, and the result of the
// last one completed.
type reduction struct {
	arrived   int
	count     uint32 // threads whose predicate was true
	all, any  bool
	started   bool
	done      uint32 // result for B2R.RESULT: the count (POPC) or 0/1
	doneTruth bool
}

// NumRegs implements emu.Exec.
func (k *Kernel) NumRegs() int { return k.Prog.numRows() }

// Where implements emu.Exec.
func (k *Kernel) Where(pc uint32) (uint64, string) { return k.Prog.Where(pc) }

// InitBlock copies the shared-memory images and sizes the local memory.
func (k *Kernel) InitBlock(b *emu.Block) error {
	if b.Aux == nil {
		b.Aux = new(scratch)
	}
	sc := b.Aux.(*scratch)
	sc.red = [emu.NumBarriers]reduction{}
	if len(sc.lastBar) != len(b.Warps) {
		sc.lastBar = make([]uint8, len(b.Warps))
	}
	for _, img := range k.Shared {
		if err := b.Shared.Write(img.Addr, img.Data); err != nil {
			return fmt.Errorf("shared memory image: %v", err)
		}
	}
	for i := range b.Warps {
		w := &b.Warps[i]
		if need := k.LocalBytes * emu.WarpSize; len(w.Local) != need {
			w.Local = make([]byte, need)
		}
	}
	return nil
}

// InitWarp clears the registers and sets PT.
func (k *Kernel) InitWarp(b *emu.Block, w *emu.Warp) {
	clear(w.Regs)
	w.Regs[k.Prog.rowP(7)*32] = ^uint32(0)
}

var (
	// ErrTrap is the fault of BPT.TRAP, what ptxas makes of PTX's trap
	// and also of brkpt (both compile to BPT.TRAP 0x1 in ptxas 11.8).
	ErrTrap = errors.New("trap (BPT.TRAP)")
	// ErrBreakpoint is the fault of the other BPT modes (BPT.INT, ...),
	// which stop the kernel for a debugger.
	ErrBreakpoint = errors.New("breakpoint (BPT)")
)

var (
	errPastEnd = errors.New("execution ran past the end of the program")
	errNoLocal = errors.New("local memory access, but the kernel has no local memory (local_bytes)")
)

// laneErr is an error of one lane.
type laneErr struct {
	lane int
	err  error
}

func (e *laneErr) Error() string { return e.err.Error() }

// Run implements emu.Exec: the interpreter loop.
func (k *Kernel) Run(b *emu.Block, w *emu.Warp, budget int64) error {
	ops := k.ops
	sc := b.Aux.(*scratch)
	if w.Aux != nil {
		sc = w.Aux.(*scratch) // a parallel round's (parallel.go)
	}
	regs := w.Regs
	probe := b.Probe // fault injection's hook (nil: none); it is set between Run calls
	// the trace, the probe or the sanitizer sees every instruction
	// (execWatched); the others run plainly (a parallel round's record
	// too: the memory paths record their accesses, mem and memFast)
	watched := b.Trace != nil || probe != nil || b.Check != nil
	sc.ccAll = b.Trace != nil || probe != nil || k.slow
	fuse := k.fuse
	if b.Trace != nil || probe != nil {
		fuse = nil // they see the instructions of a group one by one
	}
	tracked := w.Track != nil // set by the engine between Run calls
	fast := !watched && !k.slow
	if w.Done || w.AtBarrier || w.Fault != nil {
		return nil
	}
	if fast && len(fuse) == len(ops) && len(k.steps) == len(ops) {
		return k.runFast(b, w, sc, budget)
	}
	// only the general paths (control flow, barriers, faults) end a warp
	// or stop it: the flags are tested after them, not after the fast paths
	for n := int64(0); n < budget; n++ {
		pc := w.PC
		if int(pc) >= len(ops) {
			addr, _ := k.Prog.Where(pc)
			return b.Fault(w, firstLane(w.Active), addr, "", errPastEnd)
		}
		o := &ops[pc]
		if tracked && syncPoint(o) {
			w.Track.Stopped = true // the engine runs it between rounds
			return nil
		}
		w.Rejoined = false
		w.Steps++
		w.ThreadSteps += int64(bits.OnesCount32(w.Active))
		g := regs[int(o.guard)*32]
		if o.gnot {
			g = ^g
		}
		mask := w.Active & g
		if int(pc) < len(fuse) {
			if f := fuse[pc]; f != fuseNone && fusable(f, mask, w.Active) && budget-n >= fuseLen[f] {
				if f == fuseAdd64 { // the commonest, without runFused's generality
					k.add64(regs, o, &ops[pc+1], &k.adds[pc], mask, sc.ccAll)
					w.PC = pc + 2
					w.Steps++
					w.ThreadSteps += int64(bits.OnesCount32(mask))
					n++
					continue
				}
				k.runFused(w, o, f, pc, mask, sc.ccAll)
				n += fuseLen[f] - 1
				continue
			}
		}
		var err error
		if watched {
			mask, err = k.execWatched(b, w, o, mask, sc, pc, probe)
		} else {
			w.PC = pc + 1
			// the commonest kinds straight to their fast paths
			if fast {
				switch o.kind {
				case kLdg, kStg, kLds, kSts:
					if k.memFast(b, w, o, mask, sc) {
						continue
					}
				case kFfma, kFadd, kFmul:
					if k.faluFast(o, mask, regs, sc) {
						continue
					}
				case kMov, kIAdd, kXmad, kIsetp, kShl, kShr, kIscadd, kLop, kSel:
					if k.ialuFast(o, mask, regs, sc) {
						continue
					}
				}
			}
			err = k.exec(b, w, o, mask, sc, pc)
		}
		if err != nil {
			return k.fault(b, w, o, pc, mask, err)
		}
		if w.Done || w.AtBarrier || w.Fault != nil {
			return nil
		}
	}
	return nil
}

// fault reports instruction o's error err (of the lanes in mask, or of
// the lane a laneErr names).
func (k *Kernel) fault(b *emu.Block, w *emu.Warp, o *op, pc, mask uint32, err error) error {
	lane := firstLane(mask)
	var le *laneErr
	if errors.As(err, &le) {
		lane, err = le.lane, le.err
	}
	k.locate(o, err)
	return b.Fault(w, lane, k.Prog.addrs[pc], k.Prog.texts[pc], err)
}

// execWatched runs one instruction with the trace, fault injection's probe
// and the sanitizer seeing it; it returns the lanes that ran it (the probe
// may change them).
func (k *Kernel) execWatched(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch, pc uint32, probe emu.Probe) (uint32, error) {
	p := k.Prog
	if b.Trace != nil {
		fmt.Fprintf(b.Trace, "block %v warp %d %#04x %08x/%08x %s\n", b.ID, w.Index, p.addrs[pc], w.Active, mask, p.texts[pc])
		k.traceBefore(b, w, o, mask, &sc.trace)
	}
	if probe != nil {
		mask = probe.Before(b, w, pc, mask)
	}
	w.PC = pc + 1
	if b.Check != nil {
		sc.checked = k.accesses(b, w, o, mask, sc.checked[:0])
	}
	err := k.exec(b, w, o, mask, sc, pc)
	if b.Trace != nil {
		k.traceAfter(b.Trace, w, &sc.trace)
	}
	if b.Check != nil {
		k.check(b, w, o, p.addrs[pc], p.texts[pc], sc.checked)
	}
	if err == nil && probe != nil {
		probe.After(b, w, pc, mask)
	}
	return mask, err
}

func firstLane(m uint32) int {
	if m == 0 {
		return 0
	}
	return bits.TrailingZeros32(m)
}

// exec runs one instruction for the lanes in mask.
func (k *Kernel) exec(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch, pc uint32) error {
	regs := w.Regs
	switch o.kind {
	case kInvalid:
		if err := k.Prog.errs[pc]; err != nil {
			return err
		}
		return errNoSem
	case kNop:
	case kSsy, kPbk, kPcnt, kPexit:
		if mask == 0 {
			return nil // a guard that fails everywhere
		}
		kind := emu.StackSync
		switch o.kind {
		case kPbk:
			kind = emu.StackBreak
		case kPcnt:
			kind = emu.StackCont
		case kPexit:
			kind = emu.StackExit
		}
		w.Push(kind, o.target)
	case kSync, kBrk, kCont, kRet, kExit:
		if o.flags&fCCTest != 0 {
			mask = k.ccMask(w, o, mask)
		}
		if mask == 0 {
			return nil
		}
		switch o.kind {
		case kSync:
			w.Sync(mask)
		case kBrk:
			w.Break(mask)
		case kCont:
			w.Cont(mask)
		case kRet:
			w.Ret(mask)
		case kExit:
			if o.sub == 1 { // KIL
				w.Exit(mask)
			} else {
				w.ExitLanes(mask)
			}
		}
	case kCal:
		if mask == 0 {
			return nil
		}
		if mask != w.Active {
			// CAL and JCAL have no guard in the listing; lanes that do
			// not call would go on after it
			w.Diverge(pc+1, w.Active&^mask)
		}
		w.Call(o.target, pc+1)
	case kPret:
		if mask != 0 {
			w.Push(emu.StackCall, o.target)
		}
	case kBra:
		if o.flags&fCCTest != 0 {
			mask = k.ccMask(w, o, mask)
		}
		w.Branch(mask, o.target, pc+1)
	case kBrx, kJmx:
		if o.flags&fCCTest != 0 {
			mask = k.ccMask(w, o, mask)
		}
		return k.brx(w, o, mask, pc)
	case kBpt:
		if mask != 0 {
			if o.sub == 1 {
				return ErrTrap
			}
			return ErrBreakpoint
		}
	case kBar:
		if mask == 0 {
			return nil
		}
		return k.bar(b, w, o, mask, sc)
	case kB2R:
		r := &sc.red[sc.lastBar[w.Index]]
		d := int(o.d.row) * 32
		for l := range 32 {
			if mask>>l&1 != 0 {
				w.Regs[d+l] = r.done
			}
		}
		v := uint32(0)
		if r.doneTruth {
			v = ^uint32(0)
		}
		setPred(w.Regs, &o.d2, mask, v)
	case kS2R, kCs2r:
		k.s2r(b, w, o, mask)
	case kLd, kLdg, kLds, kLdl, kLdc, kSt, kStg, kSts, kStl:
		return k.mem(b, w, o, mask, sc)
	case kAtom, kAtoms, kRed:
		return k.atom(b, w, o, mask)
	case kTex:
		return k.texExec(w, o.tx, mask)
	case kShfl:
		k.shfl(w, o, mask, sc)
	case kVote:
		k.vote(w, o, mask)
	case kPsetp, kPset, kCsetp, kP2R, kR2P:
		k.predOps(w, o, mask)
	case kFadd, kFmul, kFfma:
		if k.slow || !k.faluFast(o, mask, w.Regs, sc) {
			k.falu(w, o, mask)
		}
	case kFmnmx, kFsetp, kFset, kFcmp, kMufu, kRro, kFchk:
		k.falu(w, o, mask)
	case kDadd, kDmul, kDfma, kDmnmx, kDsetp, kDset:
		k.dalu(w, o, mask)
	case kF2F, kF2I, kI2F, kI2I:
		k.cvt(w, o, mask)
	case kHadd2, kHmul2, kHfma2, kHsetp2, kHset2:
		k.halfOps(w, o, mask)
	default:
		if k.slow || !k.ialuFast(o, mask, regs, sc) {
			k.ialu(w, o, mask, regs, sc)
		}
	}
	return nil
}

// row is source s for every lane: a register row itself, a broadcast row of
// an immediate or constant, or (indexed constants, predicates) the lanes in
// mask read into buf.
func (k *Kernel) row(regs []uint32, s *opnd, mask uint32, buf *lanes) *lanes {
	if s.kind == oReg { // small enough to inline: the common case costs no call
		return (*lanes)(regs[int(s.row)*32:])
	}
	return k.rowOther(regs, s, mask, buf)
}

func (k *Kernel) rowOther(regs []uint32, s *opnd, mask uint32, buf *lanes) *lanes {
	switch s.kind {
	case oImm, oConst:
		if s.bc >= 0 {
			return &k.bcast[s.bc]
		}
	case oNone:
		return &zeroLanes
	}
	for l := range 32 {
		if mask>>l&1 != 0 {
			buf[l] = k.val(regs, s, l)
		}
	}
	return buf
}

// regLanes is the register row at offset i of regs, with one bounds test
// (a slice's conversion to *lanes costs several).
func regLanes(regs []uint32, i int) *lanes {
	_ = regs[i+31] // the row's last word (a row past the registers is the lowering's bug)
	return (*lanes)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(regs)), uintptr(i)*4))
}

// zeroLanes is read-only.
var zeroLanes lanes

// val reads source s in lane l.
func (k *Kernel) val(regs []uint32, s *opnd, l int) uint32 {
	switch s.kind {
	case oReg:
		return regs[int(s.row)*32+l]
	case oImm, oConst:
		return uint32(s.imm)
	case oCIdx:
		v, _ := k.Const[s.bank].Load32(regs[int(s.row)*32+l] + uint32(s.imm))
		return v
	case oPred:
		return regs[int(s.row)*32] >> l & 1
	}
	return 0
}

// val64 reads a register pair (or a 64-bit constant, or an immediate's high word).
func (k *Kernel) val64(regs []uint32, s *opnd, l int) uint64 {
	switch s.kind {
	case oReg:
		r := int(s.row) * 32
		return uint64(regs[r+l]) | uint64(regs[r+32+l])<<32
	case oImm:
		return uint64(uint32(s.imm)) << 32
	case oConst:
		return s.imm // resolved to the 64-bit value
	case oCIdx:
		v, _ := k.Const[s.bank].Load(uint64(regs[int(s.row)*32+l]+uint32(s.imm)), 8)
		return v
	}
	return 0
}

// pred reads a predicate operand's lane mask (with its negation).
func pred(regs []uint32, s *opnd) uint32 {
	if s.kind != oPred {
		return ^uint32(0)
	}
	v := regs[int(s.row)*32]
	if s.not {
		v = ^v
	}
	return v
}

// setPred writes the lanes in mask of predicate destination d.
func setPred(regs []uint32, d *opnd, mask, v uint32) {
	if d.kind != oPred {
		return
	}
	r := &regs[int(d.row)*32]
	*r = *r&^mask | v&mask
}

// sregValue is a special register's value in lane l.
func (k *Kernel) sregValue(b *emu.Block, w *emu.Warp, sr int, l int) uint32 {
	t := w.Index*emu.WarpSize + l
	switch sr {
	case srLaneID:
		return uint32(l)
	case srTidX, srTidY, srTidZ:
		return b.Dim.At(t)[sr-srTidX]
	case srCtaX, srCtaY, srCtaZ:
		return b.ID[sr-srCtaX]
	case srClockLo, srTimerLo:
		return uint32(w.Steps)
	case srClockHi, srTimerHi:
		return uint32(w.Steps >> 32)
	case srEqMask:
		return 1 << l
	case srLtMask:
		return 1<<l - 1
	case srLeMask:
		return 1<<(l+1) - 1
	case srGtMask:
		return ^uint32(1<<(l+1) - 1)
	case srGeMask:
		return ^uint32(1<<l - 1)
	case srWarpID:
		return uint32(w.Index)
	case srNWarpID:
		return uint32(len(b.Warps))
	case srSMemSz:
		return uint32(len(b.Shared.Data))
	}
	return 0
}

func (k *Kernel) s2r(b *emu.Block, w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	d := int(o.d.row) * 32
	sr := int(o.s[0].imm)
	switch {
	case sr == srTidX && b.Dim[1] == 1 && b.Dim[2] == 1, sr == srLaneID:
		// the common cases without a division per lane
		base := uint32(w.Index * emu.WarpSize)
		if sr == srLaneID {
			base = 0
		}
		dst := (*lanes)(regs[d:])
		for l := range 32 {
			if mask>>l&1 != 0 {
				dst[l] = base + uint32(l)
			}
		}
	case sr == srCtaX || sr == srCtaY || sr == srCtaZ:
		v := b.ID[sr-srCtaX]
		dst := (*lanes)(regs[d:])
		for l := range 32 {
			if mask>>l&1 != 0 {
				dst[l] = v
			}
		}
	default:
		for l := range 32 {
			if mask>>l&1 != 0 {
				regs[d+l] = k.sregValue(b, w, sr, l)
			}
		}
	}
}

func (k *Kernel) bar(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch) error {
	id, threads := 0, 0
	if o.s[0].kind == oImm {
		id = int(o.s[0].imm)
	} else if o.s[0].kind == oReg {
		id = int(w.Regs[int(o.s[0].row)*32+firstLane(mask)])
	}
	if o.s[1].kind != oNone {
		threads = int(k.val(w.Regs, &o.s[1], firstLane(mask)))
	}
	if id < 0 || id >= emu.NumBarriers {
		return fmt.Errorf("barrier %d does not exist (0..%d)", id, emu.NumBarriers-1)
	}
	if o.sub == 2 {
		// BAR.RED: fold this warp's predicates in; the reduction completes
		// with the barrier (every live warp: the engine's rule without a
		// thread count)
		r := &sc.red[id]
		if !r.started {
			*r = reduction{started: true, all: true, done: r.done, doneTruth: r.doneTruth}
		}
		p := pred(w.Regs, &o.s[2]) & mask
		r.count += uint32(bits.OnesCount32(p))
		r.all = r.all && p == mask
		r.any = r.any || p != 0
		r.arrived++
		sc.lastBar[w.Index] = uint8(id)
		live := 0
		for i := range b.Warps {
			if !b.Warps[i].Done {
				live++
			}
		}
		if r.arrived >= live {
			switch o.bop {
			case 0:
				r.done, r.doneTruth = r.count, r.count != 0
			case 1:
				r.done, r.doneTruth = uint32(b2u(r.all)), r.all
			default:
				r.done, r.doneTruth = uint32(b2u(r.any)), r.any
			}
			r.started = false
		}
		return b.Barrier(w, id, 0, true, true)
	}
	return b.Barrier(w, id, threads, true, o.sub == 0)
}

func (k *Kernel) shfl(w *emu.Warp, o *op, mask uint32, sc *scratch) {
	regs := w.Regs
	a := int(o.s[0].row) * 32
	src := &sc.a
	for l := range 32 {
		src[l] = regs[a+l]
	}
	var pv uint32
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		bv := k.val(regs, &o.s[1], l) & 31
		c := k.val(regs, &o.s[2], l)
		cv, seg := c&31, c>>8&31
		lane := uint32(l)
		maxLane := lane&seg | cv&^seg
		minLane := lane & seg
		var j uint32
		var ok bool
		switch o.sub {
		case 0:
			j = minLane | bv&^seg
			ok = j <= maxLane
		case 1:
			j = lane - bv
			ok = int32(j) >= int32(maxLane)
		case 2:
			j = lane + bv
			ok = j <= maxLane
		default:
			j = lane ^ bv
			ok = j <= maxLane
		}
		if !ok {
			j = lane
		}
		if ok {
			pv |= 1 << l
		}
		if o.d.kind == oReg {
			regs[int(o.d.row)*32+l] = src[j&31]
		}
	}
	setPred(regs, &o.d2, mask, pv)
}

func (k *Kernel) vote(w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	p := pred(regs, &o.s[0]) & mask
	if o.d.kind == oReg {
		d := int(o.d.row) * 32
		for l := range 32 {
			if mask>>l&1 != 0 {
				regs[d+l] = p
			}
		}
	}
	var r bool
	switch o.sub {
	case 0:
		r = p == mask
	case 1:
		r = p != 0
	default:
		r = p == 0 || p == mask
	}
	v := uint32(0)
	if r {
		v = ^uint32(0)
	}
	setPred(regs, &o.d2, mask, v)
}

func combine(bop uint8, x, y bool) bool {
	switch bop {
	case 0:
		return x && y
	case 1:
		return x || y
	}
	return x != y
}

func (k *Kernel) predOps(w *emu.Warp, o *op, mask uint32) {
	regs := w.Regs
	switch o.kind {
	case kPsetp, kPset:
		a, bb, c := pred(regs, &o.s[0]), pred(regs, &o.s[1]), pred(regs, &o.s[2])
		var r, r2 uint32
		for l := range 32 {
			x, y, z := a>>l&1 != 0, bb>>l&1 != 0, c>>l&1 != 0
			t := combine(o.sub, x, y)
			if combine(o.bop, t, z) {
				r |= 1 << l
			}
			if combine(o.bop, !t, z) {
				r2 |= 1 << l
			}
		}
		if o.kind == kPsetp {
			setPred(regs, &o.d, mask, r)
			setPred(regs, &o.d2, mask, r2)
			return
		}
		d := int(o.d.row) * 32
		for l := range 32 {
			if mask>>l&1 != 0 {
				v := uint32(0)
				if r>>l&1 != 0 {
					v = ^uint32(0)
					if o.flags&fBF != 0 {
						v = 0x3f800000
					}
				}
				regs[d+l] = v
			}
		}
	case kCsetp:
		var t uint32
		for l := range 32 {
			if ccTest(o.sub, ccFlags(regs, k.Prog.rowCC(), l)) {
				t |= 1 << l
			}
		}
		p := pred(regs, &o.s[0])
		var r, r2 uint32
		for l := range 32 {
			x, z := t>>l&1 != 0, p>>l&1 != 0
			if combine(o.bop, x, z) {
				r |= 1 << l
			}
			if combine(o.bop, !x, z) {
				r2 |= 1 << l
			}
		}
		setPred(regs, &o.d, mask, r)
		setPred(regs, &o.d2, mask, r2)
	case kP2R:
		// P2R Rd, PR|CC, Ra, mask: d = a & ~mask | (bits & mask)
		d := int(o.d.row) * 32
		for l := range 32 {
			if mask>>l&1 == 0 {
				continue
			}
			var pr uint32
			if o.s[0].kind == oCC {
				pr = ccFlags(regs, k.Prog.rowCC(), l)
			} else {
				for i := range 7 {
					pr |= (regs[k.Prog.rowP(i)*32] >> l & 1) << i
				}
			}
			m := k.val(regs, &o.s[2], l)
			a := k.val(regs, &o.s[1], l)
			regs[d+l] = a&^m | pr&m
		}
	case kR2P:
		// R2P PR|CC, Ra, mask
		for l := range 32 {
			if mask>>l&1 == 0 {
				continue
			}
			a := k.val(regs, &o.s[0], l)
			m := k.val(regs, &o.s[1], l)
			if o.d.kind == oCC {
				cc := regs[k.Prog.rowCC()*32:]
				for i, row := range [4]int{1, 2, 0, 3} { // ccFlags's order
					if m>>i&1 != 0 {
						cc[row] = cc[row]&^(1<<l) | (a>>i&1)<<l
					}
				}
				continue
			}
			for i := range 7 {
				if m>>i&1 != 0 {
					r := &regs[k.Prog.rowP(i)*32]
					*r = *r&^(1<<l) | (a>>i&1)<<l
				}
			}
		}
	}
}

// The condition code of a lane: bit 0 zero, 1 sign, 2 carry, 3 overflow
// (lanes 1, 2, 0 and 3 of the CC row hold the masks).
const (
	ccZ = 1 << iota
	ccS
	ccC
	ccO
)

func ccFlags(regs []uint32, row int, l int) uint32 {
	cc := regs[row*32:]
	return cc[1]>>l&1 | (cc[2]>>l&1)<<1 | (cc[0]>>l&1)<<2 | (cc[3]>>l&1)<<3
}

// ccTest is a CSETP condition on the flags.
func ccTest(cond uint8, f uint32) bool {
	z, s, c, o := f&ccZ != 0, f&ccS != 0, f&ccC != 0, f&ccO != 0
	switch cond {
	case 0:
		return false
	case 1, 9:
		return s != o
	case 2, 10:
		return z
	case 3, 11:
		return z || s != o
	case 4, 12:
		return !z && s == o
	case 5, 13:
		return !z
	case 6, 14:
		return s == o
	case 7:
		return true
	case 8:
		return false
	case 15:
		return true
	case 16:
		return !o
	case 17:
		return !c
	case 18:
		return !s
	case 19:
		return !c || z
	case 20:
		return c && !z
	case 21:
		return s
	case 22:
		return c
	case 23:
		return o
	}
	return false
}

var errBadTarget = errors.New("indirect branch to an address that is not an instruction of the program")

// ccMask keeps the lanes of mask whose condition code passes o's test
// (in s[1], or in s[2] for BRX/JMX, whose s[1] is the offset).
func (k *Kernel) ccMask(w *emu.Warp, o *op, mask uint32) uint32 {
	test := uint8(o.s[1].imm)
	if o.kind == kBrx || o.kind == kJmx {
		test = uint8(o.s[2].imm)
	}
	for l := range 32 {
		if mask>>l&1 != 0 && !ccTest(test, ccFlags(w.Regs, k.Prog.rowCC(), l)) {
			mask &^= 1 << l
		}
	}
	return mask
}

// brx jumps each lane to its register's address (BRX: plus the next
// instruction's address and the offset; JMX: plus the offset, an absolute
// address); lanes with different targets diverge, the first lane's group
// running first.
func (k *Kernel) brx(w *emu.Warp, o *op, mask uint32, pc uint32) error {
	if mask == 0 {
		return nil
	}
	if mask != w.Active {
		w.Diverge(pc+1, w.Active&^mask) // lanes whose guard failed go on after the BRX
	}
	regs := w.Regs
	base := indexAddr(pc) + 8 + o.s[1].imm
	if o.kind == kJmx {
		base = o.s[1].imm
	}
	var first uint32
	var firstMask uint32
	seen := uint32(0)
	for l := range 32 {
		if mask>>l&1 == 0 || seen>>l&1 != 0 {
			continue
		}
		addr := base + uint64(regs[int(o.s[0].row)*32+l])
		t, ok := addrIndex(addr)
		if !ok || int(t) >= len(k.ops) {
			return &laneErr{l, errBadTarget}
		}
		group := uint32(0)
		for m := l; m < 32; m++ {
			if mask>>m&1 != 0 && base+uint64(regs[int(o.s[0].row)*32+m]) == addr {
				group |= 1 << m
			}
		}
		seen |= group
		if firstMask == 0 {
			first, firstMask = t, group
			continue
		}
		w.Diverge(t, group)
	}
	w.PC = first
	return nil
}
