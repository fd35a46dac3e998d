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
	var errs []*isa.DecodeError
	var buf []byte
	for pc := 0; pc < len(code); {
		addr := base + uint64(pc)
		inst, err := Decode(code[pc:], addr)
		if err != nil {
			de := err.(*isa.DecodeError)
			errs = append(errs, de)
			n := de.Len
			if n <= 0 || n > len(code)-pc {
				n = len(code) - pc
			}
			for k := 0; k+4 <= n; k += 4 { // as the listing: one .word per word
				buf = isa.AppendHexNum(append(buf[:0], ".word "...), uint64(binary.LittleEndian.Uint32(code[pc+k:])))
				insts = append(insts, cfg.Inst{Addr: addr + uint64(k)})
				lines = append(lines, string(buf)+";")
			}
			pc += n
			continue
		}
		insts = append(insts, BranchFacts(inst, addr, base))
		buf = AppendText(buf[:0], inst, addr)
		lines = append(lines, string(buf))
		pc += int(inst.Len)
	}
	return cfg.Program(name, insts, lines, 0), errs
}
