package usse

import (
	"math/rand/v2"
	"testing"
)

// TestMayFail: for forms whose check is skipped, random words of the form
// pass check, and decodeFields gives the same fields as fieldDef.get.
func TestMayFail(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	skipped := 0
	for fi := range forms {
		f := &forms[fi]
		if !decoders[fi].mayFail {
			skipped++
		}
		for n := 0; n < 2000; n++ {
			w := r.Uint64()&^f.mask | f.value
			in := Inst{Form: int16(fi), Raw: w}
			for i := range f.fields {
				in.Args[i] = f.fields[i].get(w)
			}
			var fast Inst
			decodeFields(int16(fi), w, &fast.Args)
			if fast.Args != in.Args {
				t.Fatalf("%s: %016x: decodeFields differs from fieldDef.get", f.name, w)
			}
			if !decoders[fi].mayFail && f.check(&in) >= 0 {
				t.Fatalf("%s: %016x fails check, but mayFail is false", f.name, w)
			}
		}
	}
	t.Logf("%d of %d forms skip the check", skipped, len(forms))
}
