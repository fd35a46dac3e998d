package tesla

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// randomValidCode is n random valid instructions (a fixed seed): every
// form with random operands, the mix listing speed is measured on.
func randomValidCode(n int) []byte {
	r := rand.New(rand.NewPCG(13, 5))
	var code []byte
	var b [8]byte
	for k := 0; k < n; {
		binary.LittleEndian.PutUint64(b[:], r.Uint64())
		if inst, err := Decode(b[:], 0); err == nil {
			code = append(code, b[:inst.Len]...)
			k++
		}
	}
	return code
}

// TestListingUnchanged: the listing of random valid instructions is byte
// for byte what the printer printed before its hot paths were rewritten
// (the oracle tests check real code against cuobjdump). If the text of an
// instruction changes on purpose, put the new hash here.
func TestListingUnchanged(t *testing.T) {
	code := randomValidCode(1 << 17)
	out, errs := Disassemble(nil, code, 0x1000)
	if len(errs) > 0 {
		t.Fatalf("%d decode errors, first %v", len(errs), errs[0])
	}
	var streamed bytes.Buffer
	if err := WriteListingFrom(&streamed, bytes.NewReader(code), 0x1000, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), out) {
		t.Errorf("WriteListingFrom differs from Disassemble")
	}
	sum := sha256.Sum256(out)
	if got, want := hex.EncodeToString(sum[:]), "d7566bf62edc07bacaaa01fbc6a0f4cb3c509576289fdd9a9902d0788fd577ad"; got != want {
		t.Errorf("listing of %d random instructions (%d bytes): sha256 %s, want %s", 1<<17, len(out), got, want)
	}
}
