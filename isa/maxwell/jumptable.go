package maxwell

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// JumpTableBranches returns the addresses of the BRX instructions of a
// function whose targets the cubin lists (EIATTR_INDIRECT_BRANCH_TARGETS),
// in the attribute's order. Without its dataflow analysis (-ndf) nvdisasm
// cannot follow such a branch's table through constant memory and warns at
// each one; BRK/CONT/SYNC targets listed there draw no warning.
func JumpTableBranches(fn *cubin.Function, sm int) []uint64 {
	var out []uint64
	for _, a := range fn.Info {
		if a.ID != attrIndirectBranchTargets {
			continue
		}
		d := a.Data
		for len(d) >= 12 {
			at := uint64(binary.LittleEndian.Uint32(d))
			cnt := uint64(binary.LittleEndian.Uint32(d[8:]))
			d = d[12:]
			d = d[min(uint64(len(d)), 4*cnt):]
			if at%BundleSize == 0 || at+8 > uint64(len(fn.Code)) {
				continue
			}
			ctrl := CtrlField(binary.LittleEndian.Uint64(fn.Code[at/BundleSize*BundleSize:]), int(at%BundleSize/8-1))
			inst, err := Decode(binary.LittleEndian.Uint64(fn.Code[at:]), ctrl, sm, at)
			if err == nil && forms[inst.form].name == "BRX" {
				out = append(out, at)
			}
		}
	}
	return out
}
