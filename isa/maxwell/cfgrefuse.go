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
	// NoTarget ("Could not establish the target of '' branch operation";
	// -plr only, and only when no branch above is refused): in a function
	// without EIATTR_INDIRECT_BRANCH_TARGETS, each EXIT reached after a
	// PEXIT to the function's end (probed on the bfs example and the
	// oracle's vecadd and saxpy; nvdisasm sometimes prints stray bytes
	// between the quotes).
	NoTarget []uint64
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
	// walk visits what the instructions at starts reach, in nvdisasm's
	// order; with record it notes the refused branches in r. It returns
	// the EXITs it met and the PEXITs to the function's end.
	walk := func(starts []uint64, record bool) (exits, pexitEnd []uint64) {
		seen := map[uint64]bool{}
		var work []uint64
		follow := func(t uint64) {
			if t, ok := good(t); ok && !seen[t] {
				seen[t] = true
				work = append(work, t)
			}
		}
		for _, t := range starts {
			follow(t)
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
						if record {
							r.NonLocal = append(r.NonLocal, at)
						}
					} else if _, ok := good(t); !ok {
						if record {
							r.NonConstant = append(r.NonConstant, at)
						}
					} else {
						follow(t)
					}
				}
			case "JMP":
				if word&0x20 == 0 { // JMP c[...] is indirect
					if record {
						r.NonConstant = append(r.NonConstant, at)
					}
					goesOn = facts.Cond
				}
			case "CAL":
				if t, ok := relTarget(inst, at); ok {
					follow(t)
				}
			case "SSY", "PBK", "PCNT", "PRET", "PEXIT", "PLONGJMP":
				if t, ok := relTarget(inst, at); ok {
					if _, ok := good(t); !ok && t != size && record {
						r.Push = append(r.Push, at)
					}
					if name == "PEXIT" && t == size {
						pexitEnd = append(pexitEnd, at)
					}
					follow(t)
				}
			case "EXIT":
				exits = append(exits, at)
			default:
				for _, t := range facts.Targets {
					follow(t)
				}
			}
			if goesOn {
				follow(at + 8)
			}
		}
		return exits, pexitEnd
	}
	_, pexitEnd := walk([]uint64{entry}, true)
	if len(pexitEnd) > 0 && len(indir) == 0 {
		// each EXIT after a PEXIT to the end would go there
		var after []uint64
		for _, at := range pexitEnd {
			after = append(after, at+8)
		}
		r.NoTarget, _ = walk(after, false)
	}
	return r
}
