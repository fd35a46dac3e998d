package maxwell

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestTextBound: no text is longer than its form's textBound, for random
// words of every form under control fields with every reuse bit, at low
// and high addresses (a deferred text longer than its bound would print
// past the hex column).
func TestTextBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ctrls := []Ctrl{NeutralCtrl, 0x7e0, MakeCtrl(1, true, 7, 7, 0x3f, 0xf), MakeCtrl(15, false, 1, 2, 0, 0xf), MakeCtrl(0, false, 7, 7, 0, 3)}
	buf := make([]byte, 0, 512)
	deferrableForms, checked := 0, 0
	for f := range forms {
		if textBound[f] == noBound {
			continue
		}
		deferrableForms++
		longest := 0
		for i := 0; i < 3000; i++ {
			w := forms[f].value | rng.Uint64()&^forms[f].mask
			addr := uint64(rng.IntN(1<<20)) * 8
			if i%2 == 1 {
				addr = rng.Uint64() &^ 7
			}
			for _, c := range ctrls {
				inst, err := Decode(w, c, 52, addr)
				if err != nil || int(inst.form) != f {
					inst, err = Decode(w, c, 50, addr)
					if err != nil || int(inst.form) != f {
						continue
					}
				}
				checked++
				var g int
				buf, g, _ = appendInstText(buf[:0], inst, addr)
				_ = g
				longest = max(longest, len(buf))
				if len(buf) > int(textBound[f]) {
					t.Fatalf("form %d (%s): %q is %d bytes, bound %d", f, forms[f].name, buf, len(buf), textBound[f])
				}
			}
		}
	}
	if deferrableForms < len(forms)/2 || checked < 100000 {
		t.Errorf("%d forms with a bound, %d texts checked", deferrableForms, checked)
	}
}

// TestF16TextMax: f16TextMax is the longest text of any half.
func TestF16TextMax(t *testing.T) {
	longest := 0
	var buf []byte
	for h := 0; h < 1<<16; h++ {
		buf = appendF16(buf[:0], uint16(h))
		longest = max(longest, len(buf))
	}
	if longest != f16TextMax {
		t.Errorf("the longest half prints %d bytes, f16TextMax is %d", longest, f16TextMax)
	}
}

// Deferring texts changes no byte of a listing: Disassemble and
// WriteListing (to a buffer and to a regular file) equal the listing with
// every text printed in the first pass, for random valid words, random
// words with ??? operands and rejected words, at an unaligned base.
func TestDeferredSameListing(t *testing.T) {
	var words []byte
	x := uint64(11)
	for len(words) < 5000*BundleSize {
		x = x*6364136223846793005 + 1442695040888963407
		words = binary.LittleEndian.AppendUint64(words, x^x>>29)
	}
	dir := t.TempDir()
	for i, code := range [][]byte{benchCode(randomValidWords(20000), 3*6000), words} {
		for _, base := range []uint64{0, 0xfff8} {
			want, wantErrs := disassemble(nil, code, base, 52, nil)
			got, errs := Disassemble(nil, code, base, 52)
			if !bytes.Equal(got, want) || len(errs) != len(wantErrs) {
				t.Fatalf("code %d, base %#x: Disassemble differs from the listing without deferred texts", i, base)
			}
			var buf bytes.Buffer
			if _, err := WriteListing(&buf, code, base, 52); err != nil || !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("code %d, base %#x: WriteListing to a buffer differs (err %v)", i, base, err)
			}
			path := filepath.Join(dir, "out.s")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = WriteListing(f, code, base, 52)
			f.Close()
			if file, _ := os.ReadFile(path); err != nil || !bytes.Equal(file, want) {
				t.Fatalf("code %d, base %#x: WriteListing to a file differs (err %v)", i, base, err)
			}
		}
	}
}

// A deferred text wider than its bound (bounds made too small here) is
// caught: Disassemble and a listing to a regular file are laid out again
// from texts all printed in the first pass; a stream defers nothing, so
// the same bounds do not touch it.
func TestDeferredTooWide(t *testing.T) {
	code := benchCode(randomValidWords(20000), 3*6000)
	want, _ := disassemble(nil, code, 0, 52, nil)
	var tiny [len(forms)]uint16
	for f := range tiny {
		tiny[f] = 1
	}
	if got, _ := disassemble(nil, code, 0, 52, &tiny); !bytes.Equal(got, want) {
		t.Error("Disassemble with too small bounds differs")
	}
	path := filepath.Join(t.TempDir(), "out.s")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	_, err = writeListing(f, code, 0, 52, textBudget, &tiny)
	f.WriteString("y")
	f.Close()
	if file, _ := os.ReadFile(path); err != nil || !bytes.Equal(file, append(append([]byte("x"), want...), 'y')) {
		t.Errorf("a file listed with too small bounds differs (err %v)", err)
	}
	var stream bytes.Buffer
	if _, err := writeListing(&stream, code, 0, 52, textBudget, &tiny); err != nil || !bytes.Equal(stream.Bytes(), want) {
		t.Errorf("a stream listed with too small bounds differs (err %v)", err)
	}
}
