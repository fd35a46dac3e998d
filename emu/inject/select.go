package inject

import (
	"math/bits"
	"strconv"

	"github.com/gpuisa/gpuisa/emu"
)

// A selector is an experiment's population of injection sites: which
// dynamic instructions it can hit and how many units each one counts (its
// lanes, or one for a warp-level fault). Injections are drawn uniformly
// over the units.
type selector struct {
	e      *Experiment
	units  unitKind
	group  emu.Group // 0: any
	pcs    map[uint64]bool
	window [2]int64 // [from, to); to < 0: none
}

type unitKind uint8

const (
	perLane       unitKind = iota // each lane that executes the instruction
	perWarp                       // each warp-instruction that some lane executes
	perInstant                    // each warp-instruction (a time)
	perActiveLane                 // each running lane, guard or not (cf-pred)
)

func newSelector(e *Experiment) *selector {
	s := &selector{e: e, window: [2]int64{0, -1}}
	if len(e.Window) == 2 {
		s.window = [2]int64{e.Window[0], e.Window[1]}
	}
	if len(e.PC) > 0 {
		s.pcs = map[uint64]bool{}
		for _, p := range e.PC {
			v, _ := strconv.ParseUint(p, 0, 64)
			s.pcs[v] = true
		}
	}
	if e.Group != "" {
		s.group = groupNames[e.Group]
	}
	switch e.Model {
	case ModelMemGlobal, ModelMemShared:
		s.units = perInstant
	case ModelCFPred:
		s.units = perActiveLane
		if e.Warp {
			s.units = perWarp
		}
	case ModelCFTarget:
		s.units = perWarp
	default:
		s.units = perLane
		if e.Warp {
			s.units = perWarp
		}
	}
	return s
}

// eligibleIn marks the instructions of a program the experiment can hit.
func (s *selector) eligibleIn(ki *kernelInfo) []bool {
	el := make([]bool, len(ki.sites))
	if s.e.Kernel != "" && s.e.Kernel != ki.name {
		return el
	}
	for pc := range ki.sites {
		if s.pcs != nil && !s.pcs[ki.addrs[pc]] {
			continue
		}
		el[pc] = s.eligible(&ki.sites[pc])
	}
	return el
}

// eligible is the experiment's static condition on an instruction.
func (s *selector) eligible(site *emu.Site) bool {
	switch e := s.e; {
	case destModel(e.Model):
		return site.Groups&s.group != 0 && len(candidates(site, e.Group)) > 0
	case e.Model == ModelCFPred:
		return site.Groups&emu.GroupBranch != 0
	case e.Model == ModelCFTarget:
		return site.HasTarget
	}
	return s.group == 0 || site.Groups&s.group != 0
}

// count is how many units an executed instruction adds, and the lanes
// they stand for (perLane, perActiveLane; perWarp: the lanes it hits).
func (s *selector) count(el []bool, pc uint32, t int64, w *emu.Warp, mask uint32) (int64, uint32) {
	if !el[pc] || t < s.window[0] || s.window[1] >= 0 && t >= s.window[1] {
		return 0, 0
	}
	switch s.units {
	case perLane:
		return int64(bits.OnesCount32(mask)), mask
	case perActiveLane:
		return int64(bits.OnesCount32(w.Active)), w.Active
	case perWarp:
		lanes := mask
		if s.e.Model == ModelCFPred {
			lanes = w.Active
		}
		if lanes == 0 {
			return 0, 0
		}
		return 1, lanes
	}
	return 1, 0
}

// pick is the lane of unit i of an instruction's units (-1: warp-level).
func (s *selector) pick(i int64, lanes uint32) int {
	if s.units != perLane && s.units != perActiveLane {
		return -1
	}
	for ; i > 0; i-- {
		lanes &= lanes - 1
	}
	return bits.TrailingZeros32(lanes)
}

// candidates are the registers a destination model can corrupt at a site.
func candidates(site *emu.Site, group string) []emu.Reg {
	var out []emu.Reg
	pick := func(rs []emu.Reg, f emu.RegFile) {
		for _, r := range rs {
			if f == emu.RegNone || r.File == f {
				out = append(out, r)
			}
		}
	}
	switch group {
	case "st-value":
		pick(site.Value, emu.RegNone)
	case "st-addr":
		if len(site.Addr) > 0 {
			out = append(out, site.Addr[0]) // the address as one value (flips may carry into a pair's high word)
		}
	case "pr":
		pick(site.Dst, emu.RegPred)
	case "cc":
		pick(site.Dst, emu.RegCC)
		pick(site.Partial, emu.RegCC)
	case "all":
		pick(site.Dst, emu.RegNone)
		pick(site.Partial, emu.RegNone)
	default:
		pick(site.Dst, emu.RegGPR)
		pick(site.Partial, emu.RegGPR)
	}
	return out
}
