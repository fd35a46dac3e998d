package maxwell

import (
	"fmt"
	"testing"
)

// TestHexComment checks the word-at-a-time hex digits against fmt, also when
// the buffer has to grow.
func TestHexComment(t *testing.T) {
	s := splitmixT(3)
	for i := 0; i < 200000; i++ {
		w := s.next()
		if i < 16 {
			w = 0x1111111111111111 * uint64(i)
		}
		want := fmt.Sprintf("/* 0x%016x */\n", w)
		if got := string(appendHexComment(nil, w)); got != want {
			t.Fatalf("got %q want %q", got, want)
		}
		if got := string(appendHexComment(make([]byte, 3, 64), w)[3:]); got != want {
			t.Fatalf("got %q want %q", got, want)
		}
	}
}
