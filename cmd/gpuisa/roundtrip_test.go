package main

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/maxwell"
	"github.com/gpuisa/gpuisa/isa/tesla"
)

// codeOf is the code of a container's first function (a cubin's, or the
// first cubin's of a fatbin or host object), or a GXP shader's primary
// program; nil when there is none.
func codeOf(data []byte, _ *bytes.Buffer) []byte {
	if isGXP(data) {
		p, err := gxp.Parse(data)
		if err != nil {
			return nil
		}
		return gxp.Code(p.Primary)
	}
	f, err := cubin.Parse(data)
	if err != nil {
		es, err := fatbin.Extract(data)
		if err != nil {
			return nil
		}
		for _, e := range es {
			if e.Kind == fatbin.KindELF {
				if f, err = cubin.Parse(e.Payload); err == nil {
					break
				}
			}
		}
		if f == nil {
			return nil
		}
	}
	if len(f.Functions) == 0 {
		return nil
	}
	return f.Functions[0].Code
}

// dontCare returns the bits of code (one mask byte per code byte) that
// may differ after dis | as for an ISA whose listings cannot carry them
// (docs/roundtrip.md); nil when every bit comes back. The ISA packages say
// which bits of an instruction its text does not show.
func dontCare(a isa.Arch, code []byte) []byte {
	switch a.ISA {
	case "maxwell":
		return maxwellDontCare(a, code)
	case "tesla":
		return teslaDontCare(code)
	}
	return nil
}

// maxwellDontCare: the bits of an instruction no field covers, and the
// fields whose value prints as another's does.
func maxwellDontCare(a isa.Arch, code []byte) []byte {
	mask := make([]byte, len(code))
	le := binary.LittleEndian
	for b := 0; b+maxwell.BundleSize <= len(code); b += maxwell.BundleSize {
		ctrl := le.Uint64(code[b:])
		for s := range 3 {
			at := b + 8 + 8*s
			inst, err := maxwell.Decode(le.Uint64(code[at:]), maxwell.CtrlField(ctrl, s), a.SMVersion, uint64(at))
			if err == nil {
				le.PutUint64(mask[at:], inst.DontCare()|inst.Ambiguous())
			}
		}
	}
	return mask
}

// teslaDontCare: the bits the hardware ignores and the end-of-program
// marker.
func teslaDontCare(code []byte) []byte {
	mask := make([]byte, len(code))
	for pc := 0; pc < len(code); {
		inst, err := tesla.Decode(code[pc:], uint64(pc))
		if err != nil {
			// listed as .word lines, which come back as they are; dis
			// goes on after the error's length, as the walk must
			var de *isa.DecodeError
			n := 4
			if errors.As(err, &de) && de.Len > 0 {
				n = de.Len
			}
			pc += n
			continue
		}
		var m [8]byte
		binary.LittleEndian.PutUint64(m[:], inst.DontCare())
		copy(mask[pc:min(pc+int(inst.Len), len(code))], m[:])
		pc += int(inst.Len)
	}
	return mask
}

// samePrinted reports whether byte i of got and want lies in sm_5x
// instructions that decode and print the same text under their bundle's
// control field: what differs is not in the text (a NaN payload printed as
// QNAN, a form whose template prints as another's does, besides the masks
// of dontCare), docs/roundtrip.md.
func samePrinted(a isa.Arch, got, want []byte, i int) bool {
	if a.ISA != "maxwell" || i%maxwell.BundleSize < 8 {
		return false
	}
	le := binary.LittleEndian
	b, at := i/maxwell.BundleSize*maxwell.BundleSize, i&^7
	s := (at - b - 8) / 8
	text := func(code []byte) (string, bool) {
		inst, err := maxwell.Decode(le.Uint64(code[at:]), maxwell.CtrlField(le.Uint64(code[b:]), s), a.SMVersion, uint64(at))
		if err != nil {
			return "", false
		}
		return maxwell.Print(inst, uint64(at)), true
	}
	t, ok := text(want)
	u, ok2 := text(got)
	return ok && ok2 && t == u
}
