package inject

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
)

// kernelInfo is what a campaign knows of one program: its instructions'
// facts, addresses and texts, its allocated registers, and which of its
// instructions each experiment can hit. It is made once per program and
// only read afterwards (machines share the golden run's).
type kernelInfo struct {
	name  string
	arch  string
	sites []emu.Site
	addrs []uint64
	texts []string
	// alloc is the general registers a thread holds: the cubin's
	// REGCOUNT when it has one (fromCubin), else one more than the
	// highest register the code names
	alloc     int
	fromCubin bool
	elig      [][]bool // per experiment (nil: permanent faults)
	index     int      // in Golden.kernels
}

// launchRun is one launch of a run, prepared on a machine's device.
type launchRun struct {
	index  int // the launch's number in its run
	job    *emu.Job
	prep   *emu.Prepared
	insp   emu.Inspector
	ki     *kernelInfo
	sites  []emu.Site
	blocks int
	kernel string
}

// machine runs a campaign's launches on a device of its own, block after
// block in the engine's order: the deterministic schedule every run of
// the campaign shares.
type machine struct {
	ld      *Loaded
	g       *Golden
	dev     *emu.Device
	kernels map[*emu.Program]*kernelInfo
	sels    []*selector
	// the run's warp-instructions before the current block (golden)
	time int64
	// device states: before and after a golden block, a fork's, the
	// start of the run
	before, after, saved, start emu.DeviceState
	started                     bool
	afterState                  any        // the launch's emu.ExecState after the golden block (with after)
	first                       *launchRun // the first launch, prepared once (reset)
	firstState                  any        // its emu.ExecState when prepared
	full                        bool       // no checkpoints: every injection runs whole
	trace                       io.Writer
	traceWindow                 int
}

func newMachine(ld *Loaded) *machine {
	return &machine{ld: ld, dev: all.NewDevice(), kernels: map[*emu.Program]*kernelInfo{}, sels: ld.selectors()}
}

// use gives the machine the golden run's kernels (their facts are only
// read).
func (m *machine) use(g *Golden) {
	m.g = g
	for _, ki := range g.kernels {
		m.kernels[ki.prog] = ki.kernelInfo
	}
}

// kernelName is what a launch's kernel is called in results.
func kernelName(j *emu.Job) string {
	if j.Program.Kernel != "" {
		return j.Program.Kernel
	}
	return strings.TrimSuffix(filepath.Base(j.Program.Name), filepath.Ext(j.Program.Name))
}

// prepare places job (launch number k of the run) on the device, in
// whatever state it is: the golden run's or a faulty run's.
func (m *machine) prepare(job *emu.Job, k int) (*launchRun, error) {
	prep, err := m.dev.Prepare(job)
	if err != nil {
		return nil, err
	}
	insp, ok := prep.Exec.(emu.Inspector)
	if !ok {
		return nil, fmt.Errorf("%s: the %s emulator cannot inject faults (no emu.Inspector)", job.Program.Name, prep.Setup.Arch)
	}
	ki := m.kernels[job.Program]
	if ki == nil {
		ki = m.newKernel(job, prep, insp)
		m.kernels[job.Program] = ki
	}
	return &launchRun{index: k, job: job, prep: prep, insp: insp, ki: ki, sites: ki.sites, blocks: prep.Config.Grid.Count(),
		kernel: ki.name}, nil
}

// newKernel describes the program of a prepared launch.
func (m *machine) newKernel(job *emu.Job, prep *emu.Prepared, insp emu.Inspector) *kernelInfo {
	sites := insp.Sites()
	ki := &kernelInfo{name: kernelName(job), arch: prep.Setup.Arch, sites: sites, addrs: make([]uint64, len(sites)),
		texts: make([]string, len(sites)), index: -1}
	for pc := range sites {
		ki.addrs[pc], ki.texts[pc] = prep.Exec.Where(uint32(pc))
	}
	ki.alloc, ki.fromCubin = allocatedRegs(job.Program, ki.arch, sites)
	ki.elig = make([][]bool, len(m.sels))
	for i, s := range m.sels {
		if s != nil {
			ki.elig[i] = s.eligibleIn(ki)
		}
	}
	return ki
}

// where is the byte address and text of an instruction.
func (lr *launchRun) where(pc uint32) (uint64, string) { return lr.ki.addrs[pc], lr.ki.texts[pc] }

// arch is the launch's architecture.
func (lr *launchRun) arch() string { return lr.ki.arch }

// result reads the device's memory as a launch's result.
func (m *machine) result() *emu.Result { return m.dev.Result("", emu.Stats{}) }
