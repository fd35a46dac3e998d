package usse

import (
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/jsonl"
)

// jsonOperand is the JSON form of a register operand: kind "reg" with its
// register file (r o pa sa i c g idx; an indexed operand names the file
// it indexes and its index register), or "imm".
func jsonOperand(o Operand) jsonl.Operand {
	j := jsonl.Operand{Kind: "reg", Reg: jsonl.Int(int(o.Num)), File: o.Bank.String(), Swizzle: o.Swizzle, Half: o.Half, Neg: o.Neg, Abs: o.Abs}
	switch o.Bank {
	case BankImm:
		j.Kind, j.Reg, j.File, j.Value = "imm", nil, "", jsonl.I64(int64(o.Num))
	case BankConst:
		j.File = "c"
	case BankGlobal:
		j.File = "g"
	case BankIndexed:
		j.File, j.Index = o.Base.String(), int(o.IndexReg)
	case BankNone:
		j.Kind, j.Reg, j.File = "enum", nil, ""
	}
	return j
}

// jsonGuard is the predicate an instruction's "pred" field names (p0..p3,
// negated with "!", or "pn": the repeat iteration's), nil for always.
func jsonGuard(in *Inst) *jsonl.Operand {
	name, ok := in.Enum("pred")
	name = strings.TrimSpace(name)
	if !ok || name == "" || name == "_" {
		return nil
	}
	g := &jsonl.Operand{Kind: "pred"}
	if strings.HasPrefix(name, "!") {
		g.Not, name = true, name[1:]
	}
	if len(name) == 2 && name[0] == 'p' && name[1] >= '0' && name[1] <= '9' {
		g.Reg = jsonl.Int(int(name[1] - '0'))
	} else {
		g.Suffix = name
	}
	return g
}

// JSONInstruction fills the JSON record of in at addr of a program loaded
// at base; text is its listing text. The mnemonic is Sony's first word,
// the modifiers its other parts and the flags Sony does not print;
// operands are the typed operands (Inst.Operands) then the other values,
// a branch's its target address, and a dual-issue word has its two
// operations (Inst.Dual) instead.
func JSONInstruction(in *Inst, addr, base uint64, text string) jsonl.Instruction {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], in.Raw)
	rec := jsonl.Instruction{Address: addr, Bytes: hex.EncodeToString(b[:]), Text: text}
	f, v := in.syntax()
	if v == nil {
		return rec
	}
	mn := string(appendMnemonic(nil, in))
	parts := strings.Split(mn, ".")
	rec.Mnemonic = parts[0]
	for _, p := range parts[1:] {
		rec.Modifiers = append(rec.Modifiers, "."+p)
	}
	if vi := f.variantIndex(in); in.Raw&flagDefaults[in.Form][vi].mask != flagDefaults[in.Form][vi].bits {
		flags := string(appendFlags(nil, f, vi, in))
		for _, p := range strings.Split(flags, ".")[1:] {
			rec.Modifiers = append(rec.Modifiers, "."+p)
		}
	}
	rec.Guard = jsonGuard(in)
	if end, ok := in.Field("end"); ok && end != 0 {
		rec.End = true
	}
	if ops, ok := in.Dual(); ok {
		for _, op := range ops {
			jo := jsonl.Operation{Name: op.Name, Mask: int(op.Mask), Operands: []jsonl.Operand{jsonOperand(op.Dst)}}
			for _, s := range op.Src {
				jo.Operands = append(jo.Operands, jsonOperand(s))
			}
			rec.Dual = append(rec.Dual, jo)
		}
		return rec
	}
	if in.Name() == "branch" {
		t := BranchFacts(in, addr, base).Targets[0]
		rec.Operands = []jsonl.Operand{{Kind: "target", Value: jsonl.I64(int64(t))}}
		return rec
	}
	for _, o := range in.Operands(nil) {
		rec.Operands = append(rec.Operands, jsonOperand(o))
	}
	return appendImmediates(rec, f, v, in)
}

// appendImmediates adds the operands that are not registers, after the
// registers (Inst.Operands gives those): immediates and counts as "imm",
// named choices as "enum".
func appendImmediates(rec jsonl.Instruction, f *form, v *variant, in *Inst) jsonl.Instruction {
	for i := v.mnemEnd; i < len(v.elems); i++ {
		e := &v.elems[i]
		var x int64
		switch e.kind {
		case kHex, kHexo, kDec:
			x = int64(in.Args[e.f[0]])
		case kDec1:
			x = int64(in.Args[e.f[0]]) + 1
		case kShex:
			x = isa.SignExtend(uint64(in.Args[e.f[0]]), f.fields[e.f[0]].width)
		case kHexc:
			x = int64(concat(f, e, in))
		case kE, kEo:
			rec.Operands = append(rec.Operands, jsonl.Operand{Kind: "enum", Value: jsonl.I64(int64(in.Args[e.f[0]])),
				Suffix: enumTables[e.table][in.Args[e.f[0]]]})
			continue
		default:
			continue
		}
		rec.Operands = append(rec.Operands, jsonl.Operand{Kind: "imm", Value: jsonl.I64(x)})
	}
	return rec
}

// WriteJSON writes the JSON Lines listing of a raw USSE program loaded at
// base, each record naming function and section when they are not "". A
// word that does not decode is a record with an error (its text the
// listing's .quad line).
func WriteJSON(w *jsonl.Writer, code []byte, base uint64, function, section string) ([]*isa.DecodeError, error) {
	var errs []*isa.DecodeError
	var buf []byte
	for off := 0; off < len(code); off += Len {
		addr := base + uint64(off)
		if len(code)-off < Len {
			errs = append(errs, &isa.DecodeError{Addr: addr, Len: len(code) - off, Err: isa.ErrTruncated})
			break
		}
		in, err := DecodeWord(binary.LittleEndian.Uint64(code[off:]), addr)
		buf = append(appendText(buf[:0], &in), " ;"...)
		rec := JSONInstruction(&in, addr, base, string(buf))
		if err != nil {
			de := err.(*isa.DecodeError)
			errs = append(errs, de)
			rec.Error = de.Error()
		}
		rec.Function, rec.Section = function, section
		if err := w.Write(&rec); err != nil {
			return errs, err
		}
	}
	return errs, nil
}
