package maxwell

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// texture and surface instructions (texInst.op)
const (
	tTex uint8 = iota
	tTexs
	tTld
	tTlds
	tTld4
	tTld4s
	tTxq
	tTxd
	tTmml
	tSuld
	tSust
	tSured
	tSuatom
)

var texOps = map[string]uint8{"TEX": tTex, "TEXS": tTexs, "TLD": tTld, "TLDS": tTlds, "TLD4": tTld4, "TLD4S": tTld4s,
	"TXQ": tTxq, "TXD": tTxd, "TMML": tTmml, "SULD": tSuld, "SUST": tSust, "SURED": tSured, "SUATOM": tSuatom}

// dimensions (the DIM table's order)
const (
	d1D uint8 = iota
	dA1D
	d2D
	dA2D
	d3D
	dA3D
	dCube
	dACube
)

var texDims = map[string]uint8{"1D": d1D, "ARRAY_1D": dA1D, "2D": d2D, "ARRAY_2D": dA2D, "3D": d3D, "ARRAY_3D": dA3D,
	"CUBE": dCube, "ARRAY_CUBE": dACube}

// surface dimensions (SUDIM)
var suDims = map[string]uint8{"1D": d1D, "1D_BUFFER": d1D, "1D_ARRAY": dA1D, "2D": d2D, "2D_ARRAY": dA2D, "3D": d3D}

// level-of-detail modes
const (
	lodAuto  uint8 = iota // implicit, from the quad's derivatives
	lodZero               // LZ
	lodBias               // LB
	lodLevel              // LL
)

// surface out-of-range modes (SUCLAMP)
const (
	suIgnore uint8 = iota
	suClamp
	suTrap
)

// texInst is a lowered texture or surface instruction; registers are
// numbers (255 RZ), which are also their rows.
type texInst struct {
	op       uint8
	bindless bool   // the handle comes from a register
	index    uint32 // bound: the handle is c[0][4*index]
	dim      uint8
	lod      uint8
	aoffi    bool
	dc       bool
	ndv      bool
	ms       bool
	f16      bool  // scalar forms: components as half pairs, one register each
	comp     uint8 // TLD4 component
	mask     uint8 // components written (bit 0 R)
	rd, rd2  uint8 // destinations (TEXS/TLDS/TLD4S: two pairs)
	ra, rb   uint8
	rh       uint8 // surfaces: the handle register (bindless)
	txqMode  uint8
	// surfaces
	size       uint8 // bytes per access (D forms)
	signed     bool  // .S8/.S16 loads
	byteAddr   bool  // .BA: x is a byte offset
	formatted  bool  // .P forms
	clamp      uint8
	atom       uint8 // SURED/SUATOM op (atomCodes)
	atomSigned bool
	slots      []uint8 // source slots (layout), fixed at lowering
	nA         int     // how many of them Ra holds
}

// isTexName reports whether the mnemonic is a texture or surface instruction.
func isTexName(name string) bool { _, ok := texOps[name]; return ok }

func maskOf(s string) (uint8, bool) {
	var m uint8
	for _, c := range s {
		i := strings.IndexRune("RGBA", c)
		if i < 0 {
			return 0, false
		}
		m |= 1 << i
	}
	return m, s != ""
}

// lowerTex lowers a texture or surface instruction from its typed operands.
func lowerTex(o op, name string, mods []string, args []maxwell.Arg) (op, error) {
	t := &texInst{op: texOps[name], rd: 255, rd2: 255, ra: 255, rb: 255, rh: 255, mask: 0xf}
	has := func(m string) bool { return slices.Contains(mods, m) }
	// a leading predicate output (sparse residency) is not modelled
	if len(args) > 0 && args[0].Kind == maxwell.ArgPred {
		args = args[1:]
	}
	var regs []uint8        // register operands in order ([Ra] of surfaces too)
	var other []maxwell.Arg // then the rest
	for _, a := range args {
		switch {
		case a.Kind == maxwell.ArgMem && a.Space == maxwell.SpaceSurface:
			regs = append(regs, a.Reg)
		case a.Kind == maxwell.ArgReg && len(other) == 0:
			regs = append(regs, a.Reg)
		default:
			other = append(other, a)
		}
	}
	var err error
	for _, m := range mods {
		switch m {
		case "LZ":
			t.lod = lodZero
		case "LB", "LBA":
			t.lod = lodBias
		case "LL", "LLA":
			t.lod = lodLevel
		case "AOFFI":
			t.aoffi = true
		case "DC":
			t.dc = true
		case "NDV":
			t.ndv = true
		case "MS":
			t.ms = true
		case "F16":
			t.f16 = true
		case "PTP":
			return o, fmt.Errorf("%s.%s is not supported", name, m)
		}
	}
	switch t.op {
	case tTld4, tTld4s:
		if len(mods) > 0 {
			if i := strings.Index("RGBA", mods[0]); len(mods[0]) == 1 && i >= 0 {
				t.comp = uint8(i)
				mods = mods[1:]
			}
		}
	}
	t.bindless = slices.Contains(mods, "B")
	switch t.op {
	case tTex, tTld, tTld4, tTxd, tTmml:
		// Rd, Ra[, Rb], index, dim, mask
		if len(regs) < 2 || len(other) != 3 {
			return o, fmt.Errorf("operands not understood")
		}
		readRegs(regs, &t.rd, &t.ra, &t.rb)
		if err := t.indexDim(other); err != nil {
			return o, err
		}
		t.mask = uint8(other[2].Imm & 0xf)
		if t.op == tTmml {
			t.lod = lodAuto
		}
	case tTexs, tTlds:
		// Rd2, Rd, Ra[, Rb], index, dim, mask
		if len(regs) < 3 || len(other) != 3 {
			return o, fmt.Errorf("operands not understood")
		}
		readRegs(regs, &t.rd2, &t.rd, &t.ra, &t.rb)
		if err := t.indexDim(other); err != nil {
			return o, err
		}
		m, ok := maskOf(other[2].Mod.Text())
		if !ok {
			return o, fmt.Errorf("mask %q not understood", other[2].Mod.Text())
		}
		t.mask = m
		if t.op == tTexs && !has("LZ") && !has("LL") {
			t.lod = lodAuto
		}
	case tTld4s:
		if len(regs) != 4 || len(other) != 1 {
			return o, fmt.Errorf("operands not understood")
		}
		readRegs(regs, &t.rd2, &t.rd, &t.ra, &t.rb)
		t.index = uint32(other[0].Imm)
		t.dim = d2D
	case tTxq:
		// Rd, Ra, mode, index, mask
		if len(regs) != 2 || len(other) != 3 {
			return o, fmt.Errorf("operands not understood")
		}
		readRegs(regs, &t.rd, &t.ra)
		if m := other[0].Mod.Text(); m != "TEX_HEADER_DIMENSION" {
			return o, fmt.Errorf("TXQ %s is not supported", m)
		}
		t.index = uint32(other[1].Imm)
		t.mask = uint8(other[2].Imm & 0xf)
	default:
		if err = lowerSurf(t, name, mods, regs, other); err != nil {
			return o, err
		}
	}
	if t.dim == dA3D {
		return o, fmt.Errorf("%s: 3D-array textures are not supported", name) // no PTX lookup makes one
	}
	t.slots, t.nA = t.layout()
	o.kind = kTex
	o.tx = t
	// the register span, so that the program has rows for it
	span := func(r uint8, n int) opnd {
		if r == 255 {
			return opnd{kind: oReg, reg: 255, bc: -1}
		}
		return opnd{kind: oReg, reg: uint8(min(int(r)+n-1, 254)), bc: -1}
	}
	o.d = span(t.rd, 4)
	o.d2 = span(t.rd2, 2)
	o.s[0] = span(t.ra, 4)
	o.s[1] = span(t.rb, 8)
	o.s[2] = span(t.rh, 1)
	return o, nil
}

var suSizes = map[string]uint8{"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8, "128": 16}

// lowerSurf reads SULD/SUST/SURED/SUATOM operands.
func lowerSurf(t *texInst, name string, mods []string, regs []uint8, other []maxwell.Arg) error {
	t.size = 4
	t.clamp = suClamp
	t.formatted = slices.Contains(mods, "P")
	t.byteAddr = slices.Contains(mods, "BA")
	dimSet := false
	for _, m := range mods {
		if d, ok := suDims[m]; ok {
			t.dim, dimSet = d, true
		}
		if n, ok := suSizes[m]; ok {
			t.size, t.signed = n, m[0] == 'S'
		}
		switch m {
		case "IGN":
			t.clamp = suIgnore
		case "TRAP":
			t.clamp = suTrap
		case "S32":
			t.atomSigned = true
		case "U64", "S64", "F32", "F16x2", "SD32", "SD64":
			return fmt.Errorf("%s.%s is not supported", name, m)
		}
		if a, ok := atomCodes[m]; ok {
			t.atom = a
		}
		if mk, ok := maskOf(m); ok && t.formatted && m != "B" {
			t.mask = mk
		}
	}
	if !dimSet {
		return fmt.Errorf("surface dimension missing")
	}
	// the handle, a register or an index, is the last operand
	switch {
	case len(other) == 1 && other[0].Kind == maxwell.ArgImm:
		t.index = uint32(other[0].Imm)
	case len(other) == 0 && len(regs) > 0:
		t.bindless, t.rh = true, regs[len(regs)-1]
		regs = regs[:len(regs)-1]
	default:
		return fmt.Errorf("operands not understood")
	}
	var want int
	var dst []*uint8
	switch t.op {
	case tSuld: // Rd, [Ra]
		want, dst = 2, []*uint8{&t.rd, &t.ra}
	case tSust, tSured: // [Ra], Rb
		want, dst = 2, []*uint8{&t.ra, &t.rb}
	case tSuatom: // Rd, [Ra], Rb
		if slices.Contains(mods, "CAS") {
			t.atom = aCas
		}
		want, dst = 3, []*uint8{&t.rd, &t.ra, &t.rb}
	}
	if len(regs) != want {
		return fmt.Errorf("operands not understood")
	}
	readRegs(regs, dst...)
	return nil
}

// readRegs copies the registers of regs into dsts, as many as regs holds
// (the callers check the count; a missing optional register stays as set).
func readRegs(regs []uint8, dsts ...*uint8) {
	for i, d := range dsts[:min(len(regs), len(dsts))] {
		*d = regs[i]
	}
}

// indexDim reads the texture index and dimension operands (other[0:2]).
func (t *texInst) indexDim(other []maxwell.Arg) error {
	t.index = uint32(other[0].Imm)
	d, ok := texDims[other[1].Mod.Text()]
	if !ok {
		return fmt.Errorf("dimension %q not understood", other[1].Mod.Text())
	}
	t.dim = d
	return nil
}
