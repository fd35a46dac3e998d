package inject

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/gpuisa/gpuisa/emu"
)

// Golden is what the fault-free run produced and counted.
type Golden struct {
	Total    int64 // warp-instructions of the whole run
	Launches []LaunchProfile
	Outputs  []Output
	// Allocated general registers per thread (the most any kernel
	// holds), warps per block (the most of any launch), threads per
	// block of the first launch.
	Alloc, Warps, Threads int
	SharedBytes           int    // shared memory per block of the first launch
	Global                []span // allocated global memory (buffers, images, outputs) of the first launch
	Derate                float64
	pops                  []population // per experiment
	kernels               []goldenKernel
	launches              []goldenLaunch
	final                 emu.DeviceState
	// global memory the host reads between launches (while conditions'
	// buffers; all of it when it cannot be told), and the buffers
	hostReads, buffers []span
	// a shader's (shader.go): the most steps one instance ran, the
	// register words its programs name (rf, stuck-reg)
	shaderMax  int64
	shaderRegs []int
	shaderOuts []int // the words the outputs read
}

// goldenKernel is a program the golden run ran, with its facts.
type goldenKernel struct {
	prog *emu.Program
	*kernelInfo
}

// goldenLaunch is one launch of the golden run: its job, the sequence's
// progress with it about to run (a faulty run forks it to go on after
// the launch), what each block did to global memory, and the global bytes
// its placement writes (zero-filled buffers, images).
type goldenLaunch struct {
	job    *emu.Job
	seq    *emu.Sequence
	blocks []blockMem
	placed []span
	global []span // the global memory mem-global hits while it runs
}

// blockMem is what a golden block did to global memory: the bytes it read
// and wrote (sorted, merged), its warp-instructions; unknown: an access
// could not be told, so it may read anything.
type blockMem struct {
	steps         int64
	reads, writes []span
	unknown       bool
}

// LaunchProfile is one launch's counts.
type LaunchProfile struct {
	Kernel, Arch           string
	Blocks                 int
	Start                  int64 // the run's warp-instructions before it
	WarpInsts, ThreadInsts int64
	PCWarp, PCThread       []int64 // executions per program index
	Derate                 float64 // the register-file derating while it runs
	ki                     *kernelInfo
}

// population is an experiment's units per block, in run order (blocks
// without any are left out).
type population struct {
	total  int64
	blocks []blockCount
}

type blockCount struct {
	launch, block int
	start, count  int64 // units before the block, units in it
}

// span is a range of memory addresses.
type span struct{ lo, hi uint64 }

// profileProbe counts every instruction of the golden run and notes the
// global memory each block reads and writes.
type profileProbe struct {
	lp     *LaunchProfile
	lr     *launchRun
	sels   []*selector
	t      int64
	counts []int64
	bm     blockMem
	acc    []emu.Access
}

func (p *profileProbe) Before(b *emu.Block, w *emu.Warp, pc, mask uint32) uint32 {
	p.lp.PCWarp[pc]++
	p.lp.PCThread[pc] += int64(bits.OnesCount32(mask))
	if p.lr.sites[pc].Mem && !p.bm.unknown {
		for m := mask; m != 0; m &= m - 1 {
			acc, ok := p.lr.insp.Accesses(b, w, pc, bits.TrailingZeros32(m), p.acc[:0])
			p.acc = acc
			if !ok {
				p.bm.unknown = true
				break
			}
			for _, a := range acc {
				if a.Space != emu.Global {
					continue
				}
				sp := span{a.Addr, a.Addr + uint64(a.Size)}
				if a.Read {
					p.bm.reads = appendSpan(p.bm.reads, sp)
				}
				if a.Write {
					p.bm.writes = appendSpan(p.bm.writes, sp)
				}
			}
		}
	}
	for i, s := range p.sels {
		if s != nil {
			n, _ := s.count(p.lr.ki.elig[i], pc, p.t, w, mask)
			p.counts[i] += n
		}
	}
	p.t++
	return mask
}

func (p *profileProbe) After(b *emu.Block, w *emu.Warp, pc, mask uint32) {}

// selectors makes the selectors of the experiments (nil for permanent
// faults, which have no population).
func (ld *Loaded) selectors() []*selector {
	sels := make([]*selector, len(ld.Experiments))
	for i := range ld.Experiments {
		if e := &ld.Experiments[i]; !permanent(e.Model) {
			sels[i] = newSelector(e)
		}
	}
	return sels
}

// Profile runs the campaign's launches once without faults, counting
// instructions per launch, static instruction and experiment population,
// and reads the outputs.
func Profile(ld *Loaded) (*Golden, error) {
	if ld.shader != nil {
		return ld.profileShader()
	}
	m := newMachine(ld)
	g := &Golden{pops: make([]population, len(ld.Experiments))}
	m.g = g
	p := &profileProbe{sels: m.sels, counts: make([]int64, len(ld.Experiments))}
	seq := ld.seq.Fork(m.dev)
	for k := 0; ; k++ {
		job, err := seq.Next()
		if err != nil {
			return nil, fmt.Errorf("the golden run: %w", err)
		}
		if job == nil {
			break
		}
		gl := goldenLaunch{job: job, seq: seq.Fork(nil)}
		lr, err := m.prepare(job, k)
		if err != nil {
			return nil, fmt.Errorf("the golden run: launch %d: %w", k, err)
		}
		if lr.ki.index < 0 {
			lr.ki.index = len(g.kernels)
			g.kernels = append(g.kernels, goldenKernel{job.Program, lr.ki})
		}
		gl.placed = placedSpans(job, lr.prep.Setup)
		gl.global = ld.allocated(lr.prep.Setup)
		if il, ok := lr.prep.Exec.(emu.ImageLister); ok {
			for _, im := range il.Images() {
				gl.global = append(gl.global, span{im.Addr, im.Addr + im.Size})
			}
			gl.global = mergeSpans(gl.global)
		}
		n := len(lr.sites)
		lp := LaunchProfile{Kernel: lr.kernel, Arch: lr.arch(), Blocks: lr.blocks, Start: p.t,
			PCWarp: make([]int64, n), PCThread: make([]int64, n), ki: lr.ki}
		p.lp, p.lr = &lp, lr
		r := emu.NewBlockRun(lr.prep.Config, lr.prep.Exec)
		gl.blocks = make([]blockMem, lr.blocks)
		for bi := range lr.blocks {
			clear(p.counts)
			p.bm = blockMem{}
			if err := r.Start(bi); err != nil {
				return nil, fmt.Errorf("the golden run faults: %w", err)
			}
			r.B.Probe = p
			if _, err := r.Run(emu.ToEnd); err != nil {
				return nil, fmt.Errorf("the golden run faults: %w", err)
			}
			for i, c := range p.counts {
				if c > 0 {
					pop := &g.pops[i]
					pop.blocks = append(pop.blocks, blockCount{launch: k, block: bi, start: pop.total, count: c})
					pop.total += c
				}
			}
			lp.WarpInsts += r.B.Steps
			p.bm.steps = r.B.Steps
			p.bm.reads, p.bm.writes = mergeSpans(p.bm.reads), mergeSpans(p.bm.writes)
			gl.blocks[bi] = p.bm
			for wi := range r.B.Warps {
				lp.ThreadInsts += r.B.Warps[wi].ThreadSteps
			}
		}
		threads := lr.prep.Config.Block.Count()
		if k == 0 {
			g.Threads = threads
			g.SharedBytes = len(r.B.Shared.Data)
			g.Global = gl.global
			g.buffers = bufferSpans(lr.prep.Setup)
			g.hostReads = ld.hostReads(lr.prep.Setup)
		}
		g.Warps = max(g.Warps, len(r.B.Warps))
		g.Alloc = max(g.Alloc, lr.ki.alloc)
		lp.Derate = derating(lr.arch(), lr.ki.alloc, threads*lr.blocks, ld.RFRegs)
		g.Launches = append(g.Launches, lp)
		g.launches = append(g.launches, gl)
		if err := seq.Done(job, m.result(), nil); err != nil {
			return nil, err
		}
	}
	if len(g.Launches) == 0 {
		return nil, fmt.Errorf("the launch file runs no launch")
	}
	g.Total = p.t
	m.dev.Save(&g.final)
	outs, err := ld.readOutputs(m.result())
	if err != nil {
		return nil, err
	}
	g.Outputs = outs
	// the derating of the whole run: each launch's, weighted by its
	// thread-instructions (rf injections are drawn uniformly over them)
	var w, sum float64
	for _, lp := range g.Launches {
		w += float64(lp.ThreadInsts)
		sum += float64(lp.ThreadInsts) * lp.Derate
	}
	if w > 0 {
		g.Derate = sum / w
	}
	return g, nil
}

// placedSpans is the global memory a launch's placement writes: the
// buffers it gives data for (the first launch's, zero-filled ones) and
// its global images.
func placedSpans(j *emu.Job, s *emu.Setup) []span {
	var out []span
	for _, b := range j.Buffers {
		if p, ok := s.Buffers[b.Name]; ok && b.Data != nil && p.Bytes > 0 {
			out = append(out, span{p.Addr, p.Addr + p.Bytes})
		}
	}
	for _, im := range j.Memory {
		if im.Space == emu.Global && len(im.Data) > 0 {
			out = append(out, span{im.Addr, im.Addr + uint64(len(im.Data))})
		}
	}
	return mergeSpans(out)
}

// bufferSpans is where a launch's buffers lie.
func bufferSpans(s *emu.Setup) []span {
	var out []span
	for _, b := range s.Buffers {
		if b.Bytes > 0 {
			out = append(out, span{b.Addr, b.Addr + b.Bytes})
		}
	}
	return mergeSpans(out)
}

// allocated lists the global memory a launch owns: its buffers, its
// global images and the regions its outputs read.
func (ld *Loaded) allocated(s *emu.Setup) []span {
	var out []span
	for _, b := range s.Buffers {
		if b.Bytes > 0 {
			out = append(out, span{b.Addr, b.Addr + b.Bytes})
		}
	}
	for _, m := range ld.Job.Memory {
		if m.Space == emu.Global && len(m.Data) > 0 {
			out = append(out, span{m.Addr, m.Addr + uint64(len(m.Data))})
		}
	}
	for _, r := range ld.regions(s.Buffers) {
		out = append(out, span{r.Addr, r.Addr + r.Bytes})
	}
	return mergeSpans(out)
}

// appendSpan adds sp to a list, joining it to the last span when they
// touch (accesses come mostly in order).
func appendSpan(list []span, sp span) []span {
	if n := len(list); n > 0 && sp.lo <= list[n-1].hi && sp.hi >= list[n-1].lo {
		list[n-1] = span{min(sp.lo, list[n-1].lo), max(sp.hi, list[n-1].hi)}
		return list
	}
	return append(list, sp)
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(list []span) []span {
	slices.SortFunc(list, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var merged []span
	for _, sp := range list {
		if n := len(merged); n > 0 && sp.lo <= merged[n-1].hi {
			merged[n-1].hi = max(merged[n-1].hi, sp.hi)
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// overlaps reports whether two sorted span lists share an address.
func overlaps(a, b []span) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].hi <= b[j].lo:
			i++
		case b[j].hi <= a[i].lo:
			j++
		default:
			return true
		}
	}
	return false
}

// subtract removes the addresses of b (sorted) from a (sorted).
func subtract(a, b []span) []span {
	var out []span
	j := 0
	for _, sp := range a {
		lo := sp.lo
		for j < len(b) && b[j].hi <= lo {
			j++
		}
		for k := j; k < len(b) && b[k].lo < sp.hi; k++ {
			if b[k].lo > lo {
				out = append(out, span{lo, b[k].lo})
			}
			lo = max(lo, b[k].hi)
		}
		if lo < sp.hi {
			out = append(out, span{lo, sp.hi})
		}
	}
	return out
}

// rfShape is an SM's register file (32-bit registers) and resident
// threads, by architecture.
func rfShape(arch string) (regs, threads int) {
	switch arch {
	case "sm_10", "sm_11":
		return 8192, 768
	case "sm_12", "sm_13":
		return 16384, 1024
	case "sm_20", "sm_21":
		return 32768, 1536
	}
	return 65536, 2048
}

// derating is SASSIFI's register-file derating: the fraction of an SM's
// physical registers allocated while the kernel runs (allocated registers
// per thread times the resident threads, over the register file). The
// resident threads are the launch's, at most what the SM holds.
func derating(arch string, alloc, threads, rfRegs int) float64 {
	regs, maxThreads := rfShape(arch)
	if rfRegs > 0 {
		regs = rfRegs
	}
	if alloc == 0 {
		return 0
	}
	resident := min(threads, maxThreads, regs/alloc)
	return min(1, float64(alloc*resident)/float64(regs))
}
