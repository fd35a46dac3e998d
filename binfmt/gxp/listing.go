package gxp

import (
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/isa"
)

// AppendListing appends a listing of p: comment lines with the program type,
// register counts and the parameter table (name, category, type, registers),
// then the primary and the secondary program, each disassembled by dis from
// address 0 (branch targets count from the start of their program). The
// comments use "//", so the listing assembles back to the two programs'
// code, primary first.
func (p *Program) AppendListing(dst []byte, dis isa.DisassembleFunc) ([]byte, []*isa.DecodeError) {
	dst = p.appendHeader(dst)
	var errs []*isa.DecodeError
	for _, prog := range p.programs() {
		dst = prog.appendTitle(dst)
		var e []*isa.DecodeError
		dst, e = dis(dst, Code(prog.words), 0)
		errs = append(errs, e...)
	}
	return dst, errs
}

// WriteListing writes what AppendListing appends to w, the programs
// streamed by write, so that memory does not grow with the listing. err is
// w's first write error.
func (p *Program) WriteListing(w io.Writer, write isa.WriteListingFunc) ([]*isa.DecodeError, error) {
	if _, err := w.Write(p.appendHeader(nil)); err != nil {
		return nil, err
	}
	var errs []*isa.DecodeError
	for _, prog := range p.programs() {
		if _, err := w.Write(prog.appendTitle(nil)); err != nil {
			return errs, err
		}
		e, err := write(w, Code(prog.words), 0)
		errs = append(errs, e...)
		if err != nil {
			return errs, err
		}
	}
	return errs, nil
}

// appendHeader appends the comment lines before the programs.
func (p *Program) appendHeader(dst []byte) []byte {
	dst = fmt.Appendf(dst, "// GXP %s program, version %d.%d, flags 0x%x, %d PA, %d SA, %d temps\n",
		p.Kind, p.Major, p.Minor, p.Flags, p.PARegs, p.SARegs, p.TempRegs)
	for _, prm := range p.Params {
		dst = fmt.Appendf(dst, "// parameter %-24s %-13s %s x%d", prm.Name, prm.Category, prm.Type, prm.Components)
		if prm.ArraySize > 1 {
			dst = fmt.Appendf(dst, "[%d]", prm.ArraySize)
		}
		dst = fmt.Appendf(dst, " at %s\n", prm.Register())
	}
	return dst
}

// listedProgram is the primary or the secondary program.
type listedProgram struct {
	name  string
	words []uint64
	off   uint32
}

func (p *Program) programs() []listedProgram {
	return []listedProgram{{"primary", p.Primary, p.PrimaryOffset}, {"secondary", p.Secondary, p.SecondaryOffset}}
}

func (lp listedProgram) appendTitle(dst []byte) []byte {
	return fmt.Appendf(dst, "// %s program: %d instructions at file offset 0x%x\n", lp.name, len(lp.words), lp.off)
}
