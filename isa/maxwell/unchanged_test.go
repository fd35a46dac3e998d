package maxwell

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// TestListingUnchanged: the listing of random valid words (a fixed seed,
// under the neutral control word) is byte for byte what the printer printed
// before its hot paths were rewritten (the oracle tests check real code
// and random words against nvdisasm). If the text of an instruction changes
// on purpose, put the new hash here.
func TestListingUnchanged(t *testing.T) {
	const ctrl = 0x001fc400fe2007f1
	r := rand.New(rand.NewPCG(13, 5))
	var code []byte
	for k := 0; k < 3<<15; {
		w := r.Uint64()
		if _, err := Decode(w, CtrlField(ctrl, k%3), 52, 0); err != nil {
			continue
		}
		if k%3 == 0 {
			code = binary.LittleEndian.AppendUint64(code, ctrl)
		}
		code = binary.LittleEndian.AppendUint64(code, w)
		k++
	}
	out, errs := Disassemble(nil, code, 0, 52)
	if len(errs) > 0 {
		t.Fatalf("%d decode errors, first %v", len(errs), errs[0])
	}
	sum := sha256.Sum256(out)
	if got, want := hex.EncodeToString(sum[:]), "ba2f00305714f7c6560ee3d9c6931bd34c9ffa1f83fdd0e87ed5e74e6993d5a8"; got != want {
		t.Errorf("listing of %d random words (%d bytes): sha256 %s, want %s", 3<<15, len(out), got, want)
	}
}
