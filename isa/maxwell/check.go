package maxwell

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// Scheduling checks. On sm_5x the compiler, not the hardware, keeps
// instructions apart: each instruction's control field says how many
// cycles to stall before the next one issues, which dependency barrier
// (0..5) a variable-latency instruction releases when its result is
// written (write barrier) or its sources have been read (read barrier), and
// which barriers to wait for before issuing. Check walks a function's code
// along its control flow and reports what the control fields fail to keep
// apart:
//
//   - a variable-latency result (memory, texture, MUFU, conversions,
//     doubles, S2R, shared atomics) read or overwritten before a wait on
//     its write barrier, or written with no write barrier at all;
//   - a source of a variable-latency instruction overwritten before a wait
//     on its read barrier;
//   - a wait on a barrier no instruction on the way there set;
//   - a fixed-latency result read before its latency has passed (the stall
//     counts in between sum to less);
//   - a dual-issued pair (stall 0 with the yield bit) the hardware cannot
//     pair: the second reads what the first writes, or the two are of kinds
//     ptxas never pairs;
//   - register bank conflicts among the sources (register number mod 4)
//     that no operand reuse hides: a note about speed, not an error.
//
// Latencies: the write and read barriers and stall counts are NVIDIA's
// control-word fields (nvdisasm's layout, maxas's notes on control codes).
// The fixed latencies are measured: the smallest number of cycles ptxas
// leaves between a result and its first reader in the 110 oracle cubins
// (fixedLatency). The kinds of dual-issue pairs are the ones ptxas makes in
// the same cubins.

// Severity says whether a finding is a hazard or a note.
type Severity uint8

const (
	SevError Severity = iota // the code may compute something else than it says
	SevNote                  // the code is right but slower than it could be
)

// HazardKind is the kind of a finding.
type HazardKind uint8

const (
	HazRAW          HazardKind = iota // a variable-latency result read (or rewritten) before its barrier
	HazUnprotected                    // a variable-latency result with no write barrier, read later
	HazWAR                            // a source of a variable-latency instruction overwritten before its read barrier
	HazNoSetter                       // a wait on a barrier nothing set
	HazStall                          // a fixed-latency result read too soon
	HazDualIssue                      // a pair the hardware cannot dual-issue
	HazBankConflict                   // register bank conflict (a note)
)

var hazardNames = [...]string{"raw", "unprotected", "war", "no-setter", "stall", "dual-issue", "bank-conflict"}

func (k HazardKind) String() string { return hazardNames[k] }

// Hazard is one finding.
type Hazard struct {
	Addr     uint64 // of the instruction where it shows
	Kind     HazardKind
	Severity Severity
	Msg      string
}

func (h Hazard) String() string {
	sev := "error"
	if h.Severity == SevNote {
		sev = "note"
	}
	return fmt.Sprintf("/*%04x*/ %s: %s: %s", h.Addr, sev, h.Kind, h.Msg)
}

// regUse is what one instruction reads and writes.
type regUse struct {
	dst, src   RegSet
	pdst, psrc uint8  // predicates P0..P6 (bit 7: none)
	slots      [3]int // registers of operand slots a, b, c (-1: none), for banks and reuse
}

// uses is what an instruction reads and writes, as its operands' roles say
// (Operands.Access: spec.txt's facts), and the registers its source
// operand slots read.
func uses(o *Operands) regUse {
	x := o.Access()
	u := regUse{dst: x.Written, src: x.Read, pdst: x.PredWritten, psrc: x.PredRead, slots: [3]int{-1, -1, -1}}
	for _, a := range o.Args[:o.NArgs()] {
		if a.Kind == ArgReg && a.Role == RoleRead && a.Slot >= 0 && a.Reg != 255 {
			u.slots[a.Slot] = int(a.Reg)
		}
	}
	return u
}

func (f *form) noGuard() bool { return f.attrs&attrNoGuard != 0 }

// checkInst is a decoded instruction with what the checks need.
type checkInst struct {
	addr   uint64
	ok     bool
	ctrl   Ctrl
	fm     *form
	use    regUse
	guard  uint8 // guardNibble
	ccTest bool  // reads the condition code (BRA CC.LT: conditional)
	unit   string
	varLat bool
	succ   []int // control-flow successors (instruction indices)
	depbar int   // DEPBAR.LE SBn, k: n (-1: none); the count in depbarK
	depbK  int
	depSet uint8 // DEPBAR {set}: barriers waited on
	callee uint64
	// CAL: the barriers the callee waits on, which the call clears
	callClears uint8
}

// waitsIn is the set of barriers the subroutine at entry waits on.
func waitsIn(insts []checkInst, entry uint64, entries []uint64) uint8 {
	end := ^uint64(0)
	for _, e := range entries {
		if e > entry && e < end {
			end = e
		}
	}
	var m uint8
	for i := range insts {
		if ci := &insts[i]; ci.ok && ci.addr >= entry && ci.addr < end {
			m |= uint8(ci.ctrl.WaitMask()) | ci.depSet
			if ci.depbar >= 0 {
				m |= 1 << ci.depbar
			}
		}
	}
	return m
}

// Latencies of fixed-latency results, in cycles between the producer's
// issue and a reader's, measured as the least ptxas leaves in the oracle
// cubins (TestCheckOracle fails if ptxas ever leaves less): a register
// result is read by a fixed-latency instruction 6 cycles later at the
// earliest, by a variable-latency one (memory, MUFU, conversions), which
// reads its sources later in its pipeline, 2 cycles later; a predicate
// result is read 13 cycles later. A variable-latency result without a write
// barrier is assumed there looseLatency cycles later (ptxas leaves at least
// that before reading one that no later barrier covers).
const (
	regLatency     = 6
	numBarriers    = 6 // scoreboards SB0..SB5
	regLatencyVar  = 2
	predLatency    = 13
	looseLatency   = 11
	noGuardNibble  = 7
	guardNegBit    = 8
	guardPredMask  = 7
	complementMask = guardNegBit
)

// complementary reports guards that never both hold (@P0 and @!P0).
func complementary(a, b uint8) bool {
	return a&guardPredMask != noGuardNibble && a&guardPredMask == b&guardPredMask && a^b == complementMask
}

// guardOf is an instruction's guard nibble (7: none).
func guardOf(ci *checkInst) uint8 { return ci.guard }

// guardNibble is the guard predicate as a nibble: P0..P6, 7 PT, plus 8
// when negated.
func guardNibble(g Arg) uint8 {
	n := g.Reg & guardPredMask
	if g.Not {
		n |= guardNegBit
	}
	return n
}

// CheckOptions describes the code Check looks at.
type CheckOptions struct {
	// Entries are the addresses where the function's subroutines start
	// (its symbols); the code's start is always one.
	Entries []uint64
	// Kernel: the code starts a kernel, so nothing is outstanding at its
	// start (a device function may start with barriers its caller set).
	Kernel bool
}

// FunctionCheckOptions describes function fn of cubin f for Check: its
// symbols' addresses and whether it is a kernel.
func FunctionCheckOptions(f *cubin.File, fn *cubin.Function) CheckOptions {
	opts := CheckOptions{Kernel: fn.Entry}
	for _, y := range f.Symbols {
		if int(y.Section) == fn.Section && y.Type() == 2 {
			opts.Entries = append(opts.Entries, y.Value)
		}
	}
	return opts
}

// Check reports the scheduling hazards of a function's code (whole
// bundles, loaded at address 0) for sm.
func Check(code []byte, sm int, opts CheckOptions) []Hazard {
	entries := append([]uint64{0}, opts.Entries...)
	insts := decodeForCheck(code, sm, entries)
	var out []Hazard
	report := func(h Hazard) { out = append(out, h) }
	checkPairs(insts, report)
	checkBanks(insts, report)
	flow(insts, entries, opts.Kernel, report)
	slices.SortStableFunc(out, func(a, b Hazard) int {
		if a.Addr != b.Addr {
			return int(int64(a.Addr) - int64(b.Addr))
		}
		return int(a.Kind) - int(b.Kind)
	})
	return slices.CompactFunc(out, func(a, b Hazard) bool { return a == b })
}

// decodeForCheck decodes every instruction and links the control flow.
func decodeForCheck(code []byte, sm int, entries []uint64) []checkInst {
	n := len(code) / BundleSize * 3
	insts := make([]checkInst, n)
	index := func(addr uint64) int {
		if addr%BundleSize == 0 {
			addr += 8
		}
		i := int(addr/BundleSize*3 + addr%BundleSize/8 - 1)
		if i < 0 || i >= n {
			return -1
		}
		return i
	}
	// SSY/PBK/PCNT: where each is and where it points
	type push struct{ at, target int }
	var syncTargets, brkTargets, contTargets []push
	var retTargets []int
	for i := range insts {
		b := i / 3 * BundleSize
		addr := uint64(b + 8 + 8*(i%3))
		cw := binary.LittleEndian.Uint64(code[b:])
		w := binary.LittleEndian.Uint64(code[addr:])
		ci := &insts[i]
		ci.addr, ci.ctrl, ci.depbar = addr, CtrlField(cw, i%3), -1
		inst, err := Decode(w, ci.ctrl, sm, addr)
		if err != nil {
			continue
		}
		ci.ok, ci.fm = true, &forms[inst.form]
		ci.varLat = ci.fm.attrs&attrVar != 0
		o := inst.Operands(addr)
		ci.use = uses(&o)
		ci.guard = guardNibble(o.Guard)
		ci.ccTest = o.CC.Reads()
		ci.unit = unitOf(&o, ci.fm)
		if t, ok := relTarget(inst, addr); ok {
			if ti := index(t); ti >= 0 {
				switch ci.fm.name {
				case "SSY":
					syncTargets = append(syncTargets, push{i, ti})
				case "PBK":
					brkTargets = append(brkTargets, push{i, ti})
				case "PCNT":
					contTargets = append(contTargets, push{i, ti})
				case "PRET":
					retTargets = append(retTargets, ti)
				case "BRA":
					ci.succ = append(ci.succ, ti)
				case "CAL":
					ci.succ = append(ci.succ, ti)
					ci.callee = t
				}
			}
		}
		if o.Op == "DEPBAR" {
			// DEPBAR {set} waits on the barriers of its bit set; DEPBAR.LE
			// SBn, k until barrier n has at most k producers outstanding
			args := o.Args[:o.NArgs()]
			if len(args) > 0 && args[len(args)-1].Kind == ArgImm && (len(args) == 1 || len(args) == 3) {
				ci.depSet = uint8(args[len(args)-1].Imm)
			}
			// a scoreboard past SB5 (printed ???6, ???7) names no barrier
			if o.Has("LE") && len(args) >= 2 && args[0].Imm >= 0 && args[0].Imm < numBarriers {
				ci.depbar, ci.depbK = int(args[0].Imm), int(args[1].Imm)
			}
		}
	}
	// the subroutine each address belongs to, and where calls to each return
	owner := func(addr uint64) uint64 {
		best := uint64(0)
		for _, e := range entries {
			if e <= addr && e >= best {
				best = e
			}
		}
		return best
	}
	returns := map[uint64][]int{}
	for i := range insts {
		if ci := &insts[i]; ci.ok && ci.fm.name == "CAL" && slices.Contains(entries, ci.callee) && i+1 < len(insts) {
			returns[ci.callee] = append(returns[ci.callee], i+1)
		}
	}
	for i := range insts {
		ci := &insts[i]
		if !ci.ok {
			continue
		}
		// a guard or a condition-code test makes it conditional
		cond := ci.guard != noGuardNibble || ci.ccTest
		ends := false
		// SYNC, BRK and CONT go where the innermost SSY, PBK or PCNT
		// around them points (the one before them whose target is after
		// them); without one, where any of the subroutine's points
		same := func(ps []push) []int {
			best := -1
			for k, p := range ps {
				if p.at < i && p.target > i && (best < 0 || p.target < ps[best].target) {
					best = k
				}
			}
			if best >= 0 {
				return []int{ps[best].target}
			}
			var out []int
			for _, p := range ps {
				if owner(insts[p.target].addr) == owner(ci.addr) {
					out = append(out, p.target)
				}
			}
			return out
		}
		switch ci.fm.name {
		case "BRA", "JMP":
			ends = !cond
		case "EXIT", "RET", "KIL", "LONGJMP", "BRX":
			ends = !cond
		case "SYNC":
			ci.succ, ends = append(ci.succ, same(syncTargets)...), !cond
		case "BRK":
			ci.succ, ends = append(ci.succ, same(brkTargets)...), !cond
		case "CONT":
			ci.succ, ends = append(ci.succ, same(contTargets)...), !cond
		}
		if ci.fm.name == "RET" && len(returns[owner(ci.addr)]) == 0 {
			ci.succ = append(ci.succ, retTargets...)
		}
		if ci.fm.name == "CAL" && slices.Contains(entries, ci.callee) {
			// the code after the call goes on from the caller's state,
			// less what the callee waits on (its own results are its
			// business): a summary, not the callee's paths
			ci.callClears = waitsIn(insts, ci.callee, entries)
		}
		if !ends && i+1 < len(insts) {
			ci.succ = append(ci.succ, i+1)
		}
	}
	return insts
}

// flowState is what is outstanding at a point of the code.
type flowState struct {
	// per barrier: the variable-latency producers whose result it guards
	// (instruction indices, in issue order) and whether any is outstanding
	wbProd [6][]int32
	rbProd [6][]int32
	wbRegs [6]RegSet // registers a write barrier still guards
	rbRegs [6]RegSet // registers a read barrier still guards
	wbPred [6]uint8
	loose  RegSet // written by a variable-latency instruction without a write barrier
	// the same, by unit: a later instruction of the same unit with a write
	// barrier covers them (results of one unit land in order)
	looseBy map[string]RegSet
	ready   [255]int8 // fixed latency: cycles before the register's value is there
	pready  [7]int8
	// the producer of each not-ready register and its guard
	readyBy    [255]int32
	readyGuard [255]uint8
	pguard     [7]uint8
}

func (s *flowState) join(o *flowState) bool {
	changed := false
	for b := 0; b < 6; b++ {
		for _, p := range o.wbProd[b] {
			if !slices.Contains(s.wbProd[b], p) {
				s.wbProd[b] = append(s.wbProd[b], p)
				changed = true
			}
		}
		for _, p := range o.rbProd[b] {
			if !slices.Contains(s.rbProd[b], p) {
				s.rbProd[b] = append(s.rbProd[b], p)
				changed = true
			}
		}
		for k := range 4 {
			if n := s.wbRegs[b][k] | o.wbRegs[b][k]; n != s.wbRegs[b][k] {
				s.wbRegs[b][k], changed = n, true
			}
			if n := s.rbRegs[b][k] | o.rbRegs[b][k]; n != s.rbRegs[b][k] {
				s.rbRegs[b][k], changed = n, true
			}
		}
		if n := s.wbPred[b] | o.wbPred[b]; n != s.wbPred[b] {
			s.wbPred[b], changed = n, true
		}
	}
	for k := range 4 {
		if n := s.loose[k] | o.loose[k]; n != s.loose[k] {
			s.loose[k], changed = n, true
		}
	}
	for name, l := range o.looseBy {
		if s.looseBy == nil {
			s.looseBy = map[string]RegSet{}
		}
		if n := s.looseBy[name].Union(l); n != s.looseBy[name] {
			s.looseBy[name], changed = n, true
		}
	}
	for r := range s.ready {
		if o.ready[r] > s.ready[r] {
			s.ready[r], s.readyBy[r], s.readyGuard[r], changed = o.ready[r], o.readyBy[r], o.readyGuard[r], true
		}
	}
	for p := range s.pready {
		if o.pready[p] > s.pready[p] {
			s.pready[p], s.pguard[p], changed = o.pready[p], o.pguard[p], true
		}
	}
	return changed
}

// clearBarriers forgets what barriers in mask guard.
func (s *flowState) clearBarriers(mask uint8) {
	for b := 0; b < 6; b++ {
		if mask&(1<<b) != 0 {
			s.wbProd[b], s.rbProd[b] = nil, nil
			s.wbRegs[b], s.rbRegs[b], s.wbPred[b] = RegSet{}, RegSet{}, 0
		}
	}
}

func (s *flowState) clone() *flowState {
	c := *s
	if s.looseBy != nil {
		c.looseBy = make(map[string]RegSet, len(s.looseBy))
		for k, v := range s.looseBy {
			c.looseBy[k] = v
		}
	}
	for b := 0; b < 6; b++ {
		c.wbProd[b] = slices.Clone(s.wbProd[b])
		c.rbProd[b] = slices.Clone(s.rbProd[b])
	}
	return &c
}

// flow runs the barrier and latency checks over the control-flow graph,
// joining what may be outstanding where paths meet, until nothing changes.
func flow(insts []checkInst, entries []uint64, kernel bool, report func(Hazard)) {
	in := make([]*flowState, len(insts))
	var work []int
	for _, e := range entries {
		i := int(e/BundleSize*3 + max(e%BundleSize/8, 1) - 1)
		if i >= 0 && i < len(insts) && in[i] == nil {
			in[i] = &flowState{}
			work = append(work, i)
		}
	}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		out := step(insts, i, in[i].clone(), nil)
		if c := insts[i].callClears; c != 0 || insts[i].callee != 0 {
			out = out.clone()
			out.clearBarriers(c)
		}
		for _, j := range insts[i].succ {
			if in[j] == nil {
				in[j] = out.clone()
				work = append(work, j)
			} else if in[j].join(out) {
				work = append(work, j)
			}
		}
	}
	// report once, from the final states
	for i := range insts {
		if in[i] != nil {
			step(insts, i, in[i].clone(), report)
		}
	}
	// waits on barriers nothing sets (in a kernel; a device function may
	// wait on what its caller set)
	if kernel {
		for i := range insts {
			ci := &insts[i]
			if in[i] == nil || !ci.ok {
				continue
			}
			wait := uint8(ci.ctrl.WaitMask()) | ci.depSet
			if ci.depbar >= 0 {
				wait |= 1 << ci.depbar
			}
			for b := 0; b < 6; b++ {
				if wait&(1<<b) != 0 && !barrierSet(insts, b) {
					report(Hazard{Addr: ci.addr, Kind: HazNoSetter, Msg: fmt.Sprintf("waits on barrier %d, which no instruction of the kernel sets", b)})
				}
			}
		}
	}
}

// step applies instruction i to the state: its waits, its checks (when
// report is set), its effects, and the cycles its stall count lets pass.
func step(insts []checkInst, i int, s *flowState, report func(Hazard)) *flowState {
	ci := &insts[i]
	if !ci.ok {
		return s
	}
	name := ci.fm.name
	rep := func(kind HazardKind, format string, args ...any) {
		if report != nil {
			report(Hazard{Addr: ci.addr, Kind: kind, Msg: fmt.Sprintf(format, args...)})
		}
	}
	// waits: the wait mask, and DEPBAR's explicit forms
	wait := uint8(ci.ctrl.WaitMask()) | ci.depSet
	for b := 0; b < 6; b++ {
		if wait&(1<<b) == 0 {
			continue
		}
		s.wbProd[b], s.rbProd[b] = nil, nil
		s.wbRegs[b], s.rbRegs[b], s.wbPred[b] = RegSet{}, RegSet{}, 0
	}
	if ci.depbar >= 0 {
		b := ci.depbar
		// all but the last k producers are done
		if k := ci.depbK; len(s.wbProd[b]) > k {
			s.wbProd[b] = s.wbProd[b][len(s.wbProd[b])-k:]
			s.wbRegs[b], s.wbPred[b] = RegSet{}, 0
			for _, p := range s.wbProd[b] {
				s.wbRegs[b] = s.wbRegs[b].Union(insts[p].use.dst)
				s.wbPred[b] |= insts[p].use.pdst
			}
		}
		if k := ci.depbK; len(s.rbProd[b]) > k {
			s.rbProd[b] = s.rbProd[b][len(s.rbProd[b])-k:]
			s.rbRegs[b] = RegSet{}
			for _, p := range s.rbProd[b] {
				s.rbRegs[b] = s.rbRegs[b].Union(insts[p].use.src)
			}
		}
	}
	u := &ci.use
	// reads and writes of outstanding variable-latency results
	// a fixed-latency write may land before the outstanding one; variable-
	// latency writes of one unit land in order
	touched := u.src
	if !ci.varLat {
		touched = u.src.Union(u.dst)
	}
	for b := 0; b < 6; b++ {
		if x := s.wbRegs[b].Intersect(touched); !x.Empty() {
			r := x.First()
			verb := "reads"
			if !u.src.Has(r) {
				verb = "overwrites"
			}
			rep(HazRAW, "%s R%d before waiting on barrier %d, which guards %s's result", verb, r, b, producerName(insts, s.wbProd[b], r))
		}
		if p := s.wbPred[b] & (u.psrc | u.pdst); p != 0 {
			rep(HazRAW, "uses P%d before waiting on barrier %d, which guards it", firstBit(p), b)
		}
		if x := s.rbRegs[b].Intersect(u.dst); !x.Empty() && !ci.varLat {
			r := x.First()
			rep(HazWAR, "overwrites R%d before waiting on barrier %d, while %s may still read it", r, b, producerName(insts, s.rbProd[b], -1))
		}
	}
	// fixed latencies (a producer on the complementary guard does not count)
	g := guardOf(ci)
	slack := int8(0)
	if ci.varLat {
		slack = regLatency - regLatencyVar
	}
	for r := 0; r < 255; r++ {
		if s.ready[r] > slack && u.src.Has(r) && !complementary(g, s.readyGuard[r]) {
			p := insts[s.readyBy[r]]
			if p.varLat {
				rep(HazUnprotected, "reads R%d %d cycles after %s at %04x, which set no write barrier, wrote it", r,
					looseLatency-int(s.ready[r]), p.fm.name, p.addr)
				continue
			}
			rep(HazStall, "reads R%d %d cycles after %s at %04x wrote it; it needs %d", r,
				regLatency-int(s.ready[r]), p.fm.name, p.addr, regLatency-int(slack))
		}
	}
	for p := 0; p < 7; p++ {
		if s.pready[p] > 0 && u.psrc&(1<<p) != 0 && !complementary(g, s.pguard[p]) {
			rep(HazStall, "reads P%d %d cycles after it was set; predicates need %d", p, predLatency-int(s.pready[p]), predLatency)
		}
	}
	// effects
	s.loose = s.loose.Minus(u.dst)
	for k, l := range s.looseBy {
		s.looseBy[k] = l.Minus(u.dst)
	}
	for b := 0; b < 6; b++ {
		s.wbRegs[b] = s.wbRegs[b].Minus(u.dst) // a later write wins
	}
	if ci.varLat {
		wb, rb := ci.ctrl.WriteBarrier(), ci.ctrl.ReadBarrier()
		if wb < 6 {
			s.wbProd[wb] = append(s.wbProd[wb], int32(i))
			s.wbRegs[wb] = s.wbRegs[wb].Union(u.dst)
			s.wbPred[wb] |= u.pdst
			// earlier results of the same kind without a barrier land
			// before this one: its barrier covers them
			if l := s.looseBy[ci.unit]; !l.Empty() {
				for r := 0; r < 255; r++ {
					if l.Has(r) && s.ready[r] > 0 {
						s.wbRegs[wb].Add(r, 1)
						s.ready[r] = 0
					}
				}
				s.loose = s.loose.Minus(l)
				delete(s.looseBy, ci.unit)
			}
		} else if !u.dst.Empty() {
			s.loose = s.loose.Union(u.dst)
			if s.looseBy == nil {
				s.looseBy = map[string]RegSet{}
			}
			s.looseBy[ci.unit] = (s.looseBy[ci.unit]).Union(u.dst)
		}
		if rb < 6 {
			s.rbProd[rb] = append(s.rbProd[rb], int32(i))
			s.rbRegs[rb] = s.rbRegs[rb].Union(u.src)
		}
		for r := 0; r < 255; r++ {
			if u.dst.Has(r) {
				s.ready[r] = 0
				if wb >= 6 {
					s.ready[r], s.readyBy[r], s.readyGuard[r] = looseLatency, int32(i), g
				}
			}
		}
	} else if name != "NOP" {
		for r := 0; r < 255; r++ {
			if u.dst.Has(r) {
				s.ready[r], s.readyBy[r], s.readyGuard[r] = regLatency, int32(i), g
			}
		}
		for p := 0; p < 7; p++ {
			if u.pdst&(1<<p) != 0 {
				s.pready[p], s.pguard[p] = predLatency, g
			}
		}
	}
	// time passes
	if st := int8(ci.ctrl.Stall()); st > 0 {
		for r := range s.ready {
			s.ready[r] = max(s.ready[r]-st, 0)
		}
		for p := range s.pready {
			s.pready[p] = max(s.pready[p]-st, 0)
		}
	}
	return s
}

// unitOf names the unit a variable-latency instruction goes to; results of
// one unit come back in order: textures and surfaces, shared memory, other
// memory (and constant loads), doubles, and each other mnemonic its own.
func unitOf(o *Operands, fm *form) string {
	switch {
	case fm.attrs&attrTex != 0:
		return "texture"
	case o.Op == "LDC":
		return "memory"
	case isDouble(o.Op):
		return "double"
	}
	for _, a := range o.Args[:o.NArgs()] {
		switch {
		case a.Kind != ArgMem:
		case a.Space == SpaceSurface:
			return "texture"
		case a.Space == SpaceShared:
			return "shared"
		case a.Space == SpaceGlobal || a.Space == SpaceLocal || a.Space == SpaceGeneric:
			return "memory"
		}
	}
	return o.Op
}

// barrierSet reports whether any instruction of the code sets barrier b.
func barrierSet(insts []checkInst, b int) bool {
	for i := range insts {
		ci := &insts[i]
		if ci.ok && ci.varLat && (ci.ctrl.WriteBarrier() == b || ci.ctrl.ReadBarrier() == b) {
			return true
		}
	}
	return false
}

func firstBit(m uint8) int {
	for b := 0; b < 8; b++ {
		if m&(1<<b) != 0 {
			return b
		}
	}
	return -1
}

// producerName names the instruction among prods that writes r (any, for r < 0).
func producerName(insts []checkInst, prods []int32, r int) string {
	for k := len(prods) - 1; k >= 0; k-- {
		p := &insts[prods[k]]
		if r < 0 || p.use.dst.Has(r) {
			return fmt.Sprintf("%s at %04x", p.fm.name, p.addr)
		}
	}
	return "an instruction"
}

// isDouble: double-precision and half-precision pair arithmetic, which
// ptxas pairs with other variable-latency instructions.
func isDouble(name string) bool {
	switch name {
	case "DADD", "DMUL", "DFMA", "DMNMX", "DSET", "DSETP", "HADD2", "HMUL2", "HFMA2", "HSET2", "HSETP2":
		return true
	}
	return false
}

// pairKind is what a dual-issued pair's member is, for checkPairs.
func pairKind(ci *checkInst) string {
	switch {
	case ci.fm.attrs&attrCF != 0:
		return "control"
	case ci.varLat:
		return "variable-latency"
	}
	return "fixed-latency"
}

// checkPairs reports dual-issued pairs the hardware cannot issue together:
// the second reads or writes what the first writes (unless their guards
// exclude each other), or the kinds do not go together: ptxas pairs a
// fixed-latency instruction only with a variable-latency or control
// instruction after it, a double-precision one with any but a
// fixed-latency one, and other variable-latency ones only with a control
// instruction.
func checkPairs(insts []checkInst, report func(Hazard)) {
	closes := false
	for i := 0; i+1 < len(insts); i++ {
		a, b := &insts[i], &insts[i+1]
		opens := a.ok && a.ctrl&0x1f == 0x10 && !closes
		closes = opens
		if !opens || !b.ok || complementary(guardOf(a), guardOf(b)) {
			continue
		}
		if x := b.use.src.Union(b.use.dst).Intersect(a.use.dst); !x.Empty() {
			report(Hazard{Addr: b.addr, Kind: HazDualIssue, Msg: fmt.Sprintf("is dual-issued with %s at %04x, whose result R%d it uses", a.fm.name, a.addr, x.First())})
			continue
		}
		if p := (b.use.psrc | b.use.pdst) & a.use.pdst; p != 0 {
			report(Hazard{Addr: b.addr, Kind: HazDualIssue, Msg: fmt.Sprintf("is dual-issued with %s at %04x, whose result P%d it uses", a.fm.name, a.addr, firstBit(p))})
			continue
		}
		ka, kb := pairKind(a), pairKind(b)
		if kb == "fixed-latency" || ka == "variable-latency" && kb != "control" && !isDouble(a.fm.name) || ka == "control" {
			report(Hazard{Addr: b.addr, Kind: HazDualIssue, Msg: fmt.Sprintf("a %s %s cannot be dual-issued after a %s %s", kb, b.fm.name, ka, a.fm.name)})
		}
	}
}

// checkBanks notes source operands that read the same register bank
// (register number mod 4) in one instruction, unless the operand reuse
// cache supplies one of them: the previous instruction marked the same
// register in the same slot for reuse.
func checkBanks(insts []checkInst, report func(Hazard)) {
	var cached [3]int
	for s := range cached {
		cached[s] = -1
	}
	for i := range insts {
		ci := &insts[i]
		if !ci.ok {
			cached = [3]int{-1, -1, -1}
			continue
		}
		sl := ci.use.slots
		if !ci.varLat && ci.fm.attrs&attrCF == 0 {
			for x := 0; x < 3; x++ {
				for y := x + 1; y < 3; y++ {
					rx, ry := sl[x], sl[y]
					if rx < 0 || ry < 0 || rx == ry || rx%4 != ry%4 || cached[x] == rx || cached[y] == ry {
						continue
					}
					report(Hazard{Addr: ci.addr, Kind: HazBankConflict, Severity: SevNote,
						Msg: fmt.Sprintf("R%d and R%d are both in bank %d (no reuse hides it): one more cycle to read them", rx, ry, rx%4)})
				}
			}
		}
		reuse := ci.ctrl.Reuse()
		if ci.fm.attrs&attrTex != 0 {
			reuse = 0
		}
		for s := 0; s < 3; s++ {
			if reuse&(1<<s) != 0 {
				cached[s] = sl[s]
			} else {
				cached[s] = -1
			}
		}
	}
}
