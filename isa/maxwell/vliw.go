package maxwell

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/gpuisa/gpuisa/isa"
)

// unitErrorText is how nvdisasm words the rejections of ReadVLIW (and any
// word it cannot decode).
const unitErrorText = "Unrecognized operation for functional unit 'uC'"

// VLIWReading is what nvdisasm makes of code when it lists it with braces
// (without -novliw), found by experiment with nvdisasm 11.8 on crafted
// control words. A bundle whose second and third control fields both mark
// a dual issue (stall 0 with the yield bit), and whose second and third
// instructions both decode and are not all-zero words, makes nvdisasm read
// the next bundle shifted by one word, as a group it cannot place. It does
// not decode that bundle's own instructions (their decoding errors are not
// reported) but rejects each of its slots whose neighbour does not decode
// as a variable-latency instruction: the neighbour before it (for the
// first slot, the bundle's control word read as an instruction), or, when
// the marking bundle's first field marks a dual issue too and its first
// instruction decodes and is not an all-zero word, the neighbour after it (for the third, the next
// bundle's control word). An all-zero word as a neighbour counts as a
// variable-latency one.
//
// The bundle so read does not act in turn on the one after it; a marking
// bundle at the end of the code rejects nothing. Addresses are base plus
// the offset in code (whole bundles; a partial one is ignored). Control
// words read as instructions are where this model is least sure: nvdisasm
// accepts some that decode as variable-latency loads and texture
// instructions.
type VLIWReading struct {
	Errors  []*isa.DecodeError // the rejections, in address order
	Shifted []uint64           // the address of every bundle read shifted
}

// ReadVLIW reads code as nvdisasm does when it lists it with braces
// (VLIWReading).
func ReadVLIW(code []byte, base uint64, sm int) VLIWReading {
	n := len(code) / BundleSize
	var r VLIWReading
	decodes := func(i int) bool { // instruction i decodes under its own field
		at := i/3*BundleSize + 8 + 8*(i%3)
		_, err := Decode(instWord(code, i), CtrlField(binary.LittleEndian.Uint64(code[i/3*BundleSize:]), i%3), sm, base+uint64(at))
		return err == nil
	}
	for b := 0; b+1 < n; b++ {
		ctrl := binary.LittleEndian.Uint64(code[b*BundleSize:])
		if !opensPair(CtrlField(ctrl, 1)) || !opensPair(CtrlField(ctrl, 2)) ||
			instWord(code, b*3+1) == 0 || instWord(code, b*3+2) == 0 ||
			!decodes(b*3+1) || !decodes(b*3+2) {
			continue // an all-zero or undecodable second or third word undoes the shift
		}
		after := opensPair(CtrlField(ctrl, 0)) && instWord(code, b*3) != 0 && decodes(b*3)
		r.Shifted = append(r.Shifted, base+uint64((b+1)*BundleSize))
		nextCtrl := binary.LittleEndian.Uint64(code[(b+1)*BundleSize:])
		for slot := 0; slot < 3; slot++ {
			at := (b+1)*BundleSize + 8 + 8*slot
			neighbour := at - 8
			if after {
				neighbour = at + 8
			}
			if !variableAt(code, neighbour, CtrlField(nextCtrl, slot), base, sm) {
				r.Errors = append(r.Errors, &isa.DecodeError{Addr: base + uint64(at), Len: 8, Err: isa.ErrInvalid, Detail: unitErrorText})
			}
		}
		b++ // the bundle read shifted does not act on the next
	}
	r.openEnd(code, base, sm, decodes)
	return r
}

// openEnd adds nvdisasm's complaint about code whose last instruction
// opens a pair (it decodes, is not an all-zero word, and its bundle is not
// read shifted): "Unaligned instruction found", or, when the last bundle
// marks a dual issue in all three fields (and so reads the bundle past the
// end shifted), maybe a rejection of that bundle's first slot
// (rejectsPastEnd).
func (r *VLIWReading) openEnd(code []byte, base uint64, sm int, decodes func(int) bool) {
	n := len(code) / BundleSize
	last := n*3 - 1
	if n == 0 || (len(r.Shifted) > 0 && r.Shifted[len(r.Shifted)-1] == base+uint64((n-1)*BundleSize)) {
		return
	}
	ctrl := binary.LittleEndian.Uint64(code[(n-1)*BundleSize:])
	if !opensPair(CtrlField(ctrl, 2)) || instWord(code, last) == 0 || !decodes(last) {
		return
	}
	end := base + uint64(n*BundleSize)
	if opensPair(CtrlField(ctrl, 1)) && instWord(code, last-1) != 0 && decodes(last-1) &&
		opensPair(CtrlField(ctrl, 0)) && instWord(code, last-2) != 0 && decodes(last-2) {
		if rejectsPastEnd(n) {
			r.Errors = append(r.Errors, &isa.DecodeError{Addr: end + 8, Len: 8, Err: isa.ErrInvalid, Detail: unitErrorText})
		}
		return
	}
	r.Errors = append(r.Errors, &isa.DecodeError{Addr: end, Err: isa.ErrTruncated})
}

// Hides tells whether nvdisasm leaves out a decoding error at addr: the
// instructions of a bundle read shifted are not decoded on their own
// (bases are whole bundles).
func (r *VLIWReading) Hides(addr uint64) bool {
	_, found := slices.BinarySearch(r.Shifted, addr/BundleSize*BundleSize)
	return found
}

// Add adds the reading of other code to r. A cubin's functions are read
// one by one at address 0: a decoding error at an address one of them
// reads shifted is then hidden in all of them (nvdisasm lists nothing of
// a cubin with an error, so only which errors it reports can differ).
func (r *VLIWReading) Add(other VLIWReading) {
	r.Errors = append(r.Errors, other.Errors...)
	r.Shifted = append(r.Shifted, other.Shifted...)
	slices.SortStableFunc(r.Errors, func(a, b *isa.DecodeError) int { return cmp.Compare(a.Addr, b.Addr) })
	slices.Sort(r.Shifted)
}

// Merge returns the errors nvdisasm reports when it lists with braces:
// the decoding errors errs it does not hide, and the rejections, in address
// order.
func (r *VLIWReading) Merge(errs []*isa.DecodeError) []*isa.DecodeError {
	out := make([]*isa.DecodeError, 0, len(errs)+len(r.Errors))
	for _, e := range errs {
		if !r.Hides(e.Addr) {
			out = append(out, e)
		}
	}
	out = append(out, r.Errors...)
	slices.SortStableFunc(out, func(a, b *isa.DecodeError) int { return cmp.Compare(a.Addr, b.Addr) })
	return out
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

// rejectsPastEnd: nvdisasm, reading the bundle past the end of code of n
// bundles, rejects its first slot. That bundle is memory nvdisasm did not
// load, so the verdict follows its heap, not the code: probed with
// nvdisasm 11.8 (a last bundle marking all three fields, every size from 1
// to 500 bundles, then 1,000, 4,000 and 10,000), it rejects for 1, 6 to 32
// and 427 or more bundles, and not for 2 to 5 and 33 to 426.
func rejectsPastEnd(n int) bool { return n == 1 || (n >= 6 && n <= 32) || n >= 427 }
