package inject

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/gpuisa/gpuisa/emu"
)

// budget is the hang budget: HangFactor times the golden run's
// warp-instructions.
func (m *machine) budget() int64 { return int64(math.Ceil(m.ld.HangFactor * float64(m.g.Total))) }

// codeBytes is the size of launch lr's program.
func (m *machine) codeBytes(lr *launchRun) uint64 {
	a := lr.ki.addrs
	if len(a) == 0 {
		return 0
	}
	return a[len(a)-1] + 8
}

// reset puts the device back to the start of the run, the first
// launch's data placed, and returns that launch. It is prepared once: a
// launch placed again would place its images (textures) anew, elsewhere
// than the golden run's.
func (m *machine) reset() (*launchRun, error) {
	if m.started {
		m.dev.Restore(&m.start)
		if es, ok := m.first.prep.Exec.(emu.ExecState); ok {
			es.RestoreState(m.firstState)
		}
		return m.first, nil
	}
	lr, err := m.prepare(m.g.launches[0].job, 0)
	if err != nil {
		return nil, err
	}
	m.first = lr
	m.dev.Save(&m.start)
	if es, ok := lr.prep.Exec.(emu.ExecState); ok {
		m.firstState = es.SaveState()
	}
	m.started = true
	return lr, nil
}

// newProbe makes an injection's probe and starts its record.
func (m *machine) newProbe(inj *injection, lr *launchRun) *faultProbe {
	e := inj.e
	rec := &inj.rec
	*rec = Record{Campaign: m.ld.Hash, ID: inj.id, Of: m.ld.Total(), Exp: e.Name, Model: e.Model, Group: e.Group,
		WarpWide: e.Warp, Launch: inj.launch, Block: inj.block, Lane: -1, Bit: -1}
	if lr != nil {
		rec.Kernel = lr.kernel
	}
	if e.Model == ModelRF && inj.launch < len(m.g.Launches) {
		rec.Derate = m.g.Launches[inj.launch].Derate // the derating while its launch runs
	}
	p := &faultProbe{m: m, inj: inj, lr: lr, rec: rec, pf: inj.perm}
	switch e.Model {
	case ModelStuckUnit:
		rec.Target = fmt.Sprintf("%s unit, lane %d", p.pf.unit, p.pf.lane)
		rec.Warp, rec.Block = -1, -1
	case ModelStuckReg:
		rec.Target = fmt.Sprintf("%s of warp slot %d", p.pf.reg, p.pf.slot)
		rec.Warp, rec.Block = p.pf.slot, -1
	}
	if permanent(e.Model) {
		p.injected = true
		rec.Launch, rec.Kernel = 0, ""
		rec.Lane, rec.Bit, rec.New = p.pf.lane, p.pf.bit, fmt.Sprintf("stuck-at-%d", p.pf.value)
	}
	if m.trace != nil {
		p.trace, p.traceLeft = m.trace, m.traceWindow
	}
	return p
}

// runChunk runs injections with checkpoints: the golden run goes once
// through the blocks, and each injection forks it at its instruction.
// Injections at single instructions come sorted by place in the run;
// permanent faults fork where they first change a value (before it, the
// faulty run is the golden run), found as the golden run goes.
func (m *machine) runChunk(injs []*injection, emit func(*injection)) error {
	first, err := m.reset()
	if err != nil {
		return err
	}
	m.time = 0
	var trans, perm []*injection
	for _, inj := range injs {
		if permanent(inj.e.Model) {
			perm = append(perm, inj)
		} else {
			trans = append(trans, inj)
		}
	}
	next := 0
	for k := 0; k < len(m.g.launches) && (next < len(trans) || len(perm) > 0); k++ {
		lr := first
		if k > 0 {
			if lr, err = m.prepare(m.g.launches[k].job, k); err != nil {
				return err
			}
		}
		r := emu.NewBlockRun(lr.prep.Config, lr.prep.Exec)
		f := emu.NewBlockRun(lr.prep.Config, lr.prep.Exec)
		for bi := 0; bi < lr.blocks && (next < len(trans) || len(perm) > 0); bi++ {
			j := next
			for j < len(trans) && trans[j].launch == k && trans[j].block == bi {
				j++
			}
			here := trans[next:j]
			next = j
			if err := r.Start(bi); err != nil {
				return fmt.Errorf("the golden run faults: %w", err)
			}
			if len(here) == 0 && len(perm) == 0 {
				if _, err := r.Run(emu.ToEnd); err != nil {
					return fmt.Errorf("the golden run faults: %w", err)
				}
				m.time += r.B.Steps
				continue
			}
			// find the injections' instructions (and the permanent faults
			// that first act here), and the memory after the block
			m.dev.Save(&m.before)
			loc := newLocateProbe(lr, m.time, m.sels, here, perm)
			r.B.Probe = loc
			if _, err := r.Run(emu.ToEnd); err != nil {
				return fmt.Errorf("the golden run faults: %w", err)
			}
			for _, inj := range here {
				if !inj.located {
					panicf("injection %d was not found in block %d", inj.id, bi)
				}
			}
			perm = loc.pending()
			found := loc.found
			if len(found) == 0 {
				m.time += r.B.Steps
				continue
			}
			m.dev.Save(&m.after)
			if es, ok := lr.prep.Exec.(emu.ExecState); ok {
				m.afterState = es.SaveState()
			}
			m.dev.Restore(&m.before)
			slices.SortStableFunc(found, func(a, b *injection) int { return cmp.Compare(a.seq, b.seq) })
			if err := r.Start(bi); err != nil {
				return err
			}
			if m.trace != nil {
				r.B.Probe = &goldenTrace{m: m, lr: lr, inj: found[0]}
			}
			for _, inj := range found {
				if _, err := r.Run(emu.Until{Steps: inj.seq - r.B.Steps, Warp: -1}); err != nil {
					return fmt.Errorf("the golden run faults: %w", err)
				}
				probe := r.B.Probe
				r.B.Probe = nil
				m.fork(inj, lr, r, f)
				r.B.Probe = probe
				emit(inj)
			}
			if _, err := r.Run(emu.ToEnd); err != nil {
				return fmt.Errorf("the golden run faults: %w", err)
			}
			if !m.dev.Same(&m.after) {
				return fmt.Errorf("launch %d block %d: the golden run differs from itself (a race between blocks?)", k, bi)
			}
			m.time += r.B.Steps
		}
	}
	// permanent faults that change no value of the golden run: the
	// faulty run is the golden run
	for _, inj := range perm {
		p := m.newProbe(inj, nil)
		m.masked(p, m.g.Total, true)
		emit(inj)
	}
	return nil
}

// fork runs injection inj from the golden block g paused at its
// instruction, on a copy (f), and puts the device back.
func (m *machine) fork(inj *injection, lr *launchRun, g, f *emu.BlockRun) {
	m.dev.Save(&m.saved)
	defer m.dev.Restore(&m.saved)
	if es, ok := lr.prep.Exec.(emu.ExecState); ok {
		state := es.SaveState()
		defer es.RestoreState(state)
	}
	p := m.newProbe(inj, lr)
	if err := g.CopyTo(f); err != nil {
		panicf("injection %d: %v", inj.id, err)
	}
	p.armed, p.halt = !permanent(inj.e.Model), true
	f.B.Probe = p
	used := m.time + g.B.Steps
	p.t = used
	m.runFrom(p, lr, f, nil, &m.after, used)
}

// runWhole runs one injection from the start of the run: any injection
// without checkpoints (Options.Full).
func (m *machine) runWhole(inj *injection) error {
	first, err := m.reset()
	if err != nil {
		return err
	}
	seq := m.ld.seq.Fork(m.dev)
	job, err := seq.Next()
	if err != nil || job == nil {
		return fmt.Errorf("the run does not start: %v", err)
	}
	lr := *first // the first launch, placed (job: the sequence's own)
	lr.job = job
	p := m.newProbe(inj, &lr)
	if !permanent(inj.e.Model) {
		p.loc = newLocateProbe(&lr, 0, m.sels, []*injection{inj}, nil)
	}
	f := emu.NewBlockRun(lr.prep.Config, lr.prep.Exec)
	if err := f.Start(0); err != nil {
		return fmt.Errorf("the run does not start: %w", err)
	}
	f.B.Probe = p
	m.runFrom(p, &lr, f, seq, nil, 0)
	return nil
}

// runFrom runs a faulty run on from block f of launch lr (started, maybe
// part-way through) to its end or an early stop, and completes the
// record. seq is the sequence's progress with lr's launch running (nil:
// the golden run's, forked); used is the warp-instructions the run
// executed before; after (not nil) is the golden memory after f's block.
func (m *machine) runFrom(p *faultProbe, lr *launchRun, f *emu.BlockRun, seq *emu.Sequence, after *emu.DeviceState, used int64) {
	rec := p.rec
	budget := m.budget()
	for {
		for {
			before := f.B.Steps
			done, err := f.Run(emu.Until{Steps: budget - used, Warp: -1})
			used += f.B.Steps - before
			if err != nil {
				m.fail(p, err, used)
				return
			}
			if done {
				break
			}
			if p.dead && p.halt {
				m.masked(p, used, true)
				return
			}
			if used >= budget {
				m.fail(p, errBudget, used)
				return
			}
		}
		p.blockEnd(f.B)
		if p.dead && p.halt {
			m.masked(p, used, true)
			return
		}
		if after != nil {
			diff := m.dev.Diff(after)
			if len(diff) == 0 && len(p.mem) == 0 && !permanent(p.inj.e.Model) && m.sameExecState(lr) {
				m.masked(p, used, true)
				return
			}
			if rest, ok := m.skippable(p, lr, f.B.Index, diff, used); ok {
				m.skipRest(p, lr, f.B.Index, diff, used+rest)
				return
			}
			after = nil
		}
		bi := f.B.Index + 1
		if bi == lr.blocks {
			// the launch ended: the sequence goes on from here, its while
			// conditions reading the faulty run's memory
			if seq == nil {
				seq = m.g.launches[lr.index].seq.Fork(m.dev)
			}
			if err := seq.Done(lr.job, m.result(), nil); err != nil {
				m.fail(p, err, used)
				return
			}
			job, err := seq.Next()
			if err != nil {
				m.fail(p, err, used)
				return
			}
			if job == nil {
				break
			}
			next, err := m.prepare(job, lr.index+1)
			if err != nil {
				m.fail(p, err, used)
				return
			}
			lr = next
			p.setLaunch(lr)
			f = emu.NewBlockRun(lr.prep.Config, lr.prep.Exec)
			bi = 0
		}
		if err := f.Start(bi); err != nil {
			m.fail(p, err, used)
			return
		}
		f.B.Probe = nil
		if p.active() {
			f.B.Probe = p
		}
	}
	if sdc := compare(m.g.Outputs, m.result()); sdc != nil {
		rec.Outcome, rec.SDC, rec.Insts = SDC, sdc, used
		rec.NVBitFI = NVBitFI(SDC, "")
		m.finishRecord(p)
		return
	}
	m.masked(p, used, false)
}

// masked records a Masked outcome with its subdivision.
func (m *machine) masked(p *faultProbe, used int64, early bool) {
	rec := p.rec
	sub := p.sub
	switch {
	case permanent(p.inj.e.Model):
		sub = ReadEqual
		if p.activations == 0 {
			sub = NeverRead // the fault never changed a value
		}
	case sub == "":
		sub = NeverRead // corrupted global memory never read, or a fault that changed nothing
		if p.overwrote {
			sub = Overwritten
		}
	}
	rec.Outcome, rec.Sub, rec.Insts, rec.Early = Masked, sub, used, early
	rec.NVBitFI = NVBitFI(Masked, sub)
	m.finishRecord(p)
}

// fail records a faulty run's error: a DUE or a Hang.
func (m *machine) fail(p *faultProbe, err error, used int64) {
	var inv invariantError
	if errors.As(err, &inv) {
		panic(inv)
	}
	rec := p.rec
	rec.Outcome, rec.Detail = classify(err)
	if rec.Outcome == Hang && errors.Is(err, errBudget) {
		rec.Detail = fmt.Sprintf("instruction budget: %d warp-instructions, %g x the golden run", used, m.ld.HangFactor)
	}
	rec.Insts = used
	rec.NVBitFI = NVBitFI(rec.Outcome, "")
	m.finishRecord(p)
}

func (m *machine) finishRecord(p *faultProbe) {
	if permanent(p.inj.e.Model) {
		p.rec.Activations = p.activations
	}
	if p.rec.PC == "" && !permanent(p.inj.e.Model) && !p.inj.located {
		p.rec.Detail = "the injection's instruction was never reached"
	}
	p.inj.recorded = true
}

// goldenTrace prints the golden run's instructions of the faulty warp
// before the fault (replay).
type goldenTrace struct {
	m   *machine
	lr  *launchRun
	inj *injection
	seq int64
}

func (t *goldenTrace) Before(b *emu.Block, w *emu.Warp, pc, mask uint32) uint32 {
	if w.Index == t.inj.warp && t.seq >= t.inj.seq-int64(t.m.traceWindow) && t.seq < t.inj.seq {
		addr, text := t.lr.where(pc)
		fmt.Fprintf(t.m.trace, "  golden %#06x  %-48s %08x\n", addr, text, mask)
	}
	t.seq++
	return mask
}

func (t *goldenTrace) After(b *emu.Block, w *emu.Warp, pc, mask uint32) {}

// skippable reports whether the rest of a faulty run after block bi of
// launch lr (the golden run's launch of that number: the run forked in
// it) can be told without running it: no later block, of this launch or
// of the launches after it, reads a byte where memory differs from the
// golden run's (nor anything it cannot tell), and the host reads none
// between launches (the sequence takes the golden run's path), so every
// later block runs as in the golden run; rest is their warp-instructions.
func (m *machine) skippable(p *faultProbe, lr *launchRun, bi int, diff []emu.Span, used int64) (int64, bool) {
	if permanent(p.inj.e.Model) {
		return 0, false
	}
	if !m.sameExecState(lr) {
		return 0, false // the launch's state (sm_2x's locks) differs too
	}
	d := spansOf(diff)
	k := lr.index
	if overlaps(d, m.g.hostReads) || k+1 < len(m.g.launches) && len(subtract(d, m.g.buffers)) > 0 {
		// differences in what a while condition reads (the sequence may
		// take another path, even past the golden run's last launch), or
		// outside the buffers where a later launch places its constants
		// or images
		return 0, false
	}
	var rest int64
	for kk := k; kk < len(m.g.launches); kk++ {
		blocks := m.g.launches[kk].blocks
		if kk == k {
			blocks = blocks[bi+1:]
		}
		for _, bm := range blocks {
			if bm.unknown || overlaps(bm.reads, d) {
				return 0, false
			}
			rest += bm.steps
		}
	}
	return rest, used+rest < m.budget()
}

// skipRest ends a faulty run whose later blocks run as in the golden run:
// memory becomes the golden run's final memory, except the differing
// bytes nothing later writes (a later block, or a later launch's
// placement of its data).
func (m *machine) skipRest(p *faultProbe, lr *launchRun, bi int, diff []emu.Span, used int64) {
	var writes []span
	k := lr.index
	for kk := k; kk < len(m.g.launches); kk++ {
		gl := &m.g.launches[kk]
		blocks := gl.blocks
		if kk == k {
			blocks = blocks[bi+1:]
		} else {
			writes = append(writes, gl.placed...)
		}
		for _, bm := range blocks {
			writes = append(writes, bm.writes...)
		}
	}
	writes = mergeSpans(writes)
	keep := subtract(spansOf(diff), writes)
	var ks []emu.Span
	for _, k := range keep {
		ks = append(ks, emu.Span{Addr: k.lo, Len: k.hi - k.lo})
	}
	// corrupted bytes still followed: overwritten by a later block, or
	// never read (no later block reads a differing byte)
	kept := p.mem[:0]
	for _, rg := range p.mem {
		for j := range 32 {
			a := rg.lo + uint64(j)
			if rg.pending>>j&1 != 0 && overlaps(writes, []span{{a, a + 1}}) {
				rg.pending &^= 1 << j
				p.overwrote = true
			}
		}
		if rg.pending != 0 {
			kept = append(kept, rg)
		}
	}
	p.mem = kept
	m.dev.RestoreExcept(&m.g.final, ks)
	early := bi+1 < len(m.g.launches[k].blocks) || k+1 < len(m.g.launches) // blocks were left out
	if sdc := compare(m.g.Outputs, m.result()); sdc != nil {
		p.rec.Outcome, p.rec.SDC, p.rec.Insts, p.rec.Early = SDC, sdc, used, early
		p.rec.NVBitFI = NVBitFI(SDC, "")
		m.finishRecord(p)
		return
	}
	m.masked(p, used, early)
}

func spansOf(d []emu.Span) []span {
	out := make([]span, len(d))
	for i, s := range d {
		out[i] = span{s.Addr, s.Addr + s.Len}
	}
	return out
}

// sameExecState reports whether the launch's state outside its blocks
// (emu.ExecState: sm_2x's global locks) is the golden run's after the
// forked block.
func (m *machine) sameExecState(lr *launchRun) bool {
	es, ok := lr.prep.Exec.(emu.ExecState)
	return !ok || reflect.DeepEqual(es.SaveState(), m.afterState)
}
