package maxwell

import (
	"fmt"
	"slices"
	"strings"
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

var texsMasks = []string{"RGB", "RGA", "RBA", "GBA", "RGBA"}
var texsMasks1 = []string{"R", "G", "B", "A", "RG", "RA", "GA", "BA"}

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

// lowerTex lowers a texture or surface instruction from its printed text.
func lowerTex(o op, name string, mods []string, rest string) (op, error) {
	t := &texInst{op: texOps[name], rd: 255, rd2: 255, ra: 255, rb: 255, rh: 255, mask: 0xf}
	has := func(m string) bool { return slices.Contains(mods, m) }
	args := splitArgs(rest)
	// a leading predicate output (sparse residency) is not modelled
	if len(args) > 0 {
		if _, ok := predNum(strings.TrimPrefix(args[0], "!")); ok {
			args = args[1:]
		}
	}
	var regs []string // register operands in order
	var other []string
	for _, a := range args {
		a = strings.TrimSpace(a)
		if strings.HasPrefix(a, "[") {
			regs = append(regs, strings.Trim(a, "[]"))
			continue
		}
		if _, ok := regNum(strings.TrimSuffix(a, ".reuse")); ok && len(other) == 0 {
			regs = append(regs, a)
			continue
		}
		other = append(other, a)
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
		if err := readRegs(regs, &t.rd, &t.ra, &t.rb); err != nil {
			return o, err
		}
		if err := t.indexDim(other); err != nil {
			return o, err
		}
		m, err := texImm(other[2])
		if err != nil {
			return o, err
		}
		t.mask = uint8(m & 0xf)
		if t.op == tTmml {
			t.lod = lodAuto
		}
	case tTexs, tTlds:
		// Rd2, Rd, Ra[, Rb], index, dim, mask
		if len(regs) < 3 || len(other) != 3 {
			return o, fmt.Errorf("operands not understood")
		}
		if err := readRegs(regs, &t.rd2, &t.rd, &t.ra, &t.rb); err != nil {
			return o, err
		}
		if err := t.indexDim(other); err != nil {
			return o, err
		}
		m, ok := maskOf(other[2])
		if !ok {
			return o, fmt.Errorf("mask %q not understood", other[2])
		}
		t.mask = m
		if t.op == tTexs && !has("LZ") && !has("LL") {
			t.lod = lodAuto
		}
	case tTld4s:
		if len(regs) != 4 || len(other) != 1 {
			return o, fmt.Errorf("operands not understood")
		}
		if err := readRegs(regs, &t.rd2, &t.rd, &t.ra, &t.rb); err != nil {
			return o, err
		}
		if t.index, err = texImm(other[0]); err != nil {
			return o, err
		}
		t.dim = d2D
	case tTxq:
		// Rd, Ra, mode, index, mask
		if len(regs) != 2 || len(other) != 3 {
			return o, fmt.Errorf("operands not understood")
		}
		if err := readRegs(regs, &t.rd, &t.ra); err != nil {
			return o, err
		}
		if other[0] != "TEX_HEADER_DIMENSION" {
			return o, fmt.Errorf("TXQ %s is not supported", other[0])
		}
		if t.index, err = texImm(other[1]); err != nil {
			return o, err
		}
		m, err := texImm(other[2])
		if err != nil {
			return o, err
		}
		t.mask = uint8(m & 0xf)
	default:
		if err := lowerSurf(t, name, mods, regs, other); err != nil {
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
func lowerSurf(t *texInst, name string, mods, regs, other []string) error {
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
	var err error
	handle := func(a string) error {
		if n, ok := regNum(strings.TrimSuffix(a, ".reuse")); ok {
			t.bindless, t.rh = true, uint8(n)
			return nil
		}
		v, err := parseInt(a)
		t.index = uint32(v)
		return err
	}
	// the handle, a register or an index, is the last operand
	all := append(append([]string(nil), regs...), other...)
	if len(all) < 3 {
		return fmt.Errorf("operands not understood")
	}
	if err := handle(all[len(all)-1]); err != nil {
		return err
	}
	all = all[:len(all)-1]
	switch t.op {
	case tSuld: // Rd, [Ra]
		if len(all) != 2 {
			return fmt.Errorf("operands not understood")
		}
		err = readRegs(all, &t.rd, &t.ra)
	case tSust, tSured: // [Ra], Rb
		if len(all) != 2 {
			return fmt.Errorf("operands not understood")
		}
		err = readRegs(all, &t.ra, &t.rb)
	case tSuatom: // Rd, [Ra], Rb
		if len(all) != 3 {
			return fmt.Errorf("operands not understood")
		}
		if slices.Contains(mods, "CAS") {
			t.atom = aCas
		}
		err = readRegs(all, &t.rd, &t.ra, &t.rb)
	}
	return err
}

// readRegs reads the registers of regs into dsts, as many as regs holds
// (the callers check the count; a missing optional register stays as set).
func readRegs(regs []string, dsts ...*uint8) error {
	for i, d := range dsts[:min(len(regs), len(dsts))] {
		r, err := texReg(regs[i])
		if err != nil {
			return err
		}
		*d = r
	}
	return nil
}

// indexDim reads the texture index and dimension operands (other[0:2]).
func (t *texInst) indexDim(other []string) error {
	var err error
	if t.index, err = texImm(other[0]); err != nil {
		return err
	}
	d, ok := texDims[other[1]]
	if !ok {
		return fmt.Errorf("dimension %q not understood", other[1])
	}
	t.dim = d
	return nil
}

// texReg reads a register operand (".reuse" allowed).
func texReg(a string) (uint8, error) {
	a = strings.TrimSuffix(strings.TrimSpace(a), ".reuse")
	n, ok := regNum(a)
	if !ok {
		return 0, fmt.Errorf("register expected, not %q", a)
	}
	return uint8(n), nil
}

// texImm reads an immediate operand.
func texImm(a string) (uint32, error) {
	v, err := parseInt(a)
	return uint32(v), err
}
