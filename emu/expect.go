package emu

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
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
	// Findings are the sanitizer's reports (Job.Check), in the order
	// found; FindingsDropped counts those past MaxFindings.
	Findings        []Finding
	FindingsDropped int
}

func (r *Result) global() *Memory {
	return &Memory{Space: Global, Data: r.Global, Segments: r.Segments}
}

// OutputBytes returns a copy of the bytes an output asks for.
func (s *Setup) OutputBytes(o Output, r *Result) ([]byte, error) {
	b, err := s.outputView(o, r)
	if err != nil {
		return nil, err
	}
	return append([]byte{}, b...), nil
}

// outputView is the memory an output asks for, not copied: outputs and
// expectations read it as it is (a 1 GiB output is not copied to be
// written or checked).
func (s *Setup) outputView(o Output, r *Result) ([]byte, error) {
	m := r.global()
	a, _ := o.Addr.Uint(0)
	n, _ := o.Bytes.Uint(MaxMemory + 1)
	if o.Buffer != "" {
		b := s.Buffers[o.Buffer]
		a, n = b.Addr, b.Bytes
	}
	if n == 0 {
		return []byte{}, nil
	}
	return m.region(a, n, false)
}

// Mismatch is a failed expectation: how many values differ, and the first
// few with where they are, what was expected, what came, and how far
// apart they are against the tolerance.
type Mismatch struct {
	Expect    int    // index in the launch file
	What      string // the output file (and buffer) or words file compared
	Type      string
	Tolerance string // "exact", or the launch file's max_ulp/max_abs/max_rel
	Count     int    // differing elements in this expectation
	Total     int
	First     []Diff // the first MaxDiffs differing elements
	// The first difference (First[0]'s address and values).
	Addr          uint64
	Expected, Got string
}

// Diff is one differing element.
type Diff struct {
	Name          string // c[5] for element 5 of buffer c's output; the address for words
	Addr          uint64 // device address (global offset)
	Expected, Got string
	Distance      string // floats: ulps, absolute and relative error; integers: got - expected
}

// MaxDiffs is how many differing elements a Mismatch lists.
const MaxDiffs = 5

func (m *Mismatch) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "expect[%d] (%s, %s, %s): %d of %d values differ; first at %#x: expected %s, got %s",
		m.Expect, m.What, m.Type, m.Tolerance, m.Count, m.Total, m.Addr, m.Expected, m.Got)
	for _, d := range m.First {
		fmt.Fprintf(&b, "\n    %s (%#x): expected %s, got %s: %s", d.Name, d.Addr, d.Expected, d.Got, d.Distance)
	}
	if m.Count > len(m.First) {
		fmt.Fprintf(&b, "\n    ... %d more", m.Count-len(m.First))
	}
	return b.String()
}

// Check checks every expectation, also after one fails; it returns the
// number of values checked and, when some fail, an error joining a
// *Mismatch for each (errors.As finds the first) and any that could not be
// checked.
func (s *Setup) Check(r *Result) (int, error) {
	checked := 0
	var errs []error
	for i, e := range s.Launch.Expect {
		n, err := s.checkOne(i, e, r)
		checked += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return checked, errors.Join(errs...)
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

// tolerance describes what the comparison accepts.
func (c cmp) tolerance() string {
	var t []string
	if c.hasUlp {
		t = append(t, fmt.Sprintf("max_ulp %g", c.ulp))
	}
	if c.hasAbs {
		t = append(t, fmt.Sprintf("max_abs %g", c.abs))
	}
	if c.hasRel {
		t = append(t, fmt.Sprintf("max_rel %g", c.rel))
	}
	if len(t) == 0 || c.typ != "f32" && c.typ != "f64" {
		return "exact"
	}
	return strings.Join(t, " or ")
}

// distance says how far got is from exp.
func (c cmp) distance(exp, got uint64) string {
	if c.typ != "f32" && c.typ != "f64" {
		switch c.typ {
		case "s32":
			return fmt.Sprintf("off by %d", int64(int32(got))-int64(int32(exp)))
		case "u8":
			return fmt.Sprintf("off by %d", int64(got)-int64(exp))
		}
		return fmt.Sprintf("off by %d", int64(got)-int64(exp))
	}
	e, g := c.float(exp), c.float(got)
	if math.IsNaN(e) || math.IsNaN(g) || math.IsInf(e, 0) || math.IsInf(g, 0) {
		return "a special value (NaN matches only NaN, an infinity only itself)"
	}
	d := c.ordered(exp) - c.ordered(got)
	if d < 0 {
		d = -d
	}
	abs := math.Abs(e - g)
	rel := math.Inf(1)
	if e != 0 {
		rel = abs / math.Abs(e)
	}
	return fmt.Sprintf("%d ulp, abs %.3g, rel %.3g (%s)", d, abs, rel, c.tolerance())
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
	what, elem := e.Words, func(int, uint64) string { return "" }
	note := func(addr, exp, got uint64) {
		total++
		if c.match(exp, got) {
			return
		}
		if mm == nil {
			mm = &Mismatch{Expect: i, What: what, Addr: addr, Type: c.typ, Tolerance: c.tolerance(), Expected: c.text(exp), Got: c.text(got)}
		}
		mm.Count++
		if len(mm.First) < MaxDiffs {
			mm.First = append(mm.First, Diff{Name: elem(total-1, addr), Addr: addr, Expected: c.text(exp), Got: c.text(got),
				Distance: c.distance(exp, got)})
		}
	}
	if e.Output != "" {
		var out Output
		for _, o := range s.Launch.Outputs {
			if o.File == e.Output {
				out = o
			}
		}
		what = "output " + e.Output
		name := strings.TrimSuffix(e.Output, filepath.Ext(e.Output))
		if out.Buffer != "" {
			what += ", buffer " + out.Buffer
			name = out.Buffer
		}
		elem = func(k int, _ uint64) string { return fmt.Sprintf("%s[%d]", name, k) }
		got, err := s.outputView(out, r)
		if err != nil {
			return 0, fmt.Errorf("expect[%d]: %v", i, err)
		}
		want, err := s.Launch.readFile(s.Dir, e.File, MaxMemory)
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
		what = "words " + e.Words
		elem = func(k int, addr uint64) string { return fmt.Sprintf("word %#x", addr) }
		data, err := s.Launch.readFile(s.Dir, e.Words, MaxWordsFileBytes)
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
