// Package inject runs fault-injection campaigns on the emulator: a golden
// run of a launch file, then injections drawn with a seed, each classified
// against the golden run (Masked, SDC, DUE, Hang) without any wall-clock
// timeout. Runs are deterministic: blocks run one after another in the
// engine's fixed warp order, so an injection is named by its place in
// that order and reruns bit for bit.
//
// An injection forks the golden run at its instruction (emu.BlockRun
// checkpoints the block, the device's memory is saved and restored), so
// the prefix runs once per worker, not once per injection; a run stops as
// soon as the corrupted state is dead (the register or memory byte was
// overwritten before any read, or its thread ended) or the block ended
// with global memory equal to the golden run's. See docs/inject.md.
package inject

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/usse"
	"github.com/gpuisa/gpuisa/internal/safeio"
)

// Campaign is a campaign file (docs/inject.md).
type Campaign struct {
	Launch string `json:"launch"` // the launch file, relative to the campaign file
	Seed   uint64 `json:"seed"`
	// Injections is the default number of injections per experiment.
	Injections int `json:"injections"`
	// HangFactor: a faulty run that executes more than HangFactor times
	// the golden run's warp-instructions is a Hang (default 10).
	HangFactor float64 `json:"hang_factor"`
	// Compare lists what SDC compares, with the element types; default:
	// the launch file's outputs (typed by its expectations), else its
	// buffers, else the dense global memory.
	Compare     []Compare    `json:"compare"`
	Experiments []Experiment `json:"experiments"`
	// RFBytes is the register file per SM in bytes for the register-file
	// derating (default: the architecture's).
	RFRegs int    `json:"rf_regs"`
	Note   string `json:"note"`
}

// Compare is one region outputs are compared on.
type Compare struct {
	Buffer string `json:"buffer"`
	Addr   string `json:"addr"`
	Bytes  int    `json:"bytes"`
	Type   string `json:"type"` // u8, u32 (default), s32, f32, f64
}

// Experiment is one fault model with its selection.
type Experiment struct {
	Name  string `json:"name"`
	Model string `json:"model"`
	// Group selects the instructions of the destination models: gp,
	// fp32, fp64, ld, pr, cc, st-value, st-addr, all.
	Group string `json:"group"`
	// Warp: the same corruption in every lane of the warp that executes
	// the instruction (SASSIFI's warp-wide models).
	Warp bool `json:"warp"`
	// Bits: 1 (default) or 2 adjacent bits (rf, mem-global, mem-shared).
	Bits int `json:"bits"`
	// Unit: stuck-unit's functional unit (int, fp32, fp64, sfu, lsu).
	Unit string `json:"unit"`
	// Value: the stuck-at value (0 or 1); default: drawn per injection.
	Value *int `json:"value"`
	// Bit and Lane pin what is otherwise drawn per injection: the bit a
	// flip or stuck-at fault hits (of a register, a byte, an address),
	// the lane of a permanent fault.
	Bit  *int `json:"bit"`
	Lane *int `json:"lane"`
	// Selection: kernel name, static instructions (byte addresses),
	// window of the run's warp-instructions [from, to).
	Kernel     string   `json:"kernel"`
	PC         []string `json:"pc"`
	Window     []int64  `json:"window"`
	Injections int      `json:"injections"`
}

// Models.
const (
	ModelFlip1     = "flip1"      // one bit of a destination
	ModelFlip2     = "flip2"      // two adjacent bits of a destination
	ModelRandom    = "random"     // a random value in a destination
	ModelZero      = "zero"       // zero in a destination
	ModelRF        = "rf"         // SASSIFI's register-file mode
	ModelMemGlobal = "mem-global" // a bit flip in global memory
	ModelMemShared = "mem-shared" // a bit flip in the block's shared memory
	ModelStuckUnit = "stuck-unit" // a stuck-at bit in one lane of a functional unit
	ModelStuckReg  = "stuck-reg"  // a stuck-at bit in a register-file cell
	ModelCFPred    = "cf-pred"    // a branch's predicate inverted
	ModelCFTarget  = "cf-target"  // a bit flip in a taken branch's target address
)

var models = []string{ModelFlip1, ModelFlip2, ModelRandom, ModelZero, ModelRF, ModelMemGlobal, ModelMemShared,
	ModelStuckUnit, ModelStuckReg, ModelCFPred, ModelCFTarget}

// destModel: a value model injected into an instruction's destination.
func destModel(m string) bool {
	return m == ModelFlip1 || m == ModelFlip2 || m == ModelRandom || m == ModelZero
}

// permanent: the fault is there from the start (whole runs).
func permanent(m string) bool { return m == ModelStuckUnit || m == ModelStuckReg }

// groupNames maps a campaign's group to the instruction groups it takes.
var groupNames = map[string]emu.Group{
	"gp": emu.GroupGP, "fp32": emu.GroupFP32, "fp64": emu.GroupFP64, "ld": emu.GroupLD, "pr": emu.GroupPR,
	"cc": emu.GroupCC, "st-value": emu.GroupST, "st-addr": emu.GroupST, "all": 0xffff,
}

var unitNames = map[string]emu.Unit{"int": emu.UnitInt, "fp32": emu.UnitFP32, "fp64": emu.UnitFP64,
	"sfu": emu.UnitSFU, "lsu": emu.UnitLSU}

// ParseCampaign reads and checks a campaign file's text.
func ParseCampaign(data []byte) (*Campaign, error) {
	var c Campaign
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("campaign file: %w", err)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("campaign file: %w", err)
	}
	return &c, nil
}

func (c *Campaign) check() error {
	if c.Launch == "" {
		return fmt.Errorf("no launch file (\"launch\")")
	}
	if c.HangFactor == 0 {
		c.HangFactor = 10
	}
	if c.HangFactor < 1 || c.HangFactor > 1e6 {
		return fmt.Errorf("hang_factor %g is not in 1..1e6", c.HangFactor)
	}
	if c.Injections < 0 || c.Injections > 1e8 {
		return fmt.Errorf("injections %d is not in 0..1e8", c.Injections)
	}
	if len(c.Experiments) == 0 {
		return fmt.Errorf("no experiments")
	}
	names := map[string]bool{}
	for i := range c.Experiments {
		e := &c.Experiments[i]
		if err := e.check(c.Injections); err != nil {
			return fmt.Errorf("experiments[%d]: %w", i, err)
		}
		if names[e.Name] {
			return fmt.Errorf("experiments[%d]: a second experiment named %q", i, e.Name)
		}
		names[e.Name] = true
	}
	for i, cmp := range c.Compare {
		if (cmp.Buffer == "") == (cmp.Addr == "") {
			return fmt.Errorf("compare[%d]: give a buffer or an addr with bytes", i)
		}
		if _, ok := elemSizes[typeOr(cmp.Type)]; !ok {
			return fmt.Errorf("compare[%d]: unknown type %q (u8, u32, s32, f32, f64)", i, cmp.Type)
		}
		if cmp.Addr != "" {
			if _, err := strconv.ParseUint(cmp.Addr, 0, 64); err != nil || cmp.Bytes <= 0 {
				return fmt.Errorf("compare[%d]: addr %q and bytes %d", i, cmp.Addr, cmp.Bytes)
			}
		}
	}
	return nil
}

func (e *Experiment) check(def int) error {
	known := false
	for _, m := range models {
		known = known || m == e.Model
	}
	if !known {
		return fmt.Errorf("unknown model %q (%s)", e.Model, strings.Join(models, ", "))
	}
	if e.Name == "" {
		e.Name = e.Model
		if e.Group != "" {
			e.Name += "-" + e.Group
		}
		if e.Unit != "" {
			e.Name += "-" + e.Unit
		}
		if e.Warp {
			e.Name += "-warp"
		}
	}
	if e.Injections == 0 {
		e.Injections = def
	}
	if e.Injections <= 0 || e.Injections > 1e8 {
		return fmt.Errorf("%s: injections %d is not in 1..1e8", e.Name, e.Injections)
	}
	switch {
	case destModel(e.Model):
		if e.Group == "" {
			e.Group = "gp"
		}
		if _, ok := groupNames[e.Group]; !ok {
			return fmt.Errorf("%s: unknown group %q (gp, fp32, fp64, ld, pr, cc, st-value, st-addr, all)", e.Name, e.Group)
		}
	case e.Group != "" && e.Model != ModelRF && e.Model != ModelMemGlobal && e.Model != ModelMemShared:
		return fmt.Errorf("%s: a group selects instructions of the destination models and rf/mem times only", e.Name)
	case e.Group != "":
		if _, ok := groupNames[e.Group]; !ok || e.Group == "st-value" || e.Group == "st-addr" {
			return fmt.Errorf("%s: unknown group %q", e.Name, e.Group)
		}
	}
	if e.Bits == 0 {
		e.Bits = 1
	}
	if e.Bits != 1 && e.Bits != 2 {
		return fmt.Errorf("%s: bits must be 1 or 2", e.Name)
	}
	if e.Model == ModelStuckUnit {
		if _, ok := unitNames[e.Unit]; !ok {
			return fmt.Errorf("%s: stuck-unit needs a unit (int, fp32, fp64, sfu, lsu)", e.Name)
		}
	} else if e.Unit != "" {
		return fmt.Errorf("%s: unit is stuck-unit's", e.Name)
	}
	if e.Value != nil && (*e.Value < 0 || *e.Value > 1 || !permanent(e.Model)) {
		return fmt.Errorf("%s: value is a stuck-at model's 0 or 1", e.Name)
	}
	if e.Bit != nil && (*e.Bit < 0 || *e.Bit > 31 || e.Model == ModelRandom || e.Model == ModelZero || e.Model == ModelCFPred) {
		return fmt.Errorf("%s: bit is 0..31, for the flip, rf, memory, stuck-at and cf-target models", e.Name)
	}
	if e.Lane != nil && (*e.Lane < 0 || *e.Lane >= emu.WarpSize || !permanent(e.Model)) {
		return fmt.Errorf("%s: lane is 0..31, for the permanent models", e.Name)
	}
	if e.Warp && !destModel(e.Model) && e.Model != ModelRF && e.Model != ModelCFPred {
		return fmt.Errorf("%s: warp-wide applies to the destination, rf and cf-pred models", e.Name)
	}
	if len(e.Window) != 0 && (len(e.Window) != 2 || e.Window[0] < 0 || e.Window[1] <= e.Window[0]) {
		return fmt.Errorf("%s: window is [from, to) with 0 <= from < to", e.Name)
	}
	if permanent(e.Model) && (len(e.Window) > 0 || len(e.PC) > 0) {
		return fmt.Errorf("%s: a permanent fault is there for the whole run: no pc or window", e.Name)
	}
	for _, p := range e.PC {
		if _, err := strconv.ParseUint(p, 0, 64); err != nil {
			return fmt.Errorf("%s: pc %q is not a number", e.Name, p)
		}
	}
	return nil
}

func typeOr(t string) string {
	if t == "" {
		return "u32"
	}
	return t
}

var elemSizes = map[string]int{"u8": 1, "u32": 4, "s32": 4, "f32": 4, "f64": 8}

// Total is the number of injections of the campaign.
func (c *Campaign) Total() int {
	n := 0
	for _, e := range c.Experiments {
		n += e.Injections
	}
	return n
}

// experimentOf returns the experiment of injection id and the id's index
// in it.
func (c *Campaign) experimentOf(id int) (int, int) {
	for i, e := range c.Experiments {
		if id < e.Injections {
			return i, id
		}
		id -= e.Injections
	}
	return -1, -1
}

// Loaded is a campaign with its launch read.
type Loaded struct {
	*Campaign
	Path    string // the campaign file
	Launch  *emu.Launch
	Dir     string   // the launch file's directory
	Job     *emu.Job // the launch file's own job, read once
	Hash    string   // identifies the campaign and its inputs
	Outputs []Region
	// seq is the launch file's sequence, not started: runs fork it (its
	// programs are read once)
	seq *emu.Sequence
	// shader is a shader launch (sgx543, shader.go) instead of Job
	shader *usse.Launch
}

// Load reads a campaign file and the launch file it names.
func Load(path string) (*Loaded, error) {
	data, err := safeio.ReadFile(path, emu.MaxLaunchFileBytes) // a campaign is no larger than a launch file
	if err != nil {
		return nil, err
	}
	c, err := ParseCampaign(data)
	if err != nil {
		return nil, emu.LocateError(path, data, err) // path:line:col: when the place is known
	}
	return LoadCampaign(c, path)
}

// LoadCampaign reads the launch file a parsed campaign (from path) names.
func LoadCampaign(c *Campaign, path string) (*Loaded, error) {
	lp := c.Launch
	if strings.Contains(lp, "$") {
		// "$GPUISA_SHARED/oracle/...": launch files of the shared oracle data
		missing := ""
		lp = os.Expand(lp, func(v string) string {
			val, ok := os.LookupEnv(v)
			if !ok {
				missing = v
			}
			return val
		})
		if missing != "" {
			return nil, fmt.Errorf("%s: the launch file %q names $%s, which is not set", path, c.Launch, missing)
		}
	}
	if !filepath.IsAbs(lp) {
		lp = filepath.Join(filepath.Dir(path), lp)
	}
	ldata, err := safeio.ReadFile(lp, emu.MaxLaunchFileBytes)
	if err != nil {
		return nil, err
	}
	if usse.IsLaunch(ldata) {
		return loadShader(c, path, lp, ldata)
	}
	l, err := emu.ParseLaunch(ldata)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", lp, err)
	}
	dir := filepath.Dir(lp)
	job, err := l.Job(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", lp, err)
	}
	seq, err := l.NewSequence(nil, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", lp, err)
	}
	ld := &Loaded{Campaign: c, Path: path, Launch: l, Dir: dir, Job: job, seq: seq}
	ld.Hash = ld.hash()
	return ld, nil
}

// hash names the campaign and everything its runs read.
func (ld *Loaded) hash() string {
	h := sha256.New()
	norm, _ := json.Marshal(ld.Campaign)
	h.Write(norm)
	j := ld.Job
	fmt.Fprintf(h, "|%v|%v|%d|%d|%d|%d|%s|%s|", j.Grid, j.Block, j.SharedBytes, j.LocalBytes, j.GlobalBytes, j.MaxSteps,
		j.Program.Arch, j.Program.Kernel)
	h.Write(j.Program.Data)
	for _, o := range j.Program.Link {
		h.Write(o.Data)
	}
	for _, b := range j.Buffers {
		fmt.Fprintf(h, "|%s|%d|", b.Name, len(b.Data))
		h.Write(b.Data)
	}
	for _, m := range j.Memory {
		fmt.Fprintf(h, "|%d|%d|%#x|%d|", m.Space, m.Bank, m.Addr, len(m.Data))
		h.Write(m.Data)
	}
	for _, a := range j.Args {
		fmt.Fprintf(h, "|%v|", a)
	}
	for _, o := range ld.Launch.Outputs {
		fmt.Fprintf(h, "|%+v|", o)
	}
	for _, st := range ld.Launch.Launches {
		fmt.Fprintf(h, "|%s|", st)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
