package emu

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNum(t *testing.T) {
	ints := map[string]int64{`17`: 17, `"0x1f"`: 31, `"-3"`: -3, `"017"`: 15, `"0b101"`: 5, `"10u"`: 10,
		`"0xffffffffffffffff"`: -1, `4.0`: 4, `"1e3"`: 1000}
	for text, want := range ints {
		var n Num
		if err := n.UnmarshalJSON([]byte(text)); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got, err := n.Int()
		if err != nil || got != want {
			t.Errorf("%s: Int() = %d, %v; want %d", text, got, err, want)
		}
	}
	floats := map[string]float64{`"1.5"`: 1.5, `"2.5f"`: 2.5, `-0.25`: -0.25, `"0x1p-2"`: 0.25, `"inf"`: math.Inf(1), `"-3"`: -3}
	for text, want := range floats {
		var n Num
		if err := n.UnmarshalJSON([]byte(text)); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got, err := n.Float()
		if err != nil || got != want {
			t.Errorf("%s: Float() = %v, %v; want %v", text, got, err, want)
		}
	}
	for _, bad := range []string{`true`, `"abc"`, `""`, `[1]`} {
		var n Num
		if err := n.UnmarshalJSON([]byte(bad)); err == nil {
			if _, err := n.Int(); err == nil {
				t.Errorf("%s accepted as an integer", bad)
			}
		}
	}
}

func TestParseLaunchErrors(t *testing.T) {
	cases := map[string]string{
		`{}`: "no program",
		`{"program": "p", "grid": [1], "block": [0]}`:                                              "block[0] is 0",
		`{"program": "p", "grid": [1], "block": [1,1,1,1]}`:                                        "1 to 3",
		`{"program": "p", "grid": ["-1"], "block": [1]}`:                                           "negative",
		`{"program": "p", "grid": [1], "block": [1], "bogus": 1}`:                                  "unknown field",
		`{"program": "p", "grid": [1], "block": [1], "params": [{"u32": 1, "f32": 2}]}`:            "exactly one",
		`{"program": "p", "grid": [1], "block": [1], "params": [{"u32": "0x100000000"}]}`:          "out of range",
		`{"program": "p", "grid": [1], "block": [1], "memory": [{"space": "texture", "addr": 0}]}`: "unknown space",
		`{"program": "p", "grid": [1], "block": [1], "outputs": [{"buffer": "x", "file": "o"}]}`:   "no buffer",
		`{"program": "p", "grid": [1], "block": [1], "expect": [{"words": "w", "type": "f16"}]}`:   "unknown type",
		`{"program": "p", "grid": [1], "block": [1], "expect": [{"output": "o", "file": "e"}]}`:    "no output file",
		`{"program": "p", "grid": [1], "block": [1], "expect": [{"words": "w", "max_ulp": "-1"}]}`: "non-negative",
		`{"program": "p", "grid": [1], "block": [65536, 2]}`:                                       "threads",
		`not json`: "invalid character",
		`{"program": "p", "grid": ["0x7fffffff", "0x7fffffff", 3], "block": [1]}`: "blocks",
	}
	for text, want := range cases {
		_, err := ParseLaunch([]byte(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", text, err, want)
		}
	}
}

func TestLoad(t *testing.T) {
	s, err := LoadFile("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Grid != (Dim3{4, 1, 1}) || s.Block != (Dim3{128, 1, 1}) {
		t.Errorf("grid %v block %v", s.Grid, s.Block)
	}
	a, c := s.Buffers["a"], s.Buffers["c"]
	if a.Addr == 0 || a.Addr%256 != 0 || c.Addr%256 != 0 || c.Addr < a.Addr+a.Bytes || a.Bytes != 16 || c.Bytes != 2048 {
		t.Errorf("buffers placed at %+v and %+v", a, c)
	}
	if s.Global[c.Addr] != 0xab || s.Global[a.Addr+3] != 4 || s.Global[3] != 4 {
		t.Errorf("buffer contents wrong")
	}
	if len(s.Global) < DefaultGlobalBytes {
		t.Errorf("global memory is %d bytes", len(s.Global))
	}
	if got := s.Const[1][4:8]; got[0] != 1 || got[3] != 4 {
		t.Errorf("constant bank 1 = % x", s.Const[1][:8])
	}
	le := binary.LittleEndian
	p := s.Params
	if len(p) != 32 || le.Uint32(p[0:]) != uint32(a.Addr) || le.Uint32(p[4:]) != uint32(c.Addr) || le.Uint32(p[8:]) != 512 ||
		math.Float32frombits(le.Uint32(p[12:])) != 2.5 || int32(le.Uint32(p[16:])) != -3 || le.Uint64(p[24:]) != 0x100000002 {
		t.Errorf("params % x", p)
	}
}

func TestCheck(t *testing.T) {
	s, err := LoadFile("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	g := make([]byte, len(s.Global))
	copy(g[0x1000:], s.Global[:16])
	binary.LittleEndian.PutUint32(g[0:], 0x04030201)
	binary.LittleEndian.PutUint32(g[4:], 0x3f800003) // 2 ulp from exp 0x3f800001 (alt), 3 from exp
	n, err := s.Check(&Result{Global: g})
	if err != nil || n != 16+2 {
		t.Fatalf("Check = %d, %v", n, err)
	}
	binary.LittleEndian.PutUint32(g[4:], 0x3f800004)
	_, err = s.Check(&Result{Global: g})
	var mm *Mismatch
	if !errors.As(err, &mm) || mm.Addr != 4 || !strings.Contains(err.Error(), "expected 0x3f800000") ||
		!strings.Contains(err.Error(), "got 0x3f800004") {
		t.Fatalf("Check = %v", err)
	}
	g[0x1003] = 9
	_, err = s.Check(&Result{Global: g})
	if !errors.As(err, &mm) || mm.Addr != 0x1003 || mm.Expect != 0 {
		t.Fatalf("Check = %v", err)
	}
}

func TestCompare(t *testing.T) {
	f := func(x float32) uint64 { return uint64(math.Float32bits(x)) }
	nan1, nan2 := uint64(0x7fc00000), uint64(0x7fffffff)
	inf := f(float32(math.Inf(1)))
	cases := []struct {
		c        cmp
		exp, got uint64
		ok       bool
	}{
		{cmp{typ: "f32"}, nan1, nan2, true},
		{cmp{typ: "f32"}, nan1, f(1), false},
		{cmp{typ: "f32", hasAbs: true, abs: 1e30}, inf, f(3e38), false},
		{cmp{typ: "f32", hasUlp: true, ulp: 1e9}, inf, inf, true},
		{cmp{typ: "f32", hasUlp: true, ulp: 1}, f(0), 0x80000000, true},
		{cmp{typ: "f32", hasUlp: true, ulp: 1}, 0x00000001, 0x80000001, false},
		{cmp{typ: "f32", hasUlp: true, ulp: 2}, 0x00000001, 0x80000001, true},
		{cmp{typ: "f32", hasAbs: true, abs: 0.01}, f(1), f(1.005), true},
		{cmp{typ: "f32", hasRel: true, rel: 0.01}, f(100), f(100.9), true},
		{cmp{typ: "f32", hasRel: true, rel: 0.01}, f(100), f(101.1), false},
		{cmp{typ: "f64", hasUlp: true, ulp: 1}, math.Float64bits(1), math.Float64bits(1) + 1, true},
		{cmp{typ: "u32"}, 1, 2, false},
		{cmp{typ: "f32"}, f(1), f(1), true},
	}
	for i, c := range cases {
		if got := c.c.match(c.exp, c.got); got != c.ok {
			t.Errorf("case %d: match(%#x, %#x) = %v", i, c.exp, c.got, got)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("p", "") // the program: Load reads it, the emulators look at it
	p := write("a.json", `{"program": "p", "grid": [1], "block": [1], "memory": [{"space": "global", "addr": 0, "file": "missing.bin"}]}`)
	if _, err := LoadFile(p); err == nil || !strings.Contains(err.Error(), "missing.bin") {
		t.Errorf("missing image: %v", err)
	}
	p = write("b.json", `{"program": "p", "grid": [1], "block": [1], "params": [{"ptr": "nope"}]}`)
	if _, err := LoadFile(p); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown buffer: %v", err)
	}
	p = write("c.json", `{"program": "p", "grid": [1], "block": [1], "global_bytes": 16, "buffers": {"x": {"bytes": 4096}}}`)
	if _, err := LoadFile(p); err == nil || !strings.Contains(err.Error(), "global_bytes") {
		t.Errorf("small global_bytes: %v", err)
	}
}

// FuzzParseLaunch: the parser and loader never panic, whatever the text.
func FuzzParseLaunch(f *testing.F) {
	for _, name := range []string{"testdata/full.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"program": "p", "grid": [1], "block": [1], "params": [{"f64": "nan"}, {"u64": "-1"}]}`))
	f.Add([]byte(`{"program": "p", "grid": ["0x1f", 2, 3], "block": [1], "expect": [{"words": "w", "max_rel": 1e-300}]}`))
	f.Add([]byte(`{"program": "p", "buffers": {"b": {"bytes": 4}}, "launches": [{"grid": ["{$i+1}"], "block": [1], "repeat": 3,
		"params": [{"ptr": "b"}, {"s32": "{20*$i}"}]}, {"repeat": 2, "zero": ["b"], "while": {"buffer": "b", "index": "{$i}"},
		"launches": [{"grid": [1], "block": [1], "kernel": "k"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLaunch(data)
		if err != nil {
			return
		}
		// Load reads files relative to testdata only; errors are fine, panics are not
		// skip launches that ask for big memories (up to 1 GiB is legal)
		big := func(n Num) bool { v, err := n.Uint(0); return err == nil && v > 1<<20 }
		if l.GlobalBytes.Set() {
			return
		}
		for _, m := range l.Memory {
			if m.Bytes.Set() || big(m.Addr) {
				return
			}
		}
		for _, o := range l.Outputs {
			if big(o.Addr) || big(o.Bytes) {
				return
			}
		}
		for _, b := range l.Buffers {
			if b.Bytes.Set() {
				return
			}
		}
		_, _ = Load(l, "testdata")
	})
}
