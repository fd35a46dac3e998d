package jsonl_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/internal/jsonschema"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/fermi"
	"github.com/gpuisa/gpuisa/isa/jsonl"
	"github.com/gpuisa/gpuisa/isa/maxwell"
	"github.com/gpuisa/gpuisa/isa/tesla"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// loadSchema reads docs/listing.schema.json.
func loadSchema(t *testing.T) *jsonschema.Schema {
	s, err := jsonschema.Load("../../docs/listing.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkRecords validates every line of a JSON listing; it returns the
// number of records and how many have operands (or dual-issue operations).
func checkRecords(t *testing.T, schema *jsonschema.Schema, name string, listing []byte) (records, withOps int) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v: %s", name, err, sc.Text())
		}
		if err := schema.Validate(v); err != nil {
			t.Fatalf("%s: %v: %s", name, err, sc.Text())
		}
		records++
		m := v.(map[string]any)
		if _, ok := m["operands"]; ok {
			withOps++
		} else if _, ok := m["dual"]; ok {
			withOps++
		}
	}
	return records, withOps
}

// randomCode is n random 64-bit words (splitmix64 from a fixed seed) that
// the ISA's decoder accepts, each one alone at address 0, as raw code: the
// JSON of (nearly) every instruction form.
func randomCode(n int, ok func(w uint64) bool) []byte {
	var code []byte
	x := uint64(7)
	for k := 0; k < n; {
		x += 0x9e3779b97f4a7c15
		z := (x ^ x>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
		if ok(z) {
			code = binary.LittleEndian.AppendUint64(code, z)
			k++
		}
	}
	return code
}

// Every record of the JSON listings of every ISA validates against the
// documented schema: the line-info corpus (sm_5x cubins), the Tesla
// examples, GXP shaders, and random valid words of each ISA.
func TestListingSchema(t *testing.T) {
	schema := loadSchema(t)
	arch := func(name string) isa.Arch {
		a, err := all.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	total := map[string][2]int{}
	add := func(isaName, name string, listing []byte) {
		r, o := checkRecords(t, schema, name, listing)
		if err := consistent(listing, isaName != "usse"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		c := total[isaName]
		total[isaName] = [2]int{c[0] + r, c[1] + o}
	}
	cubins, _ := filepath.Glob("../maxwell/testdata/lineinfo/cubin/*.cubin")
	cubins = append(cubins, "../../examples/tesla/vecadd.cubin")
	if len(cubins) < 2 {
		t.Fatal("no cubins")
	}
	for _, c := range cubins {
		data, _ := os.ReadFile(c)
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		a, err := all.LookupSM(f.SM())
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		jw := jsonl.NewWriter(&buf)
		for _, fn := range f.Functions {
			if _, err := a.WriteJSON(jw, fn.Code, 0, fn.Name, ".text."+fn.Name); err != nil {
				t.Fatal(err)
			}
		}
		add(a.ISA, c, buf.Bytes())
	}
	gxps, _ := filepath.Glob("../../examples/usse/*.gxp")
	for _, g := range gxps {
		data, _ := os.ReadFile(g)
		p, err := gxp.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := usse.WriteJSON(jsonl.NewWriter(&buf), gxp.Code(p.Primary), 0, "primary", ""); err != nil {
			t.Fatal(err)
		}
		add("usse", g, buf.Bytes())
	}
	random := []struct {
		arch string
		ok   func(w uint64) bool
	}{
		{"sm_10", func(w uint64) bool {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], w)
			in, err := tesla.Decode(b[:], 0)
			return err == nil && in.Len == 8 // whole words: 8-byte forms (short ones below)
		}},
		{"sm_20", func(w uint64) bool { _, err := fermi.DecodeWord(w); return err == nil && w&8 == 0 }},
		{"sm_52", nil},
		{"sgx543", func(w uint64) bool { _, err := usse.DecodeWord(w, 0); return err == nil }},
	}
	for _, r := range random {
		var code []byte
		if r.ok != nil {
			code = randomCode(10000, r.ok)
		} else {
			// whole bundles: a random control word and three valid words
			words := randomCode(7500, func(w uint64) bool { _, err := maxwell.Decode(w, maxwell.NeutralCtrl, 52, 8); return err == nil })
			ctrl := randomCode(2500, func(uint64) bool { return true })
			for b := 0; b < 2500; b++ {
				code = append(code, ctrl[8*b:8*b+8]...)
				code = append(code, words[24*b:24*b+24]...)
			}
		}
		a := arch(r.arch)
		var buf bytes.Buffer
		if _, err := a.WriteJSON(jsonl.NewWriter(&buf), code, 0x1000, "", ""); err != nil {
			t.Fatal(err)
		}
		add(a.ISA, r.arch+" random", buf.Bytes())
	}
	// Tesla's 4-byte instructions and words that do not decode (records
	// with an error) of each ISA
	for _, r := range []struct{ arch, hex string }{
		{"sm_10", "0100e8100100e810ffffffffffffffff"}, // two MOV32, then no instruction
		{"sm_20", "08000000fffffffffffffffffffffff7"},
		{"sm_52", "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"},
		{"sgx543", "ffffffffffffffff"},
	} {
		code, _ := hex.DecodeString(r.hex)
		a := arch(r.arch)
		var buf bytes.Buffer
		derrs, err := a.WriteJSON(jsonl.NewWriter(&buf), code, 0, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(derrs) == 0 || !bytes.Contains(buf.Bytes(), []byte(`"error"`)) {
			t.Errorf("%s %s: no decode error in %s", r.arch, r.hex, buf.String())
		}
		add(a.ISA, r.arch+" "+r.hex, buf.Bytes())
	}
	for _, name := range []string{"tesla", "fermi", "maxwell", "usse"} {
		c := total[name]
		if c[0] == 0 || c[1] < c[0]/2 {
			t.Errorf("%s: %d records, %d with operands", name, c[0], c[1])
		}
		t.Logf("%s: %d records valid, %d with operands", name, c[0], c[1])
	}
	// a record that breaks the schema is caught
	bad := map[string]any{"address": 8.0, "bytes": "zz", "text": "X"}
	if schema.Validate(bad) == nil {
		t.Fatal("bad bytes accepted")
	}
	bad = map[string]any{"address": 8.0, "bytes": "00", "text": "X", "length": 6.0}
	if schema.Validate(bad) == nil {
		t.Fatal("bad length accepted")
	}
}
