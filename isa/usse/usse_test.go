package usse

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/asm"
)

type golden struct {
	line int
	word uint64
	want string // text, or "error: ..."
}

func readGolden(t testing.TB) []golden {
	fh, err := os.Open("testdata/decode.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []golden
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		hex, text, ok := strings.Cut(line, "\t")
		w, err := strconv.ParseUint(hex, 16, 64)
		if !ok || err != nil {
			t.Fatalf("testdata/decode.txt:%d: bad line", n)
		}
		out = append(out, golden{n, w, text})
	}
	return out
}

// TestGolden checks our hand-made decode cases (no shared data needed).
func TestGolden(t *testing.T) {
	for _, g := range readGolden(t) {
		in, err := DecodeWord(g.word, 0)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
			if !errors.Is(err, isa.ErrInvalid) {
				t.Errorf("line %d: error %v is not ErrInvalid", g.line, err)
			}
		} else {
			got = Print(in, 0)
			checkRoundTrip(t, g.word)
		}
		if got != g.want {
			t.Errorf("testdata/decode.txt:%d: %016x\n got %s\nwant %s", g.line, g.word, got, g.want)
		}
	}
}

func TestTruncated(t *testing.T) {
	_, err := Decode([]byte{1, 2, 3}, 0x40)
	var de *isa.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, isa.ErrTruncated) || de.Addr != 0x40 || de.Len != 3 {
		t.Fatalf("err = %v", err)
	}
}

func goldenCode(t testing.TB) []byte {
	var code []byte
	for _, g := range readGolden(t) {
		code = binary.LittleEndian.AppendUint64(code, g.word)
	}
	return code
}

// TestListingRoundTrip: Disassemble lists every word (invalid ones as .quad
// with an error), and Assemble of that listing gives back the same bytes.
func TestListingRoundTrip(t *testing.T) {
	code := goldenCode(t)
	code = append(code, 0xaa, 0xbb) // a truncated tail
	listing, errs := Disassemble(nil, code, 0x100)
	invalid := 0
	for _, g := range readGolden(t) {
		if strings.HasPrefix(g.want, "error: ") {
			invalid++
		}
	}
	if len(errs) != invalid+1 || !errors.Is(errs[len(errs)-1], isa.ErrTruncated) {
		t.Fatalf("errors: %v", errs)
	}
	if !strings.Contains(string(listing), "/*0100*/        nop") {
		t.Fatalf("listing layout:\n%s", listing)
	}
	out, err := Assemble("golden.s", listing)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, code[:len(code)-2]) {
		t.Fatal("listing does not assemble to the original bytes")
	}
}

func TestAssembleLabelsAndErrors(t *testing.T) {
	src := "start:\n  nop\nloop: p0 br start ; ba loop\n\tmov.u32 r16, 0xad002600 // comment\n"
	out, err := Assemble("t.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{0xf800014000000000, 0xf90000400000000f | 0xfffff, 0xf800000000000001, 0xfc22b08002002600}
	want[1] = 0xf900004000000000 | 0xfffff // br back one instruction: -1 in 20 bits
	for i, w := range want {
		if got := binary.LittleEndian.Uint64(out[8*i:]); got != w {
			t.Errorf("word %d = %016x, want %016x", i, got, w)
		}
	}
	_, err = Assemble("t.s", []byte("nop\n  bogus r0, r1\nmad.f32 i9.x, r0.x, i0.x, i0.x\n"))
	var el asm.ErrorList
	if !errors.As(err, &el) || len(el) != 2 || el[0].Pos.Line != 2 || el[1].Pos.Line != 3 || el[0].Pos.Col != 3 {
		t.Fatalf("errors = %v", err)
	}
	if want := "t.s:2:3: unknown instruction: bogus r0, r1"; el[0].Error() != want {
		t.Errorf("error %q, want %q", el[0].Error(), want)
	}
	if want := "t.s:3:1: bad operands: mad.f32 i9.x, r0.x, i0.x, i0.x"; el[1].Error() != want {
		t.Errorf("error %q, want %q", el[1].Error(), want)
	}
}

func FuzzDecode(f *testing.F) {
	for _, g := range readGolden(f) {
		f.Add(g.word)
	}
	f.Fuzz(func(t *testing.T, w uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], w)
		in, err := Decode(b[:], 0)
		if err != nil {
			var de *isa.DecodeError
			if !errors.As(err, &de) || de.Len != 8 {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		text := Print(in, 0)
		back, err := ParseInst(text)
		if err != nil || back.Raw != w {
			t.Fatalf("%016x: %q does not round-trip", w, text)
		}
	})
}

func FuzzAssemble(f *testing.F) {
	for _, g := range readGolden(f) {
		if in, err := DecodeWord(g.word, 0); err == nil {
			f.Add(Print(in, 0))
		}
	}
	f.Add("lbl: p0 br lbl ; .quad 0x1")
	f.Fuzz(func(t *testing.T, src string) {
		code, err := Assemble("f.s", []byte(src))
		if err != nil {
			return
		}
		listing, _ := Disassemble(nil, code, 0)
		again, err := Assemble("g.s", listing)
		if err != nil || !bytes.Equal(again, code) {
			t.Fatalf("%q: reassembly differs (%v)", src, err)
		}
	})
}
