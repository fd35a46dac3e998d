package tesla

import (
	"github.com/gpuisa/gpuisa/isa"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// pieceText prints inst piece by piece with the general printer (putPiece),
// the reference the print programs are checked against.
func pieceText(inst Inst) string {
	f := &forms[inst.Form]
	dst := make([]byte, 0, 4*textRoom)
	dst = appendMnemonic(dst, inst)
	if len(f.opnds) > 0 {
		dst = append(dst, ' ')
		for i := range f.opnds {
			dst = putPiece(slices.Grow(dst, textRoom), f, &f.opnds[i], inst.Raw)
		}
	}
	return string(append(dst, ';'))
}

// TestPrintPrograms prints every form with random field values (the
// form's fixed bits kept) by its program and piece by piece.
func TestPrintPrograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for fi := range forms {
		f := &forms[fi]
		for k := range 3000 {
			v := ^uint64(0)
			switch k {
			case 0:
			case 1:
				v = 0
			default:
				v = rng.Uint64()
			}
			inst := Inst{Raw: v&^f.mask | f.value, Form: uint16(fi), Len: 8}
			if got, want := Print(inst, 0), pieceText(inst); got != want {
				t.Fatalf("form %d (%s), %#x: program prints %q, pieces %q", fi, f.name, inst.Raw, got, want)
			}
		}
	}
}

// TestLineColumns checks the address and hex columns the lister stores
// against isa.CuobjdumpStyle's AppendPrefix and AppendSuffix.
func TestLineColumns(t *testing.T) {
	var b textBuf
	for _, addr := range []uint64{0, 8, 0xfff8, 0x10000, 0xabcdef0, 0xfffffff8, 1 << 32, 0x123456789a} {
		want := string(isa.CuobjdumpStyle.AppendPrefix(nil, addr))
		if n := putPrefix(&b, addr); string(b[:n]) != want {
			t.Errorf("prefix of %#x: %q, want %q", addr, b[:n], want)
		}
	}
	// the lister's cached column, from block to block, back and forth,
	// across a digit more and past 32 bits
	var c prefixCache
	for _, addr := range []uint64{0, 4, 0xf8, 0x100, 0xfffc, 0x10000, 0x10004, 8, 0xfffffff8, 1 << 32, 0x1000000fc, 0xfffffffc, 0x12345678} {
		want := string(isa.CuobjdumpStyle.AppendPrefix(nil, addr))
		if n := c.put(&b, addr); string(b[:n]) != want {
			t.Errorf("cached prefix of %#x: %q, want %q", addr, b[:n], want)
		}
	}
	const raw = 0x0123456789abcdef
	for _, from := range []int{0, 9, 24} {
		for n := 0; n < 120; n++ {
			for _, digits := range []int{8, 16} {
				text := strings.Repeat("x", n)
				want := string(isa.CuobjdumpStyle.AppendSuffix([]byte(text), n, raw, digits))
				copy(b[from:], text)
				if e := putSuffix(&b, from, from+n, raw, digits); string(b[from:e]) != want {
					t.Fatalf("text of %d bytes at %d, %d digits: %q, want %q", n, from, digits, b[from:e], want)
				}
			}
		}
	}
}
