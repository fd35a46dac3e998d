package inject

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu/usse"
)

// shaderLaunches are the shader (sgx543) launch files of the examples.
var shaderLaunches = []string{"../../../examples/usse/sum_v.json", "../../../examples/usse/tint_f.json",
	"../../../examples/usse/scale_v.json", "../../../examples/usse/sky_f.json", "../../../examples/usse/sky_f_fill.json"}

// writesProbe checks that every word an op changes is one its facts
// (usse.Step.Writes) name.
type writesProbe struct {
	t      *testing.T
	name   string
	before [4][usse.Words]uint32 // per lane: a quad's lanes may run an op in turn
	writes [4][]int
	ops    int
	bad    int
}

func (p *writesProbe) Before(s *usse.Step) {
	for w := range usse.Words {
		p.before[s.Lane][w] = s.T.Word(w)
	}
	p.writes[s.Lane] = s.Writes(p.writes[s.Lane][:0])
}

func (p *writesProbe) After(s *usse.Step) {
	p.ops++
	for w := range usse.Words {
		if s.T.Word(w) != p.before[s.Lane][w] && !slices.Contains(p.writes[s.Lane], w) && p.bad < 5 {
			addr, text := s.Code.Where(s.Op)
			p.t.Errorf("%s: %#x %s changed %s, not in its facts %v", p.name, addr, text, usse.WordName(w), p.writes[s.Lane])
			p.bad++
		}
	}
}

// The words a shader op changes are among those its facts name.
func TestShaderFactsWrites(t *testing.T) {
	for _, path := range shaderLaunches {
		path = filepath.Join("testdata", path)
		l, err := usse.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p := &writesProbe{t: t, name: filepath.Base(path)}
		if _, err := usse.Run(l, filepath.Dir(path), usse.Config{Workers: 1, Probe: p}); err != nil {
			t.Fatal(err)
		}
		if p.ops == 0 {
			t.Errorf("%s: the probe saw no op", path)
		}
	}
}

// A corrupted word (or memory byte) the facts say no op reads before it
// is overwritten, and no output reads, cannot make a run fail: a read
// the facts missed would show as a failure here.
func TestShaderNeverRead(t *testing.T) {
	for _, path := range shaderLaunches {
		c := &Campaign{Launch: path, Seed: 11, Experiments: []Experiment{{Model: ModelRF, Injections: 400},
			{Model: ModelFlip1, Group: "all", Injections: 200}, {Model: ModelMemGlobal, Injections: 200},
			{Model: ModelFlip1, Group: "all", Warp: true, Injections: 100}, {Model: ModelRF, Warp: true, Injections: 100}}}
		ld, g := campaign(t, c)
		m := newMachine(ld)
		m.use(g)
		counts := map[string]int{}
		for id := range ld.Total() {
			inj := ld.draw(g, id)
			if inj.noSite {
				continue
			}
			p := m.runShader(inj)
			r := inj.rec
			counts[r.Outcome+"/"+r.Sub]++
			if !p.followed && !p.memFlip || p.read || p.overwrote {
				continue
			}
			counts["never read"]++
			if r.Outcome != Masked {
				t.Errorf("%s: a corrupted value no op reads made the run fail: %s", path, r.line())
			}
		}
		t.Logf("%s: %v", filepath.Base(path), counts)
		if counts["never read"] == 0 || counts[SDC+"/"] == 0 {
			t.Errorf("%s: want never-read corruptions and SDCs: %v", path, counts)
		}
	}
}

// A shader campaign gives the same results whatever the workers and
// shards; a flip of the address register lda reads is a DUE naming the
// out-of-bounds access; every model runs.
func TestShaderCampaign(t *testing.T) {
	c := &Campaign{Launch: shaderLaunches[0], Seed: 5, Injections: 60, Experiments: []Experiment{
		{Model: ModelFlip1}, {Model: ModelFlip2, Group: "fp32"}, {Model: ModelRandom, Group: "ld"}, {Model: ModelZero, Group: "pr"},
		{Model: ModelRF, Bits: 2}, {Model: ModelMemGlobal}, {Model: ModelCFPred},
		{Model: ModelStuckUnit, Unit: "fp32"}, {Model: ModelStuckReg},
		{Model: ModelFlip1, Warp: true}, {Model: ModelRF, Warp: true}, {Model: ModelCFPred, Warp: true}, {Model: ModelCFTarget},
		{Model: ModelRF, Name: "rf-lda-addr", PC: []string{"0x8"}, Bit: ptr(20), Injections: 200}}}
	ld, g := campaign(t, c)
	one := run(t, ld, g, Options{Workers: 1})
	var merged [][]Record
	for i := range 3 {
		merged = append(merged, run(t, ld, g, Options{Workers: 2, Shard: i, Shards: 3}))
	}
	all, err := Merge(merged...)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := WriteRecords(&a, one); err != nil {
		t.Fatal(err)
	}
	if err := WriteRecords(&b, all); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("one process and three shards differ")
	}
	outcomes := map[string]map[string]int{}
	oob := 0
	for _, r := range one {
		if outcomes[r.Exp] == nil {
			outcomes[r.Exp] = map[string]int{}
		}
		outcomes[r.Exp][r.Outcome]++
		if r.Target == "pa0" && r.Outcome == DUE && strings.HasPrefix(r.Detail, "out-of-bounds global read") {
			oob++
		}
		if r.Exp == "rf-lda-addr" && r.Target == "pa0" && r.Outcome != DUE {
			t.Errorf("a 2^20 flip of lda's address register is not a DUE: %s", r.line())
		}
	}
	t.Logf("%v", outcomes)
	// sum_v's loop branch redirected once: to an address that is no
	// instruction (a DUE naming it), or into code that redoes part of the
	// sum (the loop runs on to the same total: Masked)
	if ct := outcomes["cf-target"]; ct[DUE] == 0 || ct[Masked] == 0 {
		t.Errorf("cf-target: want branches to no instruction (DUE) and to other instructions: %v", ct)
	}
	for _, r := range one {
		if r.Exp == "cf-target" && r.Outcome == DUE && !strings.HasPrefix(r.Detail, "branch to 0x") {
			t.Errorf("cf-target DUE not named: %s", r.line())
		}
	}
	if oob == 0 {
		t.Errorf("no out-of-bounds DUE from lda's address register")
	}
	for _, e := range ld.Experiments {
		if n := outcomes[e.Name][NoSite]; n > 0 && e.Group != "ld" {
			t.Errorf("%s: %d injections found no site", e.Name, n)
		}
	}
}

func ptr(v int) *int { return &v }

// A quad-wide fault changes the same bits in every lane of the quad
// running the op: on scale_v (each instance writes its own outputs) a
// single-lane flip that is an SDC changes one instance's outputs, a
// quad-wide one those of several.
func TestShaderQuadWide(t *testing.T) {
	c := &Campaign{Launch: shaderLaunches[2], Seed: 4, Experiments: []Experiment{{Model: ModelFlip1, Injections: 100},
		{Model: ModelFlip1, Warp: true, Injections: 100}}}
	ld, g := campaign(t, c)
	if a, b := g.pops[0].total, g.pops[1].total; b*2 > a || b == 0 {
		t.Errorf("quad-ops %d, lane-ops %d: want a quad-op per up to four lane-ops", b, a)
	}
	most := map[string]int{}
	for _, r := range run(t, ld, g, Options{Workers: 1}) {
		if r.Outcome != SDC {
			continue
		}
		most[r.Exp] = max(most[r.Exp], r.SDC.Elements)
		if r.Exp == "flip1" && r.SDC.Elements > 1 && strings.HasPrefix(r.Target, "o0") {
			t.Errorf("a one-lane flip changed %d elements: %s", r.SDC.Elements, r.line())
		}
		if r.Exp == "flip1-warp" && r.Lane != -1 {
			t.Errorf("a quad-wide record names a lane: %s", r.line())
		}
	}
	t.Logf("most elements differing per SDC: %v", most)
	if most["flip1-warp"] <= most["flip1"] {
		t.Errorf("quad-wide flips change no more elements than one-lane flips: %v", most)
	}
}

// The lsu stuck-at forces a bit of the address lda reads, in its lane's
// instances only: a high bit set is an out-of-bounds read there.
func TestShaderStuckAddress(t *testing.T) {
	lane, bit, value := 1, 20, 1
	c := &Campaign{Launch: shaderLaunches[0], Seed: 2, Experiments: []Experiment{{Model: ModelStuckUnit, Unit: "lsu",
		Lane: &lane, Bit: &bit, Value: &value, Injections: 3}}}
	ld, g := campaign(t, c)
	for _, r := range run(t, ld, g, Options{Workers: 1}) {
		if r.Outcome != DUE || !strings.HasPrefix(r.Detail, "out-of-bounds global read") || !strings.Contains(r.Detail, "vertex 1,") ||
			r.Activations == 0 {
			t.Errorf("want an out-of-bounds read of vertex 1: %s", r.line())
		}
	}
}
