package inject

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

// launches are launch files of every ISA with injection facts: the
// examples, the tests' own, and (with the oracle) the FlexGripPlus apps;
// relative paths are relative to testdata/, as campaigns there name them.
func launches(t *testing.T) []string {
	files := []string{"../../../examples/tesla/vecadd.json", "../../../examples/tesla/scale.json",
		"loop.json", "dead.json",
		"../../../examples/maxwell/saxpy.json", "../../../examples/maxwell/kinds.json",
		"../../../examples/fermi/histogram.json", "../../../examples/fermi/saxpy64.json",
		"../../../examples/inject/maxwell/vecadd.json", "../../../examples/inject/maxwell/reduce.json",
		"../../../examples/maxwell/textures.json", "../../maxwell/testdata/texmore.json"}
	if d := oracle.SharedDir(); d != "" {
		for _, app := range []string{"mxm_tiled", "reduction", "sort", "nn", "edge", "scalar_product", "transpose_naive", "sin_soft"} {
			files = append(files, filepath.Join(d, "oracle/flexgrip-apps", app, "launch.json"))
		}
	}
	return files
}

// checkProbe compares a warp's registers before and after each
// instruction: every register that changed must be one the instruction's
// facts say it writes, in a lane that ran it.
type checkProbe struct {
	t      *testing.T
	name   string
	lr     *launchRun
	regs   []emu.Reg
	before []uint32
	bad    int
}

func (c *checkProbe) Before(b *emu.Block, w *emu.Warp, pc, mask uint32) uint32 {
	c.before = c.before[:0]
	for _, r := range c.regs {
		for l := range emu.WarpSize {
			c.before = append(c.before, c.lr.insp.Reg(w, r, l))
		}
	}
	return mask
}

func (c *checkProbe) After(b *emu.Block, w *emu.Warp, pc, mask uint32) {
	site := &c.lr.sites[pc]
	i := 0
	for _, r := range c.regs {
		declared := slices.Contains(site.Dst, r) || slices.Contains(site.Partial, r)
		for l := range emu.WarpSize {
			v := c.lr.insp.Reg(w, r, l)
			if v != c.before[i] && (!declared || mask>>l&1 == 0) && c.bad < 5 {
				addr, text := c.lr.where(pc)
				c.t.Errorf("%s: %#x %s wrote %s in lane %d (mask %08x), not in its facts %v/%v", c.name, addr, text, r, l, mask, site.Dst, site.Partial)
				c.bad++
			}
			i++
		}
	}
}

// The registers an instruction changes are among those its facts name.
func TestFactsWrites(t *testing.T) {
	for _, path := range launches(t) {
		c := &Campaign{Launch: path, Seed: 1, Experiments: []Experiment{{Model: ModelRF, Injections: 1}}}
		ld, g := campaign(t, c)
		lr := firstLaunch(t, ld, g)
		var regs []emu.Reg
		for n := range g.Alloc + 4 {
			regs = append(regs, emu.Reg{File: emu.RegGPR, N: uint16(n)})
		}
		for n := range 7 {
			regs = append(regs, emu.Reg{File: emu.RegPred, N: uint16(n)})
		}
		for n := range 4 {
			regs = append(regs, emu.Reg{File: emu.RegCC, N: uint16(n)})
		}
		for n := 1; n < 16; n++ {
			regs = append(regs, emu.Reg{File: emu.RegAddr, N: uint16(n)})
		}
		probe := &checkProbe{t: t, name: filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path), lr: lr, regs: regs}
		r := emu.NewBlockRun(lr.prep.Config, lr.prep.Exec)
		for bi := range lr.blocks {
			if err := r.Start(bi); err != nil {
				t.Fatal(err)
			}
			r.B.Probe = probe
			if _, err := r.Run(emu.ToEnd); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Early stops never change an outcome: every kind of injection, with
// checkpoints and early stops, gives what a whole run without them gives
// (a read the facts miss would end a run as Masked that goes on to an
// SDC).
func TestEarlyStopsAgreeWithWholeRuns(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 4
	}
	for _, path := range launches(t) {
		c := mixed(t, 77, n)
		c.Launch = path
		c.Experiments = append(c.Experiments, Experiment{Model: ModelFlip1, Group: "pr"}, Experiment{Model: ModelRF, Warp: true})
		ld, g := campaign(t, c)
		cp := run(t, ld, g, Options{})
		full := run(t, ld, g, Options{Full: true})
		early := 0
		for i := range cp {
			a, b := cp[i], full[i]
			if a.Early {
				early++
			}
			a.Insts, b.Insts, a.Early, b.Early = 0, 0, false, false
			if !bytes.Equal(a.line(), b.line()) {
				t.Errorf("%s: checkpointed and whole runs differ:\n%s%s", path, a.line(), b.line())
			}
		}
		t.Logf("%s: %d injections, %d stopped early", filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), len(cp), early)
	}
}

// Texture lookups and surface accesses say which texels and elements they
// touch (emu.Inspector.Accesses), so memory flips in images are followed
// exactly: with early stops (a flip no lookup reads stops as Masked at
// once) every outcome is what whole runs give; a missing texel would stop
// a run as Masked that goes on to an SDC.
// sm_2x's buffer texture fetches (TLD) and LD_LDU's two loads tell theirs
// (spmv20.s), so its blocks are skipped where they read no flipped byte.
func TestTextureAccesses(t *testing.T) {
	for _, path := range []string{"../../../examples/maxwell/textures.json", "../../maxwell/testdata/texmore.json", spmv20(t)} {
		c := &Campaign{Launch: path, Seed: 5, Experiments: []Experiment{{Model: ModelMemGlobal, Injections: 300},
			{Model: ModelFlip1, Group: "ld", Injections: 60}}}
		ld, g := campaign(t, c)
		for k, gl := range g.launches {
			for bi, bm := range gl.blocks {
				if bm.unknown {
					t.Errorf("%s: launch %d block %d has accesses it cannot tell", path, k, bi)
				}
			}
		}
		lr := firstLaunch(t, ld, g)
		var images []span
		if il, ok := lr.prep.Exec.(emu.ImageLister); ok {
			for _, im := range il.Images() {
				images = append(images, span{im.Addr, im.Addr + im.Size})
			}
		} else {
			images = g.Global // sm_2x: textures are buffers
		}
		var reads, outputs []span
		for _, bm := range g.launches[0].blocks {
			reads = append(reads, bm.reads...)
		}
		for _, o := range g.Outputs {
			outputs = append(outputs, span{o.Addr, o.Addr + o.Bytes})
		}
		reads, outputs = mergeSpans(reads), mergeSpans(outputs)
		outcomes := map[string]int{}
		for _, r := range bothWays(t, ld, g) {
			var a uint64
			if _, err := fmt.Sscanf(r.Target, "global[%v]", &a); err != nil || !overlaps(images, []span{{a, a + 1}}) {
				continue
			}
			outcomes[r.Outcome+"/"+r.Sub]++
			// an image byte that changes the outputs (and is not one)
			// was read by a lookup
			at := []span{{a, a + 1}}
			if r.Outcome == SDC && !overlaps(outputs, at) && !overlaps(reads, at) {
				t.Errorf("%s: a flip no lookup reads changes the outputs: %s", path, r.line())
			}
		}
		early := 0
		for _, r := range run(t, ld, g, Options{}) {
			if r.Early && r.Outcome != Masked {
				early++ // an SDC told without running every block
			}
		}
		t.Logf("%s: flips in texture and surface images: %v; %d failures told early", path, outcomes, early)
		if _, ok := lr.prep.Exec.(emu.ImageLister); !ok && early == 0 {
			t.Errorf("%s: no failure was told without running every block (are TLD and LD_LDU told?)", path)
		}
		if outcomes[Masked+"/"+NeverRead] == 0 || outcomes[SDC+"/"] == 0 {
			t.Errorf("%s: want image flips never read and flips that reach the outputs: %v", path, outcomes)
		}
	}
}

// spmv20 writes the launch of spmv20.s with a random matrix.
func spmv20(t *testing.T) string {
	rng := rand.New(rand.NewPCG(17, 1))
	const rows, cols = 300, 200
	rowptr := []int32{0}
	var col []int32
	var val, x []float32
	for range rows {
		for range rng.IntN(6) {
			col = append(col, int32(rng.IntN(cols)))
			val = append(val, float32(rng.NormFloat64()))
		}
		rowptr = append(rowptr, int32(len(col)))
	}
	for range cols {
		x = append(x, float32(rng.NormFloat64()))
	}
	f32 := func(v []float32) []byte {
		b := make([]byte, 4*len(v))
		for i, f := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
		}
		return b
	}
	prog, _ := filepath.Abs("testdata/spmv20.s")
	buf := func(f string) map[string]any { return map[string]any{"file": f} }
	return writeLaunch(t, t.TempDir(), "spmv20.json", map[string]any{
		"program": prog, "arch": "sm_20", "grid": []any{(rows + 63) / 64}, "block": []any{64},
		"buffers": map[string]any{"rowptr": buf("rowptr.bin"), "col": buf("col.bin"), "val": buf("val.bin"),
			"y": map[string]any{"bytes": 4 * rows}, "x": buf("x.bin"), "scale": buf("scale.bin")},
		"textures": map[string]any{"xvec": map[string]any{"buffer": "x", "format": "r32f", "size": []any{cols}}},
		"params": []any{map[string]any{"ptr": "rowptr"}, map[string]any{"ptr": "col"}, map[string]any{"ptr": "val"},
			map[string]any{"ptr": "y"}, map[string]any{"ptr": "scale"}, map[string]any{"u32": rows}},
		"outputs": []any{map[string]any{"buffer": "y", "file": "y.bin"}},
	}, map[string][]byte{"rowptr.bin": i32Bytes(rowptr), "col.bin": i32Bytes(col), "val.bin": f32(val), "x.bin": f32(x),
		"scale.bin": f32([]float32{1.5})})
}

// addrProbe compares, at every memory instruction, the addresses the
// facts' address registers give (Site.Addr, Addr2: what the lsu stuck-at
// forces) with those Accesses tells.
type addrProbe struct {
	t      *testing.T
	lr     *launchRun
	second int // instructions with a second address seen
	acc    []emu.Access
}

func (p *addrProbe) Before(b *emu.Block, w *emu.Warp, pc, mask uint32) uint32 {
	site := &p.lr.sites[pc]
	if len(site.Addr2) == 0 || mask&1 == 0 {
		return mask
	}
	p.second++
	acc, ok := p.lr.insp.Accesses(b, w, pc, 0, p.acc[:0])
	if !ok || len(acc) != 2 {
		p.t.Fatalf("pc %d: %d accesses (%v)", pc, len(acc), ok)
	}
	for k := range 2 {
		regs, off := siteAddr(site, k)
		if a := laneAddress(p.lr.insp, w, regs, off, 0); a != acc[k].Addr {
			p.t.Errorf("pc %d address %d: the facts give %#x, the access is at %#x", pc, k, a, acc[k].Addr)
		}
	}
	return mask
}

func (p *addrProbe) After(b *emu.Block, w *emu.Warp, pc, mask uint32) {}

// LD_LDU's two addresses are in its facts (Addr, Addr2), as its accesses
// have them, so the lsu stuck-at forces a bit of both.
func TestLDUAddresses(t *testing.T) {
	c := &Campaign{Launch: spmv20(t), Seed: 1, Experiments: []Experiment{{Model: ModelStuckUnit, Unit: "lsu", Injections: 40}}}
	ld, g := campaign(t, c)
	lr := firstLaunch(t, ld, g)
	p := &addrProbe{t: t, lr: lr}
	r := emu.NewBlockRun(lr.prep.Config, lr.prep.Exec)
	if err := r.Start(0); err != nil {
		t.Fatal(err)
	}
	r.B.Probe = p
	if _, err := r.Run(emu.ToEnd); err != nil {
		t.Fatal(err)
	}
	if p.second == 0 {
		t.Fatal("no instruction with a second address")
	}
	// checkpointed and whole runs agree
	cp, full := run(t, ld, g, Options{}), run(t, ld, g, Options{Full: true})
	for i := range cp {
		a, b := cp[i], full[i]
		a.Insts, b.Insts, a.Early, b.Early = 0, 0, false, false
		if !bytes.Equal(a.line(), b.line()) {
			t.Errorf("checkpointed and whole runs differ:\n%s%s", a.line(), b.line())
		}
	}
}

// firstLaunch is the run's first launch, placed on a machine of its own.
func firstLaunch(t *testing.T, ld *Loaded, g *Golden) *launchRun {
	t.Helper()
	m := newMachine(ld)
	m.use(g)
	lr, err := m.reset()
	if err != nil {
		t.Fatal(err)
	}
	return lr
}
