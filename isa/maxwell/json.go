package maxwell

import (
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/jsonl"
)

var floatEncNames = [...]string{"", "f32", "f32hi", "f64hi", "f16", "f16hi", "f16x2"}

// jsonOperand is the JSON form of a typed operand.
func jsonOperand(a Arg) jsonl.Operand {
	o := jsonl.Operand{Kind: a.Kind.String(), Neg: a.Neg, Abs: a.Abs, Not: a.Not, Reuse: a.Reuse, Signed: a.Signed}
	switch a.Kind {
	case ArgReg:
		o.Reg, o.Bits = jsonl.Int(int(a.Reg)), int(a.Bits)
	case ArgPred:
		o.Reg = jsonl.Int(int(a.Reg))
	case ArgImm, ArgTarget, ArgSpecial:
		o.Value, o.Bits = jsonl.I64(a.Imm), int(a.Bits)
	case ArgFloat:
		o.Value, o.Bits = jsonl.I64(a.Imm), int(a.Bits)
		o.Float = nameOf(floatEncNames[:], int(a.Float))
	case ArgConst:
		o.Bank, o.Reg, o.Value = jsonl.Int(int(a.Bank)), jsonl.Int(int(a.Reg)), jsonl.I64(a.Imm)
	case ArgMem:
		o.Reg, o.Value, o.Space, o.Size = jsonl.Int(int(a.Reg)), jsonl.I64(a.Imm), a.Space.String(), int(a.Size)
	}
	if !a.Mod.IsZero() {
		o.Suffix = a.Mod.Text()
		if o.Suffix == "" {
			o.Suffix = a.Mod.Name()
		}
	}
	return o
}

// JSONInstruction fills the JSON record of the instruction word w (control
// field c) at addr; text is its listing text.
func JSONInstruction(w uint64, c Ctrl, sm int, addr uint64, text string) jsonl.Instruction {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], w)
	rec := jsonl.Instruction{Address: addr, Bytes: hex.EncodeToString(b[:]), Text: text,
		Control: &jsonl.Control{Stall: c.Stall(), Yield: c.Yield(), WriteBarrier: c.WriteBarrier(), ReadBarrier: c.ReadBarrier(), WaitMask: c.WaitMask(), Reuse: c.Reuse()}}
	inst, err := Decode(w, c, sm, addr)
	if err != nil {
		rec.Error = err.Error()
		return rec
	}
	ops := inst.Operands(addr)
	rec.Mnemonic = ops.Op
	if g := jsonOperand(ops.Guard); ops.Guard.Reg != guardPT || ops.Guard.Not {
		rec.Guard = &g
	}
	for _, m := range ops.Mods {
		if m.IsZero() {
			break
		}
		if t := m.Text(); t != "" {
			rec.Modifiers = append(rec.Modifiers, t)
		} else if m.Kind() != ModTable {
			rec.Modifiers = append(rec.Modifiers, m.Name())
		}
	}
	for k := 0; k < ops.NArgs(); k++ {
		rec.Operands = append(rec.Operands, jsonOperand(ops.Args[k]))
	}
	return rec
}

// WriteJSON writes the JSON Lines listing of an sm_5x cubin's code
// sections (one record per instruction, with its function and section), or
// of raw code at base when f is nil.
func WriteJSON(w *jsonl.Writer, f *cubin.File, code []byte, base uint64, sm int) ([]*isa.DecodeError, error) {
	if f == nil {
		return WriteJSONCode(w, code, base, sm, "", "")
	}
	var errs []*isa.DecodeError
	for i := range f.Functions {
		fn := &f.Functions[i]
		e, err := WriteJSONCode(w, fn.Code, 0, sm, fn.Name, ".text."+fn.Name)
		errs = append(errs, e...)
		if err != nil {
			return errs, err
		}
	}
	return errs, nil
}

// WriteJSONCode writes the JSON Lines listing of raw sm_5x code loaded at
// base (whole bundles), each record naming function and section when they
// are not "". The errors past isa.MaxListedErrors are counted in the last
// (isa.ErrorsCapped).
func WriteJSONCode(w *jsonl.Writer, code []byte, base uint64, sm int, function, section string) ([]*isa.DecodeError, error) {
	var errs []*isa.DecodeError
	var text []byte
	var werr error
	eachSlot(code, base, sm, func(addr, word uint64, c Ctrl, inst Inst, err error) bool {
		if err != nil {
			errs = isa.ErrorsCapped(errs, err.(*isa.DecodeError)) // memory must not grow per error
			text = isa.AppendHexNum(append(text[:0], ".word "...), word)
		} else {
			text = appendBody(appendGuard(text[:0], inst), inst, addr)
		}
		rec := JSONInstruction(word, c, sm, addr, strings.TrimSpace(string(text)))
		rec.Function, rec.Section = function, section
		werr = w.Write(&rec)
		return werr == nil
	})
	return errs, werr
}
