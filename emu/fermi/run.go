package fermi

import (
	"errors"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/internal/cc"
)

type lanes = [32]uint32

// zeroLanes is read-only: RZ, and missing sources.
var zeroLanes lanes

// Kernel is a lowered program with the memory of one launch; it implements
// emu.Exec with the sm_2x launch convention (docs/fermi-launch.md).
type Kernel struct {
	Prog       *Program
	ops        []op // Prog's ops with constant operands resolved for this launch
	Global     *emu.Memory
	Const      [NumConstBanks]emu.Memory
	Shared     []emu.SharedImage
	LocalBytes int // per thread
	Grid       emu.Dim3
	Block      emu.Dim3
	AddrBits   int       // 32 or 64: the width of pointers and of generic addresses
	Textures   []Texture // buffer textures by slot (TLD)
	bcast      []lanes   // immediates and constants broadcast to every lane
	glocks     globalLocks
}

// scratch is per-block working storage.
type scratch struct {
	a, b, c, r lanes
	red        [emu.NumBarriers]reduction
	pending    []int32            // per warp: op index of a BAR.RED whose results are due, -1 none
	locks      map[lockKey]uint32 // words locked by LDLK/LDSLK: owner thread+1
	prmt       prmtCache
	// sharedEnd is the end of the shared memory the block wrote: the
	// bytes past it are still zero (emu.SharedExtent)
	sharedEnd uint64
}

// wroteShared records a write of shared memory ending before end.
func (sc *scratch) wroteShared(end uint64) {
	sc.sharedEnd = max(sc.sharedEnd, end)
}

// SharedExtent implements emu.SharedExtent: every store to shared memory
// (STS, ST and ATOM/RED through the shared window, STSUL) and InitBlock's
// images raise scratch.sharedEnd, so a block's Start clears only that.
func (k *Kernel) SharedExtent(b *emu.Block) int {
	if sc, ok := b.Aux.(*scratch); ok {
		return int(min(sc.sharedEnd, uint64(len(b.Shared.Data))))
	}
	return len(b.Shared.Data)
}

// prmtCache is the last selector row whose every lane took a backward
// byte window (prmtLanes), with each lane's shift: the BWT's keys permute
// several words by one selector row in a row.
type prmtCache struct {
	sel, shift lanes
	ok         bool
}

type lockKey struct {
	shared bool
	addr   uint64
}

// reduction is a BAR.RED in progress on one barrier, and the result of the
// last one completed.
type reduction struct {
	arrived  int
	warps    uint64 // the warps that arrived (bit: warp index)
	sub      uint8  // the reduction: POPC, AND, OR
	count    uint32 // threads whose predicate held
	all, any bool
	started  bool
	result   uint32 // POPC: the count; AND, OR: 0 or 1
	truth    bool
}

// NumRegs implements emu.Exec.
func (k *Kernel) NumRegs() int { return numRows }

// Where implements emu.Exec.
func (k *Kernel) Where(pc uint32) (uint64, string) { return k.Prog.Where(pc) }

// InitBlock copies the shared-memory images and sizes the local memory.
func (k *Kernel) InitBlock(b *emu.Block) error {
	if b.Aux == nil {
		b.Aux = &scratch{}
	}
	sc := b.Aux.(*scratch)
	sc.red = [emu.NumBarriers]reduction{}
	if len(sc.pending) != len(b.Warps) {
		sc.pending = make([]int32, len(b.Warps))
	}
	for i := range sc.pending {
		sc.pending[i] = -1
	}
	clear(sc.locks)
	sc.sharedEnd = 0 // Start cleared what the last block wrote
	for _, img := range k.Shared {
		sc.wroteShared(img.Addr + uint64(len(img.Data)))
		if err := b.Shared.Write(img.Addr, img.Data); err != nil {
			return fmt.Errorf("shared memory image: %v", err)
		}
	}
	for i := range b.Warps {
		// local memory is allocated when a warp first touches it (localOf):
		// most generic accesses never reach the local window
		w := &b.Warps[i]
		if len(w.Local) != 0 && len(w.Local) != k.LocalBytes*emu.WarpSize {
			w.Local = nil
		}
	}
	return nil
}

// localOf points local at lane l's local memory, allocating the warp's on
// first use (the engine clears it for every block).
func (k *Kernel) localOf(w *emu.Warp, l int, local *emu.Memory) error {
	lb := k.LocalBytes
	if lb == 0 {
		return errNoLocal
	}
	if len(w.Local) == 0 {
		w.Local = make([]byte, lb*emu.WarpSize)
	}
	local.Data = w.Local[l*lb : (l+1)*lb : (l+1)*lb]
	return nil
}

// InitWarp clears the registers the program uses, the predicates and the
// condition code, and sets PT.
func (k *Kernel) InitWarp(b *emu.Block, w *emu.Warp) {
	clear(w.Regs[:k.Prog.used*32])
	clear(w.Regs[rowRZ*32 : (rowRZ+1)*32])
	clear(w.Regs[rowFlags*32 : (rowFlags+1)*32])
	w.Regs[rowFlags*32+predPT] = ^uint32(0)
}

var (
	// ErrTrap is the fault of BPT.TRAP (PTX trap).
	ErrTrap = errors.New("trap (BPT.TRAP)")
	// ErrBreakpoint is the fault of the other BPT modes.
	ErrBreakpoint = errors.New("breakpoint (BPT)")
	errPastEnd    = errors.New("execution ran past the end of the program")
	errNoLocal    = errors.New("local memory access, but the launch gives no local memory (local_bytes)")
	errBadTarget  = errors.New("indirect branch to an address that is not an instruction of the program")
)

// laneErr is an error of one lane.
type laneErr struct {
	lane int
	err  error
}

func (e *laneErr) Error() string { return e.err.Error() }
func (e *laneErr) Unwrap() error { return e.err }

// Run implements emu.Exec: the interpreter loop.
func (k *Kernel) Run(b *emu.Block, w *emu.Warp, budget int64) error {
	p := k.Prog
	ops := k.ops
	sc := b.Aux.(*scratch)
	regs := w.Regs
	if len(regs) < numRows*32 {
		return fmt.Errorf("warp %d has %d register words, the kernel needs %d", w.Index, len(regs), numRows*32)
	}
	flags := regs[rowFlags*32 : rowFlags*32+32 : rowFlags*32+32]
	probe := b.Probe // fault injection's hook (nil: none); it is set between Run calls
	if sc.pending[w.Index] >= 0 {
		k.barResult(w, &ops[sc.pending[w.Index]], sc)
		sc.pending[w.Index] = -1
	}
	if w.Done || w.AtBarrier || w.Fault != nil {
		return nil
	}
	// traces and fault injection's probe see every instruction: the fast
	// forms' loop runs only without them
	fast := b.Trace == nil && probe == nil
	for n := int64(0); n < budget; n++ {
		if fast {
			// the fast forms, as many as follow one another
			n += k.runFastStretch(b, w, sc, budget-n)
			if n >= budget {
				return nil
			}
		}
		pc := w.PC
		if int(pc) >= len(ops) {
			addr, _ := p.Where(pc)
			return b.Fault(w, firstLane(w.Active), addr, "", errPastEnd)
		}
		w.Rejoined = false
		o := &ops[pc]
		w.Steps++
		w.ThreadSteps += int64(bits.OnesCount32(w.Active))
		g := flags[o.guard]
		if o.gnot {
			g = ^g
		}
		mask := w.Active & g
		if b.Trace != nil {
			fmt.Fprintf(b.Trace, "block %v warp %d %#04x %08x/%08x %s\n", b.ID, w.Index, p.addrs[pc], w.Active, mask, p.texts[pc])
		}
		if probe != nil {
			mask = probe.Before(b, w, pc, mask)
		}
		w.PC = pc + 1
		if err := k.exec(b, w, o, mask, sc, pc); err != nil {
			lane := firstLane(mask)
			var le *laneErr
			if errors.As(err, &le) {
				lane, err = le.lane, le.err
			}
			return b.Fault(w, lane, p.addrs[pc], p.texts[pc], err)
		}
		if o.sync && mask != 0 && !w.Done {
			k.sync(w, mask)
		}
		if probe != nil {
			probe.After(b, w, pc, mask)
			if w.Fault != nil {
				return nil
			}
		}
		// only control flow, barriers and faults change the warp's state
		if (o.kind < kIadd || o.kind == kBar || o.sync) && (w.Done || w.AtBarrier || w.Fault != nil) {
			return nil
		}
	}
	return nil
}

// pushKind is the stack entry SSY, PBK or PCNT pushes.
func pushKind(kd kind) emu.StackKind {
	switch kd {
	case kPbk:
		return emu.StackBreak
	case kPcnt:
		return emu.StackCont
	}
	return emu.StackSync
}

// sync is the .S flag: after the instruction, the lanes that ran it wait
// at the innermost reconvergence point (SSY), the others go on; when every
// path has arrived the warp resumes at the SSY target. Without an SSY on
// the stack the flag does nothing.
func (k *Kernel) sync(w *emu.Warp, mask uint32) {
	for i := len(w.Stack) - 1; i >= 0; i-- {
		if w.Stack[i].Kind == emu.StackSync {
			w.Sync(mask & w.Active)
			return
		}
	}
}

func firstLane(m uint32) int {
	if m == 0 {
		return 0
	}
	return bits.TrailingZeros32(m)
}

// exec runs one instruction for the lanes in mask.
func (k *Kernel) exec(b *emu.Block, w *emu.Warp, o *op, mask uint32, sc *scratch, pc uint32) error {
	switch o.kind {
	case kInvalid:
		if err := k.Prog.errs[pc]; err != nil {
			return err
		}
		return errNoSem
	case kUnsupported:
		if mask == 0 {
			return nil
		}
		if err := k.Prog.errs[pc]; err != nil {
			return fmt.Errorf("%w: %v", errNoSem, err)
		}
		return errNoSem
	case kNop:
		return nil
	case kSsy, kPbk, kPcnt:
		// no guard: the spec gives these forms none
		w.Push(pushKind(o.kind), o.target)
	case kPret:
		w.Push(emu.StackCall, o.target)
	case kBra:
		if o.cc != ccT {
			mask &= k.ccMask(w.Regs, o.cc, mask)
		}
		if o.flags&fAllWarp != 0 && mask != w.Active {
			mask = 0
		}
		w.Branch(mask, o.target, pc+1)
	case kBrx:
		if o.cc != ccT {
			mask &= k.ccMask(w.Regs, o.cc, mask)
		}
		return k.brx(w, o, mask, pc)
	case kCal:
		w.Call(o.target, pc+1)
	case kExit, kKil, kRet, kBrk, kCont:
		if o.cc != ccT {
			mask &= k.ccMask(w.Regs, o.cc, mask)
		}
		if mask == 0 {
			return nil
		}
		switch o.kind {
		case kExit, kKil:
			w.Exit(mask)
		case kRet:
			w.Ret(mask)
		case kBrk:
			w.Break(mask)
		case kCont:
			w.Cont(mask)
		}
	case kBpt:
		if mask != 0 {
			if o.sub == 3 {
				return ErrTrap
			}
			if o.sub == 0 { // DRAIN: wait for outstanding memory operations; nothing is outstanding here
				return nil
			}
			return ErrBreakpoint
		}
	case kBar:
		return k.bar(b, w, o, mask, sc, pc)
	case kB2R:
		return k.b2r(w, o, mask, sc)
	case kVote:
		k.vote(w, o, mask)
	case kS2R:
		k.s2r(b, w, o, mask, sc)
	case kLepc:
		k.lepc(w, o, mask, pc)
	case kCset, kCsetp, kPset, kPsetp, kP2R, kR2P:
		k.predOps(w, o, mask)
	case kLd, kSt, kLds, kSts, kLdl, kStl, kLdc, kLdLdu, kLdlk, kStul:
		if mask == 0 {
			return nil
		}
		return k.mem(b, w, o, mask, sc)
	case kAtom, kRed:
		if mask == 0 {
			return nil
		}
		return k.atom(b, w, o, mask, sc)
	case kTld:
		if mask == 0 {
			return nil
		}
		return k.tld(w, o, mask)
	case kFadd, kFmul, kFfma, kFmnmx, kFset, kFsetp, kFcmp, kMufu, kRro:
		if mask != 0 {
			k.falu(w, o, mask, sc)
		}
	case kDadd, kDmul, kDfma, kDmnmx, kDset, kDsetp:
		if mask != 0 {
			k.dalu(w, o, mask)
		}
	case kF2F, kF2I, kI2F, kI2I:
		if mask != 0 {
			k.cvt(w, o, mask)
		}
	case kVadd, kVmnmx, kVabsdiff, kVset, kVsetp, kVshl, kVshr, kVmad:
		if mask != 0 {
			k.video(w, o, mask, sc)
		}
	default:
		if mask != 0 {
			k.ialu(w, o, mask, sc)
		}
	}
	return nil
}

// row is source s for every lane: a register row itself, a broadcast row of
// an immediate or constant, or (indexed constants, predicates) every lane
// read into buf. It is small enough to be inlined.
func (k *Kernel) row(regs []uint32, s *opnd, buf *lanes) *lanes {
	if s.kind != oReg {
		return k.rowOther(regs, s, buf)
	}
	return (*lanes)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(regs)), uintptr(s.row)*128))
}

// rowOf is register row r. Run checks once that regs holds every row
// (numRows), and lowering gives rows below numRows only.
func rowOf(regs []uint32, r uint8) *lanes {
	return (*lanes)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(regs)), uintptr(r)*32*4))
}

func rowAt(regs []uint32, r int) *lanes { return rowOf(regs, uint8(r)) }

// Indexed constants are read in every lane (inactive lanes' reads have no
// effect), so that row, with one argument fewer, is inlined.
func (k *Kernel) rowOther(regs []uint32, s *opnd, buf *lanes) *lanes {
	switch s.kind {
	case oImm, oConst:
		if s.bc >= 0 {
			return &k.bcast[s.bc]
		}
		for l := range buf {
			buf[l] = uint32(s.imm)
		}
		return buf
	case oCIdx:
		for l := range 32 {
			v, _ := k.Const[s.bank].Load32(regs[int(s.row)*32+l] + uint32(s.imm))
			buf[l] = v
		}
		return buf
	case oPred:
		p := pred(regs, s)
		for l := range 32 {
			buf[l] = p >> l & 1
		}
		return buf
	}
	return &zeroLanes
}

// val64 reads a 64-bit source (a register pair, or a 64-bit constant or
// immediate) in lane l.
func (k *Kernel) val64(regs []uint32, s *opnd, l int) uint64 {
	switch s.kind {
	case oReg:
		r := int(s.row)
		if r == rowRZ {
			return 0
		}
		return uint64(regs[r*32+l]) | uint64(hiReg(regs, r, l))<<32
	case oImm, oConst:
		return uint64(s.imm)
	case oCIdx:
		addr := regs[int(s.row)*32+l] + uint32(s.imm)
		lo, _ := k.Const[s.bank].Load32(addr)
		hi, _ := k.Const[s.bank].Load32(addr + 4)
		return uint64(lo) | uint64(hi)<<32
	}
	return 0
}

// hiReg reads register r+1 in lane l (RZ past R62).
func hiReg(regs []uint32, r, l int) uint32 {
	if r+1 >= rowRZ {
		return 0
	}
	return regs[(r+1)*32+l]
}

// dstRow is the row of the i-th register of a multi-register destination
// (the sink past R62).
func dstRow(d *opnd, i int) int {
	r := int(d.row) + i
	if d.row == rowSink || r >= rowRZ {
		return rowSink
	}
	return r
}

// pred is predicate operand p as a lane mask (with its negation).
func pred(regs []uint32, p *opnd) uint32 {
	if p.kind != oPred {
		return ^uint32(0)
	}
	v := regs[rowFlags*32+int(p.row)]
	if p.not {
		v = ^v
	}
	return v
}

// setPred writes the lanes of mask of predicate destination d (PT ignores writes).
func setPred(regs []uint32, d *opnd, mask, v uint32) {
	if d.kind != oPred || d.row == predPT {
		return
	}
	p := &regs[rowFlags*32+int(d.row)]
	*p = *p&^mask | v&mask
}

// write stores r to destination row d for the lanes in mask.
func write(regs []uint32, d int, mask uint32, r *lanes) {
	row := rowAt(regs, d)
	if mask == ^uint32(0) {
		copyLanes(row, r)
		return
	}
	if bits.OnesCount32(mask) > 8 {
		blendLanes(row, r, mask)
		return
	}
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		row[l] = r[l]
	}
}

// setCC writes the condition code flags (lane masks) of the lanes in mask.
func setCC(regs []uint32, mask, z, s, c, o uint32) {
	f := regs[rowFlags*32+flagZ : rowFlags*32+flagO+1 : rowFlags*32+flagO+1]
	f[0] = f[0]&^mask | z&mask
	f[1] = f[1]&^mask | s&mask
	f[2] = f[2]&^mask | c&mask
	f[3] = f[3]&^mask | o&mask
}

// ccT is the condition code test that always holds.
const ccT = 15

// ccMask is the lanes of mask whose condition code passes test.
func (k *Kernel) ccMask(regs []uint32, test uint8, mask uint32) uint32 {
	f := regs[rowFlags*32+flagZ : rowFlags*32+flagO+1 : rowFlags*32+flagO+1]
	var m uint32
	for mm := mask; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		fl := f[0]>>l&1 | f[1]>>l&1<<1 | f[2]>>l&1<<2 | f[3]>>l&1<<3
		if ccTable[test&31]>>fl&1 != 0 {
			m |= 1 << l
		}
	}
	return m
}

// ccTable[t] has bit f set when test t holds for flags f (Z=1, S=2, C=4,
// O=8). Tests 0..15 are the comparisons shared with Tesla (package
// emu/internal/cc: L is S, E is Z, unordered is Z and S together, O
// corrects a signed overflow; seed 001); 16..23
// are the flag tests whose names cuobjdump prints (OFF: O clear, LO: C
// clear, SFF: S clear, LS: C clear or Z, HI: C set and Z clear, SFT: S set,
// HS: C set, OFT: O set). 24..31 (graphics: CSM_*, RLE, RGT) never hold.
var ccTable = func() (t [32]uint16) {
	for f := range 16 {
		z, s, c, o := f&1 != 0, f&2 != 0, f&4 != 0, f&8 != 0
		v := [24]bool{
			16: !o,
			17: !c,
			18: !s,
			19: !c || z,
			20: c && !z,
			21: s,
			22: c,
			23: o,
		}
		for test, ok := range v {
			if ok || cc.Compare(test, z, s, o) {
				t[test] |= 1 << f
			}
		}
	}
	return t
}()

// brx jumps each lane to its register's address plus the offset (BRX: past
// the next instruction, JMX: absolute); lanes with different targets
// diverge, the first lane's group running first.
func (k *Kernel) brx(w *emu.Warp, o *op, mask uint32, pc uint32) error {
	if mask == 0 {
		return nil
	}
	if mask != w.Active {
		w.Diverge(pc+1, w.Active&^mask)
	}
	var buf lanes
	t := k.row(w.Regs, &o.s[0], &buf)
	base := k.Prog.addrs[pc] + 8
	if o.sub == 1 {
		base = 0
	}
	if o.s[0].kind == oMem {
		base += uint64(o.s[0].imm)
	}
	if o.s[0].kind == oMem {
		t = (*lanes)(w.Regs[int(o.s[0].row)*32:])
	}
	first := -1
	var firstIdx uint32
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		idx, ok := k.Prog.indexOf(uint64(uint32(base + uint64(t[l]))))
		if !ok {
			return &laneErr{l, errBadTarget}
		}
		if first < 0 {
			first, firstIdx = l, idx
			continue
		}
		if idx != firstIdx {
			w.Diverge(idx, 1<<l)
		}
	}
	w.PC = firstIdx
	return nil
}
