package usse

import (
	"math/rand/v2"
	"testing"
)

// TestRandomRoundTrip: seeded random words in every op1 group; every word
// Decode accepts must print, parse and encode back to itself.
func TestRandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	accepted, failed := 0, 0
	for op := uint64(0); op < 32; op++ {
		for i := 0; i < 3000; i++ {
			w := op<<59 | r.Uint64()>>5
			if _, err := DecodeWord(w, 0); err != nil {
				continue
			}
			accepted++
			if !checkRoundTrip(t, w) {
				failed++
				if failed > 20 {
					t.Fatal("too many failures")
				}
			}
		}
	}
	t.Logf("random words: %d accepted, %d round-trip failures", accepted, failed)
}
