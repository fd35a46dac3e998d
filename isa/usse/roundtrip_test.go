package usse

import (
	"math/rand/v2"
	"testing"
)

// TestRandomRoundTrip: for every form, seeded random words with the form's
// fixed bits; every word Decode accepts must print, parse and encode back to
// itself, and every form must decode some of its words (none is shadowed by
// an earlier form or unreachable because of its field checks).
func TestRandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	accepted, failed := 0, 0
	for fi := range forms {
		f := &forms[fi]
		own := 0
		for i := 0; i < 2000; i++ {
			w := f.value | r.Uint64()&^f.mask
			in, err := DecodeWord(w, 0)
			if err != nil {
				continue
			}
			accepted++
			if int(in.Form) == fi {
				own++
			}
			if !checkRoundTrip(t, w) {
				failed++
				if failed > 20 {
					t.Fatal("too many failures")
				}
			}
		}
		if own == 0 {
			t.Errorf("form %s: no random word with its fixed bits decodes as %s", f.name, f.name)
		}
	}
	t.Logf("random words: %d accepted over %d forms, %d round-trip failures", accepted, len(forms), failed)
}
