package tesla

import (
	"math/rand/v2"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
)

// operandBound bounds one operand's text: the longest spellings are
// c[0xf][A7+++0x3fff].S16 (23 bytes), a 64-bit hex field (18) and the
// guards, such as " (C3.NOT_OVERFLOW)" (18).
func operandBound(k opndKind) int {
	switch k {
	case opnd_guard, opnd_cguard, opnd_fcond, opnd_fcond0:
		return 20
	}
	return 32
}

// TestTextRoom checks that every form's longest text, plus the 16 bytes
// one in-place store may reach past it (a words16), fits the room
// AppendText makes.
func TestTextRoom(t *testing.T) {
	for fi := range forms {
		f := &forms[fi]
		n := 2 // the blank before the operands and the final ';'
		for _, ps := range [2][]piece{f.mnem, f.opnds} {
			for _, p := range ps {
				switch p.kind {
				case pieceLit, pieceFlag, pieceNotFlag:
					n += len(p.text)
				case pieceJoin:
					n += 2
				case pieceCC:
					n += 3
				case pieceEnum:
					m := 0
					for _, o := range p.opts {
						m = max(m, len(o))
					}
					n += m
				case pieceOperand:
					n += operandBound(p.opnd)
				}
			}
		}
		if n+16 > textRoom {
			t.Errorf("form %d (%s): text up to %d bytes, room %d", fi, f.name, n, textRoom)
		}
	}
}

// TestOperandTextBound prints every operand of every form with the widest
// and with random field values and checks the bound TestTextRoom relies on.
func TestOperandTextBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for fi := range forms {
		f := &forms[fi]
		for k := range 2000 {
			v := ^uint64(0)
			if k > 0 {
				v = rng.Uint64()
			}
			v = v&^f.mask | f.value
			for i := range f.opnds {
				p := &f.opnds[i]
				if p.kind != pieceOperand {
					continue
				}
				for _, half := range []bool{false, true} {
					if s := appendOperand(make([]byte, 0, textRoom), f.class, p, half, v); len(s) > operandBound(p.opnd) {
						t.Fatalf("form %d (%s): operand %q is longer than %d bytes", fi, f.name, s, operandBound(p.opnd))
					}
				}
			}
		}
	}
}

// TestPieceWords checks the generator's packed words against the texts.
func TestPieceWords(t *testing.T) {
	for fi := range forms {
		for _, ps := range [2][]piece{forms[fi].mnem, forms[fi].opnds} {
			for _, p := range ps {
				if p.kind != pieceEnum && p.word != isa.TextWord(p.text) {
					t.Errorf("form %d: word %#x for %q", fi, p.word, p.text)
				}
				for x, o := range p.opts {
					if p.words[x] != isa.TextWord(o) {
						t.Errorf("form %d: word %#x for option %q", fi, p.words[x], o)
					}
				}
			}
		}
	}
}
