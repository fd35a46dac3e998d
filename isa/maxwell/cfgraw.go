package maxwell

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/cfg"
)

// RawGraphs returns the control-flow graph of raw sm_5x code loaded at
// base (whole 32-byte bundles), entered at its first instruction and named
// name, then one per subroutine its CAL instructions reach. Raw code has
// no EIATTR_INDIRECT_BRANCH_TARGETS, so SYNC, BRK and CONT go where the
// stack walk finds the SSY, PBK and PCNT before them (cfg.Stack), and RET
// to a PRET target when one is on the stack.
func RawGraphs(code []byte, base uint64, sm int, name string) ([]cfg.Function, []*isa.DecodeError) {
	var insts []cfg.Inst
	var lines []string
	var errs []*isa.DecodeError
	var text []byte
	eachSlot(code, base, sm, func(addr, word uint64, _ Ctrl, inst Inst, err error) bool {
		if err != nil {
			errs = append(errs, err.(*isa.DecodeError))
			insts = append(insts, cfg.Inst{Addr: addr})
			lines = append(lines, string(isa.AppendHexNum(append(text[:0], ".word "...), word)))
			return true
		}
		in := BranchFacts(inst, addr, nil)
		t, ok := relTarget(inst, addr)
		if ok && (t-base)%BundleSize == 0 {
			t += 8 // a control word's address means the instruction after it
		}
		switch forms[inst.form].name {
		case "SSY":
			in.Push, in.PushTarget = cfg.Sync, t
		case "PBK":
			in.Push, in.PushTarget = cfg.Break, t
		case "PCNT":
			in.Push, in.PushTarget = cfg.Cont, t
		case "PRET":
			in.Push, in.PushTarget = cfg.Return, t
		case "SYNC":
			in.PopTo, in.Leader = cfg.Sync, true
		case "BRK":
			in.PopTo, in.Leader = cfg.Break, true
		case "CONT":
			in.PopTo, in.Leader = cfg.Cont, true
		case "RET":
			in.PopTo = cfg.Return
		case "CAL":
			if ok {
				in.Targets = []uint64{t}
			}
		}
		if in.Push != cfg.NoStack && !ok {
			in.Push = cfg.NoStack
		}
		insts = append(insts, in)
		text = appendBody(appendGuard(text[:0], inst), inst, addr)
		lines = append(lines, string(trimSemicolon(text, 0)))
		return true
	})
	if r := len(code) % BundleSize; r != 0 {
		errs = append(errs, &isa.DecodeError{Addr: base + uint64(len(code)-r), Len: r, Err: isa.ErrTruncated})
	}
	return cfg.Program(name, insts, lines, 0), errs
}

// eachSlot calls fn for each instruction slot of whole bundles of raw
// sm_5x code loaded at base: its address, word, control field, and the
// decoded instruction or the decode error. fn returns false to stop.
func eachSlot(code []byte, base uint64, sm int, fn func(addr, word uint64, c Ctrl, inst Inst, err error) bool) {
	for b := 0; b+BundleSize <= len(code); b += BundleSize {
		ctrl := binary.LittleEndian.Uint64(code[b:])
		for s := 0; s < 3; s++ {
			off := b + 8 + 8*s
			addr := base + uint64(off)
			word := binary.LittleEndian.Uint64(code[off:])
			c := CtrlField(ctrl, s)
			inst, err := Decode(word, c, sm, addr)
			if !fn(addr, word, c, inst, err) {
				return
			}
		}
	}
}
