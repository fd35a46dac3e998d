package fermi

import (
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/jsonl"
)

// memSpace is the memory an instruction's [R+offset] operand addresses.
func memSpace(op string) string {
	switch op {
	case "LDS", "STS", "LDS_LDU", "LDS_N", "STS_N", "ATOMS":
		return "shared"
	case "LDL", "STL", "LDL_N", "STL_N":
		return "local"
	case "LD", "ST", "LDU", "LD_LDU", "ATOM", "RED", "LDLK", "STUL", "LD_N", "ST_N", "CCTL":
		return "generic"
	}
	return ""
}

// jsonOperand is the JSON form of a decoded operand; space is the memory
// a mem operand addresses, sel ".B" or ".H": what a selector picks (a byte
// or a half of the conversion source).
func jsonOperand(a Arg, space, sel string) jsonl.Operand {
	j := jsonl.Operand{Neg: a.Neg, Abs: a.Abs, Not: a.Not, CC: a.CC}
	switch a.Kind {
	case ArgReg:
		j.Kind, j.Reg, j.Bits = "reg", jsonl.Int(int(a.Reg)), 32
	case ArgPred:
		j.Kind, j.Reg = "pred", jsonl.Int(int(a.Reg))
	case ArgImm:
		j.Kind, j.Value = "imm", jsonl.I64(a.Imm)
		if a.Float {
			j.Kind, j.Float = "float", "f32"
			if a.Double {
				j.Float = "f64"
			}
		}
	case ArgConst:
		j.Kind, j.Bank, j.Reg, j.Value = "const", jsonl.Int(int(a.Bank)), jsonl.Int(int(a.Reg)), jsonl.I64(a.Imm)
	case ArgMem:
		j.Kind, j.Reg, j.Value, j.Space = "mem", jsonl.Int(int(a.Reg)), jsonl.I64(a.Imm), space
	case ArgTarget:
		j.Kind, j.Value = "target", jsonl.I64(a.Imm)
	case ArgSReg:
		j.Kind, j.Value, j.Suffix = "special", jsonl.I64(int64(a.Reg)), sregNames[a.Reg][1]
	case ArgCC:
		j.Kind, j.Value, j.Suffix = "cc", jsonl.I64(int64(a.Reg)), tables[tblCc][a.Reg&31]
	case ArgText:
		j.Kind, j.Value, j.Suffix = "enum", jsonl.I64(a.Imm), a.Text
	}
	if a.Sel != 0 {
		j.Suffix = sel + string(rune('0'+a.Sel))
	}
	return j
}

// JSONInstruction fills the JSON record of inst at addr; text is its
// listing text. Mnemonic, modifiers (the New dialect's, .S included) and
// operands come from the decoded fields; a condition-code test of T,
// which the text does not show, is left out as well.
func JSONInstruction(inst Inst, addr uint64, text string) jsonl.Instruction {
	rec := jsonl.Instruction{Address: addr, Bytes: hex.EncodeToString(inst.Bytes(nil)), Text: text, Length: inst.Len()}
	f := newForm(inst)
	// the printed form's name: an alias (ISUB for IADD with a negated
	// operand) names the instruction as the text does
	mn, fixed, _ := strings.Cut(f.name, ".")
	rec.Mnemonic = mn
	if fixed != "" {
		rec.Modifiers = append(rec.Modifiers, "."+fixed)
	}
	var buf []byte
	for k := range f.mods {
		if buf = appendMod(buf[:0], &f.mods[k], inst.Raw); len(buf) > 0 {
			rec.Modifiers = append(rec.Modifiers, string(buf))
		}
	}
	if reg, neg := inst.Guard(); reg != 7 || neg {
		rec.Guard = &jsonl.Operand{Kind: "pred", Reg: jsonl.Int(reg), Not: neg}
	}
	args, n := inst.Args(addr)
	space, sel := memSpace(rec.Mnemonic), ".B"
	if inst.Raw>>23&3 == 1 { // the source size field: 16 bits
		sel = ".H"
	}
	for _, a := range args[:n] {
		if a.Kind == ArgCC && a.Reg == ccTrue {
			continue
		}
		rec.Operands = append(rec.Operands, jsonOperand(a, space, sel))
	}
	return rec
}

// WriteJSON writes the JSON Lines listing of raw sm_2x code loaded at base,
// each record naming function and section when they are not "". An
// encoding that does not decode is a record with an error (8 bytes, or
// what is left).
func WriteJSON(w *jsonl.Writer, code []byte, base uint64, function, section string) ([]*isa.DecodeError, error) {
	var werr error
	var buf []byte
	errs := eachInst(code, base, func(addr uint64, inst Inst, de *isa.DecodeError) {
		if werr != nil {
			return
		}
		var rec jsonl.Instruction
		if de != nil {
			off := int(addr - base)
			n := min(max(de.Len, 8), len(code)-off)
			raw := code[off : off+n]
			var word [8]byte
			copy(word[:], raw)
			buf = isa.AppendHexNum(append(buf[:0], ".word "...), binary.LittleEndian.Uint64(word[:]))
			rec = jsonl.Instruction{Address: addr, Bytes: hex.EncodeToString(raw), Text: string(buf), Error: de.Error()}
		} else {
			buf = AppendText(buf[:0], inst, addr)
			rec = JSONInstruction(inst, addr, string(buf))
		}
		rec.Function, rec.Section = function, section
		werr = w.Write(&rec)
	})
	return errs, werr
}
