package inject

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
)

// launchRun is one launch of a run, prepared on a machine's device.
type launchRun struct {
	index  int
	prep   *emu.Prepared
	insp   emu.Inspector
	sites  []emu.Site
	blocks int
	kernel string
}

// machine runs a campaign's launches on a device of its own, block after
// block in the engine's order: the deterministic schedule every run of
// the campaign shares.
type machine struct {
	ld    *Loaded
	g     *Golden
	dev   *emu.Device
	sites [][]emu.Site // per launch, computed once
	sels  []*selector
	// the run's warp-instructions before the current block (golden)
	time int64
	// device states: before and after a golden block, a fork's, the
	// start of the run
	before, after, saved, start emu.DeviceState
	started                     bool
	full                        bool // no checkpoints: every injection runs whole
	trace                       io.Writer
	traceWindow                 int
}

func newMachine(ld *Loaded) *machine {
	return &machine{ld: ld, dev: all.NewDevice(), sites: make([][]emu.Site, len(ld.jobs())), sels: ld.selectors()}
}

// jobs is the campaign's sequence of launches.
func (ld *Loaded) jobs() []*emu.Job { return []*emu.Job{ld.Job} }

// kernelName is what a launch's kernel is called in results.
func kernelName(j *emu.Job) string {
	if j.Program.Kernel != "" {
		return j.Program.Kernel
	}
	return strings.TrimSuffix(filepath.Base(j.Program.Name), filepath.Ext(j.Program.Name))
}

// prepare places launch k on the device (in whatever state it is: the
// golden run's or a faulty run's).
func (m *machine) prepare(k int) (*launchRun, error) {
	job := m.ld.jobs()[k]
	prep, err := m.dev.Prepare(job)
	if err != nil {
		return nil, err
	}
	insp, ok := prep.Exec.(emu.Inspector)
	if !ok {
		return nil, fmt.Errorf("%s: the %s emulator cannot inject faults (no emu.Inspector)", job.Program.Name, prep.Setup.Arch)
	}
	if m.sites[k] == nil {
		m.sites[k] = insp.Sites()
	}
	lr := &launchRun{index: k, prep: prep, insp: insp, sites: m.sites[k], blocks: prep.Config.Grid.Count(),
		kernel: kernelName(job)}
	for _, s := range m.sels {
		if s != nil && s.elig[k] == nil {
			s.prepareLaunch(lr)
		}
	}
	return lr, nil
}

// arch is the architecture of launch k.
func (lr *launchRun) arch() string { return lr.prep.Setup.Arch }

// where is the byte address and text of an instruction.
func (lr *launchRun) where(pc uint32) (uint64, string) { return lr.prep.Exec.Where(pc) }

// result reads the device's memory as a launch's result.
func (m *machine) result() *emu.Result { return m.dev.Result("", emu.Stats{}) }
