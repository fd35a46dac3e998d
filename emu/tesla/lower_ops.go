package tesla

import (
	"fmt"
	"strings"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/tesla"
)

// Lowering of the instructions with more to decode than their operands:
// conversions, MOV lane masks, atomics.

// Conversion types: op.mode = destination, op.mode2 = source.
type cvtType uint8

const (
	tU16 cvtType = iota
	tU32
	tS16
	tS32
	tU8
	tS8
	tU64
	tS64
	tF16
	tF32
	tF64
)

var cvtTypes = map[string]cvtType{"U8": tU8, "S8": tS8, "U16": tU16, "U32": tU32, "S16": tS16, "S32": tS32,
	"U64": tU64, "S64": tS64, "F16": tF16, "F32": tF32, "F64": tF64}

func (t cvtType) float() bool  { return t >= tF16 }
func (t cvtType) wide() bool   { return t == tU64 || t == tS64 || t == tF64 }
func (t cvtType) signed() bool { return t == tS8 || t == tS16 || t == tS32 || t == tS64 }

// Conversion flags in op.hi (integer rounding, F2F .IR) and op.size
// (rounding: 0 nearest, 1 FLOOR, 2 CEIL, 3 TRUNC).
func lowerCvt(o *op, e *tesla.Exec) error {
	var types []cvtType
	bext := false
	o.size = 0
	for _, m := range e.Mods {
		if t, ok := cvtTypes[m]; ok {
			types = append(types, t)
			continue
		}
		switch m {
		case "BEXT":
			bext = true
		case "FLOOR":
			o.size = 1
		case "CEIL":
			o.size = 2
		case "TRUNC":
			o.size = 3
		case "SAT":
			o.sat = true
		case "IR":
			o.hi = true
		}
	}
	if len(types) != 2 {
		return fmt.Errorf("%s: cannot tell the conversion types", e.Mnemonic)
	}
	o.mode, o.mode2 = uint8(types[0]), uint8(types[1])
	if bext {
		// the low byte of the (16- or 32-bit) source
		if types[1].signed() {
			o.mode2 = uint8(tS8)
		} else {
			o.mode2 = uint8(tU8)
		}
	}
	// I2F/F2I/F2F to a non-float or 64-bit type: no integer rounding flag
	if !types[1].float() || !types[0].float() {
		o.hi = false
	}
	return nil
}

// laneMask is MOV's lane mask (.L0, .L13, .LNONE: the lanes of each quad that
// write), as 0x10 | the 4 quad-lane bits, or 0 for all lanes.
func laneMask(e *tesla.Exec) uint8 {
	for _, m := range e.Mods {
		if m == "LNONE" {
			return 0x10
		}
		if len(m) > 1 && m[0] == 'L' && strings.Trim(m[1:], "0123") == "" {
			b := uint8(0x10)
			for _, d := range m[1:] {
				b |= 1 << (d - '0')
			}
			return b
		}
	}
	return 0
}

// quadLanes spreads 4 quad-lane bits over a warp.
func quadLanes(b uint8) uint32 {
	return uint32(b&0xf) * 0x11111111
}

var atomOps = map[string]emu.AtomicOp{"IADD": emu.AtomAdd, "EXCH": emu.AtomExch, "CAS": emu.AtomCAS,
	"INC": emu.AtomInc, "DEC": emu.AtomDec, "AND": emu.AtomAnd, "OR": emu.AtomOr, "XOR": emu.AtomXor}

// lowerAtom lowers GATOM (dst, address, value[, new value]) and GRED
// (address, value): op.mode is the emu.AtomicOp, op.size the access size.
func (p *Program) lowerAtom(o op, e *tesla.Exec) (op, error) {
	ops := e.Operands
	var addr tesla.Operand
	var vals []tesla.Operand
	if o.kind == opAtom {
		if len(ops) < 3 {
			return o, fmt.Errorf("%s: operands", e.Mnemonic)
		}
		if err := lowerDst(&o, ops[0]); err != nil {
			return o, err
		}
		addr, vals = ops[1], ops[2:]
	} else {
		if len(ops) != 2 {
			return o, fmt.Errorf("%s: operands", e.Mnemonic)
		}
		o.dst = dNone
		addr, vals = ops[0], ops[1:]
	}
	if addr.Kind != tesla.OpGlobal || addr.Size != 4 && addr.Size != 8 {
		return o, fmt.Errorf("%s: bad address operand", e.Mnemonic)
	}
	o.size, o.signed = addr.Size, addr.Signed
	o.s[0] = src{kind: sReg, row: uint16(addr.Reg)}
	if addr.Reg == zeroReg {
		o.s[0] = src{kind: sZero}
	}
	for i, v := range vals {
		s, err := p.lowerSrc(v)
		if err != nil {
			return o, err
		}
		o.s[1+i] = s
	}
	op, found := emu.AtomicOp(0), false
	for _, m := range e.Mods {
		if a, ok := atomOps[m]; ok {
			op, found = a, true
		}
		switch m {
		case "IMIN":
			op, found = emu.AtomMinU, true
			if hasMod(e, "S32") {
				op = emu.AtomMinS
			}
		case "IMAX":
			op, found = emu.AtomMaxU, true
			if hasMod(e, "S32") {
				op = emu.AtomMaxS
			}
		}
	}
	if !found {
		return o, fmt.Errorf("%s: unknown atomic operation", e.Mnemonic)
	}
	o.mode = uint8(op)
	return o, nil
}
