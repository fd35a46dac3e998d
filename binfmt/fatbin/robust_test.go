package fatbin

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// TestMalformed corrupts one field of the testdata fatbins at a time and
// checks the error: a *FormatError at the right offset saying what was wrong.
func TestMalformed(t *testing.T) {
	plain := readFile(t, "testdata/plain.fatbin")
	comp := readFile(t, "testdata/compressed.fatbin")
	le := binary.LittleEndian
	const e0 = 16 // first entry header
	e1 := e0 + uint64(le.Uint32(plain[e0+4:])) + le.Uint64(plain[e0+8:])
	// PTX entry of plain.fatbin: the third
	e2 := e1 + uint64(le.Uint32(plain[e1+4:])) + le.Uint64(plain[e1+8:])
	cases := []struct {
		name   string
		src    []byte
		mutate func(b []byte) []byte
		off    uint64
		msg    string
	}{
		{"truncated header", plain, func(b []byte) []byte { return b[:10] }, 0, "fatbin header truncated"},
		{"header size", plain, func(b []byte) []byte { le.PutUint16(b[6:], 4); return b }, 6, "header size 4"},
		{"fat size", plain, func(b []byte) []byte { le.PutUint64(b[8:], 1<<60); return b }, 8, "runs past the end"},
		{"truncated file", plain, func(b []byte) []byte { return b[:len(b)-1] }, 8, "runs past the end"},
		{"entry header truncated", plain, func(b []byte) []byte {
			le.PutUint64(b[8:], 20)
			return b[:36]
		}, e0, "entry header truncated"},
		{"entry header size", plain, func(b []byte) []byte { le.PutUint32(b[e1+4:], 8); return b }, e1 + 4, "entry header size 8"},
		{"entry header size huge", plain, func(b []byte) []byte { le.PutUint32(b[e1+4:], 0xffffffff); return b }, e1 + 4, "out of range"},
		{"payload size", plain, func(b []byte) []byte { le.PutUint64(b[e0+8:], 1<<62); return b }, e0 + 8, "payload size"},
		{"name outside header", plain, func(b []byte) []byte { le.PutUint32(b[e2+0x24:], 0x1000); return b }, e2 + 0x20, "outside the entry header"},
		{"options descriptor", plain, func(b []byte) []byte { le.PutUint32(b[e2+0x14:], 0x54); return b }, e2 + 0x14, "options descriptor"},
		{"bad magic after first", plain, func(b []byte) []byte {
			return append(b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
		}, uint64(len(plain)), "bad fatbin magic"},
		{"compressed size zero", comp, func(b []byte) []byte { le.PutUint32(b[e0+0x10:], 0); return b }, e0 + 0x10, "compressed size 0x0"},
		{"compressed size past payload", comp, func(b []byte) []byte {
			le.PutUint32(b[e0+0x10:], uint32(le.Uint64(b[e0+8:])+1))
			return b
		}, e0 + 0x10, "out of range"},
		{"decompressed size lies", comp, func(b []byte) []byte {
			le.PutUint64(b[e0+0x38:], le.Uint64(b[e0+0x38:])-1)
			return b
		}, 0, "exceeds the declared size"},
		{"decompressed size huge", comp, func(b []byte) []byte { le.PutUint64(b[e0+0x38:], 1<<40); return b }, e0 + 0x38, "more than 32 times"},
		// issue 11: a 199 KiB fatbin declared a 48 MiB cubin (LZ4 allows
		// 255:1) and listing it took 2.6 GB; 33:1 is past the limit
		{"decompressed size past the ratio", comp, func(b []byte) []byte {
			le.PutUint64(b[e0+0x38:], 33*uint64(le.Uint32(b[e0+0x10:]))+RatioSlack+1)
			return b
		}, e0 + 0x38, "more than 32 times"},
		{"lz4 bad match offset", comp, func(b []byte) []byte {
			// first token 0xa2: 10 literals then a match whose offset we break
			b[e0+0x40+11] = 0xff
			return b
		}, e0 + 0x40 + 11, "match offset"},
		{"lz4 truncated", comp, func(b []byte) []byte { le.PutUint32(b[e0+0x10:], 12); return b }, e0 + 0x40 + 11, "match offset truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.mutate(append([]byte(nil), c.src...))
			_, err := Extract(data)
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
				t.Fatalf("Extract = %v; want a *FormatError", err)
			}
			if (c.off != 0 && uint64(fe.Off) != c.off) || !strings.Contains(fe.Msg, c.msg) {
				t.Errorf("error %q at 0x%x; want %q at 0x%x", fe.Msg, fe.Off, c.msg, c.off)
			}
		})
	}
}

// TestMalformedHost: errors inside a host ELF name offsets in the host file.
func TestMalformedHost(t *testing.T) {
	host := readFile(t, "testdata/host.o")
	f, err := cubin.ParseELF(host)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".nv_fatbin")
	bad := append([]byte(nil), host...)
	binary.LittleEndian.PutUint64(bad[s.Offset+8:], 1<<40)
	_, err = Extract(bad)
	var fe *FormatError
	if !errors.As(err, &fe) || uint64(fe.Off) != s.Offset+8 {
		t.Errorf("corrupt fat size in host.o: %v, want an error at 0x%x", err, s.Offset+8)
	}
	// a broken host ELF gives cubin's *FormatError
	bad = append([]byte(nil), host...)
	bad[5] = 2
	var ce *cubin.FormatError
	if _, err := Extract(bad); !errors.As(err, &ce) || ce.Off != 5 {
		t.Errorf("big-endian host: %v", err)
	}
}

func TestDecompressLZ4(t *testing.T) {
	// literals "abc", match offset 3 length 6, then final literals "z":
	// token 0x32 (3 literals, match 2+4)
	src := []byte{0x32, 'a', 'b', 'c', 3, 0, 0x10, 'z'}
	got, err := decompressLZ4(src, 10)
	if err != nil || string(got) != "abcabcabcz" {
		t.Fatalf("got %q, %v", got, err)
	}
	// long literal run: 15 + 3 = 18 literals
	long := append([]byte{0xf0, 3}, []byte("0123456789abcdefgh")...)
	if got, err := decompressLZ4(long, 18); err != nil || string(got) != "0123456789abcdefgh" {
		t.Fatalf("long literals: %q, %v", got, err)
	}
	for _, bad := range [][]byte{{}, {0x10}, {0x32, 'a', 'b', 'c'}, {0x32, 'a', 'b', 'c', 9, 0, 0x10, 'z'}, {0xf0, 0xff, 0xff}} {
		if _, err := decompressLZ4(bad, 10); err == nil {
			t.Errorf("% x: accepted", bad)
		}
	}
}

func FuzzExtract(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*")
	for _, p := range paths {
		if strings.HasSuffix(p, ".sh") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := Extract(data)
		if err != nil {
			var fe *FormatError
			var ce *cubin.FormatError
			if !errors.As(err, &fe) && !errors.As(err, &ce) && !errors.Is(err, ErrNoFatbin) {
				t.Fatalf("unexpected error type: %v", err)
			}
			return
		}
		for _, e := range entries {
			if e.Offset < 0 || e.Offset >= int64(len(data)) {
				t.Fatalf("entry offset %d outside input", e.Offset)
			}
			if e.Kind == KindELF {
				cubin.Parse(e.Payload) // must not panic
			}
		}
	})
}

func BenchmarkExtract(b *testing.B) {
	data := readFile(b, "testdata/compressed.fatbin")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Extract(data); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecompressLZ4: the decoder never panics and returns exactly want bytes
// when it succeeds.
func FuzzDecompressLZ4(f *testing.F) {
	f.Add([]byte{0x32, 'a', 'b', 'c', 3, 0, 0x10, 'z'}, uint16(10))
	f.Add([]byte{0xf0, 3, '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}, uint16(18))
	f.Fuzz(func(t *testing.T, src []byte, want uint16) {
		out, err := decompressLZ4(src, uint64(want))
		if err == nil && len(out) != int(want) {
			t.Fatalf("decoded %d bytes, want %d", len(out), want)
		}
	})
}
