package usse

import (
	"errors"
	"strconv"
	"strings"
)

// ParseInst parses the text of one instruction (no address or hex columns)
// and returns the instruction it names, with Raw set to its encoding. Forms
// are tried in spec order; a form is taken when the whole text matches its
// template and its encoding decodes back to the same form and syntax (so
// first-match shadowing cannot cause a mismatch). ".quad 0x..." returns the
// word in Raw with Form -1.
func ParseInst(text string) (Inst, error) {
	var scratch parseScratch
	return parseInst(text, nil, &scratch)
}

// parseScratch is the parser's working space (it escapes through the label
// callback, so callers parsing many lines pass the same one).
type parseScratch struct {
	in   Inst
	memo dualMemo
}

// labelFunc resolves a label operand of form f, field fi to a field value.
type labelFunc func(f *form, in *Inst, fi int8, label string) (uint32, bool)

// Parse errors: the mnemonic is unknown, or no form with that mnemonic takes
// the operands (or its field values are invalid).
var (
	ErrMnemonic = errors.New("unknown instruction")
	ErrOperands = errors.New("bad operands")
)

// parseInst parses text, working in scratch.
func parseInst(text string, labels labelFunc, scratch *parseScratch) (Inst, error) {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, ".quad") {
		v, ok := parseUint(strings.TrimSpace(text[len(".quad"):]))
		if !ok {
			return Inst{Form: -1}, errors.New("bad .quad value")
		}
		return Inst{Form: -1, Raw: v}, nil
	}
	mnemonicSeen := false
	in := &scratch.in
	lead1, lead2 := leadKeys2(text)
	mnemA, mnemB := textMnemOf(text), textMnemOf(afterPredicate(text))
	secondOp := hasSecondOp(text)
	memo := &scratch.memo
	memo.haveT = false // a new text
	// the syntaxes either lead byte allows, merged in spec order
	order, index := parseOrder(), parseIndex()
	l1, l2 := order[lead1], order[lead2]
	if lead2 == lead1 {
		l2 = nil
	}
	for len(l1) > 0 || len(l2) > 0 {
		var key uint16
		switch {
		case len(l2) == 0 || len(l1) > 0 && l1[0] < l2[0]:
			key, l1 = l1[0], l1[1:]
		case len(l1) == 0 || l2[0] < l1[0]:
			key, l2 = l2[0], l2[1:]
		default: // equal
			key, l1, l2 = l1[0], l1[1:], l2[1:]
		}
		fi, vi := int(key>>8), int(key&0xff)
		if x := &index[fi][vi]; x.dual != secondOp || !x.mnemonicMay(&mnemA) && !x.mnemonicMay(&mnemB) {
			continue
		}
		f := &forms[fi]
		v := &f.variants[vi]
		// an "eo" enum may be left out of the input (Sony does not print
		// it); then each of its values is tried, the spelled-out one first
		for alt := -1; alt < index[fi][vi].eo; alt++ {
			*in = Inst{Form: int16(fi)}
			ok, mnem := matchVariant(f, v, in, text, labels, alt, memo)
			mnemonicSeen = mnemonicSeen || mnem
			if !ok {
				continue
			}
			// Encode without its field check: decoding runs the same
			// check for the form, and another form fails the test below
			w, ok := encodeFields(f, in)
			if !ok {
				continue
			}
			back, err := DecodeWord(w, 0)
			if err != nil || back.Form != in.Form || f.variant(&back) != v {
				continue
			}
			return back, nil
		}
	}
	if mnemonicSeen {
		return Inst{Form: -1}, ErrOperands
	}
	return Inst{Form: -1}, ErrMnemonic
}

// matcher walks the text while the template is matched against it.
type matcher struct {
	s      string
	pos    int
	set    [MaxFields]bool
	alt    int       // value for an omitted optional enum, or -1
	marked bool      // an imark element's text was present
	dual1  string    // dual issue: the first mnemonic as written
	memo   *dualMemo // dual issue: shared by the syntaxes tried for one text
}

func (m *matcher) blanks() {
	for m.pos < len(m.s) && (m.s[m.pos] == ' ' || m.s[m.pos] == '\t') {
		m.pos++
	}
}

func (m *matcher) eat(c byte) bool {
	if m.pos < len(m.s) && m.s[m.pos] == c {
		m.pos++
		return true
	}
	return false
}

func (m *matcher) peek() byte {
	if m.pos < len(m.s) {
		return m.s[m.pos]
	}
	return 0
}

// mask reads a write mask ".x-z" (nothing: 0).
func (m *matcher) mask() (uint32, bool) {
	var v uint32
	if m.eat('.') {
		c := 0
		for ; c < 4 && m.pos < len(m.s); c++ {
			ch := m.s[m.pos]
			if ch == "xyzw"[c] {
				v |= 1 << c
			} else if ch != '-' {
				break
			}
			m.pos++
		}
		if v == 0 || v>>(c-1) == 0 {
			return 0, false
		}
	}
	return v, true
}

// assign sets field fi to v, or checks v against an earlier assignment.
func (m *matcher) assign(in *Inst, fi int8, v uint32) bool {
	if fi < 0 {
		return v == 0
	}
	if m.set[fi] {
		return in.Args[fi] == v
	}
	m.set[fi] = true
	in.Args[fi] = v
	return true
}

// eoValues is the number of values of v's optional enum (0 if none).
func eoValues(v *variant) int {
	for i := range v.elems {
		if v.elems[i].kind == kEo {
			return len(enumTables[v.elems[i].table])
		}
	}
	return 0
}

// matchVariant matches text against v. With alt >= 0 the variant's optional
// enum consumes no text and takes the value alt. mnemonic reports whether
// the text's mnemonic (with flags) was v's.
func matchVariant(f *form, v *variant, in *Inst, text string, labels labelFunc, alt int, memo *dualMemo) (ok, mnemonic bool) {
	m := matcher{s: text, alt: alt, memo: memo}
	for _, fi := range v.flags {
		in.Args[fi] = f.fields[fi].def // what a missing flag means
	}
	if v.preset >= 0 {
		m.assign(in, v.cond, uint32(v.preset))
	}
	for i := range v.elems {
		if i == v.mnemEnd {
			if !m.flags(f, v, in) {
				return false, false
			}
			// the mnemonic ends at a blank (or the end of the text)
			mnemonic = m.pos == len(m.s) || m.s[m.pos] == ' ' || m.s[m.pos] == '\t'
		}
		if !m.elem(f, &v.elems[i], in, labels) {
			return false, mnemonic
		}
	}
	if v.mnemEnd == len(v.elems) {
		if !m.flags(f, v, in) {
			return false, false
		}
		mnemonic = true
	}
	m.blanks()
	for i := range v.elems {
		// a form marker must be present exactly when the operands need it
		if e := &v.elems[i]; e.kind == kImark && imarkSet(f, e, in) != m.marked {
			return false, mnemonic
		}
	}
	return m.pos == len(m.s), mnemonic
}

// flags parses ".name" and ".name=N" suffixes of the mnemonic.
func (m *matcher) flags(f *form, v *variant, in *Inst) bool {
	for m.peek() == '.' {
		start := m.pos + 1
		end := start
		for end < len(m.s) && m.s[end] != '.' && m.s[end] != ' ' && m.s[end] != '\t' && m.s[end] != '=' {
			end++
		}
		name := m.s[start:end]
		found := false
		for _, fi := range v.flags {
			fd := &f.fields[fi]
			if fd.name != name {
				continue
			}
			found = true
			m.pos = end
			x := uint64(1)
			if m.eat('=') {
				d := m.pos
				for m.pos < len(m.s) && m.s[m.pos] >= '0' && m.s[m.pos] <= '9' {
					m.pos++
				}
				var err error
				x, err = strconv.ParseUint(m.s[d:m.pos], 10, 32)
				if err != nil {
					return false
				}
			} else if fd.width > 1 {
				return false
			}
			if x >= 1<<fd.width || !m.assign(in, fi, uint32(x)) {
				return false
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (m *matcher) lit(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] == ' ' {
			m.blanks()
			continue
		}
		if t[i] == ',' || t[i] == ']' || t[i] == '[' {
			m.blanks()
		}
		if !m.eat(t[i]) {
			return false
		}
	}
	return true
}

// enum matches the longest entry of table t at the current position.
func (m *matcher) enum(t []string) (uint32, bool) {
	best, bestLen := -1, -1
	for i, s := range t {
		if s == "?" || len(s) <= bestLen {
			continue
		}
		if strings.HasPrefix(m.s[m.pos:], s) {
			best, bestLen = i, len(s)
		}
	}
	if best < 0 {
		return 0, false
	}
	m.pos += bestLen
	return uint32(best), true
}

func (m *matcher) elem(f *form, e *elem, in *Inst, labels labelFunc) bool {
	switch e.kind {
	case kLit:
		return m.lit(e.text)
	case kPfx:
		t := enumTables[e.table]
		for i, s := range t {
			if s != "" && s != "?" && strings.HasPrefix(m.s[m.pos:], s) &&
				len(m.s) > m.pos+len(s) && (m.s[m.pos+len(s)] == ' ' || m.s[m.pos+len(s)] == '\t') {
				m.pos += len(s)
				m.blanks()
				return m.assign(in, e.f[0], uint32(i))
			}
		}
		for i, s := range t {
			if s == "" {
				return m.assign(in, e.f[0], uint32(i))
			}
		}
		return false
	case kE:
		v, ok := m.enum(enumTables[e.table])
		return ok && m.assign(in, e.f[0], v)
	case kEo:
		if m.alt >= 0 {
			t := enumTables[e.table]
			return m.alt < len(t) && t[m.alt] != "?" && m.assign(in, e.f[0], uint32(m.alt))
		}
		v, ok := m.enum(enumTables[e.table])
		return ok && m.assign(in, e.f[0], v)
	case kPck:
		t := enumTables[e.table]
		if strings.HasPrefix(m.s[m.pos:], "mov.") {
			m.pos += 4
			v, ok := m.enum(t)
			return ok && m.assign(in, e.f[0], v) && m.assign(in, e.f[1], v)
		}
		if !strings.HasPrefix(m.s[m.pos:], "pack.") {
			return false
		}
		m.pos += 5
		d, ok := m.enum(t)
		if !ok || !m.eat('.') {
			return false
		}
		s, ok := m.enum(t)
		return ok && m.assign(in, e.f[0], d) && m.assign(in, e.f[1], s)
	case kReg:
		m.blanks()
		return m.reg(f, e, in)
	case kRegx:
		m.blanks()
		if !m.reg(f, e, in) {
			return false
		}
		if bankTables[e.table][bankIndex(f, e, in)] != "imm" && strings.HasPrefix(m.s[m.pos:], ".x") {
			m.pos += 2
		}
		return true
	case kRegm:
		// Sony shows the written channels after the register; optional on input
		m.blanks()
		if !m.reg(f, e, in) {
			return false
		}
		if bankTables[e.table][bankIndex(f, e, in)] != "imm" && m.peek() == '.' {
			var buf [5]byte
			want := appendMaskChans(buf[:0], arg(in, e.f[3]))
			if !strings.HasPrefix(m.s[m.pos:], string(want)) {
				return false
			}
			m.pos += len(want)
		}
		return true
	case kOreg, kNreg:
		save := m.pos
		m.blanks()
		if m.eat(',') {
			m.blanks()
			if !m.reg(f, e, in) {
				return false
			}
			// the short form must be used when it applies (one text per word)
			if e.kind == kOreg && isImmZero(f, e, in) || e.kind == kNreg && isNextReg(f, e, in) {
				return false
			}
			return true
		}
		m.pos = save
		if e.kind == kOreg {
			for i, s := range bankTables[e.table] {
				if s == "imm" {
					bw := f.fields[e.f[0]].width
					return m.assign(in, e.f[0], uint32(i)&(1<<bw-1)) && m.assign(in, e.f[1], uint32(i>>bw)) && m.assign(in, e.f[2], 0)
				}
			}
			return false
		}
		if !m.set[e.f[5]] || uint64(in.Args[e.f[5]])+1 >= 1<<f.fields[e.f[2]].width {
			return false
		}
		return m.assign(in, e.f[0], in.Args[e.f[3]]) && m.assign(in, e.f[1], arg(in, e.f[4])) && m.assign(in, e.f[2], in.Args[e.f[5]]+1)
	case kFmt2:
		t := enumTables[e.table]
		if !m.eat('.') {
			return false
		}
		d, ok := m.enum(t)
		if !ok || !m.assign(in, e.f[0], d) {
			return false
		}
		save := m.pos
		if m.eat('.') {
			if s, ok := m.enum(t); ok && (m.pos == len(m.s) || m.s[m.pos] == '.' || m.s[m.pos] == ' ' || m.s[m.pos] == '\t') {
				return m.assign(in, e.f[1], s)
			}
		}
		m.pos = save
		return m.assign(in, e.f[1], d)
	case kHexc:
		m.blanks()
		tok := m.token()
		if len(tok) < 3 || tok[:2] != "0x" {
			return false
		}
		v, ok := parseUint(tok)
		if !ok {
			return false
		}
		for _, fi := range e.f[:3] {
			if fi < 0 {
				break
			}
			w := f.fields[fi].width
			if !m.assign(in, fi, uint32(v&(1<<w-1))) {
				return false
			}
			v >>= w
		}
		return v == 0
	case kDualm:
		_, f16, _, rest, ok := parseDualMnem(m.s[m.pos:])
		if !ok {
			return false
		}
		end := len(m.s) - len(rest)
		m.dual1 = m.s[m.pos:end]
		m.pos = end
		return m.assign(in, e.f[1], b2u(f16))
	case kDualr:
		back, ok := parseDualMode(int(in.Form), in, m.dual1, m.s[m.pos:], true, m.memo)
		if !ok {
			return false
		}
		in.Args = back.Args
		m.pos = len(m.s)
		return true
	case kPsrc:
		return m.psrc(f, e, in)
	case kBit:
		set := strings.HasPrefix(m.s[m.pos:], e.text)
		if set {
			m.pos += len(e.text)
		}
		return m.assign(in, e.f[0], b2u(set))
	case kMaskr:
		v, ok := m.mask()
		return ok && m.assign(in, e.f[0], (v&7)<<1|v>>3)
	case kImark:
		if strings.HasPrefix(m.s[m.pos:], e.text) {
			m.pos += len(e.text)
			m.marked = true
		}
		return true
	case kInv:
		m.blanks()
		return m.assign(in, e.f[0], b2u(m.eat('~')))
	case kSzmark:
		if strings.HasPrefix(m.s[m.pos:], ".vec3") {
			m.pos += 5
			return m.assign(in, e.f[0], 0)
		}
		return true // the size follows from the swizzle's length
	case kSel:
		var sel [4]uint32
		if m.eat('.') {
			for c := 0; c < 4 && m.pos < len(m.s); c++ {
				ch := m.s[m.pos]
				if k := strings.IndexByte("xyzw", ch); k >= 0 {
					sel[c] = uint32(k)
				} else if ch != '-' {
					break
				}
				m.pos++
			}
		}
		for c := 0; c < 4; c++ {
			if !m.assign(in, e.f[c], sel[c]) {
				return false
			}
		}
		return true
	case kGpi:
		m.blanks()
		if !m.eat('i') {
			return false
		}
		v, ok := m.decimal()
		return ok && v < 4 && m.assign(in, e.f[0], uint32(v))
	case kMask:
		v, ok := m.mask()
		return ok && m.assign(in, e.f[0], v)
	case kSwz:
		return m.swizzle(f, e, in)
	case kGsw:
		m.blanks()
		sw := gswSwizzle(e)
		if m.peek() == '{' {
			var v [4]uint32
			k, ok := m.values(&v)
			if !ok {
				return false
			}
			var chars [4]byte
			for i := 0; i < k; i++ {
				switch v[i] {
				case f32Zero:
					chars[i] = '0'
				case f32One:
					chars[i] = '1'
				case f32Two:
					chars[i] = '2'
				case f32Half:
					chars[i] = 'h'
				default:
					return false
				}
			}
			return m.assign(in, e.f[0], 0) && m.swizzleText(f, &sw, in, string(chars[:k]))
		}
		if !m.eat('i') {
			return false
		}
		n, ok := m.decimal()
		return ok && n < 4 && m.assign(in, e.f[0], uint32(n)) && m.swizzle(f, &sw, in)
	case kRsw, kRswh:
		m.blanks()
		reg, sw, hasSw := rswParts(e)
		if m.peek() == '{' {
			var v [4]uint32
			k, ok := m.values(&v)
			if !ok || k != maskLen(arg(in, e.f[5])) {
				return false
			}
			var t []string
			if hasSw {
				t = swizzleTable(f, &sw, in)
			}
			n, idx, ok := firstConst(t, v[:k], rswHalf(e, in))
			if !ok {
				return false
			}
			bw := f.fields[e.f[0]].width
			for i, s := range bankTables[e.table] {
				if s == "special" {
					if !m.assign(in, e.f[0], uint32(i)&(1<<bw-1)) || !m.assign(in, e.f[1], uint32(i>>bw)) || !m.assign(in, e.f[2], n) {
						return false
					}
					if !hasSw {
						return true
					}
					w := f.fields[sw.f[0]].width
					return m.assign(in, sw.f[0], uint32(idx)&(1<<w-1)) && m.assign(in, sw.f[1], uint32(idx>>w))
				}
			}
			return false
		}
		if !m.reg(f, &reg, in) {
			return false
		}
		return !hasSw || m.swizzle(f, &sw, in)
	case kSwzf:
		if !m.eat('.') {
			return false
		}
		var v uint32
		c := 0
		for ; c < 4 && m.pos < len(m.s); c++ {
			k := strings.IndexByte(swizzleChans, m.s[m.pos])
			if k < 0 {
				break
			}
			v |= uint32(k) << (3 * c)
			m.pos++
		}
		if c == 0 || c < 4 && e.f[1] < 0 && e.f[2] < 0 {
			return false
		}
		if e.f[2] >= 0 && !m.set[e.f[2]] {
			// vec3/vec4 from the number of channels (Sony's dot.f32 spelling)
			if c != 3 && c != 4 || !m.assign(in, e.f[2], b2u(c == 4)) {
				return false
			}
		}
		for ; c < 4; c++ {
			v |= uint32(c) << (3 * c) // identity for channels not written
		}
		return m.assign(in, e.f[0], v)
	case kNeg:
		m.blanks()
		return m.assign(in, e.f[0], b2u(m.eat('-')))
	case kAbsl:
		m.blanks()
		return m.assign(in, e.f[0], b2u(m.eat('|')))
	case kAbsr:
		m.blanks()
		return m.assign(in, e.f[0], b2u(m.eat('|')))
	case kModl:
		m.blanks()
		v := b2u(m.eat('-'))
		m.blanks()
		v |= b2u(m.eat('|')) << 1
		return m.assign(in, e.f[0], v)
	case kModr:
		m.blanks()
		bar := m.eat('|')
		return m.set[e.f[0]] && (in.Args[e.f[0]]&2 != 0) == bar
	case kHex, kHexo, kShex, kDec, kDec1:
		if e.kind == kHexo {
			if m.pos == len(m.s) {
				return m.assign(in, e.f[0], 0)
			}
			if m.peek() != ' ' && m.peek() != '\t' {
				return false
			}
		}
		m.blanks()
		return m.number(f, e, in, labels)
	}
	return false
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// psrc parses a VPCK source pair in any of the forms appendPsrc prints, and
// insists on the form the printer would use (one text per word).
func (m *matcher) psrc(f *form, e *elem, in *Inst) bool {
	r1, r2, sel := psrcParts(e)
	m.blanks()
	if m.eat('(') {
		var c [2]uint32
		for k, r := range []*elem{&r1, &r2} {
			m.blanks()
			if !m.reg(f, r, in) || !m.eat('.') {
				return false
			}
			ch := strings.IndexByte("xy", m.peek())
			if ch < 0 {
				return false
			}
			m.pos++
			c[k] = uint32(ch)
			m.blanks()
			if k == 0 && !m.eat(',') {
				return false
			}
		}
		if !m.eat(')') || !m.assign(in, e.f[6], c[0]) || !m.assign(in, e.f[7], c[1]+2) ||
			!m.assign(in, e.f[8], 0) || !m.assign(in, e.f[9], 0) {
			return false
		}
		pair, _ := psrcForm(f, e, in)
		return pair
	}
	if !m.reg(f, &r1, in) || !m.elem(f, &sel, in, nil) {
		return false
	}
	save := m.pos
	m.blanks()
	written := m.eat(',')
	if written {
		m.blanks()
		if !m.reg(f, &r2, in) {
			return false
		}
	} else {
		m.pos = save
		if uint64(in.Args[e.f[2]])+1 >= 1<<f.fields[e.f[2]].width ||
			!m.assign(in, e.f[3], in.Args[e.f[0]]) || !m.assign(in, e.f[4], arg(in, e.f[1])) || !m.assign(in, e.f[5], in.Args[e.f[2]]+1) {
			return false
		}
	}
	pair, second := psrcForm(f, e, in)
	return !pair && second == written
}
