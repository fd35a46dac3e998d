package inject

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// campaign loads a campaign given in Go, as if read from dir/name.
func campaign(t *testing.T, c *Campaign) (*Loaded, *Golden) {
	t.Helper()
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	ld, err := LoadCampaign(c, "testdata/test.campaign.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Profile(ld)
	if err != nil {
		t.Fatal(err)
	}
	return ld, g
}

func run(t *testing.T, ld *Loaded, g *Golden, opt Options) []Record {
	t.Helper()
	recs, err := Run(ld, g, opt)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// pcOf is the address of the first instruction of launch 0 whose text
// starts with prefix.
func pcOf(t *testing.T, g *Golden, prefix string) string {
	t.Helper()
	ki := g.Launches[0].ki
	for i, text := range ki.texts {
		if strings.HasPrefix(text, prefix) {
			return fmt.Sprintf("%#x", ki.addrs[i])
		}
	}
	t.Fatalf("no instruction %q", prefix)
	return ""
}

// Injections into a register nothing reads are Masked, never read, and
// stop at once.
func TestDeadRegisterMasked(t *testing.T) {
	c := &Campaign{Launch: "dead.json", Seed: 3, Experiments: []Experiment{{Model: ModelFlip1, Group: "gp", Injections: 1}}}
	ld, g := campaign(t, c)
	pc := pcOf(t, g, "MOV32 R5")
	for _, model := range []string{ModelFlip1, ModelFlip2, ModelRandom} {
		c := &Campaign{Launch: "dead.json", Seed: 3, Experiments: []Experiment{
			{Model: model, Group: "gp", PC: []string{pc}, Injections: 40},
			{Model: model, Group: "gp", PC: []string{pc}, Warp: true, Injections: 10}}}
		ld, g = campaign(t, c)
		for _, r := range run(t, ld, g, Options{}) {
			if r.Target != "R5" {
				t.Fatalf("%s: injected into %s, want R5", r.line(), r.Target)
			}
			if model == ModelRandom && r.Old == r.New {
				continue // the same value: nothing to follow
			}
			if r.Outcome != Masked || r.Sub != NeverRead || !r.Early {
				t.Errorf("dead register: %s", r.line())
			}
		}
	}
}

// A flip in the value an output store writes is an SDC of exactly that
// element: thread i stores c[i].
func TestStoreValueSDC(t *testing.T) {
	c := &Campaign{Launch: "../../../examples/tesla/vecadd.json", Seed: 5, Experiments: []Experiment{
		{Model: ModelFlip1, Group: "st-value", Injections: 60}, {Model: ModelFlip2, Group: "st-value", Injections: 20}}}
	ld, g := campaign(t, c)
	for _, r := range run(t, ld, g, Options{}) {
		i := r.Block*64 + r.Warp*32 + r.Lane
		if r.Outcome != SDC || r.SDC == nil || r.SDC.Elements != 1 || r.SDC.First != fmt.Sprintf("c[%d]", i) {
			t.Errorf("want an SDC of c[%d] alone: %s", i, r.line())
		}
		if r.Op != "GST.U32" {
			t.Errorf("st-value injected at %s", r.Op)
		}
	}
}

// A flip in a loop counter keeps the loop going; the pointer it advances
// runs out of memory: a DUE naming the out-of-bounds write.
func TestLoopCounterDUE(t *testing.T) {
	c := &Campaign{Launch: "loop.json", Seed: 1, Experiments: []Experiment{{Model: ModelFlip1, Group: "gp", Injections: 1}}}
	_, g := campaign(t, c)
	pc := pcOf(t, g, "IADD32I R3, R3")
	bit := 20
	c = &Campaign{Launch: "loop.json", Seed: 1, HangFactor: 1000, Experiments: []Experiment{
		{Model: ModelFlip1, Group: "gp", PC: []string{pc}, Bit: &bit, Injections: 30}}}
	ld, g := campaign(t, c)
	for _, r := range run(t, ld, g, Options{}) {
		if r.Target != "R3" || r.Bit != bit {
			t.Fatalf("injected %s bit %d", r.Target, r.Bit)
		}
		if r.Outcome != DUE || !strings.HasPrefix(r.Detail, "out-of-bounds global write") {
			t.Errorf("want a DUE naming the out-of-bounds write: %s", r.line())
		}
	}
	// and with the default budget (10x), the loop is a Hang first
	c.HangFactor = 0
	ld, g = campaign(t, c)
	for _, r := range run(t, ld, g, Options{}) {
		if r.Outcome != Hang || !strings.Contains(r.Detail, "instruction budget") {
			t.Errorf("want a Hang on the budget: %s", r.line())
		}
	}
}

// A stuck-at bit in lane k of the FP32 unit corrupts lane k's results only:
// thread i computes c[i], so only elements i = k mod 32 differ.
func TestStuckLaneOnly(t *testing.T) {
	for _, k := range []int{0, 5, 31} {
		lane, value := k, 1
		c := &Campaign{Launch: "../../../examples/tesla/vecadd.json", Seed: 9, Experiments: []Experiment{
			{Model: ModelStuckUnit, Unit: "fp32", Lane: &lane, Value: &value, Injections: 8}}}
		ld, g := campaign(t, c)
		golden := g.Outputs[0].Data
		m := newMachine(ld)
		m.use(g)
		for id := range ld.Total() {
			inj := ld.draw(g, id)
			if err := m.runWhole(inj); err != nil {
				t.Fatal(err)
			}
			res, err := m.result().Buffer("c")
			if err != nil {
				t.Fatal(err)
			}
			differ := 0
			for i := 0; i+4 <= len(golden); i += 4 {
				if !bytes.Equal(res[i:i+4], golden[i:i+4]) {
					differ++
					if i/4%32 != k {
						t.Errorf("lane %d stuck (bit %d): c[%d] differs", k, inj.rec.Bit, i/4)
					}
				}
			}
			if (differ > 0) != (inj.rec.Outcome == SDC) || inj.rec.Activations > 0 && differ == 0 && inj.rec.Outcome == SDC {
				t.Errorf("%d elements differ: %s", differ, inj.rec.line())
			}
		}
	}
}

// The same seed gives the same results, whatever the workers, the
// sharding, and with or without checkpoints.
func TestSameSeedSameResults(t *testing.T) {
	ld, g := campaign(t, mixed(t, 11, 30))
	var want bytes.Buffer
	WriteRecords(&want, run(t, ld, g, Options{Workers: 1}))
	var again bytes.Buffer
	WriteRecords(&again, run(t, ld, g, Options{Workers: 3}))
	if !bytes.Equal(want.Bytes(), again.Bytes()) {
		t.Fatal("three workers give other results than one")
	}
	var shards [][]Record
	for i := range 4 {
		shards = append(shards, run(t, ld, g, Options{Shard: i, Shards: 4}))
	}
	merged, err := Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	var m bytes.Buffer
	WriteRecords(&m, merged)
	if !bytes.Equal(want.Bytes(), m.Bytes()) {
		t.Fatal("four shards merged differ from one process")
	}
	// without checkpoints every injection runs whole: the same outcomes
	full := run(t, ld, g, Options{Full: true})
	cp := run(t, ld, g, Options{})
	for i := range cp {
		a, b := cp[i], full[i]
		a.Insts, b.Insts, a.Early, b.Early = 0, 0, false, false
		if !bytes.Equal(a.line(), b.line()) {
			t.Errorf("checkpointed and full runs differ:\n%s%s", a.line(), b.line())
		}
	}
	// another seed, other results
	ld2, g2 := campaign(t, mixed(t, 12, 30))
	var other bytes.Buffer
	WriteRecords(&other, run(t, ld2, g2, Options{}))
	if bytes.Equal(want.Bytes(), other.Bytes()) {
		t.Fatal("seeds 11 and 12 give the same results")
	}
}

// mixed is a campaign with every model on the vecadd example.
func mixed(t *testing.T, seed uint64, n int) *Campaign {
	t.Helper()
	c := &Campaign{Launch: "../../../examples/tesla/vecadd.json", Seed: seed, Injections: n}
	for _, e := range []Experiment{{Model: ModelFlip1, Group: "gp"}, {Model: ModelFlip2, Group: "ld", Warp: true},
		{Model: ModelRandom, Group: "fp32"}, {Model: ModelZero, Group: "cc"}, {Model: ModelFlip1, Group: "st-addr"},
		{Model: ModelFlip1, Group: "st-value"}, {Model: ModelRF, Bits: 2}, {Model: ModelMemGlobal}, {Model: ModelMemShared},
		{Model: ModelStuckUnit, Unit: "int"}, {Model: ModelStuckReg}, {Model: ModelCFPred}, {Model: ModelCFTarget}} {
		c.Experiments = append(c.Experiments, e)
	}
	return c
}

// A run killed half-way resumes without running finished injections again:
// a results file cut in the middle of a line ends up as the whole run's.
func TestResume(t *testing.T) {
	ld, g := campaign(t, mixed(t, 21, 10))
	var want bytes.Buffer
	WriteRecords(&want, run(t, ld, g, Options{}))
	lines := bytes.SplitAfter(want.Bytes(), []byte("\n"))
	cut := append(bytes.Join(lines[:len(lines)/2], nil), lines[len(lines)/2][:20]...)
	path := filepath.Join(t.TempDir(), "results.jsonl")
	os.WriteFile(path, cut, 0o644)
	recs := run(t, ld, g, Options{Results: path})
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want.Bytes()) || len(recs) != ld.Total() {
		t.Fatalf("resumed results differ from a whole run")
	}
	// results of another campaign are refused
	ld2, g2 := campaign(t, mixed(t, 22, 10))
	if _, err := Run(ld2, g2, Options{Results: path}); err == nil {
		t.Fatal("the results file of another campaign was taken")
	}
}

// Replaying one injection gives its line bit for bit.
func TestReplay(t *testing.T) {
	ld, g := campaign(t, mixed(t, 31, 6))
	all := run(t, ld, g, Options{})
	for _, id := range []int{0, 7, 20, 33, 50, 70} {
		var trace bytes.Buffer
		one := run(t, ld, g, Options{Only: []int{id}, Trace: &trace, TraceWindow: 5})
		if !bytes.Equal(one[0].line(), all[id].line()) {
			t.Errorf("replay of %d:\n%s%s", id, one[0].line(), all[id].line())
		}
	}
}

// The Wilson interval: against the roots of the quadratic it comes from,
// and published values.
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		x, n int
		z    float64
	}{{0, 10, Z95}, {5, 10, Z95}, {81, 263, Z95}, {1, 1000, 2.5758}, {999, 1000, Z95}, {37, 50, 1.6449}} {
		lo, hi := Wilson(c.x, c.n, c.z)
		// |p^ - p| = z sqrt(p(1-p)/n): (1 + z²/n) p² - (2p^ + z²/n) p + p^² = 0
		ph, n := float64(c.x)/float64(c.n), float64(c.n)
		a, b, cc := 1+c.z*c.z/n, -(2*ph + c.z*c.z/n), ph*ph
		d := math.Sqrt(b*b - 4*a*cc)
		r1, r2 := (-b-d)/(2*a), (-b+d)/(2*a)
		if math.Abs(lo-r1) > 1e-12 || math.Abs(hi-r2) > 1e-12 {
			t.Errorf("Wilson(%d, %d, %g) = [%g, %g], the quadratic's roots are [%g, %g]", c.x, c.n, c.z, lo, hi, r1, r2)
		}
	}
	// Wilson's 1927 example values, as tabulated (Newcombe 1998, method 3):
	// 81/263 -> 0.2553..0.3662; 15/148 -> 0.0624..0.1605; 0/20 -> 0..0.1611
	for _, c := range []struct {
		x, n   int
		lo, hi float64
	}{{81, 263, 0.2553, 0.3662}, {15, 148, 0.0624, 0.1605}, {0, 20, 0, 0.1611}, {1, 29, 0.0061, 0.1718}} {
		lo, hi := Wilson(c.x, c.n, Z95)
		if math.Abs(lo-c.lo) > 5e-5 || math.Abs(hi-c.hi) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.x, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if q := Quantile(0.95); math.Abs(q-Z95) > 1e-9 {
		t.Errorf("Quantile(0.95) = %g", q)
	}
	// the plan: 384.1 -> 385 injections for 5% at 95% (the usual table);
	// its Wilson interval at p = 0.5 is within the margin, one fewer is not
	pl, err := PlanFor(0.05, 0.95, 0.5, 0)
	if err != nil || pl.Normal != 385 {
		t.Fatalf("plan %+v %v", pl, err)
	}
	half := func(n int) float64 { lo, hi := Wilson(int(math.Round(0.5*float64(n))), n, Z95); return (hi - lo) / 2 }
	if half(pl.Wilson) > 0.05 || half(pl.Wilson-1) <= 0.05 && half(pl.Wilson-2) <= 0.05 {
		t.Errorf("Wilson plan %d: half-widths %g, %g", pl.Wilson, half(pl.Wilson), half(pl.Wilson-1))
	}
	// a finite population needs fewer
	if pf, _ := PlanFor(0.05, 0.95, 0.5, 1000); pf.Normal != 278 {
		t.Errorf("finite population: %+v", pf)
	}
}

// The summary's intervals are the formula's.
func TestSummaryIntervals(t *testing.T) {
	var recs []Record
	for i := range 263 {
		o := Masked
		if i < 81 {
			o = SDC
		}
		recs = append(recs, Record{Campaign: "x", ID: i, Of: 263, Exp: "e", Model: ModelFlip1, Outcome: o, Sub: ReadEqual})
	}
	var b bytes.Buffer
	WriteSummary(&b, recs)
	if !strings.Contains(b.String(), "30.8% [25.5, 36.6]") {
		t.Fatalf("summary:\n%s", b.String())
	}
}

// elements decodes little-endian words.
func elements(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

var _ = strconv.Itoa
var _ = elements

// The span arithmetic the skipping of golden blocks relies on.
func TestSpans(t *testing.T) {
	a := mergeSpans([]span{{10, 20}, {0, 5}, {5, 8}, {30, 40}, {15, 25}})
	if fmt.Sprint(a) != "[{0 8} {10 25} {30 40}]" {
		t.Fatalf("merge: %v", a)
	}
	if !overlaps(a, []span{{24, 26}}) || overlaps(a, []span{{8, 10}, {25, 30}}) || overlaps(a, nil) {
		t.Fatal("overlaps")
	}
	if got := subtract(a, []span{{2, 4}, {12, 35}}); fmt.Sprint(got) != "[{0 2} {4 8} {10 12} {35 40}]" {
		t.Fatalf("subtract: %v", got)
	}
	if got := appendSpan(appendSpan(nil, span{0, 4}), span{4, 8}); fmt.Sprint(got) != "[{0 8}]" {
		t.Fatalf("append: %v", got)
	}
}

// Selections: a time window keeps injections inside it, a kernel that is
// not the launch's leaves nothing to draw, a pc keeps them at that address.
func TestSelection(t *testing.T) {
	c := &Campaign{Launch: "../../../examples/tesla/vecadd.json", Seed: 8, Experiments: []Experiment{
		{Name: "window", Model: ModelFlip1, Group: "gp", Window: []int64{30, 60}, Injections: 40},
		{Name: "rf-window", Model: ModelRF, Window: []int64{0, 10}, Injections: 20},
		{Name: "mem-window", Model: ModelMemGlobal, Window: []int64{90, 104}, Injections: 20},
		{Name: "other-kernel", Model: ModelFlip1, Group: "gp", Kernel: "nosuch", Injections: 5},
		{Name: "pc", Model: ModelZero, Group: "ld", PC: []string{"0x40"}, Injections: 20}}}
	ld, g := campaign(t, c)
	for _, r := range run(t, ld, g, Options{}) {
		switch r.Exp {
		case "window":
			if r.Time < 30 || r.Time >= 60 {
				t.Errorf("outside [30, 60): %s", r.line())
			}
		case "rf-window":
			if r.Time >= 10 {
				t.Errorf("outside [0, 10): %s", r.line())
			}
		case "mem-window":
			if r.Time < 90 {
				t.Errorf("outside [90, 104): %s", r.line())
			}
		case "other-kernel":
			if r.Outcome != NoSite {
				t.Errorf("a kernel the launch does not run: %s", r.line())
			}
		case "pc":
			if r.PC != "0x0040" || r.Op != "GLD.U32" {
				t.Errorf("not at 0x40: %s", r.line())
			}
		}
	}
}

// A load/store unit stuck-at in lane 0 on address bit 2: lane 0's threads
// (i = 0 mod 32, their word addresses have bit 2 clear) load a[i+1] and
// b[i+1] and store to c[i+1], which thus gets its right value; c[i] keeps
// its fill. Exactly those c[i] differ.
func TestStuckAddress(t *testing.T) {
	lane, bit, value := 0, 2, 1
	c := &Campaign{Launch: "../../../examples/tesla/vecadd.json", Seed: 4, Experiments: []Experiment{
		{Model: ModelStuckUnit, Unit: "lsu", Lane: &lane, Bit: &bit, Value: &value, Injections: 1}}}
	ld, g := campaign(t, c)
	m := newMachine(ld)
	m.use(g)
	inj := ld.draw(g, 0)
	if err := m.runWhole(inj); err != nil {
		t.Fatal(err)
	}
	res, _ := m.result().Buffer("c")
	golden := g.Outputs[0].Data
	var differ []int
	for i := 0; i+4 <= len(golden); i += 4 {
		if !bytes.Equal(res[i:i+4], golden[i:i+4]) {
			differ = append(differ, i/4)
		}
	}
	if fmt.Sprint(differ) != "[0 32 64 96 128 160 192 224]" || inj.rec.Outcome != SDC || inj.rec.Activations == 0 {
		t.Fatalf("differing elements %v: %s", differ, inj.rec.line())
	}
}

// The register-file derating counts what ptxas allocated: the cubin's
// REGCOUNT (EIATTR_REGCOUNT, else the register count of its .text
// section), not the highest register the code names (which ptxas's
// counts equal in the examples: a copy of saxpy's cubin says 24); raw code
// and listings have only the latter.
func TestAllocFromCubin(t *testing.T) {
	dir := t.TempDir()
	ex, _ := filepath.Abs("../../examples/maxwell")
	data, err := os.ReadFile(filepath.Join(ex, "saxpy.sm_52.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := cubin.Parse(data) // its attributes alias data
	if err != nil {
		t.Fatal(err)
	}
	patched := false
	for _, a := range f.Info {
		if a.ID == cubin.AttrRegCount {
			binary.LittleEndian.PutUint32(a.Data[4:], 24)
			patched = true
		}
	}
	if !patched {
		t.Fatal("saxpy's cubin has no EIATTR_REGCOUNT")
	}
	os.WriteFile(filepath.Join(dir, "saxpy24.sm_52.cubin"), data, 0o644)
	launch, _ := os.ReadFile(filepath.Join(ex, "saxpy.json"))
	launch = bytes.Replace(launch, []byte(`"saxpy.sm_52.cubin"`), []byte(`"saxpy24.sm_52.cubin"`), 1)
	for _, name := range []string{"saxpy_x", "saxpy_y"} {
		launch = bytes.Replace(launch, []byte(`"`+name+`.bin"`), []byte(strconv.Quote(filepath.Join(ex, name+".bin"))), 1)
	}
	os.WriteFile(filepath.Join(dir, "saxpy24.json"), launch, 0o644)
	for _, c := range []struct {
		path      string
		want      int
		fromCubin bool
	}{{filepath.Join(dir, "saxpy24.json"), 24, true}, {"../../../examples/maxwell/saxpy.json", 10, true},
		{"../../../examples/inject/maxwell/matmul.json", 32, true}, {"loop.json", 4, false},
		{"../../../examples/fermi/histogram.json", 9, false}} {
		ld, g := campaign(t, &Campaign{Launch: c.path, Seed: 1, Experiments: []Experiment{{Model: ModelRF, Injections: 3}}})
		ki := g.Launches[0].ki
		named := namedRegs(ki.sites)
		if ki.alloc != c.want || ki.fromCubin != c.fromCubin || g.Alloc != c.want || !c.fromCubin && named != c.want {
			t.Errorf("%s: %d registers (from the cubin: %v), want %d (%v); the code names %d", c.path, ki.alloc, ki.fromCubin,
				c.want, c.fromCubin, named)
		}
		if d := derating(ki.arch, c.want, g.Threads*g.Launches[0].Blocks, 0); g.Derate != d {
			t.Errorf("%s: derating %g, want %g", c.path, g.Derate, d)
		}
		// each rf record carries its launch's derating, and the summary
		// shows the derated rate
		recs := run(t, ld, g, Options{Workers: 1})
		for _, r := range recs {
			if r.Derate != g.Launches[r.Launch].Derate || r.Derate <= 0 {
				t.Errorf("%s: record derating %g, want %g", c.path, r.Derate, g.Launches[r.Launch].Derate)
			}
		}
		var sum bytes.Buffer
		WriteSummary(&sum, recs)
		if !strings.Contains(sum.String(), "derating") {
			t.Errorf("%s: the summary shows no derated rate:\n%s", c.path, sum.String())
		}
	}
}
