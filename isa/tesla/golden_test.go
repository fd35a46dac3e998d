package tesla

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from random encodings of every form")

// TestGolden checks testdata/golden.txt (made by this package with -update
// and reviewed): every line "hex<TAB>text" must decode to the text and the
// text must assemble to the hex. Every spec form has lines, so the test covers
// the whole spec without the shared oracle.
func TestGolden(t *testing.T) {
	if *update {
		writeGolden(t)
	}
	f, err := os.Open("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := make([]bool, len(forms))
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		hexs, text, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("golden.txt:%d: no tab", n)
		}
		v, err := strconv.ParseUint(strings.TrimPrefix(hexs, "0x"), 16, 64)
		if err != nil {
			t.Fatalf("golden.txt:%d: %v", n, err)
		}
		// 8 hex digits are one word: a short or 32-bit flow instruction
		inst, err := Decode(binary.LittleEndian.AppendUint64(nil, v)[:(len(hexs)-2)/2], 0)
		if err != nil {
			t.Errorf("golden.txt:%d: %s: %v", n, hexs, err)
			continue
		}
		seen[inst.Form] = true
		if got := Print(inst, 0); got != text {
			t.Errorf("golden.txt:%d: %s prints %q, want %q", n, hexs, got, text)
		}
		a, size, err := AssembleInst(text)
		if err != nil || a != v || size != int(inst.Len) {
			t.Errorf("golden.txt:%d: %q assembles to %#x (%d bytes) %v, want %s", n, text, a, size, err, hexs)
		}
	}
	for i, ok := range seen {
		if !ok {
			t.Errorf("form %d (%s) has no golden line", i, forms[i].name)
		}
	}
}

// writeGolden draws random encodings of every form and writes those that
// decode as that form.
func writeGolden(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var b strings.Builder
	b.WriteString("# hex<TAB>cuobjdump text: random encodings of every spec form (go test -run TestGolden -update)\n")
	for fi := range forms {
		f := &forms[fi]
		got := 0
		for try := 0; try < 200000 && got < 4; try++ {
			v := rng.Uint64()&f.care&^f.mask | f.value | f.fill | classBits[f.class]
			size := 8
			if f.class == ClassShort || f.class == ClassFlow32 {
				v &= 0xffffffff
				size = 4
			}
			v = v&^f.ignore | f.fill
			// mostly unguarded, as real code is
			if size == 8 && try%4 != 0 && f.ignore&f_cond.Mask() == 0 {
				v = f_cond.Set(v, condAlways)
				v = f_pr.Set(v, 0)
			}
			inst, err := Decode(binary.LittleEndian.AppendUint64(nil, v)[:size], 0)
			if err != nil || int(inst.Form) != fi || inst.Exit() {
				continue
			}
			digits := 16
			if inst.Len == 4 {
				digits = 8
			}
			fmt.Fprintf(&b, "0x%0*x\t%s\n", digits, v, Print(inst, 0))
			got++
		}
		if got == 0 {
			t.Errorf("no encoding found for form %d (%s)", fi, f.name)
		}
	}
	if err := os.WriteFile("testdata/golden.txt", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Invalid encodings must be rejected with an error naming the address.
func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		want error
		text string
	}{
		{[]byte{}, isa.ErrTruncated, "/*0100*/ truncated instruction"},
		{[]byte{1, 0, 0}, isa.ErrTruncated, "/*0100*/ truncated instruction"},
		{[]byte{1, 0, 0, 0}, isa.ErrTruncated, "/*0100*/ truncated instruction: 64-bit instruction needs 8 bytes"},
		{[]byte{2, 0, 0, 0}, isa.ErrInvalid, "/*0100*/ invalid encoding: unknown 32-bit flow opcode 0x0"},
		// a RET (no 32-bit form) whose second word has bits no RET has
		{[]byte{0x03, 0x00, 0x00, 0x30, 0x00, 0x00, 0x10, 0x00}, isa.ErrInvalid, "/*0100*/ invalid encoding: RET: unexpected bits 0x10000000000000 set"},
		{[]byte{0, 0, 0, 0}, isa.ErrInvalid, "/*0100*/ invalid encoding: unknown short opcode 0x0"},
		// VOTE with both any and all set
		{[]byte{0x01, 0x06, 0, 0x10, 0xc0, 0x07, 0, 0x60}, isa.ErrInvalid, "/*0100*/ invalid encoding: VOTE: invalid operand or modifier"},
		// BRA with bits 2-8 set
		{[]byte{0x07, 0x20, 0x02, 0x10, 0x80, 0x07, 0, 0}, isa.ErrInvalid, "/*0100*/ invalid encoding: flow opcode 0x1: no form matches"},
		// GLD with an unused bit (bit 60) set
		{[]byte{0x01, 0x00, 0x0e, 0xd0, 0x80, 0x07, 0xc0, 0x90}, isa.ErrInvalid, "/*0100*/ invalid encoding: GLD: unexpected bits 0x1000000000000000 set"},
	} {
		_, err := Decode(c.b, 0x100)
		var de *isa.DecodeError
		if !errors.As(err, &de) || !errors.Is(err, c.want) || err.Error() != c.text {
			t.Errorf("Decode(% x) = %v, want %q", c.b, err, c.text)
			continue
		}
		if de.Len <= 0 && len(c.b) > 0 {
			t.Errorf("Decode(% x): Len %d, want > 0 to resynchronise", c.b, de.Len)
		}
	}
}
