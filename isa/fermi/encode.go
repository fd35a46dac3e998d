package fermi

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/gpuisa/gpuisa/isa/asm"
)

// Encode returns the memory image of inst (8 bytes, little endian).
func Encode(inst Inst) []byte { return inst.Bytes(nil) }

// formsByName lists, per base mnemonic, the forms in spec order. It is
// made when the assembler first needs it, not at start-up (a map is no
// literal); the assembler fetches it once per call and passes it down.
var formsByName = sync.OnceValue(func() map[string][]uint16 {
	m := map[string][]uint16{}
	for i := range forms {
		n := forms[i].name
		if j := strings.IndexByte(n, '.'); j >= 0 {
			n = n[:j]
		}
		m[n] = append(m[n], uint16(i))
	}
	return m
})

// stmt is one parsed instruction statement, ready for encoding.
type stmt struct {
	guard    string // "" or the guard predicate, e.g. "P0"
	guardNeg bool   // "@!"
	guardCol int
	mnem     string
	mnemCol  int
	nops     int
	ops      [MaxArgs + 2]string
	opCols   [MaxArgs + 2]int
}

// short reports a 4-byte statement: the mnemonics of the short forms end
// in _N (cuobjdump's names), so the size is known before encoding.
func (s *stmt) short() bool {
	base := s.mnem
	if j := strings.IndexByte(base, '.'); j >= 0 {
		base = base[:j]
	}
	return strings.HasSuffix(base, "_N")
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

// mnemonics are formsByName's keys, listed once (not per unknown
// mnemonic), when the first unknown one is reported.
var mnemonics = sync.OnceValue(func() []string { return slices.Collect(maps.Keys(formsByName())) })

// resolver turns a label into an address.
type resolver func(name string) (uint64, bool)

// encodeStmt encodes s at address pc, trying every form of its mnemonic;
// byName is formsByName().
func encodeStmt(s *stmt, pc uint64, labels resolver, d Dialect, byName map[string][]uint16) (Inst, *encodeError) {
	base := s.mnem
	if j := strings.IndexByte(base, '.'); j >= 0 {
		base = base[:j]
	}
	cands := byName[base]
	if len(cands) == 0 {
		return Inst{}, errAt(s.mnemCol, "unknown instruction %q%s", base, asm.Closest(base, mnemonics()))
	}
	// The dialect's own spellings first: old and new forms of one word can
	// share a shape (PSETP lists its sources in opposite orders).
	var best formFail
	bestForm := uint16(0)
	for pass := 0; pass < 2; pass++ {
		for _, fi := range cands {
			if forms[fi].newOnly != (d == New) != (pass == 1) {
				continue
			}
			inst, fail := encodeForm(fi, s, pc, labels, d)
			if fail.why == failNone {
				return inst, nil
			}
			if best.why == failNone || fail.col > best.col {
				best, bestForm = fail, fi // the form that got furthest says most
			}
		}
	}
	return Inst{}, &encodeError{best.col, best.message(&forms[bestForm], s)}
}

// failReason says why a form rejected a statement.
type failReason uint8

const (
	failNone      failReason = iota
	failMnemonic             // the mnemonic is not this form's
	failNoGuard              // the form cannot be predicated
	failGuard                // bad guard predicate
	failModifier             // bad or missing modifier at s.mnem[at:]
	failExtraMod             // unexpected modifier at s.mnem[at:]
	failMissingOp            // operand number at+1 is missing
	failOperand              // operand at: err
	failTooMany              // operand at is one too many
	failInvalid              // the fields do not form a valid encoding
)

// formFail is where and why a form rejected a statement. It is a plain
// value; the message is built only for the form that gets reported.
type formFail struct {
	why failReason
	col int   // 0-based column in the line
	at  int   // operand index or offset into the mnemonic
	err error // failOperand: the operand's error
}

func (ff formFail) message(f *form, s *stmt) string {
	switch ff.why {
	case failMnemonic:
		return fmt.Sprintf("%s: unknown modifiers", s.mnem)
	case failNoGuard:
		return fmt.Sprintf("%s cannot be predicated", f.name)
	case failGuard:
		return fmt.Sprintf("bad guard predicate %q", s.guard)
	case failModifier:
		return fmt.Sprintf("%s: bad or missing modifier at %q", s.mnem, s.mnem[ff.at:])
	case failExtraMod:
		return fmt.Sprintf("%s: unexpected modifier %q", s.mnem, s.mnem[ff.at:])
	case failMissingOp:
		return fmt.Sprintf("%s: missing operand %d", f.name, ff.at+1)
	case failOperand:
		msg := ff.err.Error()
		switch ff.err {
		case errWantText:
			for k := range f.ops {
				if f.ops[k].kind == opLit {
					msg = "want " + f.ops[k].text
				}
			}
		case errUnsignedRange:
			for k := range f.ops {
				if f.ops[k].kind == opHex {
					msg = fmt.Sprintf("want an unsigned value of %d bits", f.ops[k].f.Width)
				}
			}
		}
		return fmt.Sprintf("operand %q: %s", s.ops[ff.at], msg)
	case failTooMany:
		return fmt.Sprintf("%s: too many operands", f.name)
	case failInvalid:
		return fmt.Sprintf("%s: operands do not form a valid encoding", f.name)
	}
	return "no error"
}

func encodeForm(fi uint16, s *stmt, pc uint64, labels resolver, d Dialect) (Inst, formFail) {
	f := &forms[fi]
	raw := f.value
	if !strings.HasPrefix(s.mnem, f.name) || len(s.mnem) > len(f.name) && s.mnem[len(f.name)] != '.' {
		return Inst{}, formFail{why: failMnemonic, col: s.mnemCol}
	}
	// guard
	if f.noPred {
		if s.guard != "" {
			return Inst{}, formFail{why: failNoGuard, col: s.guardCol}
		}
	} else {
		p, neg := uint64(7), s.guardNeg
		if s.guard != "" {
			var ok bool
			if p, ok = parsePredName(s.guard); !ok {
				return Inst{}, formFail{why: failGuard, col: s.guardCol}
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
			return Inst{}, formFail{why: failModifier, col: s.mnemCol, at: len(s.mnem) - len(rem)}
		}
	}
	if rem != "" {
		return Inst{}, formFail{why: failExtraMod, col: s.mnemCol, at: len(s.mnem) - len(rem)}
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
			return Inst{}, formFail{why: failMissingOp, col: col, at: i}
		}
		var err error
		raw, err = parseOperand(o, raw, ops[i], pc, labels, &st)
		if err != nil {
			return Inst{}, formFail{why: failOperand, col: s.opCols[i], at: i, err: err}
		}
		i++
	}
	if i < len(ops) {
		return Inst{}, formFail{why: failTooMany, col: s.opCols[i], at: i}
	}
	inst, ok := decodeWord(raw)
	if !ok {
		return Inst{}, formFail{why: failInvalid, col: s.mnemCol}
	}
	return inst, formFail{}
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
		func(p stmt, _ bool) { count++; s = p },
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
	inst, eerr := encodeStmt(&s, pc, func(string) (uint64, bool) { return 0, false }, d, formsByName())
	if eerr != nil {
		return Inst{}, fmt.Errorf("%d: %s", eerr.col+1, eerr.msg)
	}
	return inst, nil
}
