package fermi

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
)

type goldenCase struct {
	line    int
	raw     uint64
	addr    uint64
	dialect string // "new", "old" or "error"
	text    string
}

func readGolden(t testing.TB) []goldenCase {
	f, err := os.Open("testdata/decode.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		parts := strings.SplitN(line, " ", 4)
		if len(parts) != 4 {
			t.Fatalf("decode.txt:%d: want 4 columns", n)
		}
		raw, err1 := strconv.ParseUint(parts[0], 16, 64)
		addr, err2 := strconv.ParseUint(parts[1], 16, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("decode.txt:%d: bad number", n)
		}
		cases = append(cases, goldenCase{n, raw, addr, parts[2], parts[3]})
	}
	return cases
}

func TestGolden(t *testing.T) {
	cases := readGolden(t)
	if len(cases) < 300 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, c := range cases {
		inst, err := DecodeWord(c.raw)
		if c.dialect == "error" {
			var de *isa.DecodeError
			if err == nil || !errors.Is(err, isa.ErrInvalid) || !errors.As(err, &de) || de.Len != 8-4*int(c.raw>>3&1) || !strings.Contains(err.Error(), c.text) {
				t.Errorf("decode.txt:%d: %016x: got %v, want error %q", c.line, c.raw, err, c.text)
			}
			continue
		}
		if err != nil {
			t.Errorf("decode.txt:%d: %016x: %v", c.line, c.raw, err)
			continue
		}
		d := New
		if c.dialect == "old" {
			d = Old
		}
		if got := string(AppendTextDialect(nil, inst, c.addr, d)); got != c.text {
			t.Errorf("decode.txt:%d: %016x prints %q, want %q", c.line, c.raw, got, c.text)
		}
		back, err := AssembleLineDialect(c.text, c.addr, d)
		if err != nil || back.Raw != c.raw {
			t.Errorf("decode.txt:%d: %q assembles to %016x, %v; want %016x", c.line, c.text, back.Raw, err, c.raw)
		}
	}
}

func TestDecodeTruncated(t *testing.T) {
	_, err := DecodeAt([]byte{0xe4, 0x5d, 0, 0}, 0x40)
	var de *isa.DecodeError
	if !errors.Is(err, isa.ErrTruncated) || !errors.As(err, &de) || de.Len != 4 || de.Addr != 0x40 {
		t.Fatalf("got %v", err)
	}
	if !strings.HasPrefix(err.Error(), "/*0040*/ truncated") {
		t.Errorf("message %q", err)
	}
}

func TestInstString(t *testing.T) {
	inst, err := DecodeWord(0x2800440400005de4)
	if err != nil || inst.String() != "MOV R1, c[0x1][0x100];" || inst.Op() != "MOV" || inst.Len() != 8 {
		t.Fatalf("%v %q %q", err, inst, inst.Op())
	}
	if r, neg := inst.Guard(); r != 7 || neg {
		t.Errorf("guard %d %v", r, neg)
	}
}
