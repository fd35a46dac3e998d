package maxwell

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// TestLowerErrorMessages: the errors of instructions that cannot run are
// made when they are shown, and say what they said when they were made
// eagerly: the word that does not decode, or the text of an instruction
// with no semantics and why.
func TestLowerErrorMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 52))
	code := make([]byte, 32*64)
	for i := 0; i < len(code); i += 8 {
		binary.LittleEndian.PutUint64(code[i:], rng.Uint64())
	}
	binary.LittleEndian.PutUint64(code[8:], 0) // the all-zero word: decodes, does not run
	p, err := Lower(code, 52)
	if err != nil {
		t.Fatal(err)
	}
	dec := maxwell.Decoder{SM: 52}
	var invalid, unrunnable int
	for i, err := range p.errs {
		inst, derr := dec.Decode(code, p.addrs[i])
		var want string
		switch {
		case derr != nil:
			invalid++
			want = fmt.Sprintf("invalid instruction %#016x: %v", inst.Word, derr)
		case err != nil:
			unrunnable++
			_, cause := lowerInst(inst, p.addrs[i])
			text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(maxwell.AppendText(nil, inst, p.addrs[i]))), ";"))
			want = text + ": " + cause.Error()
			if text != p.texts[i] {
				t.Errorf("%#x: text %q, want %q", p.addrs[i], p.texts[i], text)
			}
		default:
			continue
		}
		if err == nil || err.Error() != want {
			t.Errorf("%#x: error %v, want %s", p.addrs[i], err, want)
		}
	}
	if invalid == 0 || unrunnable == 0 {
		t.Fatalf("the code has %d words that do not decode and %d that do not run: want some of each", invalid, unrunnable)
	}
	if got := p.errs[0].Error(); !strings.HasPrefix(got, "NOP: an all-zero instruction word") {
		t.Errorf("the zero word: %s", got)
	}
}
