package cubin

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMalformed corrupts one field of a real cubin at a time and checks the
// error: a *FormatError at the right offset saying what was wrong.
func TestMalformed(t *testing.T) {
	orig, err := os.ReadFile("testdata/small.sm_50.cubin")
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	shoff := le.Uint64(orig[40:])
	sh := func(i int) uint64 { return shoff + uint64(i)*64 } // section header i
	// indices in small.sm_50.cubin
	const shstrtab, symtab, infoScale, textScale = 1, 3, 5, 9
	symOff := le.Uint64(orig[sh(symtab)+24:])
	infoOff := le.Uint64(orig[sh(infoScale)+24:])

	cases := []struct {
		name   string
		mutate func(b []byte) []byte
		off    uint64
		msg    string
	}{
		{"empty", func(b []byte) []byte { return nil }, 0, "too short for an ELF identification"},
		{"truncated header", func(b []byte) []byte { return b[:40] }, 40, "too short for the ELF64 header"},
		{"bad magic", func(b []byte) []byte { b[1] = 'X'; return b }, 0, "bad ELF magic"},
		{"bad class", func(b []byte) []byte { b[4] = 3; return b }, 4, "bad ELF class 3"},
		{"big endian", func(b []byte) []byte { b[5] = 2; return b }, 5, "not little-endian"},
		{"wrong machine", func(b []byte) []byte { le.PutUint16(b[18:], 62); return b }, 18, "not EM_CUDA"},
		{"section table past end", func(b []byte) []byte { le.PutUint64(b[40:], 1<<62); return b }, 40, "section header table"},
		{"program headers truncated", func(b []byte) []byte { return b[:len(b)-10] }, 32, "program header table"},
		{"section table truncated", func(b []byte) []byte { le.PutUint16(b[56:], 0); return b[:sh(10)+10] }, 40, "section header table"},
		{"small shentsize", func(b []byte) []byte { le.PutUint16(b[58:], 20); return b }, 58, "e_shentsize 20"},
		{"huge shnum", func(b []byte) []byte { le.PutUint16(b[60:], 0xffff); return b }, 40, "section header table"},
		{"shstrndx out of range", func(b []byte) []byte { le.PutUint16(b[62:], 99); return b }, 62, "e_shstrndx 99"},
		{"program headers past end", func(b []byte) []byte { le.PutUint64(b[32:], 1<<40); le.PutUint16(b[56:], 3); return b }, 32, "program header table"},
		{"section size huge", func(b []byte) []byte { le.PutUint64(b[sh(textScale)+32:], 1<<63); return b }, sh(textScale), "section 9 data"},
		{"section offset past end", func(b []byte) []byte { le.PutUint64(b[sh(textScale)+24:], uint64(len(b))); return b }, sh(textScale), "past end of file"},
		{"overlapping sections", func(b []byte) []byte {
			le.PutUint64(b[sh(textScale)+24:], le.Uint64(b[sh(textScale-1)+24:]))
			return b
		}, le.Uint64(orig[sh(textScale-1)+24:]), "overlaps section"},
		{"section over header", func(b []byte) []byte { le.PutUint64(b[sh(textScale)+24:], 8); return b }, 8, "overlaps the ELF header"},
		{"bad section name", func(b []byte) []byte { le.PutUint32(b[sh(4):], 0x7fff); return b }, sh(4), "name offset 0x7fff"},
		{"unterminated names", func(b []byte) []byte {
			off, size := le.Uint64(b[sh(shstrtab)+24:]), le.Uint64(b[sh(shstrtab)+32:])
			b[off+size-1] = 'x'
			return b
		}, sh(6), "unterminated"},
		{"symtab entsize", func(b []byte) []byte { le.PutUint64(b[sh(symtab)+56:], 7); return b }, sh(symtab), "entry size 7"},
		{"symtab size", func(b []byte) []byte { le.PutUint64(b[sh(symtab)+32:], 0xbf); return b }, sh(symtab), "not a multiple"},
		{"symtab link", func(b []byte) []byte { le.PutUint32(b[sh(symtab)+40:], 77); return b }, sh(symtab), "string table as section 77"},
		{"symbol name", func(b []byte) []byte { le.PutUint32(b[symOff+24:], 0xffff); return b }, symOff + 24, "symbol 1 name offset"},
		{"nv.info record past end", func(b []byte) []byte { le.PutUint16(b[infoOff+2:], 0x100); return b }, infoOff, "runs past the section end"},
		{"nv.info bad format", func(b []byte) []byte { b[infoOff] = 9; return b }, infoOff, "unknown format 0x09"},
		{"nv.info truncated", func(b []byte) []byte {
			le.PutUint64(b[sh(infoScale)+32:], 0x66) // the last record (at 0x64) loses 2 of its 4 header bytes
			return b
		}, infoOff + 0x64, "record header truncated"},
		{"nv.info payload truncated", func(b []byte) []byte {
			le.PutUint64(b[sh(infoScale)+32:], 0x6e)
			return b
		}, infoOff + 0x64, "payload of 8 bytes runs past the section end (6 bytes left)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.mutate(append([]byte(nil), orig...))
			f, err := Parse(data)
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
				t.Fatalf("Parse = %v, %v; want a *FormatError", f, err)
			}
			if uint64(fe.Off) != c.off || !strings.Contains(fe.Msg, c.msg) {
				t.Errorf("error %q at 0x%x; want %q at 0x%x", fe.Msg, fe.Off, c.msg, c.off)
			}
		})
	}
}

// TestMalformedRelocs corrupts the relocation section of a relocatable cubin.
func TestMalformedRelocs(t *testing.T) {
	orig, err := os.ReadFile("testdata/extern.sm_52.rel.cubin")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	rel := f.Section(".rel.text.callext")
	if rel == nil || len(f.Function("callext").Relocs) != 1 {
		t.Fatalf("want one relocation in .rel.text.callext")
	}
	le := binary.LittleEndian
	bad := append([]byte(nil), orig...)
	le.PutUint32(bad[rel.Offset+12:], 99) // symbol index (high half of r_info)
	if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "names symbol 99") {
		t.Errorf("bad symbol: %v", err)
	}
	bad = append([]byte(nil), orig...)
	le.PutUint64(bad[rel.Offset:], 0x10000) // r_offset
	if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "outside .text.callext") {
		t.Errorf("bad offset: %v", err)
	}
}

// fuzzSeeds are the committed cubins plus a written ELF32 Tesla cubin.
func fuzzSeeds(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.cubin")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	b, err := Write(DefaultModule(10, "k", make([]byte, 16), 4, 4, 4))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

// FuzzParse: Parse never panics, fails only with a *FormatError, and what it
// accepts can be written back and parsed again.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Off < 0 {
				t.Fatalf("error is not a *FormatError: %v", err)
			}
			return
		}
		for _, fn := range file.Functions {
			_ = fn.Const(0)
			for _, r := range fn.Relocs {
				_ = RelocTypeName(r.Type)
				_ = file.Symbols[r.Symbol]
			}
		}
		_ = HeaderFlags(file.Flags)
		m := moduleOf(file)
		if out, err := Write(m); err == nil {
			if _, err := Parse(out); err != nil {
				t.Fatalf("Parse(Write(Parse(data))): %v", err)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/small.sm_53.O0.cubin")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	m := DefaultModule(52, "vec", make([]byte, 4096), 8, 8, 8, 8, 4)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Write(m); err != nil {
			b.Fatal(err)
		}
	}
}
