package fermi

import (
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/cfg"
)

// Condition-code tests that decide a control instruction's fate alone.
const (
	ccFalse = 0  // F: never
	ccTrue  = 15 // T: always (prints nothing)
)

// BranchFacts returns the control-flow facts of inst at addr of code loaded
// at base, from its form and decoded operands: BRA/BRA_N (guarded by a
// predicate and a condition-code test), JMP (absolute: base is added),
// BRX/JMX (targets in registers or constants: unknown), CAL/JCAL, SSY,
// PBK, PCNT and PRET (they push their target), BRK, CONT and RET (to the
// innermost entry of their kind), EXIT and KIL, LONGJMP (unknown), and the
// .S flag of other instructions (to the innermost SSY target).
func BranchFacts(inst Inst, addr, base uint64) cfg.Inst {
	in := cfg.Inst{Addr: addr}
	reg, neg := inst.Guard()
	if reg == 7 && neg {
		return in // @!PT: never runs
	}
	in.Cond = reg != 7
	args, n := inst.Args(addr)
	// the condition-code test, when the form has one (always first)
	if n > 0 && args[0].Kind == ArgCC {
		switch args[0].Reg {
		case ccFalse:
			return in
		case ccTrue:
		default:
			in.Cond = true
		}
	}
	// target is where the form's target operand points, ok false when it
	// is read from a register or constant
	target := func() (uint64, bool) {
		for _, a := range args[:n] {
			switch a.Kind {
			case ArgTarget:
				return uint64(a.Imm), true
			case ArgImm:
				return base + uint64(a.Imm), true // JMP, JCAL: absolute in the code
			}
		}
		return 0, false
	}
	t, known := target()
	switch inst.Op() {
	case "BRA", "BRA_N", "JMP":
		in.Kind = cfg.Jump
		if known {
			in.Targets = []uint64{t}
		} else {
			in.Opaque = true
		}
	case "BRX", "JMX", "LONGJMP":
		in.Kind, in.Opaque = cfg.Jump, true
	case "CAL", "JCAL":
		in.Kind = cfg.Call
		if known {
			in.Targets = []uint64{t}
		}
	case "SSY":
		in.Push, in.PushTarget, in.Cond = cfg.Sync, t, false
	case "PBK":
		in.Push, in.PushTarget, in.Cond = cfg.Break, t, false
	case "PCNT":
		in.Push, in.PushTarget, in.Cond = cfg.Cont, t, false
	case "PRET":
		in.Push, in.PushTarget, in.Cond = cfg.Return, t, false
	case "EXIT", "KIL":
		in.Kind = cfg.Exit
	case "RET":
		in.Kind, in.PopTo = cfg.Exit, cfg.Return
	case "BRK":
		in.Kind, in.Opaque, in.PopTo = cfg.Jump, true, cfg.Break
	case "CONT":
		in.Kind, in.Opaque, in.PopTo = cfg.Jump, true, cfg.Cont
	default:
		if s, ok := inst.Mod(".S"); ok && s != 0 {
			in.PopTo = cfg.Sync // after it, the lanes that ran it wait at the SSY target
		} else {
			in.Cond = false
		}
	}
	return in
}

// Graphs returns the control-flow graph of raw sm_2x code loaded at base,
// entered at its first instruction and named name, then one graph per
// subroutine its calls reach (cfg.Program). The texts are the New
// dialect's. Words that do not decode are reported and pass control on.
func Graphs(code []byte, base uint64, name string) ([]cfg.Function, []*isa.DecodeError) {
	var insts []cfg.Inst
	var lines []string
	var buf []byte
	errs := eachInst(code, base, func(addr uint64, inst Inst, de *isa.DecodeError) {
		if de != nil {
			insts = append(insts, cfg.Inst{Addr: addr})
			text := de.Err.Error()
			if de.Detail != "" {
				text += ": " + de.Detail
			}
			lines = append(lines, "/* "+text+" */")
			return
		}
		insts = append(insts, BranchFacts(inst, addr, base))
		buf = AppendText(buf[:0], inst, addr)
		lines = append(lines, string(buf))
	})
	return cfg.Program(name, insts, lines, 0), errs
}

// eachInst calls fn for each instruction of code loaded at base, or with
// the error of an encoding that does not decode (then going on after it,
// as the listing does), and returns the errors.
func eachInst(code []byte, base uint64, fn func(addr uint64, inst Inst, de *isa.DecodeError)) []*isa.DecodeError {
	var errs []*isa.DecodeError
	for off := 0; off < len(code); {
		addr := base + uint64(off)
		inst, err := DecodeAt(code[off:], addr)
		if err != nil {
			de, ok := err.(*isa.DecodeError)
			if !ok {
				de = &isa.DecodeError{Addr: addr, Len: 8, Err: isa.ErrInvalid}
			}
			errs = append(errs, de)
			fn(addr, inst, de)
			if de.Len <= 0 {
				de.Len = 8
			}
			off += de.Len
			continue
		}
		fn(addr, inst, nil)
		off += inst.Len()
	}
	return errs
}
