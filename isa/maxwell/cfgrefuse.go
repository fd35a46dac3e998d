package maxwell

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/cfg"
)

// BranchRefusals are the addresses of the direct branches of a function
// for which nvdisasm refuses a control-flow graph or life ranges, by its
// message.
type BranchRefusals struct {
	// NonConstant ("No constant branch target expected"; -cfg, -bbcfg,
	// -plr): a BRA whose target is not an instruction of the function nor
	// its end (before its start, past its end, not a multiple of 8), and
	// every JMP to an immediate address.
	NonConstant []uint64
	// NonLocal ("Non local immediate branch (needs a SIBCALL
	// annotation?)"; -cfg, -bbcfg, -plr): a BRA to the function's end.
	NonLocal []uint64
	// Push ("Branch stack push operation must use label", twice each;
	// -plr only, and only when no BRA or JMP is refused): an SSY, PBK,
	// PCNT, PRET, PEXIT or PLONGJMP whose target is not an instruction of
	// the function nor its end.
	Push []uint64
}

// RefusedBranches returns the direct branches of a function for which
// nvdisasm refuses -cfg, -bbcfg or -plr, in the order it meets them.
//
// A control word's address is a good target (it means the instruction
// after it). Only the instructions nvdisasm reaches from the function's
// entry count: it goes on after an instruction unless it is an
// unconditional BRA, JMP, BRX, EXIT, RET, KIL, SYNC, BRK or CONT, and also
// to the targets of BRA, CAL and the stack pushes (SSY, PBK, PCNT, PRET,
// PEXIT, PLONGJMP; a bad push target is not followed) and to the targets
// EIATTR_INDIRECT_BRANCH_TARGETS lists for BRX, SYNC, BRK and CONT (probed
// on the bfs example with branches patched in: a bad branch after an
// unconditional one, or only reached by a JCAL, is not reported).
func RefusedBranches(fn *cubin.Function, sm int) (r BranchRefusals) {
	code := fn.Code
	size := uint64(len(code)) / BundleSize * BundleSize
	// good reports an instruction of the function at t, and which
	good := func(t uint64) (uint64, bool) {
		if t >= size || t%8 != 0 {
			return 0, false
		}
		if t%BundleSize == 0 {
			t += 8
		}
		return t, t < size
	}
	entry, ok := good(fn.Value)
	if !ok {
		return r
	}
	indir := map[uint64][]uint64{}
	for _, b := range indirectBranches(fn) {
		indir[b.at] = append(indir[b.at], b.targets...)
	}
	seen := map[uint64]bool{entry: true}
	work := []uint64{entry}
	follow := func(t uint64) {
		if t, ok := good(t); ok && !seen[t] {
			seen[t] = true
			work = append(work, t)
		}
	}
	for len(work) > 0 {
		at := work[len(work)-1]
		work = work[:len(work)-1]
		word := binary.LittleEndian.Uint64(code[at:])
		inst, err := Decode(word, CtrlField(binary.LittleEndian.Uint64(code[at/BundleSize*BundleSize:]), int(at%BundleSize/8-1)), sm, at)
		if err != nil {
			continue // nvdisasm reports the decoding errors instead
		}
		facts := BranchFacts(inst, at, indir[at])
		goesOn := facts.Cond || facts.Kind == cfg.Next || facts.Kind == cfg.Call
		switch name := forms[inst.form].name; name {
		case "BRA":
			if t, ok := relTarget(inst, at); ok {
				if t == size {
					r.NonLocal = append(r.NonLocal, at)
				} else if _, ok := good(t); !ok {
					r.NonConstant = append(r.NonConstant, at)
				} else {
					follow(t)
				}
			}
		case "JMP":
			if word&0x20 == 0 { // JMP c[...] is indirect
				r.NonConstant = append(r.NonConstant, at)
				goesOn = facts.Cond
			}
		case "CAL":
			if t, ok := relTarget(inst, at); ok {
				follow(t)
			}
		case "SSY", "PBK", "PCNT", "PRET", "PEXIT", "PLONGJMP":
			if t, ok := relTarget(inst, at); ok {
				if _, ok := good(t); !ok && t != size {
					r.Push = append(r.Push, at)
				}
				follow(t)
			}
		default:
			for _, t := range facts.Targets {
				follow(t)
			}
		}
		if goesOn {
			follow(at + 8)
		}
	}
	return r
}
