package tesla

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/cfg"
)

// condNever is the guard condition FALSE: the instruction never acts.
const condNever = 0

// BranchFacts returns the control-flow facts of inst at addr of code loaded
// at base, from its form's semantic class and its fields: BRA (guarded by
// a condition register test), CAL, RET, SSY, PBK/BRK (breakaddr/break),
// PRET, BRX (through a constant table: an unknown target), KIL, TRAP, the
// end-of-program marker and the .S join marker (a reconvergence point).
// Branch targets are offsets from the start of the code, as the listing
// prints them; base is added.
func BranchFacts(inst Inst, addr, base uint64) cfg.Inst {
	in := cfg.Inst{Addr: addr, Leader: inst.Join()}
	f := &forms[inst.Form]
	v := inst.Raw
	cond := uint64(condAlways)
	if (f.class == ClassLong || f.class == ClassFlow) && f.ignore&f_cond.Mask() == 0 {
		cond = f_cond.Get(v)
	}
	if cond == condNever && f.sem != "trap" && f.sem != "cal" {
		return in // never acts (TRAP's guard bits are fixed to zero: it always traps; CAL.NOINC's are zero too and it always calls, as emu/tesla runs it)
	}
	in.Cond = cond != condAlways
	target := base + (f_tgt.Get(v) | f_tgthi.Get(v)<<19)
	switch f.sem {
	case "bra":
		in.Kind, in.Targets = cfg.Jump, []uint64{target}
	case "cal":
		in.Kind, in.Targets, in.Cond = cfg.Call, []uint64{target}, false
	case "ret":
		in.Kind, in.PopTo = cfg.Exit, cfg.Return
	case "ssy":
		in.Push, in.PushTarget, in.Cond = cfg.Sync, target, false
	case "pbk":
		in.Push, in.PushTarget, in.Cond = cfg.Break, target, false
	case "pret":
		in.Push, in.PushTarget, in.Cond = cfg.Return, target, false
	case "brk":
		in.Kind, in.Opaque, in.PopTo = cfg.Jump, true, cfg.Break
	case "brx":
		in.Kind, in.Opaque, in.Cond = cfg.Jump, true, false
	case "kil":
		in.Kind = cfg.Exit
	case "trap":
		in.Kind, in.Cond = cfg.Exit, false
	default:
		in.Cond = false
	}
	if inst.Exit() {
		in.Kind, in.Cond = cfg.Exit, false // the thread ends after it, guard or not
	}
	return in
}

// Graphs returns the control-flow graph of raw Tesla code loaded at base,
// entered at its first instruction and named name, then one graph per
// subroutine its CAL instructions reach (cfg.Program). The graphs' texts
// are the listing's. Words that do not decode are reported and pass
// control on.
func Graphs(code []byte, base uint64, name string) ([]cfg.Function, []*isa.DecodeError) {
	var insts []cfg.Inst
	var lines []string
	var buf []byte
	errs := eachInst(code, base, func(addr uint64, inst Inst, bad []byte, _ *isa.DecodeError) bool {
		if bad != nil {
			insts = append(insts, cfg.Inst{Addr: addr})
			lines = append(lines, string(appendWord(buf[:0], bad)))
			return true
		}
		insts = append(insts, BranchFacts(inst, addr, base))
		buf = AppendText(buf[:0], inst, addr)
		lines = append(lines, string(buf))
		return true
	})
	return cfg.Program(name, insts, lines, 0), errs
}

// eachInst calls fn for each instruction of code loaded at base, and for
// each 32-bit word of an encoding that does not decode (bad: the word's
// bytes, de its error), as the listing goes on after them; fn returns
// false to stop. It returns the decode errors.
func eachInst(code []byte, base uint64, fn func(addr uint64, inst Inst, bad []byte, de *isa.DecodeError) bool) []*isa.DecodeError {
	var errs []*isa.DecodeError
	for pc := 0; pc < len(code); {
		addr := base + uint64(pc)
		inst, err := Decode(code[pc:], addr)
		if err == nil {
			if !fn(addr, inst, nil, nil) {
				return errs
			}
			pc += int(inst.Len)
			continue
		}
		de := err.(*isa.DecodeError)
		errs = append(errs, de)
		n := de.Len
		if n <= 0 || n > len(code)-pc {
			n = len(code) - pc
		}
		for k := 0; k+4 <= n; k += 4 {
			if !fn(addr+uint64(k), Inst{}, code[pc+k:pc+k+4], de) {
				return errs
			}
		}
		pc += n
	}
	return errs
}

// appendWord appends the listing's text of a word that does not decode.
func appendWord(dst, word []byte) []byte {
	return append(isa.AppendHexNum(append(dst, ".word "...), uint64(binary.LittleEndian.Uint32(word))), ';')
}
