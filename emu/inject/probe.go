package inject

import (
	"cmp"
	"fmt"
	"io"
	"math/bits"
	"slices"

	"github.com/gpuisa/gpuisa/emu"
)

// locateProbe runs a golden block and finds the instruction and lane of
// every injection drawn in it (injection r is the r-th unit of its
// experiment's population in the block), and the instruction where each
// permanent fault not yet found first changes a value.
type locateProbe struct {
	lr     *launchRun
	t, seq int64 // the run's and the block's warp-instructions so far
	sels   []*selector
	queues [][]*injection // per experiment, by r
	counts []int64
	// permanent faults not found yet: register cells by warp slot, units
	// (the load/store unit's act on addresses, before the instruction;
	// the others' on results, after it)
	cells map[int][]*injection
	units [][]*injection
	found []*injection
	acc   []emu.Access
}

func newLocateProbe(lr *launchRun, t int64, sels []*selector, here, perm []*injection) *locateProbe {
	p := &locateProbe{lr: lr, t: t, sels: sels, queues: make([][]*injection, len(sels)), counts: make([]int64, len(sels))}
	for _, inj := range here {
		p.queues[inj.exp] = append(p.queues[inj.exp], inj)
	}
	for _, q := range p.queues {
		slices.SortStableFunc(q, func(a, b *injection) int { return cmp.Compare(a.r, b.r) })
	}
	for _, inj := range perm {
		switch inj.e.Model {
		case ModelStuckReg:
			if p.cells == nil {
				p.cells = map[int][]*injection{}
			}
			p.cells[inj.perm.slot] = append(p.cells[inj.perm.slot], inj)
		case ModelStuckUnit:
			if p.units == nil {
				p.units = make([][]*injection, emu.UnitLSU+1)
			}
			p.units[inj.perm.unit] = append(p.units[inj.perm.unit], inj)
		}
	}
	return p
}

// pending lists the permanent faults not found yet, by id.
func (p *locateProbe) pending() []*injection {
	var out []*injection
	for _, l := range p.cells {
		out = append(out, l...)
	}
	for _, l := range p.units {
		out = append(out, l...)
	}
	slices.SortFunc(out, func(a, b *injection) int { return a.id - b.id })
	return out
}

// at notes that inj happens at the current instruction.
func (p *locateProbe) at(inj *injection, w *emu.Warp, pc uint32, seq int64) {
	inj.seq, inj.warp, inj.pc, inj.time = seq, w.Index, pc, p.t-(p.seq-seq)
	inj.launch, inj.block = p.lr.index, -1
	inj.located = true
	p.found = append(p.found, inj)
}

func (p *locateProbe) Before(b *emu.Block, w *emu.Warp, pc, mask uint32) uint32 {
	for e, q := range p.queues {
		if len(q) == 0 {
			continue
		}
		n, lanes := p.sels[e].count(p.lr.ki.elig[e], pc, p.t, w, mask)
		for len(q) > 0 && q[0].r < p.counts[e]+n {
			inj := q[0]
			inj.seq, inj.warp, inj.pc, inj.time, inj.lanes = p.seq, w.Index, pc, p.t, lanes
			inj.lane = p.sels[e].pick(inj.r-p.counts[e], lanes)
			inj.located = true
			p.found = append(p.found, inj)
			q = q[1:]
		}
		p.queues[e] = q
		p.counts[e] += n
	}
	p.seq++
	p.t++
	if cells := p.cells[w.Index]; len(cells) > 0 {
		p.cells[w.Index] = p.activate(cells, func(inj *injection) bool {
			f := &inj.perm
			return stuck(p.lr.insp.Reg(w, f.reg, f.lane), f) != p.lr.insp.Reg(w, f.reg, f.lane)
		}, b, w, pc)
	}
	if site := &p.lr.sites[pc]; p.units != nil && site.Unit == emu.UnitLSU && len(site.Addr) > 0 {
		p.units[emu.UnitLSU] = p.activate(p.units[emu.UnitLSU], func(inj *injection) bool {
			f := &inj.perm
			if mask>>f.lane&1 == 0 {
				return false
			}
			for k := range 2 {
				if regs, off := siteAddr(site, k); len(regs) > 0 {
					eff := laneAddress(p.lr.insp, w, regs, off, f.lane)
					if stuckAddr(eff, f) != eff {
						return true
					}
				}
			}
			return false
		}, b, w, pc)
	}
	return mask
}

func (p *locateProbe) After(b *emu.Block, w *emu.Warp, pc, mask uint32) {
	site := &p.lr.sites[pc]
	if p.units == nil || site.Unit == emu.UnitLSU || int(site.Unit) >= len(p.units) || len(p.units[site.Unit]) == 0 {
		return
	}
	p.units[site.Unit] = p.activate(p.units[site.Unit], func(inj *injection) bool {
		f := &inj.perm
		if mask>>f.lane&1 == 0 {
			return false
		}
		for _, r := range site.Dst {
			if v := p.lr.insp.Reg(w, r, f.lane); r.File == emu.RegGPR && stuck(v, f) != v {
				return true
			}
		}
		return false
	}, b, w, pc)
}

// activate takes out of list the faults that act at this instruction
// (the block's seq-1'th) and notes where.
func (p *locateProbe) activate(list []*injection, acts func(*injection) bool, b *emu.Block, w *emu.Warp, pc uint32) []*injection {
	kept := list[:0]
	for _, inj := range list {
		if acts(inj) {
			p.at(inj, w, pc, p.seq-1)
			inj.block = b.Index
			continue
		}
		kept = append(kept, inj)
	}
	return kept
}

// stuck is v with a permanent fault's bit forced.
func stuck(v uint32, f *permFault) uint32 { return v&^(1<<f.bit) | f.value<<f.bit }

// stuckAddr is an address with a permanent fault's bit forced.
func stuckAddr(a uint64, f *permFault) uint64 { return a&^(1<<f.bit) | uint64(f.value)<<f.bit }

// laneAddress is the effective address of a memory instruction in lane l
// (its address registers plus its offset).
func laneAddress(insp emu.Inspector, w *emu.Warp, regs []emu.Reg, off int64, l int) uint64 {
	var a uint64
	for i, r := range regs {
		a |= uint64(insp.Reg(w, r, l)) << (32 * i)
	}
	return a + uint64(off)
}

// siteAddr is address k of a memory instruction (0: Addr, 1: Addr2).
func siteAddr(site *emu.Site, k int) ([]emu.Reg, int64) {
	if k == 0 {
		return site.Addr, site.Offset
	}
	return site.Addr2, site.Offset2
}

// memRange is corrupted memory being followed: bytes [lo, lo+n) of a
// space (shared: of one block), pending bytes as a bit mask.
type memRange struct {
	space   emu.Space
	block   int
	lo      uint64
	pending uint32
}

// faultProbe injects one fault and follows the state it corrupted until
// it is read, overwritten or dies.
type faultProbe struct {
	m    *machine
	inj  *injection
	lr   *launchRun
	rec  *Record
	halt bool // stop the run once the corrupted state is dead
	loc  *locateProbe
	t    int64 // the run's warp-instructions (while a probe counts)

	armed, post bool // inject before the next instruction; finish it after
	injected    bool
	// the corrupted register: its warp, lanes still unread and not
	// overwritten; corrupted memory
	treg      emu.Reg
	twarp     int
	tlanes    uint32
	tracking  bool
	mem       []memRange
	overwrote bool
	// the outcome of following it: dead (nothing corrupted left unread),
	// or sub ReadEqual once read
	sub  string
	dead bool
	// registers changed before an instruction, put back after it
	restore []regDelta
	// a permanent fault, and the values it changed
	pf          permFault
	activations int64
	// replay's trace
	trace     io.Writer
	traceLeft int
	accBuf    []emu.Access
}

type regDelta struct {
	w           *emu.Warp
	r           emu.Reg
	lane        int
	before, set uint32
}

// active reports whether the probe still has work.
func (p *faultProbe) active() bool {
	return p.loc != nil || p.armed || p.post || p.tracking || len(p.mem) > 0 || permanent(p.inj.e.Model) ||
		p.traceLeft > 0 || len(p.restore) > 0
}

func (p *faultProbe) setLaunch(lr *launchRun) { p.lr = lr }

func (p *faultProbe) Before(b *emu.Block, w *emu.Warp, pc, mask uint32) uint32 {
	if p.loc != nil && p.lr.index == p.inj.launch && b.Index == p.inj.block {
		p.loc.t = p.t
		p.loc.lr = p.lr
		p.loc.Before(b, w, pc, mask)
		if p.inj.located {
			p.loc, p.armed = nil, true
		}
	}
	p.t++
	site := &p.lr.sites[pc]
	storeFault := false
	if p.armed {
		p.armed = false
		if w.Index != p.inj.warp || pc != p.inj.pc {
			panicf("injection %d: the fork is at warp %d pc %d, not warp %d pc %d", p.inj.id, w.Index, pc, p.inj.warp, p.inj.pc)
		}
		p.injected, p.post = true, true
		storeFault = p.inj.e.Group == "st-value" || p.inj.e.Group == "st-addr"
		mask = p.injectBefore(b, w, pc, mask, site)
	}
	switch p.inj.e.Model {
	case ModelStuckUnit:
		p.stuckAddress(w, mask, site)
	case ModelStuckReg:
		if w.Index == p.pf.slot {
			p.force(w, p.pf.reg, p.pf.lane)
		}
	}
	if p.tracking && w.Index == p.twarp {
		p.follow(w, mask, site)
	}
	if len(p.mem) > 0 && site.Mem && !storeFault {
		p.followMem(b, w, pc, mask)
	}
	p.settle()
	if p.dead && p.halt {
		w.Fault = emu.ErrHalt
	}
	return mask
}

func (p *faultProbe) After(b *emu.Block, w *emu.Warp, pc, mask uint32) {
	site := &p.lr.sites[pc]
	for _, d := range p.restore {
		if slices.Contains(site.Dst, d.r) {
			continue // the instruction wrote it anew (a load into its address register)
		}
		// put back what was changed, keeping what the instruction added
		// (a post-increment)
		cur := p.lr.insp.Reg(d.w, d.r, d.lane)
		p.lr.insp.SetReg(d.w, d.r, d.lane, cur-d.set+d.before)
	}
	p.restore = p.restore[:0]
	if p.post {
		p.post = false
		p.injectAfter(b, w, pc, mask, site)
	}
	if f := &p.pf; p.inj.e.Model == ModelStuckUnit && site.Unit == f.unit && f.unit != emu.UnitLSU && mask>>f.lane&1 != 0 {
		for _, r := range site.Dst {
			if r.File == emu.RegGPR {
				p.force(w, r, f.lane)
			}
		}
	}
	if p.tracking && w.Index == p.twarp && w.Exited&p.tlanes != 0 {
		p.tlanes &^= w.Exited // their threads ended: never read there
	}
	if p.trace != nil && p.traceLeft > 0 && w.Index == p.inj.warp {
		p.traceLine(w, pc, mask, site)
	}
	p.settle()
	if p.dead && p.halt {
		w.Fault = emu.ErrHalt
	}
	if !p.active() {
		b.Probe = nil
	}
}

// read ends the following: the corrupted state was read (what it becomes
// only the outputs tell).
func (p *faultProbe) read() {
	p.sub, p.tracking, p.tlanes, p.mem = ReadEqual, false, 0, nil
}

// settle decides whether the corrupted state is dead: nothing corrupted
// is left unread (overwritten, or its threads or block ended).
func (p *faultProbe) settle() {
	if p.tracking && p.tlanes == 0 {
		p.tracking = false
	}
	if p.dead || p.sub == ReadEqual || !p.injected || p.post || p.tracking || len(p.mem) > 0 || permanent(p.inj.e.Model) {
		return
	}
	p.dead, p.sub = true, NeverRead
	if p.overwrote {
		p.sub = Overwritten
	}
}

// follow watches an instruction of the corrupted warp: a read of the
// register in a corrupted lane ends the following; a write of it in a
// lane kills the corruption there.
func (p *faultProbe) follow(w *emu.Warp, mask uint32, site *emu.Site) {
	r, lanes := p.treg, p.tlanes
	reads := slices.Contains(site.Src, r)
	if site.Guard == r && w.Active&lanes != 0 || reads && (mask&lanes != 0 || site.CrossLane && w.Active&lanes != 0) {
		p.read()
		return
	}
	if slices.Contains(site.Dst, r) && mask&lanes != 0 {
		p.overwrote = true
		p.tlanes &^= mask
	}
}

// followMem watches the memory accesses of an instruction for the
// corrupted bytes.
func (p *faultProbe) followMem(b *emu.Block, w *emu.Warp, pc, mask uint32) {
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		acc, ok := p.lr.insp.Accesses(b, w, pc, l, p.accBuf[:0])
		p.accBuf = acc
		if !ok {
			p.read() // cannot tell: count it as read
			return
		}
		for _, a := range acc {
			for i := range p.mem {
				rg := &p.mem[i]
				if rg.pending == 0 || a.Space != rg.space || rg.space == emu.Shared && rg.block != b.Index {
					continue
				}
				var hit uint32
				for j := range 32 {
					if rg.pending>>j&1 != 0 && rg.lo+uint64(j) >= a.Addr && rg.lo+uint64(j) < a.Addr+uint64(a.Size) {
						hit |= 1 << j
					}
				}
				if hit == 0 {
					continue
				}
				if a.Read {
					p.read()
					return
				}
				rg.pending &^= hit
				p.overwrote = true
			}
		}
	}
	kept := p.mem[:0]
	for _, rg := range p.mem {
		if rg.pending != 0 {
			kept = append(kept, rg)
		}
	}
	p.mem = kept
}

// blockEnd: the block's registers and shared memory die with it.
func (p *faultProbe) blockEnd(b *emu.Block) {
	p.tlanes = 0
	kept := p.mem[:0]
	for _, rg := range p.mem {
		if rg.space == emu.Global {
			kept = append(kept, rg)
		}
	}
	p.mem = kept
	p.settle()
}

// corrupt applies the experiment's model to a width-bit value.
func (p *faultProbe) corrupt(v uint32, width int, rec *Record) uint32 {
	rng, e := p.inj.rng, p.inj.e
	m := uint32(1)<<width - 1
	if width >= 32 {
		m = ^uint32(0)
	}
	n := e.Bits // rf and memory: Bits adjacent bits
	switch e.Model {
	case ModelRandom:
		rec.Bit = -1
		return rng.Uint32() & m
	case ModelZero:
		rec.Bit = -1
		return 0
	case ModelFlip1:
		n = 1
	case ModelFlip2:
		n = 2
	}
	n = min(n, width)
	var b int
	if e.Bit != nil {
		b = min(*e.Bit, width-n)
	} else {
		b = rng.IntN(width - n + 1)
	}
	rec.Bit = b
	return v ^ (1<<n-1)<<b
}

// injectBefore is the part of a fault that comes before its instruction.
func (p *faultProbe) injectBefore(b *emu.Block, w *emu.Warp, pc, mask uint32, site *emu.Site) uint32 {
	e, rec := p.inj.e, p.rec
	p.fillWhere(b, w, pc)
	lanes := p.lanesHit(mask)
	switch e.Model {
	case ModelRF:
		if p.m.g.Alloc == 0 {
			return mask // no register to hit
		}
		r := emu.Reg{File: emu.RegGPR, N: uint16(p.inj.rng.IntN(p.m.g.Alloc))}
		p.corruptReg(w, r, lanes, 32) // followed from this instruction on
	case ModelMemGlobal, ModelMemShared:
		p.flipMemory(b)
	case ModelCFPred:
		newMask := mask ^ lanes&w.Active
		if e.Warp {
			newMask = w.Active &^ mask
		}
		rec.Target, rec.Bit = "guard", -1
		rec.Old, rec.New = fmt.Sprintf("%#08x", mask), fmt.Sprintf("%#08x", newMask)
		if newMask != mask {
			p.read() // the branch goes the other way
		}
		return newMask
	default:
		if e.Group == "st-value" || e.Group == "st-addr" {
			p.corruptStore(b, w, pc, lanes, site)
		}
	}
	return mask
}

// injectAfter is the part of a fault that comes after its instruction: a
// destination's new value, a taken branch's target.
func (p *faultProbe) injectAfter(b *emu.Block, w *emu.Warp, pc, mask uint32, site *emu.Site) {
	e := p.inj.e
	switch {
	case destModel(e.Model) && e.Group != "st-value" && e.Group != "st-addr":
		cands := candidates(site, e.Group)
		r := cands[p.inj.rng.IntN(len(cands))]
		p.corruptReg(w, r, p.lanesHit(mask), r.File.Bits())
	case e.Model == ModelCFTarget:
		p.wrongTarget(w, site)
	}
}

// lanesHit is the lanes a fault at this instruction corrupts.
func (p *faultProbe) lanesHit(mask uint32) uint32 {
	if p.inj.lane >= 0 {
		return 1 << p.inj.lane
	}
	return p.inj.lanes
}

// corruptReg corrupts register r in the given lanes (one corruption for
// all of them) and starts following it.
func (p *faultProbe) corruptReg(w *emu.Warp, r emu.Reg, lanes uint32, width int) {
	insp, rec := p.lr.insp, p.rec
	rec.Target = r.String()
	var change func(uint32) uint32
	for m := lanes; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		old := insp.Reg(w, r, l)
		if change == nil {
			nv := p.corrupt(old, width, rec)
			rec.Old, rec.New = hex32(old), hex32(nv)
			change = p.pattern(old, nv)
		}
		if nv := change(old); nv != old {
			insp.SetReg(w, r, l, nv)
		} else {
			lanes &^= 1 << l
		}
	}
	if lanes != 0 {
		p.treg, p.twarp, p.tlanes, p.tracking = r, w.Index, lanes, true
	}
}

// flipMemory flips bits of a random byte of allocated global memory or of
// the block's shared memory.
func (p *faultProbe) flipMemory(b *emu.Block) {
	rng, rec := p.inj.rng, p.rec
	space, block := emu.Global, -1
	var addr uint64
	var mem *emu.Memory
	if p.inj.e.Model == ModelMemShared {
		mem, space, block = &b.Shared, emu.Shared, b.Index
		if len(b.Shared.Data) == 0 {
			return
		}
		addr = uint64(rng.IntN(len(b.Shared.Data)))
	} else {
		mem = p.m.dev.Memory()
		var total uint64
		for _, s := range p.m.g.launches[p.lr.index].global {
			total += s.hi - s.lo
		}
		if total == 0 {
			return
		}
		u := rng.Uint64N(total)
		for _, s := range p.m.g.launches[p.lr.index].global {
			if u < s.hi-s.lo {
				addr = s.lo + u
				break
			}
			u -= s.hi - s.lo
		}
	}
	old, err := mem.Load(addr, 1)
	if err != nil {
		return
	}
	nv := p.corrupt(uint32(old), 8, rec)
	mem.Store(addr, 1, uint64(nv))
	rec.Target = fmt.Sprintf("%s[%#x]", space, addr)
	rec.Old, rec.New = fmt.Sprintf("%#02x", old), fmt.Sprintf("%#02x", nv)
	p.mem = append(p.mem, memRange{space: space, block: block, lo: addr, pending: 1})
}

// corruptStore corrupts a store's value or address for its instruction
// only (the registers are put back after it) and follows the memory it
// then writes wrongly.
func (p *faultProbe) corruptStore(b *emu.Block, w *emu.Warp, pc, lanes uint32, site *emu.Site) {
	insp, rec, e := p.lr.insp, p.rec, p.inj.e
	if e.Group == "st-addr" {
		addrOf := func(l int) uint64 {
			var v uint64
			for i, r := range site.Addr {
				v |= uint64(insp.Reg(w, r, l)) << (32 * i)
			}
			return v + uint64(site.Offset)
		}
		var change func(uint64) uint64
		for m := lanes; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			a := addrOf(l)
			if change == nil {
				lo := p.corrupt(uint32(a), 32, rec)
				rec.Target = "address"
				rec.Old, rec.New = fmt.Sprintf("%#x", a), fmt.Sprintf("%#x", a&^0xffffffff|uint64(lo))
				change = p.pattern64(uint32(a), lo)
			}
			na := change(a)
			if na == a {
				continue
			}
			golden, _ := insp.Accesses(b, w, pc, l, nil)
			na -= uint64(site.Offset)
			for i, r := range site.Addr {
				nv := uint32(na >> (32 * i))
				p.restore = append(p.restore, regDelta{w, r, l, insp.Reg(w, r, l), nv})
				insp.SetReg(w, r, l, nv)
			}
			wrong, _ := insp.Accesses(b, w, pc, l, nil)
			p.addRanges(b, golden)
			p.addRanges(b, wrong)
		}
		return
	}
	r := site.Value[p.inj.rng.IntN(len(site.Value))]
	index := slices.Index(site.Value, r)
	var change func(uint32) uint32
	rec.Target = r.String()
	for m := lanes; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		old := insp.Reg(w, r, l)
		if change == nil {
			nv := p.corrupt(old, 32, rec)
			rec.Old, rec.New = hex32(old), hex32(nv)
			change = p.pattern(old, nv)
		}
		nv := change(old)
		if nv == old {
			continue
		}
		golden, _ := insp.Accesses(b, w, pc, l, nil)
		p.restore = append(p.restore, regDelta{w, r, l, old, nv})
		insp.SetReg(w, r, l, nv)
		for _, a := range golden {
			// the bytes of this register in the access
			n := min(4, a.Size-4*index)
			var pend uint32
			for j := range max(n, 0) {
				if byte(old>>(8*j)) != byte(nv>>(8*j)) {
					pend |= 1 << j
				}
			}
			if pend != 0 && a.Write {
				p.mem = append(p.mem, memRange{space: a.Space, block: b.Index, lo: a.Addr + uint64(4*index), pending: pend})
			}
		}
	}
}

// pattern is how the first lane's corruption (old to nv) applies to the
// other lanes of a warp-wide fault: the same bits flipped, or the same
// value.
func (p *faultProbe) pattern(old, nv uint32) func(uint32) uint32 {
	if m := p.inj.e.Model; m == ModelRandom || m == ModelZero {
		return func(uint32) uint32 { return nv }
	}
	x := old ^ nv
	return func(v uint32) uint32 { return v ^ x }
}

func (p *faultProbe) pattern64(old, nv uint32) func(uint64) uint64 {
	f := p.pattern(old, nv)
	return func(v uint64) uint64 { return v&^0xffffffff | uint64(f(uint32(v))) }
}

func (p *faultProbe) addRanges(b *emu.Block, acc []emu.Access) {
	for _, a := range acc {
		if a.Write && a.Space != emu.Constant {
			p.mem = append(p.mem, memRange{space: a.Space, block: b.Index, lo: a.Addr, pending: uint32(1)<<min(a.Size, 32) - 1})
		}
	}
}

// wrongTarget sends a taken branch to its target address with a bit
// flipped (a fault if that is not an instruction).
func (p *faultProbe) wrongTarget(w *emu.Warp, site *emu.Site) {
	rec := p.rec
	rec.Target = "target"
	if w.PC != site.Target {
		rec.Bit = -1
		return // not taken: nothing changes
	}
	addr, _ := p.lr.where(site.Target)
	span := bits.Len64(p.m.codeBytes(p.lr)) + 1
	b := 2 + p.inj.rng.IntN(max(1, span-2))
	if e := p.inj.e; e.Bit != nil {
		b = *e.Bit
	}
	na := addr ^ 1<<b
	rec.Bit = b
	rec.Old, rec.New = fmt.Sprintf("%#x", addr), fmt.Sprintf("%#x", na)
	p.read()
	if i, ok := p.lr.insp.Index(na); ok {
		w.PC = i
		return
	}
	w.Fault = fmt.Errorf("branch to %#x, not an instruction (target %#x with bit %d flipped)", na, addr, b)
}

// stuckAddress forces the stuck bit of the address a memory instruction
// of the faulty lane computes (stuck-unit lsu).
func (p *faultProbe) stuckAddress(w *emu.Warp, mask uint32, site *emu.Site) {
	f := &p.pf
	if f.unit != emu.UnitLSU || site.Unit != emu.UnitLSU || len(site.Addr) == 0 || mask>>f.lane&1 == 0 {
		return
	}
	insp, l := p.lr.insp, f.lane
	// both addresses (LD_LDU) are computed before either register changes
	var set [2]uint64
	var acts [2]bool
	for k := range 2 {
		if regs, off := siteAddr(site, k); len(regs) > 0 {
			eff := laneAddress(insp, w, regs, off, l)
			forced := stuckAddr(eff, f)
			set[k], acts[k] = forced-uint64(off), forced != eff
		}
	}
	if !acts[0] && !acts[1] {
		return
	}
	p.activated()
	for k := range 2 {
		if !acts[k] {
			continue
		}
		regs, _ := siteAddr(site, k)
		for i, r := range regs {
			nv := uint32(set[k] >> (32 * i))
			p.restore = append(p.restore, regDelta{w, r, l, insp.Reg(w, r, l), nv})
			insp.SetReg(w, r, l, nv)
		}
	}
}

// force sets the stuck bit of register r in lane l.
func (p *faultProbe) force(w *emu.Warp, r emu.Reg, l int) {
	insp := p.lr.insp
	v := insp.Reg(w, r, l)
	if nv := stuck(v, &p.pf); nv != v {
		insp.SetReg(w, r, l, nv)
		p.activated()
	}
}

// activated counts a value a permanent fault changed; the first is the
// fault's time.
func (p *faultProbe) activated() {
	if p.activations == 0 {
		p.rec.Time = p.t - 1
	}
	p.activations++
}

// fillWhere records where the fault is.
func (p *faultProbe) fillWhere(b *emu.Block, w *emu.Warp, pc uint32) {
	rec := p.rec
	rec.Launch, rec.Kernel, rec.Block, rec.Warp, rec.Lane = p.lr.index, p.lr.kernel, b.Index, w.Index, p.inj.lane
	rec.Step, rec.Time = p.inj.seq, p.inj.time
	addr, _ := p.lr.where(pc)
	rec.PC, rec.Op = fmt.Sprintf("%#04x", addr), p.lr.sites[pc].Op
}

// traceLine prints an instruction of the faulty warp after the fault: its
// address, text, lanes, and the registers it wrote in the first lane hit.
func (p *faultProbe) traceLine(w *emu.Warp, pc, mask uint32, site *emu.Site) {
	p.traceLeft--
	addr, text := p.lr.where(pc)
	l := p.inj.lane
	if l < 0 {
		l = bits.TrailingZeros32(p.inj.lanes | 1<<31)
	}
	fmt.Fprintf(p.trace, "  fault %#06x  %-48s %08x", addr, text, mask)
	for _, r := range site.Dst {
		fmt.Fprintf(p.trace, " %s=%s", r, hex32(p.lr.insp.Reg(w, r, l)))
	}
	if p.tracking {
		fmt.Fprintf(p.trace, "   [%s corrupted in lanes %08x]", p.treg, p.tlanes)
	}
	fmt.Fprintln(p.trace)
}

func hex32(v uint32) string { return fmt.Sprintf("%#x", v) }

// panicf reports a broken invariant of the campaign machinery (caught
// and returned as an error by the worker).
func panicf(format string, a ...any) { panic(invariantError(fmt.Sprintf(format, a...))) }

type invariantError string

func (e invariantError) Error() string { return string(e) }
