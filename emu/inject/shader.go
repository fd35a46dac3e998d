package inject

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	mbits "math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/usse"
	"github.com/gpuisa/gpuisa/internal/safeio"
)

// Campaigns on SGX543 (USSE) shader launches: the shader runs outside the
// engine (emu/usse's Draw), so it has its own probe (usse.Probe) and runs
// every injection whole. Its "thread-instructions" are the ops an
// instance runs (an iteration of a repeated instruction), in the draw's
// order with a probe: the secondary program, then the quads, the lanes of
// a quad in turn at each op. The kernels are "secondary" and "primary".

// shaderModels are the models a shader campaign takes.
var shaderModels = map[string]bool{ModelFlip1: true, ModelFlip2: true, ModelRandom: true, ModelZero: true, ModelRF: true,
	ModelMemGlobal: true, ModelCFPred: true, ModelCFTarget: true, ModelStuckUnit: true, ModelStuckReg: true}

// quadUnits: the experiment draws quad-ops (the ops a quad's lanes run
// together), counted at their first lane that is a unit: quad-wide
// faults, and branch targets (one per quad).
func quadUnits(e *Experiment) bool { return e.Warp || e.Model == ModelCFTarget }

// loadShader finishes a campaign on a shader launch file (text data at lp).
func loadShader(c *Campaign, path, lp string, data []byte) (*Loaded, error) {
	l, err := usse.ParseLaunch(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", lp, err)
	}
	for _, e := range c.Experiments {
		switch {
		case !shaderModels[e.Model]:
			return nil, fmt.Errorf("%s: %s: model %s is not for shaders (sgx543: flip1, flip2, random, zero, rf, mem-global, cf-pred, cf-target, stuck-unit, stuck-reg)", path, e.Name, e.Model)
		case e.Lane != nil && *e.Lane > 3:
			return nil, fmt.Errorf("%s: %s: a shader's lanes are 0..3 (the instances of a quad)", path, e.Name)
		}
	}
	dir := filepath.Dir(lp)
	ld := &Loaded{Campaign: c, Path: path, Dir: dir, shader: l, Launch: &emu.Launch{}}
	h := sha256.New()
	norm, _ := json.Marshal(c)
	h.Write(norm)
	h.Write(data)
	// every file the launch names, by its "file" and "program" fields
	var tree any
	_ = json.Unmarshal(data, &tree)
	var walk func(v any, key string) error
	walk = func(v any, key string) error {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if err := walk(v[k], k); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range v {
				if err := walk(x, key); err != nil {
					return err
				}
			}
		case string:
			if key == "program" || key == "file" && !strings.HasSuffix(v, ".out") {
				p := v
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				b, err := safeio.ReadFile(p, emu.MaxMemory) // the launch's own limit for its files
				var tl *safeio.TooLargeError
				if err != nil && (key == "program" || errors.As(err, &tl)) {
					return err
				}
				fmt.Fprintf(h, "|%s|%d|", v, len(b))
				h.Write(b)
			}
		}
		return nil
	}
	if err := walk(tree, ""); err != nil {
		return nil, fmt.Errorf("%s: %w", lp, err)
	}
	ld.Hash = hex.EncodeToString(h.Sum(nil))[:16]
	return ld, nil
}

// shaderKernel is one of a shader's two programs as a campaign sees it.
type shaderKernel struct {
	*kernelInfo
	lp *LaunchProfile
}

// shaderSel is an experiment's population on shader steps.
type shaderSel struct {
	e      *Experiment
	pcs    map[uint64]bool
	window [2]int64
}

func newShaderSel(e *Experiment) *shaderSel {
	s := newSelector(e) // the same parsing of pc and window
	return &shaderSel{e: e, pcs: s.pcs, window: s.window}
}

// counts reports whether step s (at the run's time t) is a unit of the
// experiment's population.
func (sel *shaderSel) counts(s *usse.Step, kernel string, t int64, buf []int) bool {
	e := sel.e
	if permanent(e.Model) || !s.Counted() || t < sel.window[0] || sel.window[1] >= 0 && t >= sel.window[1] {
		return false
	}
	if e.Kernel != "" && e.Kernel != kernel || sel.pcs != nil && !sel.pcs[s.Code.Addr(s.Inst())] {
		return false
	}
	switch e.Model {
	case ModelMemGlobal:
		return s.T.Memory() != nil
	case ModelCFPred:
		return s.Class().Branch && s.Pred() >= 0
	case ModelCFTarget:
		return s.Jump() && s.Runs() // a lane takes it
	case ModelRF:
		return s.Runs() && (e.Group == "" || len(shaderTargets(s, e.Group, buf)) > 0)
	}
	return s.Runs() && len(shaderTargets(s, e.Group, buf)) > 0
}

// shaderTargets are the words a destination model can corrupt at step s
// (group g): its destination register words, its predicate (pr), a
// store's value or address word.
func shaderTargets(s *usse.Step, g string, buf []int) []int {
	c := s.Class()
	switch g {
	case "st-value":
		if w := s.StoreValue(); w >= 0 {
			return append(buf[:0], w)
		}
		return nil
	case "st-addr":
		if w := s.StoreAddress(); w >= 0 {
			return append(buf[:0], w)
		}
		return nil
	case "fp64", "cc":
		return nil
	}
	ws := s.Writes(buf[:0])
	regs, preds := ws[:0:0], ws[:0:0]
	for _, w := range ws {
		if w >= usse.PredWord(0) {
			preds = append(preds, w)
		} else {
			regs = append(regs, w)
		}
	}
	switch g {
	case "pr":
		if len(regs) > 0 {
			return nil // pr: writing predicates and no register
		}
		return preds
	case "all":
		return ws
	case "fp32":
		if !c.Float {
			return nil
		}
	case "ld":
		if !c.Load {
			return nil
		}
	}
	return regs
}

// shaderProfile counts the golden run.
type shaderProfile struct {
	ld      *Loaded
	g       *Golden
	sels    []*shaderSel
	kernels map[*usse.Code]*shaderKernel
	t       int64
	perInst map[int]int64 // steps per instance (secondary: -1)
	named   map[int]bool  // register words the programs read or write
	buf     []int
	qops    quadOps
	seen    []int64 // per experiment: the quad-op last counted (quad-wide)
}

func (p *shaderProfile) kernel(c *usse.Code) *shaderKernel {
	if k := p.kernels[c]; k != nil {
		return k
	}
	n := len(c.Insts) + 1 // and the implicit end
	ki := &kernelInfo{name: c.Name, arch: usse.Arch, sites: make([]emu.Site, n), addrs: make([]uint64, n),
		texts: make([]string, n), index: len(p.g.kernels)}
	for i := range n {
		ki.addrs[i] = c.Addr(i)
		ki.texts[i] = "(end)"
		ki.sites[i].Op = "END"
		if i < len(c.Insts) {
			ki.texts[i] = c.Text(i)
			ki.sites[i].Op = shaderOp(ki.texts[i])
		}
	}
	ki.alloc = -1 // set when the run is over
	p.g.kernels = append(p.g.kernels, goldenKernel{kernelInfo: ki})
	k := &shaderKernel{kernelInfo: ki}
	p.g.Launches = append(p.g.Launches, LaunchProfile{Kernel: c.Name, Arch: usse.Arch, Start: p.t,
		PCWarp: make([]int64, n), PCThread: make([]int64, n), ki: ki})
	k.lp = &p.g.Launches[len(p.g.Launches)-1]
	p.kernels[c] = k
	return k
}

func (p *shaderProfile) Before(s *usse.Step) {
	if !s.Counted() {
		return
	}
	k := p.kernel(s.Code)
	if s.Runs() {
		i := s.Inst()
		k.lp.PCWarp[i]++
		k.lp.PCThread[i]++
		k.lp.WarpInsts++
		k.lp.ThreadInsts++
		site := &k.sites[i]
		c := s.Class()
		for _, w := range s.Writes(p.buf[:0]) {
			if w >= usse.PredWord(0) {
				site.Groups |= emu.GroupPR
			} else {
				site.Groups |= emu.GroupGP
			}
		}
		if site.Groups&emu.GroupGP != 0 {
			site.Groups &^= emu.GroupPR
		}
		if c.Float {
			site.Groups |= emu.GroupFP32
		}
		if c.Load {
			site.Groups |= emu.GroupLD
		}
		if c.Store {
			site.Groups |= emu.GroupST
		}
		if c.Branch {
			site.Groups |= emu.GroupBranch
		}
		for _, w := range s.Reads(s.Writes(p.buf[:0])) {
			if w < usse.PredWord(0) {
				p.named[w] = true
			}
		}
	}
	serial := p.qops.at(s)
	for i, sel := range p.sels {
		if sel.counts(s, s.Code.Name, p.t, p.buf) {
			if quadUnits(sel.e) {
				if p.seen[i] == serial {
					continue // a quad-op counts once, at its first lane
				}
				p.seen[i] = serial
			}
			p.g.pops[i].total++
		}
	}
	p.perInst[s.Instance]++
	p.t++
}

func (p *shaderProfile) After(s *usse.Step) {}

// profileShader runs a shader campaign's golden run.
func (ld *Loaded) profileShader() (*Golden, error) {
	g := &Golden{pops: make([]population, len(ld.Experiments)), Warps: 1, Threads: 4}
	p := &shaderProfile{ld: ld, g: g, kernels: map[*usse.Code]*shaderKernel{}, perInst: map[int]int64{}, named: map[int]bool{},
		buf: make([]int, 0, 16)}
	for i := range ld.Experiments {
		p.sels = append(p.sels, newShaderSel(&ld.Experiments[i]))
	}
	p.seen = make([]int64, len(p.sels))
	o, err := usse.Run(ld.shader, ld.Dir, usse.Config{Workers: 1, Probe: p})
	if err != nil {
		return nil, fmt.Errorf("the golden run faults: %w", err)
	}
	// the launches in draw order: the secondary program first
	slices.SortStableFunc(g.Launches, func(a, b LaunchProfile) int { return strings.Compare(b.Kernel, a.Kernel) })
	for i := range g.Launches {
		g.Launches[i].ki.index = i
		g.kernels[i] = goldenKernel{kernelInfo: g.Launches[i].ki}
		if g.Launches[i].Kernel == "primary" {
			g.Launches[i].Blocks = (o.Stats.Instances + 3) / 4
		} else {
			g.Launches[i].Blocks = 1
		}
	}
	g.Total = p.t
	g.Global = ld.shaderImages()
	for _, n := range p.perInst {
		g.shaderMax = max(g.shaderMax, n)
	}
	for w := range p.named {
		g.shaderRegs = append(g.shaderRegs, w)
	}
	slices.Sort(g.shaderRegs)
	g.Alloc = len(g.shaderRegs)
	for _, k := range g.kernels {
		k.alloc = g.Alloc // the words both programs name (the secondary's are SA)
	}
	for i := range g.pops {
		if ld.Experiments[i].Model == ModelMemGlobal && g.shaderMemSize() == 0 || ld.Experiments[i].Model == ModelRF && len(g.shaderRegs) == 0 {
			g.pops[i].total = 0
		}
		if t := g.pops[i].total; t > 0 {
			g.pops[i].blocks = []blockCount{{count: t}}
		}
	}
	if g.shaderOuts, err = o.Prog.OutputWords(ld.shader); err != nil {
		return nil, err
	}
	ld.Launch = o.Setup.Launch
	o.Result.Buffers = o.Setup.Buffers
	if g.Outputs, err = ld.readOutputs(o.Result); err != nil {
		return nil, err
	}
	return g, nil
}

// quadOps numbers the quad-ops of a draw (an op run by the lanes of one
// quad): the unit of warp-wide (quad-wide) faults.
type quadOps struct {
	code           *usse.Code
	op, quad, lane int
	serial         int64
}

// at is the number of the quad-op step s belongs to (from 1).
func (q *quadOps) at(s *usse.Step) int64 {
	quad := -1
	if s.Instance >= 0 {
		quad = s.Instance / 4
	}
	if q.code != s.Code || q.op != s.Op || q.quad != quad || s.Lane <= q.lane {
		q.code, q.op, q.quad = s.Code, s.Op, quad
		q.serial++
	}
	q.lane = s.Lane
	return q.serial
}

// shaderProbe injects one fault into a shader's draw.
type shaderProbe struct {
	m    *machine
	inj  *injection
	sel  *shaderSel
	rec  *Record
	t    int64 // the run's steps so far
	u    int64 // units of the population so far
	buf  []int
	done bool // injected
	// the corrupted word, followed in the instances that hold it (-1: the
	// secondary program's, read by every instance's copy): a value
	// model's destination, an rf word
	insts     []int
	word      int
	followed  bool
	read      bool
	overwrote bool
	restore   [4]func() // per lane: undoes a fault that lasts one op (store value or address, cf-pred)
	memByte   uint64    // mem-global: the flipped byte
	memFlip   bool
	pf        permFault
	pword     int // stuck-reg's word
	acts      int64
	unchanged bool   // the fault changed no value
	badTarget string // cf-target: the branch went to an address that is no instruction
	// quad-wide faults: the quad-op of the injection, its first lane,
	// and the change every other lane running the op gets
	qops   quadOps
	seen   int64 // the quad-op last counted
	serial int64
	first  int
	apply  func(uint32) uint32
}

func (p *shaderProbe) Before(s *usse.Step) {
	defer func() {
		if s.Counted() {
			p.t++
		}
	}()
	if permanent(p.inj.e.Model) {
		p.permBefore(s)
		return
	}
	serial := p.qops.at(s)
	e := p.inj.e
	p.follow(s)
	if p.done && e.Warp && serial == p.serial && s.Lane != p.first && s.Runs() {
		// the other lanes of a quad-wide fault's quad-op
		switch e.Model {
		case ModelCFPred:
			w := s.Pred()
			old := s.T.Word(w)
			s.T.SetWord(w, old^1)
			p.restore[s.Lane] = func() { s.T.SetWord(w, old) }
		case ModelRF:
			p.spread(s)
			p.follow(s)
		}
		return
	}
	if p.done || !p.sel.counts(s, s.Code.Name, p.t, p.buf) {
		return
	}
	if quadUnits(e) {
		if p.seen == serial {
			return // the quad-op is counted at its first lane
		}
		p.seen = serial
	}
	if p.u < p.inj.r {
		p.u++
		return
	}
	p.done, p.serial, p.first = true, serial, s.Lane
	p.where(s)
	rec := p.rec
	switch e.Model {
	case ModelMemGlobal:
		mem := s.T.Memory()
		a := p.m.g.shaderMemByte(p.inj.rng.Int64N(p.m.g.shaderMemSize()), len(mem.Data))
		p.flipByte(mem, a, e.Bits)
		p.follow(s) // this very op may read it
	case ModelCFPred:
		w := s.Pred()
		old := s.T.Word(w)
		rec.Target, rec.Old, rec.New = usse.WordName(w), hex32(old), hex32(old^1)
		s.T.SetWord(w, old^1)
		p.restore[s.Lane] = func() { s.T.SetWord(w, old) }
		p.read = true // the branch reads it
	case ModelCFTarget:
		// a bit of the target address flipped, as the engine's (bits 2 up
		// to the code's size: bits 2 and 1 give an address that is not an
		// instruction)
		addr := s.Code.Addr(s.BranchTarget())
		span := mbits.Len64(s.Code.Addr(len(s.Code.Insts))) + 1
		b := 2 + p.inj.rng.IntN(max(1, span-2))
		if e.Bit != nil {
			b = *e.Bit
		}
		na := addr ^ 1<<b
		rec.Target, rec.Bit, rec.Old, rec.New = "target", b, fmt.Sprintf("%#x", addr), fmt.Sprintf("%#x", na)
		inst := int(na / 8)
		if na%8 != 0 || inst >= len(s.Code.Insts) {
			inst = -1
			p.badTarget = fmt.Sprintf("branch to %#x, not an instruction (target %#x with bit %d flipped)", na, addr, b)
		}
		p.restore[s.Lane] = s.Redirect(inst)
		p.read = true
	case ModelRF:
		w := p.m.g.shaderRegs[p.inj.rng.IntN(len(p.m.g.shaderRegs))]
		p.corruptWord(s, w, 32, e.Bits)
		p.follow(s) // this very op may read it
	default:
		if e.Group == "st-value" || e.Group == "st-addr" {
			ws := shaderTargets(s, e.Group, p.buf)
			w := ws[0]
			old := s.T.Word(w)
			p.corruptWord(s, w, 32, e.Bits)
			p.read = true
			p.restore[s.Lane] = func() { s.T.SetWord(w, old) }
		}
	}
}

// follow notes whether step s reads or overwrites the corrupted word or
// memory byte: a guard's predicate is read whether or not it holds,
// sources and memory only when the op runs.
func (p *shaderProbe) follow(s *usse.Step) {
	if p.read || p.overwrote {
		return
	}
	if p.followed && (slices.Contains(p.insts, s.Instance) || slices.Contains(p.insts, -1) || s.ReadsQuad() && p.inQuad(s)) {
		if p.word == s.Pred() || s.Runs() && slices.Contains(s.Reads(p.buf[:0]), p.word) {
			p.read = true
		}
	}
	if p.memFlip && s.Runs() {
		if a, n, store, ok := s.MemRange(); ok && p.memByte >= a && p.memByte-a < uint64(n) {
			p.read, p.overwrote = !store, store
		}
	}
}

// inQuad reports whether an instance holding the corrupted word is in
// step s's quad (a derivative there reads its words).
func (p *shaderProbe) inQuad(s *usse.Step) bool {
	return s.Instance >= 0 && slices.ContainsFunc(p.insts, func(i int) bool { return i >= 0 && i/4 == s.Instance/4 })
}

// spread applies a quad-wide fault's change to the corrupted word of
// another lane of its quad-op.
func (p *shaderProbe) spread(s *usse.Step) {
	old := s.T.Word(p.word)
	nv := p.apply(old)
	if p.word >= usse.PredWord(0) {
		nv &= 1
	}
	if nv != old {
		s.T.SetWord(p.word, nv)
		p.insts = append(p.insts, s.Instance)
		p.followed, p.unchanged = true, false
	}
}

// where fills the record's place of the step.
func (p *shaderProbe) where(s *usse.Step) {
	rec := p.rec
	addr, text := s.Code.Where(s.Op)
	// launch 0 is the secondary program, launch 1 the primary: block is
	// the quad (instances 4k..4k+3), lane the instance's lane in it (-1:
	// a quad-wide fault)
	rec.Kernel, rec.Launch, rec.Block, rec.Warp, rec.Lane = s.Code.Name, 0, 0, 0, s.Lane
	if s.Instance >= 0 {
		rec.Launch, rec.Block = 1, s.Instance/4
	}
	if quadUnits(p.inj.e) {
		rec.Lane = -1
	}
	rec.Step, rec.Time, rec.PC = p.t, p.t, fmt.Sprintf("%#04x", addr)
	rec.Op = shaderOp(text)
}

func (p *shaderProbe) After(s *usse.Step) {
	if permanent(p.inj.e.Model) {
		p.permAfter(s)
		return
	}
	if f := p.restore[s.Lane]; f != nil {
		f()
		p.restore[s.Lane] = nil
		return
	}
	if p.followed && slices.Contains(p.insts, s.Instance) && s.Runs() && !p.read && !p.overwrote {
		if slices.Contains(s.Writes(p.buf[:0]), p.word) {
			p.insts = slices.DeleteFunc(p.insts, func(i int) bool { return i == s.Instance })
			p.overwrote = len(p.insts) == 0 // every instance holding it overwrote it
		}
	}
	e := p.inj.e
	if !p.done || p.memFlip || e.Model == ModelRF || e.Model == ModelCFPred || e.Group == "st-value" || e.Group == "st-addr" {
		return
	}
	if p.rec.Target != "" {
		// a destination model's other lanes (quad-wide)
		if e.Warp && p.qops.serial == p.serial && s.Lane != p.first && s.Runs() &&
			slices.Contains(shaderTargets(s, e.Group, p.buf), p.word) {
			p.spread(s)
		}
		return
	}
	// a destination model: corrupt one of the words the op wrote
	ws := shaderTargets(s, e.Group, p.buf)
	w := ws[p.inj.rng.IntN(len(ws))]
	width := 32
	if w >= usse.PredWord(0) {
		width = 1
	}
	p.corruptWord(s, w, width, 0)
}

// corruptWord applies the experiment's model to word w of the step's
// instance (bits: the rf and memory models' adjacent bits; 0: the
// model's own), and keeps the change for a quad-wide fault's other lanes.
func (p *shaderProbe) corruptWord(s *usse.Step, w, width, bits int) {
	rec, e, rng := p.rec, p.inj.e, p.inj.rng
	old := s.T.Word(w)
	bit := -1
	switch {
	case e.Model == ModelRandom:
		v := rng.Uint32()
		if width == 1 {
			v &= 1
		}
		p.apply = func(uint32) uint32 { return v }
	case e.Model == ModelZero:
		p.apply = func(uint32) uint32 { return 0 }
	default:
		n := 1
		if e.Model == ModelFlip2 || bits == 2 {
			n = 2
		}
		bit = rng.IntN(max(1, width-n+1))
		if e.Bit != nil {
			bit = min(*e.Bit, width-n)
		}
		mask := uint32(1<<n-1) << bit
		p.apply = func(v uint32) uint32 { return v ^ mask }
	}
	nv := p.apply(old)
	s.T.SetWord(w, nv)
	p.insts, p.word = []int{s.Instance}, w
	rec.Target, rec.Bit, rec.Old, rec.New = usse.WordName(w), bit, hex32(old), hex32(nv)
	p.unchanged = nv == old
	p.followed = !p.unchanged
	if p.unchanged {
		p.insts = nil
	}
}

func (p *shaderProbe) flipByte(mem *emu.Memory, a uint64, bits int) {
	rng := p.inj.rng
	n := bits
	bit := rng.IntN(8 - n + 1)
	if p.inj.e.Bit != nil {
		bit = min(*p.inj.e.Bit, 8-n)
	}
	old := mem.Data[a]
	mem.Data[a] ^= byte(1<<n-1) << bit
	p.memFlip, p.memByte = true, a
	p.rec.Target, p.rec.Bit, p.rec.Old, p.rec.New = fmt.Sprintf("global[%#x]", a), bit, hex32(uint32(old)), hex32(uint32(mem.Data[a]))
}

// permBefore and permAfter apply a permanent fault: stuck-reg holds its
// word's bit in every instance of its quad lane before and after every
// op; stuck-unit forces the bit in every word its unit writes in its
// lane.
func (p *shaderProbe) permBefore(s *usse.Step) {
	if s.Lane != p.pf.lane {
		return
	}
	if p.inj.e.Model == ModelStuckReg {
		p.force(s, p.pword)
		return
	}
	if p.pf.unit != emu.UnitLSU || !s.Runs() {
		return
	}
	// the lsu stuck-at forces a bit of the address lda or sta accesses:
	// its address source 0 changes for the op
	addr, _, _, ok := s.MemRange()
	w := s.AddressWord()
	if !ok || w < 0 {
		return
	}
	forced := uint32(stuckAddr(addr, &p.pf))
	if forced == uint32(addr) {
		return
	}
	old := s.T.Word(w)
	set := old + forced - uint32(addr)
	s.T.SetWord(w, set)
	p.acts++
	p.restore[s.Lane] = func() {
		if !slices.Contains(s.Writes(p.buf[:0]), w) { // not loaded anew
			s.T.SetWord(w, s.T.Word(w)-set+old)
		}
	}
}

func (p *shaderProbe) permAfter(s *usse.Step) {
	if f := p.restore[s.Lane]; f != nil {
		f()
		p.restore[s.Lane] = nil
	}
	if s.Lane != p.pf.lane || !s.Runs() {
		return
	}
	switch p.inj.e.Model {
	case ModelStuckReg:
		p.force(s, p.pword)
	case ModelStuckUnit:
		if s.Class().Unit != p.pf.unit || p.pf.unit == emu.UnitLSU {
			return // lsu: the address (permBefore)
		}
		for _, w := range s.Writes(p.buf[:0]) {
			if w < usse.PredWord(0) {
				p.force(s, w)
			}
		}
	}
}

func (p *shaderProbe) force(s *usse.Step, w int) {
	if w < 0 {
		return
	}
	old := s.T.Word(w)
	if v := stuck(old, &p.pf); v != old {
		s.T.SetWord(w, v)
		p.acts++
	}
}

// runShader runs one injection on a shader launch, whole.
func (m *machine) runShader(inj *injection) *shaderProbe {
	e := inj.e
	rec := &inj.rec
	*rec = Record{Campaign: m.ld.Hash, ID: inj.id, Of: m.ld.Total(), Exp: e.Name, Model: e.Model, Group: e.Group,
		Lane: -1, Bit: -1, Block: -1, Warp: -1}
	p := &shaderProbe{m: m, inj: inj, sel: newShaderSel(e), rec: rec, buf: make([]int, 0, 16), pf: inj.perm}
	if permanent(e.Model) {
		p.done = true
		p.pf.lane %= 4
		rec.Lane, rec.Bit, rec.New = p.pf.lane, p.pf.bit, fmt.Sprintf("stuck-at-%d", p.pf.value)
		switch {
		case e.Model == ModelStuckReg && len(m.g.shaderRegs) == 0:
			p.pword = -1 // no register to hold a stuck cell: the fault changes nothing
			rec.Target = "no register"
		case e.Model == ModelStuckReg:
			p.pword = m.g.shaderRegs[int(p.pf.reg.N)%len(m.g.shaderRegs)]
			rec.Target = fmt.Sprintf("%s of quad lane %d", usse.WordName(p.pword), p.pf.lane)
		default:
			rec.Target = fmt.Sprintf("%s unit, quad lane %d", p.pf.unit, p.pf.lane)
		}
	}
	budget := int64(math.Ceil(m.ld.HangFactor * float64(m.g.shaderMax)))
	o, err := usse.Run(m.ld.shader, m.ld.Dir, usse.Config{Workers: 1, Probe: p, MaxSteps: max(budget, 1)})
	rec.Insts = p.t
	if p.followed && !p.read && !p.overwrote && slices.ContainsFunc(p.insts, func(i int) bool { return i >= 0 }) &&
		slices.Contains(m.g.shaderOuts, p.word) {
		p.read = true // the outputs read it
	}
	if permanent(e.Model) {
		rec.Activations = p.acts
	}
	switch {
	case errors.Is(err, usse.ErrStepLimit):
		rec.Outcome, rec.Detail = Hang, fmt.Sprintf("instruction budget: %d instructions in one instance, %g x the golden run's longest", budget, m.ld.HangFactor)
	case err != nil:
		rec.Outcome, rec.Detail = DUE, shaderFault(err, p.badTarget)
	default:
		o.Result.Buffers = o.Setup.Buffers
		if sdc := compare(m.g.Outputs, o.Result); sdc != nil {
			rec.Outcome, rec.SDC = SDC, sdc
			break
		}
		rec.Outcome = Masked
		switch {
		case permanent(e.Model) && p.acts == 0, p.unchanged:
			rec.Sub = NeverRead
		case permanent(e.Model), p.read:
			rec.Sub = ReadEqual
		case p.overwrote:
			rec.Sub = Overwritten
		default:
			rec.Sub = NeverRead
		}
	}
	if !p.done {
		rec.Detail = "the injection's instruction was never reached"
	}
	rec.NVBitFI = NVBitFI(rec.Outcome, rec.Sub)
	inj.recorded = true
	if m.trace != nil && p.done {
		// replay: the same injection again (drawn anew: its stream was
		// used), with usse's trace of the faulty instance
		again := m.ld.draw(m.g, inj.id)
		q := &shaderProbe{m: m, inj: again, sel: p.sel, rec: &Record{}, buf: p.buf, pf: p.pf, pword: p.pword}
		q.done = permanent(e.Model)
		who := -1
		if rec.Launch == 1 {
			who = 4*rec.Block + rec.Lane
		}
		fmt.Fprintf(m.trace, "  the faulty run of instance %d (-1: the secondary program and every instance), from usse's trace:\n", who)
		_, _ = usse.Run(m.ld.shader, m.ld.Dir, usse.Config{Workers: 1, Probe: q, MaxSteps: max(budget, 1), Trace: m.trace, TraceInstance: who})
	}
	return p
}

// shaderMemSize is the bytes mem-global draws from: the launch's memory
// images (or all its memory).
func (g *Golden) shaderMemSize() int64 {
	var n int64
	for _, sp := range g.Global {
		n += int64(sp.hi - sp.lo)
	}
	return n
}

// shaderMemByte is byte i of the images (at most size: the memory's).
func (g *Golden) shaderMemByte(i int64, size int) uint64 {
	for _, sp := range g.Global {
		if i < int64(sp.hi-sp.lo) {
			return min(sp.lo+uint64(i), uint64(size-1))
		}
		i -= int64(sp.hi - sp.lo)
	}
	return 0
}

// shaderImages are the spans of a shader launch's memory images (all of
// its memory when it names none).
func (ld *Loaded) shaderImages() []span {
	l := ld.shader
	var out []span
	for _, im := range l.Memory {
		a, _ := im.Addr.Uint(0)
		n, _ := im.Bytes.Uint(emu.MaxMemory)
		if im.File != "" && !im.Bytes.Set() {
			p := im.File
			if !filepath.IsAbs(p) {
				p = filepath.Join(ld.Dir, p)
			}
			if fi, err := os.Stat(p); err == nil {
				n = uint64(fi.Size())
			}
		}
		if n > 0 {
			out = append(out, span{a, a + n})
		}
	}
	if len(out) == 0 {
		if n, err := l.MemoryBytes.Uint(emu.MaxMemory); err == nil && n > 0 {
			out = append(out, span{0, n})
		}
	}
	return mergeSpans(out)
}

// shaderOp is an instruction's opcode label in reports: its mnemonic
// without modifiers or predicate ("p0 br loop": BR), from the listing
// text (a label for people; no operand is read from it).
func shaderOp(text string) string {
	for _, f := range strings.Fields(text) {
		if strings.HasPrefix(f, "!") || len(f) == 2 && f[0] == 'p' && f[1] >= '0' && f[1] <= '9' {
			continue // a predicate
		}
		f, _, _ = strings.Cut(f, ".")
		return strings.ToUpper(f)
	}
	return "?"
}

// shaderFault names a shader run's fault as classify names the engine's:
// the cause first (an out-of-bounds access as memFaultName says), then
// where.
func shaderFault(err error, badTarget string) string {
	cause, where := err, ""
	var f *usse.Fault
	if errors.As(err, &f) {
		cause = f.Err
		who := f.Program + " program"
		if f.Kind != "" {
			who = fmt.Sprintf("%s %d, %s", f.Kind, f.Index, who)
		}
		where = fmt.Sprintf(" (%s, pc %#04x %s)", who, f.PC, f.Inst)
		if f.Inst == "" {
			where = fmt.Sprintf(" (%s, pc %#04x)", who, f.PC)
		}
	}
	var mf *emu.MemFault
	switch {
	case badTarget != "" && where != "":
		return badTarget // control left the program there (the record's pc is the branch)
	case errors.As(cause, &mf):
		return memFaultName(mf) + where
	}
	return strings.TrimSpace(cause.Error()) + where
}
