package tesla

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// pieceText prints inst piece by piece with the general printer (putPiece),
// the reference the print programs are checked against.
func pieceText(inst Inst) string {
	f := &forms[inst.Form]
	dst := make([]byte, 0, 4*textRoom)
	dst = appendMnemonic(dst, inst)
	if len(f.opnds) > 0 {
		dst = append(dst, ' ')
		for i := range f.opnds {
			dst = putPiece(slices.Grow(dst, textRoom), f, &f.opnds[i], inst.Raw)
		}
	}
	return string(append(dst, ';'))
}

// TestPrintPrograms prints every form with random field values (the
// form's fixed bits kept) by its program and piece by piece.
func TestPrintPrograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for fi := range forms {
		f := &forms[fi]
		for k := range 3000 {
			v := ^uint64(0)
			switch k {
			case 0:
			case 1:
				v = 0
			default:
				v = rng.Uint64()
			}
			inst := Inst{Raw: v&^f.mask | f.value, Form: uint16(fi), Len: 8}
			if got, want := Print(inst, 0), pieceText(inst); got != want {
				t.Fatalf("form %d (%s), %#x: program prints %q, pieces %q", fi, f.name, inst.Raw, got, want)
			}
		}
	}
}
