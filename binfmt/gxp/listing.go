package gxp

import (
	"fmt"

	"github.com/gpuisa/gpuisa/isa"
)

// AppendListing appends a listing of p: comment lines with the program type,
// register counts and the parameter table (name, category, type, registers),
// then the primary and the secondary program, each disassembled by dis from
// address 0 (branch targets count from the start of their program). The
// comments use "//", so the listing assembles back to the two programs'
// code, primary first.
func (p *Program) AppendListing(dst []byte, dis isa.DisassembleFunc) ([]byte, []*isa.DecodeError) {
	dst = fmt.Appendf(dst, "// GXP %s program, version %d.%d, flags 0x%x, %d PA, %d SA, %d temps\n",
		p.Kind, p.Major, p.Minor, p.Flags, p.PARegs, p.SARegs, p.TempRegs)
	for _, prm := range p.Params {
		dst = fmt.Appendf(dst, "// parameter %-24s %-13s %s x%d", prm.Name, prm.Category, prm.Type, prm.Components)
		if prm.ArraySize > 1 {
			dst = fmt.Appendf(dst, "[%d]", prm.ArraySize)
		}
		dst = fmt.Appendf(dst, " at %s\n", prm.Register())
	}
	var errs []*isa.DecodeError
	for _, prog := range []struct {
		name  string
		words []uint64
		off   uint32
	}{{"primary", p.Primary, p.PrimaryOffset}, {"secondary", p.Secondary, p.SecondaryOffset}} {
		dst = fmt.Appendf(dst, "// %s program: %d instructions at file offset 0x%x\n", prog.name, len(prog.words), prog.off)
		var e []*isa.DecodeError
		dst, e = dis(dst, Code(prog.words), 0)
		errs = append(errs, e...)
	}
	return dst, errs
}
