package usse

import (
	"bytes"
	"strings"
	"testing"
)

// TestLineColumns checks appendLinePrefix and appendLineEnd against
// Style's methods: every address width (and past 32 bits), every text
// length around the hex column, with and without room in dst.
func TestLineColumns(t *testing.T) {
	if Style != fixedStyle {
		t.Fatalf("Style %+v is not fixedStyle %+v", Style, fixedStyle)
	}
	addrs := []uint64{0, 8, 0xfff8, 0x10000, 0xfffff8, 0x123456, 0x1234568, 0xfffffff8, 1<<32 + 8}
	for _, addr := range addrs {
		for _, room := range []int{0, 200} {
			head := []byte("x")
			dst := append(make([]byte, 0, len(head)+room), head...)
			got := appendLinePrefix(dst, addr)
			want := Style.AppendPrefix(append([]byte(nil), head...), addr)
			if !bytes.Equal(got, want) {
				t.Errorf("appendLinePrefix(%#x) = %q, want %q", addr, got, want)
			}
		}
	}
	// a lister's prefixes, made from the last one's: runs of consecutive
	// words across address blocks and digit counts, jumps between them
	l := &lister{preBlock: noBlock}
	var runs [][2]uint64
	for _, a := range []uint64{0, 0xfe00, 0xffffe0, 0xffffff00, 0x120, 0} {
		runs = append(runs, [2]uint64{a, a + 0x300})
	}
	for _, r := range runs {
		for addr := r[0]; addr < r[1]; addr += 8 {
			room := int(addr>>3) % 64
			dst := append(make([]byte, 0, 1+room), 'x')
			got := l.appendPrefix(dst, addr)
			want := Style.AppendPrefix([]byte("x"), addr)
			if !bytes.Equal(got, want) {
				t.Fatalf("lister prefix of %#x = %q, want %q", addr, got, want)
			}
		}
	}
	const w = 0x0123456789abcdef
	for n := 0; n <= 100; n++ {
		text := strings.Repeat("t", n)
		for _, room := range []int{0, 200} {
			dst := append(make([]byte, 0, n+room), text...)
			got := appendLineEnd(dst, n, w)
			want := Style.AppendSuffix(append([]byte(text), " ;"...), n+2, w, 16)
			if !bytes.Equal(got, want) {
				t.Errorf("appendLineEnd after %d bytes = %q, want %q", n, got, want)
			}
		}
	}
}
