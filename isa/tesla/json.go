package tesla

import (
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/jsonl"
)

// jsonOperand is the JSON form of a resolved operand.
func jsonOperand(o Operand) jsonl.Operand {
	j := jsonl.Operand{Neg: o.Neg, Not: o.Not, Abs: o.Abs}
	mem := func(space string) {
		j.Kind, j.Space, j.Areg, j.Inc = "mem", space, int(o.Areg), o.Inc
		j.Value, j.Size, j.Signed = jsonl.I64(int64(o.Offset)), int(o.Size), o.Signed
	}
	switch o.Kind {
	case OpReg:
		j.Kind, j.Reg, j.Bits = "reg", jsonl.Int(int(o.Reg)), 32
		if o.Half {
			j.Reg, j.Bits, j.Suffix = jsonl.Int(int(o.Reg>>1)), 16, "L"
			if o.Reg&1 != 0 {
				j.Suffix = "H"
			}
		}
	case OpOut:
		j.Kind, j.Space, j.Value = "mem", "output", jsonl.I64(int64(o.Reg))
	case OpShared:
		mem("shared")
	case OpLocal:
		mem("local")
	case OpConst:
		mem("")
		j.Kind, j.Bank = "const", jsonl.Int(int(o.Bank))
	case OpGlobal:
		j.Kind, j.Space, j.Reg, j.Bank = "mem", "global", jsonl.Int(int(o.Reg)), jsonl.Int(int(o.Bank))
		j.Size, j.Signed = int(o.Size), o.Signed
	case OpImm:
		j.Kind, j.Value, j.Bits = "imm", jsonl.I64(int64(o.Imm)), 32
	case OpAddrReg:
		j.Kind, j.Reg = "addr", jsonl.Int(int(o.Reg))
	case OpCondReg:
		j.Kind, j.Reg = "cc", jsonl.Int(int(o.Reg))
	case OpSpecial:
		j.Kind, j.Value = "special", jsonl.I64(int64(o.Reg))
	case OpTarget:
		j.Kind, j.Value = "target", jsonl.I64(int64(o.Imm))
	case OpBarrier:
		j.Kind, j.Value = "barrier", jsonl.I64(int64(o.Reg))
	case OpEnum:
		j.Kind, j.Suffix = "enum", o.Text
	case OpGraphics:
		switch o.Text {
		case "o":
			mem("output")
		case "a":
			mem("attr")
		case "v":
			mem("vertex")
		default:
			j.Kind, j.Value = "imm", jsonl.I64(int64(o.Imm)) // a texture mask
		}
	}
	return j
}

// JSONInstruction fills the JSON record of inst at addr; text is its
// listing text. Operands, guard and flags come from the decoded fields
// (Inst.Resolve); the guard is a condition register test (kind "cc": reg
// the register, value the test, suffix its name).
func JSONInstruction(inst Inst, addr uint64, text string) jsonl.Instruction {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], inst.Raw)
	rec := jsonl.Instruction{Address: addr, Bytes: hex.EncodeToString(b[:inst.Len]), Text: text,
		Length: int(inst.Len), End: inst.Exit()}
	e := inst.Resolve()
	rec.Mnemonic, _, _ = strings.Cut(e.Mnemonic, ".")
	for _, m := range e.Mods {
		rec.Modifiers = append(rec.Modifiers, "."+m)
	}
	if e.CCWrite {
		rec.Modifiers = append(rec.Modifiers, ".C"+string(rune('0'+e.CCReg)))
	}
	if e.Join {
		rec.Modifiers = append(rec.Modifiers, ".S")
	}
	if e.Cond != condAlways {
		rec.Guard = &jsonl.Operand{Kind: "cc", Reg: jsonl.Int(int(e.Pred)), Value: jsonl.I64(int64(e.Cond)), Suffix: condNames[e.Cond]}
	}
	for _, o := range e.Operands {
		rec.Operands = append(rec.Operands, jsonOperand(o))
	}
	if e.Carry {
		rec.Operands = append(rec.Operands, jsonl.Operand{Kind: "cc", Reg: jsonl.Int(int(e.CarryReg)), Suffix: "carry"})
	}
	return rec
}

// WriteJSON writes the JSON Lines listing of raw Tesla code loaded at base,
// each record naming function and section when they are not "". Words
// that do not decode are records with an error, one per 32-bit word, as
// the listing's .word lines.
func WriteJSON(w *jsonl.Writer, code []byte, base uint64, function, section string) ([]*isa.DecodeError, error) {
	var werr error
	var buf []byte
	errs := eachInst(code, base, func(addr uint64, inst Inst, bad []byte, de *isa.DecodeError) bool {
		var rec jsonl.Instruction
		if bad != nil {
			rec = jsonl.Instruction{Address: addr, Bytes: hex.EncodeToString(bad), Text: string(appendWord(buf[:0], bad)),
				Length: 4, Error: de.Error()}
		} else {
			buf = AppendText(buf[:0], inst, addr)
			rec = JSONInstruction(inst, addr, string(buf))
		}
		rec.Function, rec.Section = function, section
		werr = w.Write(&rec)
		return werr == nil
	})
	return errs, werr
}
