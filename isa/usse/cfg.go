package usse

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/cfg"
)

// BranchFacts returns the control-flow facts of in at addr of a program
// loaded at base, from its decoded fields: ba (absolute instruction index)
// and br (signed offset in instructions) jump, or call when they save the
// link register (savelink); lapc returns through the link register; kill
// ends the instance; an instruction with the end flag ends the program
// after it, whatever its predicate. A predicate other than "always"
// (field value 0), and a branch's anyinst/allinst tests, make a branch or
// kill conditional.
func BranchFacts(in *Inst, addr, base uint64) cfg.Inst {
	out := cfg.Inst{Addr: addr}
	field := func(name string) uint32 {
		v, _ := in.Field(name)
		return v
	}
	pred := field("pred") != 0
	switch in.Name() {
	case "branch":
		off := field("off")
		t := base + 8*uint64(off)
		if field("br") != 0 {
			t = addr + uint64(isa.SignExtend(uint64(off), 20)*8)
		}
		out.Kind, out.Targets, out.Cond = cfg.Jump, []uint64{t}, pred
		if field("savelink") != 0 {
			out.Kind, out.Cond = cfg.Call, false
		}
	case "lapc":
		out.Kind, out.Cond = cfg.Exit, pred
	case "kill":
		out.Kind, out.Cond = cfg.Exit, pred
	}
	if field("end") != 0 {
		out.Kind, out.Cond = cfg.Exit, false
	}
	return out
}

// Graphs returns the control-flow graph of a raw USSE program loaded at
// base, entered at its first instruction and named name, then one graph
// per subroutine its linking branches reach (cfg.Program). The texts are
// the listing's. Words that do not decode are reported and pass control
// on.
func Graphs(code []byte, base uint64, name string) ([]cfg.Function, []*isa.DecodeError) {
	var insts []cfg.Inst
	var lines []string
	var errs []*isa.DecodeError
	var buf []byte
	for off := 0; off+Len <= len(code); off += Len {
		addr := base + uint64(off)
		in, err := DecodeWord(binary.LittleEndian.Uint64(code[off:]), addr)
		if err != nil {
			errs = append(errs, err.(*isa.DecodeError))
			insts = append(insts, cfg.Inst{Addr: addr})
		} else {
			insts = append(insts, BranchFacts(&in, addr, base))
		}
		buf = append(appendText(buf[:0], &in), " ;"...)
		lines = append(lines, string(buf))
	}
	if r := len(code) % Len; r != 0 {
		errs = append(errs, &isa.DecodeError{Addr: base + uint64(len(code)-r), Len: r, Err: isa.ErrTruncated})
	}
	return cfg.Program(name, insts, lines, 0), errs
}
