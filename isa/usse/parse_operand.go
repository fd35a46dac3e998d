package usse

import (
	"math"
	"strconv"
	"strings"
)

// swizzle parses ".xyzw"-style text of a swz element.
func (m *matcher) swizzle(f *form, e *elem, in *Inst) bool {
	if !m.eat('.') {
		return false
	}
	start := m.pos
	for m.pos < len(m.s) && strings.IndexByte(swizzleChans, m.s[m.pos]) >= 0 {
		m.pos++
	}
	return m.pos > start && m.swizzleText(f, e, in, m.s[start:m.pos])
}

// swizzleText sets a swz element's fields from its text (a prefix of an
// entry; the table choice (v34) depends on a field parsed earlier).
func (m *matcher) swizzleText(f *form, e *elem, in *Inst, text string) bool {
	t := swizzleTable(f, e, in)
	ent := firstWithPrefix(t, text)
	if ent == "" || text == "" {
		return false
	}
	for idx, s := range t {
		if s == ent {
			w := f.fields[e.f[0]].width
			return m.assign(in, e.f[0], uint32(idx)&(1<<w-1)) && m.assign(in, e.f[1], uint32(idx>>w))
		}
	}
	return false
}

// values parses "{v, v, ...}" (1 to 4 float32 values) into v.
func (m *matcher) values(v *[4]uint32) (int, bool) {
	if !m.eat('{') {
		return 0, false
	}
	k := 0
	for {
		m.blanks()
		start := m.pos
		for m.pos < len(m.s) && strings.IndexByte("+-.0123456789eE", m.s[m.pos]) >= 0 {
			m.pos++
		}
		x, err := strconv.ParseFloat(m.s[start:m.pos], 32)
		if err != nil || k == 4 {
			return 0, false
		}
		v[k] = math.Float32bits(float32(x))
		k++
		m.blanks()
		if m.eat('}') {
			return k, true
		}
		if !m.eat(',') {
			return 0, false
		}
	}
}

func (m *matcher) decimal() (uint64, bool) {
	d := m.pos
	for m.pos < len(m.s) && m.s[m.pos] >= '0' && m.s[m.pos] <= '9' {
		m.pos++
	}
	if d == m.pos || m.pos-d > 10 {
		return 0, false
	}
	v, err := strconv.ParseUint(m.s[d:m.pos], 10, 64)
	return v, err == nil
}

// token reads a number or identifier at the current position.
func (m *matcher) token() string {
	d := m.pos
	for m.pos < len(m.s) {
		c := m.s[m.pos]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' {
			m.pos++
			continue
		}
		break
	}
	return m.s[d:m.pos]
}

func parseUint(t string) (uint64, bool) {
	if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		v, err := strconv.ParseUint(t[2:], 16, 64)
		return v, err == nil
	}
	v, err := strconv.ParseUint(t, 10, 64)
	return v, err == nil && t != ""
}

func (m *matcher) number(f *form, e *elem, in *Inst, labels labelFunc) bool {
	fd := &f.fields[e.f[0]]
	neg := m.eat('-')
	tok := m.token()
	if tok == "" {
		return false
	}
	var v uint64
	switch e.kind {
	case kDec, kDec1:
		d, err := strconv.ParseUint(tok, 10, 64)
		if err != nil || neg {
			return false
		}
		v = d
		if e.kind == kDec1 {
			if v == 0 {
				return false
			}
			v--
		}
	default:
		if c := tok[0]; !(c >= '0' && c <= '9') {
			if labels == nil || neg {
				return false
			}
			x, ok := labels(f, in, e.f[0], tok)
			if !ok {
				return false
			}
			v = uint64(x)
			break
		}
		if len(tok) < 3 || tok[:2] != "0x" {
			return false
		}
		x, ok := parseUint(tok)
		if !ok {
			return false
		}
		v = x
		if neg {
			if e.kind != kShex || v == 0 {
				return false
			}
			v = -v & (1<<fd.width - 1)
		} else if e.kind == kShex && v >= 1<<(fd.width-1) {
			return false
		}
		if e.kind == kHexo && v == 0 {
			return false // zero is printed as nothing
		}
	}
	if v >= 1<<fd.width {
		return false
	}
	return m.assign(in, e.f[0], uint32(v))
}

// reg parses a register operand and sets its bank, bank-ext and number fields.
func (m *matcher) reg(f *form, e *elem, in *Inst) bool {
	w := f.fields[e.f[2]].width
	mult := regMult(f, e, in)
	start := m.pos
	var name string
	var num uint64
	c := m.peek()
	switch {
	case c >= '0' && c <= '9':
		tok := m.token()
		if len(tok) < 3 || tok[:2] != "0x" {
			return false
		}
		v, ok := parseUint(tok)
		if !ok {
			return false
		}
		name, num = "imm", v
	default:
		id := m.pos
		for m.pos < len(m.s) && m.s[m.pos] >= 'a' && m.s[m.pos] <= 'z' {
			m.pos++
		}
		prefix := m.s[id:m.pos]
		if m.peek() == '[' {
			// BANK[indexN * 2 + OFF]
			b := -1
			for i, s := range bank4 {
				if s == prefix {
					b = i
				}
			}
			if b < 0 || !m.lit("[index") {
				return false
			}
			k := m.peek()
			if k != '1' && k != '2' {
				return false
			}
			m.pos++
			name = "idx" + string(k)
			if !m.lit(" * 2 + ") {
				return false
			}
			off, ok := m.decimal()
			if !ok || off%mult != 0 || off/mult >= 1<<(w-2) || !m.lit("]") {
				return false
			}
			num = uint64(b)<<(w-2) | off/mult
			break
		}
		v, ok := m.decimal()
		if !ok {
			m.pos = start
			return false
		}
		switch prefix {
		case "i":
			if v >= 4 {
				return false
			}
			name, num = "r", 1<<w-4+v
		case "r", "o", "pa", "sa":
			if v%mult != 0 {
				return false
			}
			name, num = prefix, v/mult
			if prefix == "r" && num >= 1<<w-4 {
				return false
			}
		case "c":
			if v >= 0x40 {
				return false
			}
			name, num = "special", v
		case "g":
			if v >= 0x40 {
				return false
			}
			name, num = "special", v|0x40
		case "idx":
			name, num = "index", v
		default:
			return false
		}
	}
	if num >= 1<<w {
		return false
	}
	bw := f.fields[e.f[0]].width
	for i, s := range bankTables[e.table] {
		if s != name {
			continue
		}
		ext := uint32(i >> bw)
		if e.f[1] < 0 && ext != 0 {
			continue
		}
		return m.assign(in, e.f[0], uint32(i)&(1<<bw-1)) && m.assign(in, e.f[1], ext) && m.assign(in, e.f[2], uint32(num))
	}
	return false
}
