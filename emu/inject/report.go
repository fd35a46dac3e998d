package inject

import (
	"encoding/json"
	"fmt"

	"github.com/gpuisa/gpuisa/emu"
)

// groupList names the instruction groups in reports.
var groupList = []struct {
	name string
	g    emu.Group
}{{"gp", emu.GroupGP}, {"fp32", emu.GroupFP32}, {"fp64", emu.GroupFP64}, {"ld", emu.GroupLD}, {"pr", emu.GroupPR},
	{"cc", emu.GroupCC}, {"st", emu.GroupST}, {"branch", emu.GroupBranch}}

// GoldenReport is the golden run as golden.json holds it.
type GoldenReport struct {
	Campaign    string           `json:"campaign"`
	Total       int64            `json:"warp_insts"`
	HangBudget  int64            `json:"hang_budget"`
	Launches    []LaunchReport   `json:"launches"`
	Kernels     []KernelReport   `json:"kernels"`
	Populations map[string]int64 `json:"populations"` // units each experiment draws from
	AllocRegs   int              `json:"alloc_regs"`
	RFDerating  float64          `json:"rf_derating"`
	Outputs     []string         `json:"outputs"`
}

// LaunchReport is one launch's counts.
type LaunchReport struct {
	Kernel      string           `json:"kernel"`
	Arch        string           `json:"arch"`
	Blocks      int              `json:"blocks"`
	Start       int64            `json:"start"` // the run's warp-instructions before it
	WarpInsts   int64            `json:"warp_insts"`
	ThreadInsts int64            `json:"thread_insts"`
	Groups      map[string]int64 `json:"groups"` // thread-instructions per group
	Opcodes     map[string]int64 `json:"opcodes"`
	RFDerating  float64          `json:"rf_derating"`
}

// KernelReport is one program's static instructions and their executions
// over all its launches, and its allocated registers.
type KernelReport struct {
	Kernel       string       `json:"kernel"`
	Arch         string       `json:"arch"`
	Launches     int          `json:"launches"`
	AllocRegs    int          `json:"alloc_regs"`
	AllocFrom    string       `json:"alloc_from"` // "cubin" (ptxas's REGCOUNT) or "code" (highest register named + 1)
	Instructions []InstReport `json:"instructions"`
}

// InstReport is one static instruction's executions.
type InstReport struct {
	PC     string `json:"pc"`
	Op     string `json:"op"`
	Text   string `json:"text"`
	Warp   int64  `json:"warp"`
	Thread int64  `json:"thread"`
}

// Report makes the golden run's report.
func (ld *Loaded) Report(g *Golden) *GoldenReport {
	m := &machine{ld: ld, g: g}
	r := &GoldenReport{Campaign: ld.Hash, Total: g.Total, HangBudget: m.budget(), Populations: map[string]int64{},
		AllocRegs: g.Alloc, RFDerating: g.Derate}
	for i, e := range ld.Experiments {
		if !permanent(e.Model) {
			r.Populations[e.Name] = g.pops[i].total
		}
	}
	for _, o := range g.Outputs {
		r.Outputs = append(r.Outputs, fmt.Sprintf("%s: %d bytes of %s", o.Name, o.Bytes, o.Type))
	}
	kernels := make([]KernelReport, len(g.kernels))
	for i, ki := range g.kernels {
		from := "code"
		if ki.fromCubin {
			from = "cubin"
		}
		kr := KernelReport{Kernel: ki.name, Arch: ki.arch, AllocRegs: ki.alloc, AllocFrom: from}
		for pc := range ki.sites {
			kr.Instructions = append(kr.Instructions, InstReport{PC: fmt.Sprintf("%#04x", ki.addrs[pc]), Op: ki.sites[pc].Op,
				Text: ki.texts[pc]})
		}
		kernels[i] = kr
	}
	for _, lp := range g.Launches {
		ki := lp.ki
		lr := LaunchReport{Kernel: lp.Kernel, Arch: lp.Arch, Blocks: lp.Blocks, Start: lp.Start, WarpInsts: lp.WarpInsts,
			ThreadInsts: lp.ThreadInsts, Groups: map[string]int64{}, Opcodes: map[string]int64{}, RFDerating: lp.Derate}
		kr := &kernels[ki.index]
		kr.Launches++
		for pc := range lp.PCWarp {
			kr.Instructions[pc].Warp += lp.PCWarp[pc]
			kr.Instructions[pc].Thread += lp.PCThread[pc]
			if lp.PCWarp[pc] == 0 {
				continue
			}
			lr.Opcodes[ki.sites[pc].Op] += lp.PCThread[pc]
			for _, gr := range groupList {
				if ki.sites[pc].Groups&gr.g != 0 {
					lr.Groups[gr.name] += lp.PCThread[pc]
				}
			}
		}
		r.Launches = append(r.Launches, lr)
	}
	r.Kernels = kernels
	return r
}

// JSON is the report's text.
func (r *GoldenReport) JSON() []byte {
	b, _ := json.MarshalIndent(r, "", " ")
	return append(b, '\n')
}
