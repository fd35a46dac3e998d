package fermi

import (
	"fmt"
	"strings"
)

// Encode returns the memory image of inst (8 bytes, little endian).
func Encode(inst Inst) []byte { return inst.Bytes(nil) }

// formsByName lists, per base mnemonic, the forms in spec order.
var formsByName = func() map[string][]uint16 {
	m := map[string][]uint16{}
	for i := range forms {
		n := forms[i].name
		if j := strings.IndexByte(n, '.'); j >= 0 {
			n = n[:j]
		}
		m[n] = append(m[n], uint16(i))
	}
	return m
}()

// stmt is one parsed instruction statement, ready for encoding.
type stmt struct {
	guard    string // "" or e.g. "!P0"
	guardCol int
	mnem     string
	mnemCol  int
	nops     int
	ops      [MaxArgs + 2]string
	opCols   [MaxArgs + 2]int
}

// encodeError is an error at a column of the statement.
type encodeError struct {
	col int
	msg string
}

func (e *encodeError) Error() string { return e.msg }

func errAt(col int, format string, args ...any) *encodeError {
	return &encodeError{col, fmt.Sprintf(format, args...)}
}

// resolver turns a label into an address.
type resolver func(name string) (uint64, bool)

// encodeStmt encodes s at address pc, trying every form of its mnemonic.
func encodeStmt(s *stmt, pc uint64, labels resolver, d Dialect) (Inst, *encodeError) {
	base := s.mnem
	if j := strings.IndexByte(base, '.'); j >= 0 {
		base = base[:j]
	}
	cands := formsByName[base]
	if len(cands) == 0 {
		return Inst{}, errAt(s.mnemCol, "unknown instruction %q", base)
	}
	// The dialect's own spellings first: old and new forms of one word can
	// share a shape (PSETP lists its sources in opposite orders).
	var first *encodeError
	for pass := 0; pass < 2; pass++ {
		for _, fi := range cands {
			if forms[fi].newOnly != (d == New) != (pass == 1) {
				continue
			}
			inst, err := encodeForm(fi, s, pc, labels, d)
			if err == nil {
				return inst, nil
			}
			if first == nil || err.col > first.col {
				first = err // the form that got furthest says most
			}
		}
	}
	return Inst{}, first
}

func encodeForm(fi uint16, s *stmt, pc uint64, labels resolver, d Dialect) (Inst, *encodeError) {
	f := &forms[fi]
	raw := f.value
	if !strings.HasPrefix(s.mnem, f.name) || len(s.mnem) > len(f.name) && s.mnem[len(f.name)] != '.' {
		return Inst{}, errAt(s.mnemCol, "%s: unknown modifiers", s.mnem)
	}
	// guard
	if f.noPred {
		if s.guard != "" {
			return Inst{}, errAt(s.guardCol, "%s cannot be predicated", f.name)
		}
	} else {
		p, neg := uint64(7), false
		if s.guard != "" {
			g := s.guard
			if g[0] == '!' {
				neg, g = true, g[1:]
			}
			var ok bool
			if p, ok = parsePredName(g); !ok {
				return Inst{}, errAt(s.guardCol, "bad guard predicate %q", s.guard)
			}
		}
		raw |= p << 10
		if neg {
			raw |= 1 << 13
		}
	}
	// modifiers
	rem := s.mnem[len(f.name):]
	for k := range f.mods {
		var ok bool
		if raw, rem, ok = parseMod(&f.mods[k], raw, rem); !ok {
			return Inst{}, errAt(s.mnemCol, "%s: bad or missing modifier at %q", s.mnem, rem)
		}
	}
	if rem != "" {
		return Inst{}, errAt(s.mnemCol, "%s: unexpected modifier %q", s.mnem, rem)
	}
	// operands
	ops := s.ops[:s.nops]
	st := opState{b3Reg: -1, dialect: d}
	i := 0
	for k := range f.ops {
		o := &f.ops[k]
		if o.kind == opCC || o.kind == opNopCC {
			if i >= len(ops) || !strings.HasPrefix(ops[i], "CC.") {
				raw = o.f.Set(raw, 15) // CC.T, not printed
				continue
			}
		}
		if i >= len(ops) {
			col := s.mnemCol + len(s.mnem)
			if len(ops) > 0 {
				col = s.opCols[len(ops)-1]
			}
			return Inst{}, errAt(col, "%s: missing operand %d", f.name, i+1)
		}
		var err error
		raw, err = parseOperand(o, raw, ops[i], pc, labels, &st)
		if err != nil {
			return Inst{}, errAt(s.opCols[i], "operand %q: %v", ops[i], err)
		}
		i++
	}
	if i < len(ops) {
		return Inst{}, errAt(s.opCols[i], "%s: too many operands", f.name)
	}
	inst, err := DecodeWord(raw)
	if err != nil {
		return Inst{}, errAt(s.mnemCol, "%s: operands do not form a valid encoding", f.name)
	}
	return inst, nil
}

// AssembleLine encodes one statement of the New dialect for address pc; see
// AssembleLineDialect.
func AssembleLine(line string, pc uint64) (Inst, error) {
	return AssembleLineDialect(line, pc, New)
}

// AssembleLineDialect encodes one statement (no label definitions) for
// address pc; label operands are not available. It is the inverse of
// AppendTextDialect. The dialect decides what "-0x.." means (negate bit in
// Old, negative immediate in New) and which spelling wins where both
// dialects share a shape (PSETP source order).
func AssembleLineDialect(line string, pc uint64, d Dialect) (Inst, error) {
	var (
		sc    lineScanner
		s     stmt
		count int
		err   error
	)
	sc.scan(line,
		func(string, int) { err = fmt.Errorf("labels are not allowed here") },
		func() *stmt { count++; return &s },
		func(col int, msg string) {
			if err == nil {
				err = fmt.Errorf("%d: %s", col, msg)
			}
		})
	if err != nil {
		return Inst{}, err
	}
	if count != 1 {
		return Inst{}, fmt.Errorf("want exactly one instruction")
	}
	inst, eerr := encodeStmt(&s, pc, func(string) (uint64, bool) { return 0, false }, d)
	if eerr != nil {
		return Inst{}, fmt.Errorf("%d: %s", eerr.col+1, eerr.msg)
	}
	return inst, nil
}
