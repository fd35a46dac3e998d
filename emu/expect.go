package emu

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Result is a finished run: the memory after it, as expectations and
// outputs read it, and (from a Device) where the buffers are, the
// architecture and the statistics.
type Result struct {
	Global []byte

	Segments []Segment // global memory's further regions

	Buffers map[string]BufferPlace
	Arch    string
	Stats   Stats
}

func (r *Result) global() *Memory {
	return &Memory{Space: Global, Data: r.Global, Segments: r.Segments}
}

// OutputBytes returns the bytes an output asks for.
func (s *Setup) OutputBytes(o Output, r *Result) ([]byte, error) {
	m := r.global()
	if o.Buffer != "" {
		b := s.Buffers[o.Buffer]
		return m.Bytes(b.Addr, b.Bytes)
	}
	a, _ := o.Addr.Uint(0)
	n, _ := o.Bytes.Uint(MaxMemory + 1)
	return m.Bytes(a, n)
}

// Mismatch is a failed expectation.
type Mismatch struct {
	Expect   int // index in the launch file
	Addr     uint64
	Type     string
	Expected string
	Got      string
	Count    int // differing elements in this expectation
	Total    int
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("expect[%d]: %d of %d %s values differ; first at %#x: expected %s, got %s",
		m.Expect, m.Count, m.Total, m.Type, m.Addr, m.Expected, m.Got)
}

// Check checks every expectation; it returns a *Mismatch for the first that
// fails, and the number of values checked.
func (s *Setup) Check(r *Result) (int, error) {
	checked := 0
	for i, e := range s.Launch.Expect {
		n, err := s.checkOne(i, e, r)
		checked += n
		if err != nil {
			return checked, err
		}
	}
	return checked, nil
}

type cmp struct {
	typ            string
	size           int
	ulp, abs, rel  float64
	hasUlp, hasAbs bool
	hasRel         bool
}

func newCmp(e Expect) cmp {
	c := cmp{typ: e.Type, size: elemSizes[e.Type]}
	if c.typ == "" {
		c.typ = "u32"
	}
	if e.MaxULP.Set() {
		c.ulp, _ = e.MaxULP.Float()
		c.hasUlp = true
	}
	if e.MaxAbs.Set() {
		c.abs, _ = e.MaxAbs.Float()
		c.hasAbs = true
	}
	if e.MaxRel.Set() {
		c.rel, _ = e.MaxRel.Float()
		c.hasRel = true
	}
	return c
}

func (c cmp) float(bits uint64) float64 {
	if c.typ == "f64" {
		return math.Float64frombits(bits)
	}
	return float64(math.Float32frombits(uint32(bits)))
}

// ordered maps a float's bits to an integer whose order is the float order,
// so the distance in ulps is a subtraction.
func (c cmp) ordered(bits uint64) int64 {
	if c.typ == "f64" {
		if int64(bits) < 0 {
			return math.MinInt64 - int64(bits) // -0 and +0 meet at 0
		}
		return int64(bits)
	}
	b := int64(int32(uint32(bits)))
	if b < 0 {
		return math.MinInt32 - b
	}
	return b
}

// match reports whether got is acceptable for exp.
func (c cmp) match(exp, got uint64) bool {
	if exp == got {
		return true
	}
	if c.typ != "f32" && c.typ != "f64" {
		return false
	}
	e, g := c.float(exp), c.float(got)
	switch {
	case math.IsNaN(e) || math.IsNaN(g):
		return math.IsNaN(e) && math.IsNaN(g)
	case math.IsInf(e, 0) || math.IsInf(g, 0):
		return e == g
	}
	if c.hasUlp {
		d := c.ordered(exp) - c.ordered(got)
		if d < 0 {
			d = -d
		}
		if float64(d) <= c.ulp {
			return true
		}
	}
	if c.hasAbs && math.Abs(e-g) <= c.abs {
		return true
	}
	if c.hasRel && math.Abs(e-g) <= c.rel*math.Abs(e) {
		return true
	}
	return false
}

func (c cmp) text(bits uint64) string {
	switch c.typ {
	case "f32":
		return fmt.Sprintf("%#08x (%g)", bits, float32(c.float(bits)))
	case "f64":
		return fmt.Sprintf("%#016x (%g)", bits, c.float(bits))
	case "s32":
		return fmt.Sprintf("%#08x (%d)", bits, int32(bits))
	case "u8":
		return fmt.Sprintf("%#02x", bits)
	}
	return fmt.Sprintf("%#08x (%d)", bits, bits)
}

func get(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func (s *Setup) checkOne(i int, e Expect, r *Result) (int, error) {
	c := newCmp(e)
	var mm *Mismatch
	total := 0
	note := func(addr, exp, got uint64) {
		total++
		if c.match(exp, got) {
			return
		}
		if mm == nil {
			mm = &Mismatch{Expect: i, Addr: addr, Type: c.typ, Expected: c.text(exp), Got: c.text(got)}
		}
		mm.Count++
	}
	if e.Output != "" {
		var out Output
		for _, o := range s.Launch.Outputs {
			if o.File == e.Output {
				out = o
			}
		}
		got, err := s.OutputBytes(out, r)
		if err != nil {
			return 0, fmt.Errorf("expect[%d]: %v", i, err)
		}
		want, err := s.Launch.readFile(s.Dir, e.File)
		if err != nil {
			return 0, fmt.Errorf("expect[%d]: %v", i, err)
		}
		if len(want) != len(got) {
			return 0, fmt.Errorf("expect[%d]: %s has %d bytes, output %s has %d", i, e.File, len(want), e.Output, len(got))
		}
		if len(want)%c.size != 0 {
			return 0, fmt.Errorf("expect[%d]: %d bytes is not a whole number of %s", i, len(want), c.typ)
		}
		var base uint64
		if out.Buffer != "" {
			base = s.Buffers[out.Buffer].Addr
		} else {
			base, _ = out.Addr.Uint(0)
		}
		for off := 0; off < len(want); off += c.size {
			note(base+uint64(off), get(want[off:], c.size), get(got[off:], c.size))
		}
	} else {
		data, err := s.Launch.readFile(s.Dir, e.Words)
		if err != nil {
			return 0, fmt.Errorf("expect[%d]: %v", i, err)
		}
		rows, err := parseWords(data, e.Alt)
		if err != nil {
			return 0, fmt.Errorf("expect[%d]: %s: %v", i, e.Words, err)
		}
		m := r.global()
		for _, row := range rows {
			size := c.size
			if size == 1 {
				size = 4 // words are 32-bit; u8 compares their bytes
			}
			v, err := m.Load(row.addr, size)
			if err != nil {
				return total, fmt.Errorf("expect[%d]: %v", i, err)
			}
			if c.size == 1 {
				for k := 0; k < 4; k++ {
					g, x, a := v>>(8*k)&0xff, row.exp>>(8*k)&0xff, row.alt>>(8*k)&0xff
					if row.hasAlt && c.match(a, g) {
						x = g
					}
					note(row.addr+uint64(k), x, g)
				}
				continue
			}
			exp := row.exp
			if row.hasAlt && c.match(row.alt, v) {
				exp = row.alt
			}
			note(row.addr, exp, v)
		}
	}
	if mm != nil {
		mm.Total = total
		return total, mm
	}
	return total, nil
}

type wordRow struct {
	addr, exp, alt uint64
	hasAlt         bool
}

// parseWords reads an expectation TSV: a header naming columns addr and exp
// (and exp_alt when alt), then one row per word.
func parseWords(data []byte, alt bool) ([]wordRow, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("empty file")
	}
	col := map[string]int{}
	for i, h := range strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t") {
		col[strings.TrimSpace(h)] = i
	}
	ia, okA := col["addr"]
	ie, okE := col["exp"]
	ix, okX := col["exp_alt"]
	if !okA || !okE {
		return nil, fmt.Errorf("header needs columns addr and exp")
	}
	if alt && !okX {
		return nil, fmt.Errorf("alt is set but there is no exp_alt column")
	}
	var rows []wordRow
	line := 1
	for sc.Scan() {
		line++
		t := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(t) == "" {
			continue
		}
		f := strings.Split(t, "\t")
		field := func(i int) (uint64, error) {
			if i >= len(f) {
				return 0, fmt.Errorf("line %d: missing column %d", line, i+1)
			}
			v, err := strconv.ParseUint(strings.TrimSpace(f[i]), 0, 64)
			if err != nil {
				return 0, fmt.Errorf("line %d: %v", line, err)
			}
			return v, nil
		}
		var r wordRow
		var err error
		if r.addr, err = field(ia); err != nil {
			return nil, err
		}
		if r.exp, err = field(ie); err != nil {
			return nil, err
		}
		if alt && ix < len(f) && strings.TrimSpace(f[ix]) != "" {
			if r.alt, err = field(ix); err != nil {
				return nil, err
			}
			r.hasAlt = true
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}
