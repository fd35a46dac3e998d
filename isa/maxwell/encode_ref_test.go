package maxwell

// The encoder as it was before it was made fast (commit 7b7db3e): matching
// every form with backtracking, no filters. TestEncodeTextSameAsReference
// checks the fast one gives the same answers.

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Encoding (reference) is the inverse of printing: the text of one instruction (as
// AppendText prints it, or as nvdisasm does) is matched against the templates
// of every form with its mnemonic, fields are read back from the text, and the
// candidate word is printed again and compared with the input. A match is
// therefore exact by construction; bits no field covers are zero.

// refErrNoMatch is returned when no form prints the given text.
var refErrNoMatch = errors.New("no instruction form matches")

// refResolver turns a label into an address (for branch targets).
type refResolver func(name string) (uint64, bool)

// refEncodeText encodes one instruction text for address pc under sm. It returns
// the word and the control field the text implies (.reuse, texture phase,
// "X;" for stall 0). resolve may be nil.
func refEncodeText(text string, pc uint64, sm int, resolve refResolver) (uint64, Ctrl, error) {
	norm := refSqueeze(text)
	if !strings.HasSuffix(norm, ";") {
		norm += ";"
	}
	stall0 := strings.HasSuffix(strings.TrimRight(text, " \t"), ";") && !strings.HasSuffix(strings.TrimRight(text, " \t"), " ;")
	body := strings.TrimSuffix(norm, ";")
	var guard uint64 = 7
	if strings.HasPrefix(body, "@") {
		i := 1
		neg := false
		if i < len(body) && body[i] == '!' {
			neg = true
			i++
		}
		p, n, ok := refParsePred(body[i:])
		if !ok {
			return 0, 0, errors.New("bad guard predicate")
		}
		guard = p
		if neg {
			guard |= 8
		}
		body = body[i+n:]
	}
	reuses := strings.Count(body, ".reuse")
	body = strings.ReplaceAll(body, ".reuse", "")
	name := body
	if k := strings.IndexAny(name, "."); k >= 0 {
		name = name[:k]
	}
	// the mnemonic ends where the first operand starts; find the longest known prefix
	cands, ok := formsByName[name]
	if !ok {
		for k := len(body); k > 0; k-- {
			if c, ok2 := formsByName[body[:k]]; ok2 {
				cands, ok = c, true
				break
			}
		}
	}
	if !ok {
		return 0, 0, refErrNoMatch
	}
	base := NeutralCtrl
	if stall0 {
		base = 0x7e0
	}
	// buffers for printing candidates, on the stack unless a text is long
	var buf, tbuf [160]byte
	for _, fi := range cands {
		f := &forms[fi]
		if f.attrs&(attrSM52|attrSM50) != 0 && (sm >= 52) != (f.attrs&attrSM52 != 0) || f.attrs&attrBad != 0 {
			continue
		}
		g := guard
		if f.attrs&attrNoGuard != 0 {
			g = 0 // not predicated; ptxas leaves the field zero
		}
		m := refMatcher{f: f, fi: fi, sm: sm, pc: pc, resolve: resolve, text: body, guard: g, want: norm, buf: buf[:0], tbuf: tbuf[:0]}
		for phase := 0; phase < 4; phase++ {
			if phase > 0 && f.attrs&attrTex == 0 {
				break
			}
			for reuse := 0; reuse < 8; reuse++ {
				if reuse > 0 && (reuses == 0 || f.attrs&attrReuse == 0) {
					break
				}
				r := reuse
				if f.attrs&attrTex != 0 {
					r = phase
				}
				m.ctrl = base | Ctrl(r)<<17
				if w, ok := m.run(); ok {
					return w, m.ctrl, nil
				}
			}
		}
	}
	return 0, 0, refErrNoMatch
}

// refSqueeze removes all blanks: matching and verification ignore whitespace.
func refSqueeze(s string) string {
	if !strings.ContainsAny(s, " \t") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			b = append(b, s[i])
		}
	}
	return string(b)
}

type refMatcher struct {
	f       *form
	fi      uint16
	sm      int
	pc      uint64
	resolve refResolver
	text    string // instruction without guard, blanks and .reuse
	want    string // the whole squeezed text, for verification
	guard   uint64
	ctrl    Ctrl
	buf     []byte
	tbuf    []byte // printed table entries that are not plain strings
	// a label operand: its span in text and the target it stands for
	labelAt, labelEnd int
	labelVal          int64
}

// run searches the template against the text, backtracking over the choices
// (table entries, optional pieces), and verifies each complete candidate.
func (m *refMatcher) run() (uint64, bool) {
	w := m.f.value | m.guard<<16
	return m.match(0, 0, w)
}

func (m *refMatcher) verify(w uint64) bool {
	if w&m.f.mask != m.f.value {
		return false
	}
	if fi := lookup(w, m.sm); fi != int(m.fi) {
		return false
	}
	inst := Inst{Word: w, Ctrl: m.ctrl, form: m.fi}
	m.buf = AppendText(m.buf[:0], inst, m.pc)
	want := m.want
	if m.labelEnd > 0 {
		// compare with the label replaced by the address it resolved to
		off := len(m.want) - len(m.text) - 1
		want = m.want[:off+m.labelAt] + string(appendSHex(nil, m.labelVal)) + m.want[off+m.labelEnd:]
	}
	return refEqualSqueezed(m.buf, want)
}

// refEqualSqueezed reports whether b without blanks equals s.
func refEqualSqueezed(b []byte, s string) bool {
	j := 0
	for _, c := range b {
		if c == ' ' || c == '\t' {
			continue
		}
		if j >= len(s) || s[j] != c {
			return false
		}
		j++
	}
	return j == len(s)
}

// refPrefixSqueezed reports whether s starts with lit without its blanks, and
// the length of that prefix.
func refPrefixSqueezed[T string | []byte](s string, lit T) (int, bool) {
	j := 0
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c == ' ' || c == '\t' {
			continue
		}
		if j >= len(s) || s[j] != c {
			return 0, false
		}
		j++
	}
	return j, true
}

func (m *refMatcher) match(k, pos int, w uint64) (uint64, bool) {
	toks := m.f.toks
	if k == len(toks) {
		if pos == len(m.text) && m.verify(w) {
			return w, true
		}
		return 0, false
	}
	t := &toks[k]
	s := m.text[pos:]
	switch t.kind {
	case tkLit:
		n, ok := refPrefixSqueezed(s, t.text)
		if !ok {
			return 0, false
		}
		return m.match(k+1, pos+n, w)
	case tkGroup:
		if r, ok := m.match(k+1, pos, w); ok { // present
			return r, true
		}
		// absent: its fields take their defaults
		w2 := w
		for j := k + 1; j <= k+t.arg; j++ {
			g := &toks[j]
			switch g.kind {
			case tkLit, tkGroup, tkPhase:
			case tkFlag:
				if g.width() == 1 {
					w2 = g.set(w2, g.def^1)
				}
			default:
				w2 = g.set(w2, g.def)
			}
		}
		return m.match(k+1+t.arg, pos, w2)
	case tkFlag:
		if n, ok := refPrefixSqueezed(s, t.text); ok {
			if r, ok := m.match(k+1, pos+n, t.set(w, t.def)); ok {
				return r, true
			}
		}
		if t.width() == 1 {
			return m.match(k+1, pos, t.set(w, t.def^1))
		}
		return m.match(k+1, pos, w)
	case tkPhase: // the phase lives in the control field, which run's caller chose
		ph := [4]string{"", ".T", ".P", ".INVALIDPHASE3"}[m.ctrl.Reuse()&3]
		if !strings.HasPrefix(s, ph) {
			return 0, false
		}
		return m.match(k+1, pos+len(ph), w)
	case tkReg:
		if t.shift != 0 && strings.HasPrefix(s, "???255") {
			// the second register of a pair past R254: the first one has the number
			return m.match(k+1, pos+6, w)
		}
		// with blanks squeezed out "R62 0x10" reads "R620x10": try the shorter numbers too
		rc := refRegChoices(s)
		for _, c := range rc.c[:rc.n] {
			r := c.r
			if r != 255 {
				if r < uint64(t.shift) {
					continue
				}
				r -= uint64(t.shift)
			}
			if res, ok := m.match(k+1, pos+c.n, t.set(w, r)); ok {
				return res, true
			}
		}
		return 0, false
	case tkPred, tkNPred:
		neg := uint64(0)
		n0 := 0
		if t.kind == tkNPred && strings.HasPrefix(s, "!") {
			neg, n0 = 8, 1
		}
		p, n, ok := refParsePred(s[n0:])
		if !ok {
			return 0, false
		}
		if t.kind == tkPred && t.arg == 7 {
			p ^= 7
		}
		return m.match(k+1, pos+n0+n, t.set(w, p|neg))
	case tkTable:
		tb := &tables[t.arg]
		for v := range tb.entries {
			var n int
			var ok bool
			if tb.kinds[v] == 0 {
				n, ok = refPrefixSqueezed(s, tb.entries[v])
			} else if tb.kinds[v] == 2 {
				continue
			} else {
				m.tbuf = appendTable(m.tbuf[:0], t.arg, uint64(v))
				n, ok = refPrefixSqueezed(s, m.tbuf)
			}
			if ok {
				if r, ok := m.match(k+1, pos+n, t.set(w, uint64(v))); ok {
					return r, true
				}
			}
		}
		return 0, false
	case tkHex, tkSHex:
		x, n, ok := refParseInt(s)
		if !ok {
			return 0, false
		}
		if t.shift > 0 {
			if x&(1<<t.shift-1) != 0 {
				return 0, false
			}
			x >>= t.shift
		}
		return m.match(k+1, pos+n, t.set(w, uint64(x)))
	case tkRel:
		x, n, ok := refParseInt(s)
		if !ok {
			var name string
			name, n = refParseLabel(s)
			if n == 0 || m.resolve == nil {
				return 0, false
			}
			a, found := m.resolve(name)
			if !found {
				return 0, false
			}
			x = int64(a)
			m.labelAt, m.labelEnd, m.labelVal = pos, pos+n, x
			r, ok := m.match(k+1, pos+n, t.set(w, uint64(x-int64(m.pc)-8)))
			if !ok {
				m.labelEnd = 0
			}
			return r, ok
		}
		return m.match(k+1, pos+n, t.set(w, uint64(x-int64(m.pc)-8)))
	case tkF32, tkF64, tkF16:
		bits, n, ok := refParseFloat(s, t.kind)
		if !ok {
			return 0, false
		}
		size := uint8(32)
		switch t.kind {
		case tkF64:
			size = 64
		case tkF16:
			size = 16
		}
		return m.match(k+1, pos+n, t.set(w, bits>>(size-t.width())))
	case tkRegPair:
		if strings.HasPrefix(s, "???255") {
			if r, ok := m.match(k+1, pos+6, t.set(w, 255)); ok {
				return r, true
			}
			return m.match(k+1, pos+6, w) // the number came with another operand
		}
		rc := refRegChoices(s)
		for _, c := range rc.c[:rc.n] {
			if c.r == 255 || c.r < uint64(t.shift) {
				continue
			}
			if res, ok := m.match(k+1, pos+c.n, t.set(w, c.r-uint64(t.shift))); ok {
				return res, true
			}
		}
		return 0, false
	case tkBitSet:
		if !strings.HasPrefix(s, "{") {
			return 0, false
		}
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, false
		}
		var set uint64
		if end > 1 {
			for _, d := range strings.Split(s[1:end], ",") {
				b, err := strconv.Atoi(d)
				if err != nil || b < 0 || b >= int(t.width()) {
					return 0, false
				}
				set |= 1 << uint(b)
			}
		}
		return m.match(k+1, pos+end+1, t.set(w, set))
	case tkAddr, tkUAddr:
		reg := uint64(255)
		var off int64
		n := 0
		if r, rn, ok := refParseReg(s); ok {
			reg, n = r, rn
			if strings.HasPrefix(s[n:], "+") {
				x, xn, ok := refParseInt(s[n+1:])
				if !ok {
					return 0, false
				}
				off, n = x, n+1+xn
			}
		} else {
			x, xn, ok := refParseInt(s)
			if !ok {
				return 0, false
			}
			off, n = x, xn
		}
		w2 := w
		p := t.parts[0]
		w2 = w2&^(uint64(1<<p.width-1)<<p.pos) | reg<<p.pos
		rest := *t
		rest.parts = [3]part{t.parts[1], t.parts[2]}
		rest.n = t.n - 1
		if off&(1<<t.shift-1) != 0 {
			return 0, false
		}
		w2 = rest.set(w2, uint64(off>>t.shift))
		return m.match(k+1, pos+n, w2)
	}
	return 0, false
}

type refRegChoice struct {
	r uint64
	n int
}

// refRegChoices lists the readings of a register at the start of s, longest first.
func refRegChoices(s string) refRegChoiceList {
	var out refRegChoiceList
	if strings.HasPrefix(s, "RZ") {
		out.c[0], out.n = refRegChoice{255, 2}, 1
		return out
	}
	if !strings.HasPrefix(s, "R") {
		return out
	}
	for n := min(len(s), 4); n >= 2; n-- {
		if v, ok := refDecimalDigits(s[1:n]); ok && v <= 254 && (n == 2 || s[1] != '0') {
			out.c[out.n] = refRegChoice{v, n}
			out.n++
		}
	}
	return out
}

// refRegChoiceList holds up to three readings (R1, R12, R123) without allocating.
type refRegChoiceList struct {
	c [3]refRegChoice
	n int
}

// refDecimalDigits parses s when it is all decimal digits (at most 19).
func refDecimalDigits(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + uint64(s[i]-'0')
	}
	return v, true
}

func refParseReg(s string) (uint64, int, bool) {
	if strings.HasPrefix(s, "RZ") {
		return 255, 2, true
	}
	if !strings.HasPrefix(s, "R") {
		return 0, 0, false
	}
	n := 1
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 1 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[1:n], 10, 8)
	if err != nil || v > 254 {
		return 0, 0, false
	}
	return v, n, true
}

func refParsePred(s string) (uint64, int, bool) {
	if strings.HasPrefix(s, "PT") {
		return 7, 2, true
	}
	if len(s) >= 2 && s[0] == 'P' && s[1] >= '0' && s[1] <= '6' {
		return uint64(s[1] - '0'), 2, true
	}
	return 0, 0, false
}

// refParseInt reads 0x..., -0x... or a decimal number.
func refParseInt(s string) (int64, int, bool) {
	n := 0
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, n = true, 1
	}
	var v uint64
	start := n
	if strings.HasPrefix(s[n:], "0x") {
		n += 2
		start = n
		for n < len(s) && refIsHexDigit(s[n]) {
			n++
		}
		if n == start {
			return 0, 0, false
		}
		var err error
		if v, err = strconv.ParseUint(s[start:n], 16, 64); err != nil {
			return 0, 0, false
		}
	} else {
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == start {
			return 0, 0, false
		}
		var err error
		if v, err = strconv.ParseUint(s[start:n], 10, 64); err != nil {
			return 0, 0, false
		}
	}
	if neg {
		return -int64(v), n, true
	}
	return int64(v), n, true
}

func refIsHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// refParseLabel reads a label reference: name, or `(name) as nvdisasm's ELF mode prints it.
func refParseLabel(s string) (string, int) {
	n := 0
	if strings.HasPrefix(s, "`(") {
		end := strings.IndexByte(s, ')')
		if end < 0 {
			return "", 0
		}
		return s[2:end], end + 1
	}
	for n < len(s) && (s[n] == '_' || s[n] == '.' || s[n] == '$' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return s[:n], n
}

// refParseFloat reads a float immediate as nvdisasm prints it and returns its
// bits in the given format.
func refParseFloat(s string, kind tokKind) (uint64, int, bool) {
	for _, sp := range []struct {
		text string
		sign bool
		inf  bool
	}{{"+INF", false, true}, {"-INF", true, true}, {"+QNAN", false, false}, {"-QNAN", true, false}} {
		if strings.HasPrefix(s, sp.text) {
			return refSpecialBits(kind, sp.sign, sp.inf), len(sp.text), true
		}
	}
	if strings.HasPrefix(s, "+SNAN") || strings.HasPrefix(s, "-SNAN") {
		b := uint64(0x7ff0100000000000) // as encode.go: a bit a 20-bit immediate keeps
		if s[0] == '-' {
			b |= 1 << 63
		}
		return b, 5, kind == tkF64
	}
	n := 0
	if n < len(s) && (s[n] == '-' || s[n] == '+') {
		n++
	}
	for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '.' || s[n] == 'e' || (s[n] == '-' || s[n] == '+') && n > 0 && s[n-1] == 'e') {
		n++
	}
	// a trailing ".NEG"/".ABS" modifier is not part of the number
	for n > 0 && s[n-1] == '.' {
		n--
	}
	if n == 0 {
		return 0, 0, false
	}
	x, err := strconv.ParseFloat(s[:n], 64)
	if err != nil {
		return 0, 0, false
	}
	switch kind {
	case tkF64:
		return math.Float64bits(x), n, true
	case tkF16:
		b, ok := refF16bits(x)
		return uint64(b), n, ok
	}
	f := float32(x)
	if float64(f) != x {
		return 0, 0, false
	}
	return uint64(math.Float32bits(f)), n, true
}

func refSpecialBits(kind tokKind, neg, inf bool) uint64 {
	var b uint64
	switch kind {
	case tkF64:
		b = 0x7ff0000000000000
		if !inf {
			b |= 1 << 51
		}
		if neg {
			b |= 1 << 63
		}
	case tkF16:
		b = 0x7c00
		if !inf {
			b |= 1 << 9
		}
		if neg {
			b |= 1 << 15
		}
	default:
		b = 0x7f800000
		if !inf {
			b |= 1 << 22
		}
		if neg {
			b |= 1 << 31
		}
	}
	return b
}

// refF16bits converts an exactly representable value to IEEE half bits.
func refF16bits(x float64) (uint16, bool) {
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
		x = -x
	}
	if x == 0 {
		return sign, true
	}
	for e := 1; e < 31; e++ {
		// normal numbers: (1024+m) * 2^(e-25)
		m := math.Ldexp(x, 25-e) - 1024
		if m >= 0 && m < 1024 && m == math.Trunc(m) {
			return sign | uint16(e)<<10 | uint16(m), true
		}
	}
	m := math.Ldexp(x, 24)
	if m < 1024 && m == math.Trunc(m) {
		return sign | uint16(m), true
	}
	return 0, false
}
