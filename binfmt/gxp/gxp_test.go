package gxp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/usse"
)

type testParam struct {
	name     string
	cat, typ uint8
	comps    uint8
	array    uint32
	res      int32
}

// build writes a minimal GXP by hand: header, primary and secondary code,
// parameter table and names. It is how our committed testdata was made.
func build(flags uint32, pa, sa uint16, primary, secondary []uint64, params []testParam) []byte {
	le := binary.LittleEndian
	b := make([]byte, 0xa0)
	copy(b, "GXP\x00")
	b[4], b[5] = 1, 4
	le.PutUint32(b[0x14:], flags)
	le.PutUint16(b[0x30:], pa)
	le.PutUint16(b[0x32:], sa)
	put := func(field int, target int) { le.PutUint32(b[field:], uint32(target-field)) }
	le.PutUint32(b[0x3c:], uint32(len(primary)))
	put(0x40, len(b))
	for _, w := range primary {
		b = le.AppendUint64(b, w)
	}
	le.PutUint32(b[0x44:], uint32(len(secondary)))
	put(0x48, len(b))
	for _, w := range secondary {
		b = le.AppendUint64(b, w)
	}
	put(0x4c, len(b))
	le.PutUint32(b[0x24:], uint32(len(params)))
	put(0x28, len(b))
	table := len(b)
	b = append(b, make([]byte, 16*len(params))...)
	for i, p := range params {
		off := table + 16*i
		le.PutUint32(b[off:], uint32(len(b)-off))
		b = append(append(b, p.name...), 0)
		le.PutUint16(b[off+4:], uint16(p.cat)|uint16(p.typ)<<4|uint16(p.comps)<<8)
		le.PutUint32(b[off+8:], p.array)
		le.PutUint32(b[off+12:], uint32(p.res))
	}
	le.PutUint32(b[8:], uint32(len(b)))
	return b
}

func tinyVertex() []byte {
	return build(0x10000, 4, 8,
		[]uint64{0xfa44070000000000, 0x3880052103000f00, 0xfb275000a0200000},
		[]uint64{0xf800014000000000, 0xf804014000000000},
		[]testParam{{"aPos", 0, 0, 4, 1, 0}, {"mvp", 1, 0, 4, 4, 0}})
}

func TestTinyGolden(t *testing.T) {
	want, err := os.ReadFile("testdata/tiny_vertex.gxp")
	if err != nil {
		t.Fatal(err)
	}
	b := tinyVertex()
	if !bytes.Equal(b, want) {
		t.Fatal("testdata/tiny_vertex.gxp differs from build(): regenerate it")
	}
	p, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != Vertex || p.PARegs != 4 || p.SARegs != 8 || len(p.Primary) != 3 || len(p.Secondary) != 2 {
		t.Fatalf("header: %+v", p)
	}
	if p.Primary[2] != 0xfb275000a0200000 || p.Secondary[1] != 0xf804014000000000 {
		t.Fatalf("code: %x %x", p.Primary, p.Secondary)
	}
	if len(p.Params) != 2 || p.Params[0].Name != "aPos" || p.Params[0].Register() != "pa0" ||
		p.Params[1].Name != "mvp" || p.Params[1].Category != Uniform || p.Params[1].ArraySize != 4 || p.Params[1].Register() != "sa0" {
		t.Fatalf("params: %+v", p.Params)
	}
}

// TestCorrupt: every truncation and a few targeted corruptions are errors.
func TestCorrupt(t *testing.T) {
	good := tinyVertex()
	for n := 0; n < len(good); n++ {
		if _, err := Parse(good[:n]); err == nil {
			// a truncation that still holds everything the header points at
			// is only acceptable if the header size is not violated
			t.Errorf("truncated to %d bytes: no error", n)
		} else if !errors.Is(err, ErrFormat) {
			t.Errorf("truncated to %d: error %v does not wrap ErrFormat", n, err)
		}
	}
	for _, c := range []struct {
		name string
		off  int
		val  uint32
	}{{"magic", 0, 0x00505848}, {"primary count", 0x3c, 1 << 30}, {"primary offset", 0x40, 0xfffffff0},
		{"secondary end before start", 0x4c, 0}, {"param count", 0x24, 1000}, {"size", 8, 1 << 20}} {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[c.off:], c.val)
		if _, err := Parse(b); !errors.Is(err, ErrFormat) {
			t.Errorf("%s corrupted: err = %v", c.name, err)
		}
	}
}

// listed reads the word listings of the oracle: file name -> P/S words.
func listed(t *testing.T, path string) map[string][2][]uint64 {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	out := map[string][2][]uint64{}
	cur := ""
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "==" {
			cur = f[1]
			if i := strings.Index(sc.Text(), "file "); i >= 0 {
				cur = strings.TrimSuffix(sc.Text()[i+5:], ")")
			}
			continue
		}
		if len(f) == 3 && len(f[1]) == 16 {
			w, _ := strconv.ParseUint(f[1], 16, 64)
			e := out[cur]
			if f[0][0] == 'P' {
				e[0] = append(e[0], w)
			} else {
				e[1] = append(e[1], w)
			}
			out[cur] = e
		}
	}
	return out
}

// TestOracleGXPs parses every GXP of the oracle, checks its code against the
// listings and parameter names against the Cg sources, and round-trips every
// instruction word through the USSE printer and assembler.
func TestOracleGXPs(t *testing.T) {
	dir := oracle.Path(t, "oracle/usse")
	var files []string
	for _, pat := range []string{"libvita2d/*.gxp", "vita3k-shader-tests/scratch/*.gxp", "vita3k-shader-tests/tests/*/gxp/*"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		files = append(files, m...)
	}
	lists := listed(t, filepath.Join(dir, "libvita2d/LISTING.txt"))
	for k, v := range listed(t, filepath.Join(dir, "vita3k_shader_tests_programs.txt")) {
		lists[k] = v
	}
	parsed, checked, words, exact := 0, 0, 0, 0
	for _, fn := range files {
		b, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(b)
		if err != nil {
			t.Errorf("%s: %v", fn, err)
			continue
		}
		parsed++
		rel, _ := filepath.Rel(filepath.Join(dir, "vita3k-shader-tests"), fn)
		want, ok := lists[filepath.Base(fn)]
		if !ok {
			want, ok = lists[rel]
		}
		if ok {
			checked++
			if !equalWords(p.Primary, want[0]) || !equalWords(p.Secondary, want[1]) {
				t.Errorf("%s: code differs from the listing", fn)
			}
		}
		if cg, err := os.ReadFile(strings.TrimSuffix(fn, ".gxp") + ".cg"); err == nil {
			for _, prm := range p.Params {
				if !bytes.Contains(cg, []byte(prm.Name)) {
					t.Errorf("%s: parameter %q not in the Cg source", fn, prm.Name)
				}
			}
		}
		for _, w := range append(append([]uint64(nil), p.Primary...), p.Secondary...) {
			words++
			in, err := usse.DecodeWord(w, 0)
			if err != nil {
				t.Errorf("%s: %v", fn, err)
				continue
			}
			back, err := usse.ParseInst(usse.Print(in, 0))
			if err != nil || back.Raw != w {
				t.Errorf("%s: %016x does not round-trip (%q)", fn, w, usse.Print(in, 0))
				continue
			}
			exact++
		}
	}
	t.Logf("GXP files: %d/%d parsed, %d checked against listings; words: %d/%d round-trip bit-exact", parsed, len(files), checked, exact, words)
}

func equalWords(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("testdata/tiny_vertex.gxp"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("GXP\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		// each program lies inside the file (the two may share bytes: the
		// header's offsets are free to point at the same words)
		if uint64(len(p.Primary))*8 > uint64(len(b)) || uint64(len(p.Secondary))*8 > uint64(len(b)) {
			t.Fatal("more code than file")
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data := tinyVertex()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestListing(t *testing.T) {
	p, err := Parse(tinyVertex())
	if err != nil {
		t.Fatal(err)
	}
	listing, errs := p.AppendListing(nil, usse.Disassemble)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	text := string(listing)
	for _, want := range []string{"// GXP vertex program", "// parameter aPos", "attribute", "at pa0", "mvp", "[4] at sa0",
		"// primary program: 3 instructions", "phas", "emitvtx.end", "// secondary program: 2 instructions", "nop.end"} {
		if !strings.Contains(text, want) {
			t.Errorf("listing lacks %q:\n%s", want, text)
		}
	}
	code, err := usse.Assemble("tiny.s", listing)
	if err != nil {
		t.Fatal(err)
	}
	if want := Code(append(append([]uint64(nil), p.Primary...), p.Secondary...)); !bytes.Equal(code, want) {
		t.Fatalf("listing assembles to %x, want %x", code, want)
	}
}
