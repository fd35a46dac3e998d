package maxwell

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
)

// Decoder decodes sm_5x code: the decoding shape every ISA package shares,
// Decoder.Decode(code, addr). Code comes in 32-byte bundles (a control word,
// then three instructions), so an instruction decodes with the control field
// its bundle gives it and the SM whose rules apply.
type Decoder struct {
	SM   int    // 50, 52 or 53
	Base uint64 // address of code[0] (a multiple of 32: bundles start there)
}

// Decode decodes the instruction at address addr of code, which is loaded
// at d.Base. addr must be an instruction's address (8, 16 or 24 past a
// bundle's start). Errors are *isa.DecodeError naming addr (Len 8: skip to
// the next instruction); the success path does not allocate.
func (d Decoder) Decode(code []byte, addr uint64) (Inst, error) {
	off := addr - d.Base
	if addr < d.Base || off >= uint64(len(code)) {
		return Inst{}, &isa.DecodeError{Addr: addr, Len: 8, Err: isa.ErrTruncated,
			Detail: fmt.Sprintf("address outside the code (%d bytes at %#x)", len(code), d.Base)}
	}
	if off%8 != 0 || off%32 == 0 {
		return Inst{}, &isa.DecodeError{Addr: addr, Len: 8, Err: isa.ErrInvalid,
			Detail: "not an instruction's address (bundles are a control word and three instructions)"}
	}
	bundle := off &^ 31
	if off+8 > uint64(len(code)) {
		return Inst{}, &isa.DecodeError{Addr: addr, Len: int(uint64(len(code)) - off), Err: isa.ErrTruncated}
	}
	ctrl := binary.LittleEndian.Uint64(code[bundle:])
	word := binary.LittleEndian.Uint64(code[off:])
	return Decode(word, CtrlField(ctrl, int(off%32/8-1)), d.SM, addr)
}

// buildTableToks lists each form's table tokens: the ones Decode checks for
// values nvdisasm calls undefined (tableToks, in inittables.go).
func buildTableToks() (p [len(forms)][]uint8) {
	for f := range forms {
		for k, t := range forms[f].toks {
			if t.kind == tkTable {
				p[f] = append(p[f], uint8(k))
			}
		}
	}
	return
}

// buildRejectToks lists each form's table tokens whose table has values
// nvdisasm rejects (19 of the 473 forms have any): the ones Decode checks
// (rejectToks, in inittables.go).
func buildRejectToks() (p [len(forms)][]uint8) {
	tableToks := buildTableToks()
	for f := range forms {
		for _, k := range tableToks[f] {
			kinds := tables[forms[f].toks[k].arg].kinds
			if slices.Contains(kinds, kindRejected) || slices.Contains(kinds, kindRejectedOp) {
				p[f] = append(p[f], k)
			}
		}
	}
	return
}

// lookup finds the form whose fixed bits match w and that exists on sm, or -1.
func lookup(w uint64, sm int) int {
	for i := dispatch[w>>dispatchShift]; candidates[i] != 0xffff; i++ {
		f := &forms[candidates[i]]
		if w&f.mask == f.value && (f.attrs&(attrSM52|attrSM50) == 0 || (sm >= 52) == (f.attrs&attrSM52 != 0)) {
			return int(candidates[i])
		}
	}
	return -1
}

// Decode decodes one instruction word at addr under its control field for sm
// (50, 52 or 53): the word-level decoder under Decoder.Decode, for tools
// that hold words and control fields rather than code. On error the Inst still holds the word and control field and
// the error is a fresh *isa.DecodeError naming addr (Len 8, wrapping
// isa.ErrInvalid); the success path does not allocate.
func Decode(word uint64, ctrl Ctrl, sm int, addr uint64) (Inst, error) {
	inst := Inst{Word: word, Ctrl: ctrl}
	fi := lookup(word, sm)
	if fi < 0 {
		return inst, unrecognized(addr)
	}
	inst.form = uint16(fi)
	f := &forms[fi]
	if f.attrs&attrBad != 0 {
		return inst, unrecognized(addr)
	}
	// nvdisasm's validity rules for the control field (probed per form):
	// fixed-latency instructions take no barriers; reuse bit 3 is rejected by
	// fixed-latency ALU instructions and a few variable-latency ones. The
	// all-zero word (attrNoCtrl) takes any control field.
	if f.attrs&attrNoCtrl != 0 {
		return inst, nil
	}
	if f.attrs&attrVar == 0 && (ctrl.WriteBarrier() != 7 || ctrl.ReadBarrier() != 7) {
		return inst, unrecognized(addr)
	}
	if ctrl.Reuse()&8 != 0 && (f.attrs&(attrVar|attrCF) == 0 || f.attrs&attrNoR3 != 0) {
		return inst, unrecognized(addr)
	}
	// after the control field: nvdisasm names the functional unit when
	// both are wrong (IADD32I with PSign32 1 and a barrier, ptxas -G code
	// read as raw)
	for _, k := range rejectToks[fi] {
		t := &f.toks[k]
		v := t.get(word)
		switch tables[t.arg].kinds[v] {
		case kindRejected:
			return inst, &isa.DecodeError{Addr: addr, Len: 8, Err: isa.ErrInvalid,
				Detail: fmt.Sprintf("Opclass '%s', undefined value 0x%x for table '%s'", opclass(fi), v, tables[t.arg].name)}
		case kindRejectedOp:
			return inst, unrecognized(addr)
		}
	}
	return inst, nil
}

// Table entry kinds (spec.txt's "!" and "!!"): values nvdisasm rejects,
// naming the table or as an unknown operation.
const (
	kindRejected   = 2
	kindRejectedOp = 4
)

// opclass is nvdisasm's name for form fi in its messages: the mnemonic with
// its fixed modifiers joined by '_' (TEXS_F16, TXQ_B), and _RZ for the
// texture forms that take RZ as their first destination (bits 28-35 all
// set), as nvdisasm 11.8 names them in the oracle's random words.
func opclass(fi int) string {
	f := &forms[fi]
	if f.opclass != "" {
		return f.opclass
	}
	name := f.name
	if len(f.toks) > 0 && f.toks[0].kind == tkLit {
		name = strings.ReplaceAll(f.toks[0].text, ".", "_")
	}
	const rz = 0xff << 28
	if f.attrs&attrTex != 0 && f.mask&rz == rz && f.value&rz == rz {
		name += "_RZ"
	}
	return name
}

// unrecognized is what nvdisasm says for opcodes it does not know, and for
// fixed-latency instructions with barriers.
func unrecognized(addr uint64) *isa.DecodeError {
	return &isa.DecodeError{Addr: addr, Len: 8, Err: isa.ErrInvalid, Detail: unitErrorText}
}
