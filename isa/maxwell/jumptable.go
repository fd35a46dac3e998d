package maxwell

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// indirectKindCall marks an EIATTR_INDIRECT_BRANCH_TARGETS record as a
// call through a register (cuobjdump -elf: "(kind_call)").
const indirectKindCall = 1

// UnresolvedBranches returns the addresses of the BRX instructions of a
// function at which nvdisasm warns "Indirect branch address must go via
// symbolic table base in constant memory", in address order: those the
// cubin does not list (EIATTR_INDIRECT_BRANCH_TARGETS), and, without the
// dataflow analysis (-ndf), which follows a listed table through constant
// memory, the listed jump tables too (not the branches listed as calls).
// BRK/CONT/SYNC targets listed there draw no warning. Under the dataflow
// analysis a warning disables it: nvdisasm lists the function as with -ndf
// and prints no control-flow graph.
func UnresolvedBranches(fn *cubin.Function, sm int, noDataflow bool) []uint64 {
	listed := map[uint64]bool{} // address → listed as a call
	for _, b := range indirectBranches(fn) {
		listed[b.at] = b.kind == indirectKindCall
	}
	var out []uint64
	for at := uint64(8); at+8 <= uint64(len(fn.Code)); at += 8 {
		if at%BundleSize == 0 {
			continue // a control word
		}
		ctrl := CtrlField(binary.LittleEndian.Uint64(fn.Code[at/BundleSize*BundleSize:]), int(at%BundleSize/8-1))
		inst, err := Decode(binary.LittleEndian.Uint64(fn.Code[at:]), ctrl, sm, at)
		if err != nil || forms[inst.form].name != "BRX" {
			continue
		}
		call, ok := listed[at]
		if !ok || noDataflow && !call {
			out = append(out, at)
		}
	}
	return out
}

// UnresolvedSections returns the code sections of f (those in sections,
// nil for all) with a branch UnresolvedBranches reports, nil for none:
// nvdisasm lists them without its dataflow annotations
// (ListOptions.NoDataflowSections).
func UnresolvedSections(f *cubin.File, sections map[int]bool) map[int]bool {
	var out map[int]bool
	for i := range f.Functions {
		fn := &f.Functions[i]
		if sections != nil && !sections[fn.Section] || len(UnresolvedBranches(fn, f.SM(), false)) == 0 {
			continue
		}
		if out == nil {
			out = map[int]bool{}
		}
		out[fn.Section] = true
	}
	return out
}

// indirectBranch is an entry of a function's EIATTR_INDIRECT_BRANCH_TARGETS:
// the branch's address, its kind (indirectKindCall: a call through a
// function pointer) and the addresses it may go to.
type indirectBranch struct {
	at      uint64
	kind    uint16
	targets []uint64
}

// indirectBranches returns the entries of fn's
// EIATTR_INDIRECT_BRANCH_TARGETS attributes in order: each a 32-bit
// address, 16-bit kind, 16 bits, a 32-bit count and that many 32-bit
// targets (a cut entry keeps the targets it has).
func indirectBranches(fn *cubin.Function) []indirectBranch {
	var out []indirectBranch
	for _, a := range fn.Info {
		if a.ID != attrIndirectBranchTargets {
			continue
		}
		d := a.Data
		for len(d) >= 12 {
			b := indirectBranch{at: uint64(binary.LittleEndian.Uint32(d)), kind: binary.LittleEndian.Uint16(d[4:])}
			cnt := int(binary.LittleEndian.Uint32(d[8:]))
			d = d[12:]
			for k := 0; k < cnt && len(d) >= 4; k++ {
				b.targets = append(b.targets, uint64(binary.LittleEndian.Uint32(d)))
				d = d[4:]
			}
			out = append(out, b)
		}
	}
	return out
}
