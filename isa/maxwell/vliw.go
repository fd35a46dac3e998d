package maxwell

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/isa"
)

// unitErrorText is how nvdisasm words the rejections of VLIWErrors (and any
// word it cannot decode).
const unitErrorText = "Unrecognized operation for functional unit 'uC'"

// VLIWErrors returns the instructions nvdisasm rejects when it lists code
// with braces (without -novliw) although each of them decodes, found by
// experiment with nvdisasm 11.8 on crafted control words: a bundle whose
// second and third control fields both mark a dual issue (stall 0 with
// the yield bit) makes nvdisasm read the next bundle shifted by one word,
// as a group it cannot place. It rejects there each instruction whose
// neighbour does not decode as a variable-latency instruction: the
// neighbour before it (for the first instruction, the bundle's control
// word read as an instruction), or, when the first field marks a dual
// issue too, the neighbour after it (for the third, the next bundle's
// control word).
//
// An all-zero word as the marking bundle's second or third instruction
// undoes the shift (one as its first does not); one in the next bundle is
// checked like a fixed-latency instruction, and as a neighbour counts as a
// variable-latency one (as nvdisasm does in every case probed).
//
// The bundle so read does not act in turn on the one after it; a marking
// bundle at the end of the code rejects nothing. Addresses are base plus
// the offset in code (whole bundles; a partial one is ignored). Words that
// do not decode are left to the decoder. Control words read as
// instructions are where this model is least sure: nvdisasm accepts some
// that decode as variable-latency loads and texture instructions.
func VLIWErrors(code []byte, base uint64, sm int) []*isa.DecodeError {
	n := len(code) / BundleSize
	var errs []*isa.DecodeError
	for b := 0; b+1 < n; b++ {
		ctrl := binary.LittleEndian.Uint64(code[b*BundleSize:])
		if !opensPair(CtrlField(ctrl, 1)) || !opensPair(CtrlField(ctrl, 2)) ||
			instWord(code, b*3+1) == 0 || instWord(code, b*3+2) == 0 {
			continue // an all-zero second or third word undoes the shift
		}
		all := opensPair(CtrlField(ctrl, 0))
		nextCtrl := binary.LittleEndian.Uint64(code[(b+1)*BundleSize:])
		for slot := 0; slot < 3; slot++ {
			at := (b+1)*BundleSize + 8 + 8*slot
			word := binary.LittleEndian.Uint64(code[at:])
			if _, err := Decode(word, CtrlField(nextCtrl, slot), sm, base+uint64(at)); err != nil {
				continue // the decoder reports it
			}
			neighbour := at - 8
			if all {
				neighbour = at + 8
			}
			if !variableAt(code, neighbour, CtrlField(nextCtrl, slot), base, sm) {
				errs = append(errs, &isa.DecodeError{Addr: base + uint64(at), Len: 8, Err: isa.ErrInvalid, Detail: unitErrorText})
			}
		}
		b++ // the rejected bundle does not act on the next
	}
	return errs
}

// variableAt: the 8 bytes at offset off of code decode as a
// variable-latency instruction or are all zero: an instruction under its own
// control field, a control word (at a bundle's start, where nvdisasm reads one as an
// instruction here) under ctrl, the field of the slot checked.
func variableAt(code []byte, off int, ctrl Ctrl, base uint64, sm int) bool {
	if off+8 > len(code) {
		return false
	}
	if off%BundleSize != 0 {
		ctrl = CtrlField(binary.LittleEndian.Uint64(code[off/BundleSize*BundleSize:]), off%BundleSize/8-1)
	}
	inst, err := Decode(binary.LittleEndian.Uint64(code[off:]), ctrl, sm, base+uint64(off))
	return err == nil && forms[inst.form].attrs&(attrVar|attrNoCtrl) != 0 // a zero word goes with anything
}
