package maxwell

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Encoding is the inverse of printing: the text of one instruction (as
// AppendText prints it, or as nvdisasm does) is matched against the templates
// of every form with its mnemonic, fields are read back from the text, and the
// candidate word is printed again and compared with the input. A match is
// therefore exact by construction; bits no field covers are zero.
//
// What makes it fast without giving up the verification: matching works on
// the text with its blanks squeezed out, against literal texts squeezed and
// packed once at start-up (encTokTexts, encTableTexts), in a loop that
// recurses only at choice points; forms that cannot print the text's bytes
// are skipped (encfilter.go), and so are control-field rounds that cannot
// change the outcome. EncodeText allocates one print buffer; Assemble one
// scratch space for all lines (a label reference allocates its name).
// encode_same_test.go checks the property on golden, random and mutated
// texts and listings: whatever is accepted prints (lists) back the same.

// ErrNoMatch is returned when no form prints the given text.
var ErrNoMatch = errors.New("no instruction form matches")

// Resolver turns a label into an address (for branch targets).
type Resolver func(name string) (uint64, bool)

// encBufSize is the size of the buffers one line is encoded in; longer
// texts still encode, in buffers append allocates.
const encBufSize = 192

// encScratch is the space Assemble encodes its lines in, one for all.
type encScratch struct {
	norm, body [encBufSize]byte
	print      printBuf
	// texts encoded before: real code repeats instructions, and a text
	// means the same word wherever it stands unless it names an address
	cache []encCached // a power of two long
	seed  maphash.Seed
	// stmts: assembleLines's statements, reused section after section
	stmts []asmStmt
	// arena: the texts of lines rewritten before encoding
	arena textArena
	// byName: formsByName, fetched once for all the lines
	byName map[string][]uint16
}

// newEncScratch makes a scratch space for assembling about n lines.
func newEncScratch(n int) *encScratch {
	size := 64
	for size < n && size < 2048 {
		size *= 2
	}
	return &encScratch{cache: make([]encCached, size), seed: maphash.MakeSeed(), byName: formsByName()}
}

type encCached struct {
	text string
	word uint64
	ctrl Ctrl
}

// printBuf is where candidates are printed. It is passed down the matcher's
// recursion on its own, not in the matcher: the printers get it through
// their function table, so it must live on the heap, and the matcher's
// other buffers need not.
type printBuf [encBufSize]byte

// EncodeText encodes one instruction text for address pc under sm. It returns
// the word and the control field the text implies (.reuse, texture phase,
// "X;" for stall 0). resolve may be nil.
func EncodeText(text string, pc uint64, sm int, resolve Resolver) (uint64, Ctrl, error) {
	var norm, body [encBufSize]byte
	w, c, _, err := encodeIn(norm[:0], body[:0], new(printBuf), formsByName(), text, pc, sm, resolve, false)
	return w, c, err
}

func (sc *encScratch) encode(text string, pc uint64, sm int, resolve Resolver) (uint64, Ctrl, error) {
	slot := &sc.cache[maphash.String(sc.seed, text)&uint64(len(sc.cache)-1)]
	if slot.text == text && text != "" {
		return slot.word, slot.ctrl, nil
	}
	// assembleLines's resolvers only look the name up: they may borrow it
	w, c, fi, err := encodeIn(sc.norm[:0], sc.body[:0], &sc.print, sc.byName, text, pc, sm, resolve, true)
	if err == nil && forms[fi].attrs&attrPCRel == 0 {
		*slot = encCached{text, w, c}
	}
	return w, c, err
}

// listedWordFits reports whether w, the word a listing line gives in its
// hex column, under the bundle's control field ctrl is an encoding of the
// line's text: it decodes for sm and prints as the text (blanks aside), the
// test the matcher's candidates pass. An edited text no longer fits its old
// word and is encoded from the text.
func (sc *encScratch) listedWordFits(text string, w uint64, ctrl Ctrl, pc uint64, sm int) bool {
	inst, err := Decode(w, ctrl, sm, pc)
	if err != nil {
		return false
	}
	printed := AppendText(sc.print[:0], inst, pc)
	if string(printed) == text {
		return true // as listed by gpuisa dis (or nvdisasm): no blanks to squeeze
	}
	norm := squeezeInto(sc.norm[:0], text)
	if len(norm) == 0 || norm[len(norm)-1] != ';' {
		norm = append(norm, ';')
	}
	return equalSqueezed(printed, norm)
}

// encodeIn is EncodeText in the given space: normBuf and bodyBuf for the
// squeezed text (with and without guard and .reuse), pb for printing,
// byName the forms by mnemonic (formsByName()). It
// also returns the form the word is an encoding of. With borrow, resolve
// is given label names that point into the scratch space, valid only
// during the call (no allocation per label reference).
func encodeIn(normBuf, bodyBuf []byte, pb *printBuf, byName map[string][]uint16, text string, pc uint64, sm int, resolve Resolver, borrow bool) (uint64, Ctrl, uint16, error) {
	norm := squeezeInto(normBuf, text)
	if len(norm) == 0 || norm[len(norm)-1] != ';' {
		norm = append(norm, ';')
	}
	stall0 := endsStall0(text)
	body := norm[:len(norm)-1]
	var guard uint64 = 7
	if len(body) > 0 && body[0] == '@' {
		i := 1
		neg := false
		if i < len(body) && body[i] == '!' {
			neg = true
			i++
		}
		p, n, ok := parsePred(body[i:])
		if !ok {
			return 0, 0, 0, errBadGuard
		}
		guard = p
		if neg {
			guard |= 8
		}
		body = body[i+n:]
	}
	body, reuses := cutReuse(bodyBuf, body)
	body = withSlack(body)
	cands, ok := formsOf(byName, body)
	if !ok {
		return 0, 0, 0, ErrNoMatch
	}
	base := NeutralCtrl
	if stall0 {
		base = 0x7e0
	}
	var set byteSet
	var wide bool
	if len(cands) > 1 {
		// with one form the filter could only skip a match that fails anyway
		set, wide = textBytes(body)
	}
	for _, fi := range cands {
		f := &forms[fi]
		if f.attrs&(attrSM52|attrSM50) != 0 && (sm >= 52) != (f.attrs&attrSM52 != 0) || f.attrs&attrBad != 0 {
			continue
		}
		if len(cands) > 1 && !mayPrint(fi, set, wide) {
			continue
		}
		g := guard
		if f.attrs&attrNoGuard != 0 {
			g = 0 // not predicated; ptxas leaves the field zero
		}
		m := matcher{f: f, fi: fi, texts: encTokTexts()[fi], sm: sm, pc: pc, resolve: resolve, borrow: borrow, text: body, guard: g, want: norm}
		// the rounds differ only in the control field, which only the phase
		// token and verify read: when a round failed before either, so do
		// the others
	rounds:
		for phase := 0; phase < 4; phase++ {
			if phase > 0 && f.attrs&attrTex == 0 {
				break
			}
			for reuse := 0; reuse < 8; reuse++ {
				if reuse > 0 && (reuses == 0 || f.attrs&attrReuse == 0 || f.attrs&attrTex != 0) {
					// texture forms keep the phase in the reuse bits: every
					// further round would try the same control field again
					break
				}
				if f.attrs&(attrTex|attrPCRel) == 0 && reuseBits(reuse) < reuses {
					// each set bit prints at most one .reuse (one operand per
					// bit in every printer, and no other text of a form holds
					// "reuse"): too few bits cannot print the text. Forms
					// with a branch target are left out: verify compares
					// them with a label replaced.
					continue
				}
				r := reuse
				if f.attrs&attrTex != 0 {
					r = phase
					if phase > 0 && encPhaseMandatory()[fi] && !bytes.Contains(body, []byte(phaseTexts[phase])) {
						// the phase token must read the phase's text somewhere
						continue rounds
					}
				}
				m.ctrl = base | Ctrl(r)<<17
				m.ctrlRead = false
				if w, ok := m.run(pb); ok {
					return w, m.ctrl, fi, nil
				}
				if !m.ctrlRead {
					break rounds
				}
			}
		}
	}
	return 0, 0, 0, ErrNoMatch
}

// errBadGuard: the text starts with @ and no predicate.
var errBadGuard = errors.New("bad guard predicate")

// reuseBits is the number of set bits of a 3-bit reuse mask.
func reuseBits(r int) int { return int(r&1 + r>>1&1 + r>>2&1) }

// endsStall0 reports whether text ends in "X;" rather than "X ;" (blanks after
// the semicolon do not count; a tab before it does not make it "X ;").
func endsStall0(text string) bool {
	i := len(text)
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i > 0 && text[i-1] == ';' && (i < 2 || text[i-2] != ' ')
}

// squeeze removes all blanks: matching and verification ignore whitespace.
func squeeze(s string) string {
	if !strings.ContainsAny(s, " \t") {
		return s
	}
	return string(squeezeInto(nil, s))
}

// squeezeInto appends s without its blanks to dst.
func squeezeInto(dst []byte, s string) []byte {
	if n := len(dst); cap(dst)-n >= len(s) {
		// room for all of s: store every byte, keep the non-blank ones
		d := dst[n : n+len(s)]
		j := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			d[j] = c
			j += int(notBlank[c]) // no branch: blanks come at no predictable place
		}
		return dst[:n+j]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' {
			dst = append(dst, c)
		}
	}
	return dst
}

// buildNotBlank makes notBlank (in inittables.go): 1 for the bytes squeeze
// keeps.
func buildNotBlank() (t [256]uint8) {
	for c := range t {
		if c != ' ' && c != '\t' {
			t[c] = 1
		}
	}
	return
}

// cutReuse returns s without its ".reuse" markers (removed left to right, as
// strings.ReplaceAll does) and how many there were; s itself when there are
// none, else a copy appended to dst.
func cutReuse(dst, s []byte) ([]byte, int) {
	const marker = ".reuse"
	if bytes.Index(s, []byte(marker)) < 0 {
		return s, 0
	}
	n := 0
	for i := 0; i < len(s); {
		if s[i] == '.' && hasPrefix(s[i:], marker) {
			if n == 0 {
				dst = append(dst, s[:i]...)
			}
			n++
			i += len(marker)
			continue
		}
		if n > 0 {
			dst = append(dst, s[i])
		}
		i++
	}
	if n == 0 {
		return s, 0
	}
	return dst, n
}

// formsOf finds the candidate forms of a squeezed instruction body: those of
// the name before the first dot, else of the longest known prefix (the
// mnemonic ends where the first operand starts). byName is formsByName().
func formsOf(byName map[string][]uint16, body []byte) ([]uint16, bool) {
	name := body
	for k, c := range body {
		if c == '.' {
			name = body[:k]
			break
		}
	}
	if cands, ok := byName[string(name)]; ok {
		return cands, true
	}
	// a known name is made of name characters only, so only prefixes of the
	// leading run of them can be one
	run, maxName := 0, encMaxName()
	for run < len(body) && run < maxName && isNameChar(body[run]) {
		run++
	}
	for k := run; k > 0; k-- {
		if cands, ok := byName[string(body[:k])]; ok {
			return cands, true
		}
	}
	return nil, false
}

func isNameChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// formsByName lists the forms of each mnemonic, for the assembler: built
// when first asked for (a map cannot be set up without code at start-up),
// then fetched once an assembly (encScratch.byName) or EncodeText call.
var formsByName = sync.OnceValue(buildFormsByName)

// encMaxName is the length of the longest mnemonic.
var encMaxName = sync.OnceValue(func() int {
	n := 0
	for name := range formsByName() {
		for i := 0; i < len(name); i++ {
			if !isNameChar(name[i]) {
				panic("maxwell: mnemonic " + name + " has a character formsOf does not expect")
			}
		}
		n = max(n, len(name))
	}
	return n
})

// encTokTexts holds, per form, the text of each literal and flag token
// without blanks, made once from the generated tables.
var encTokTexts = sync.OnceValue(func() (p *[len(forms)][]encLit) {
	p = new([len(forms)][]encLit)
	for f := range forms {
		p[f] = make([]encLit, len(forms[f].toks))
		for k, t := range forms[f].toks {
			if t.kind == tkLit || t.kind == tkFlag {
				p[f][k] = makeEncLit(squeeze(t.text))
			}
		}
	}
	return
})

// encTableTexts holds the printed text of every table entry without blanks
// (out-of-range values included, as appendTable prints them); rejected
// values (kind 2) never match.
var encTableTexts = sync.OnceValue(func() (p *[len(tables)][]encLit) {
	p = new([len(tables)][]encLit)
	for ti := range tables {
		tb := &tables[ti]
		p[ti] = make([]encLit, len(tb.entries))
		for v := range tb.entries {
			switch tb.kinds[v] {
			case 0:
				p[ti][v] = makeEncLit(squeeze(tb.entries[v]))
			case kindRejected, kindRejectedOp:
				p[ti][v] = encLit{n: math.MaxInt32}
			default:
				p[ti][v] = makeEncLit(squeeze(string(appendTable(nil, ti, uint64(v)))))
			}
		}
	}
	return
})

// encLit is a literal text to find in a squeezed text, its first 8 bytes
// packed little-endian: most literals are compared in one load and mask.
type encLit struct {
	lo, mask uint64
	n        int
	s        string
}

func makeEncLit(s string) encLit {
	var b [8]byte
	copy(b[:], s)
	mask := ^uint64(0)
	if len(s) < 8 {
		mask = 1<<(8*len(s)) - 1
	}
	return encLit{lo: binary.LittleEndian.Uint64(b[:]), mask: mask, n: len(s), s: s}
}

// at reports whether text[pos:] starts with the literal. text must have 8
// bytes of capacity past its length (encode makes sure it does).
func (l *encLit) at(text []byte, pos int) bool {
	if pos+l.n > len(text) {
		return false
	}
	if binary.LittleEndian.Uint64(text[pos:pos+8])&l.mask != l.lo {
		return false
	}
	return l.n <= 8 || string(text[pos+8:pos+l.n]) == l.s[8:]
}

// withSlack returns b, or a copy of it, with 8 bytes of capacity past its
// length, as encLit.at needs.
func withSlack(b []byte) []byte {
	if cap(b)-len(b) >= 8 {
		return b
	}
	return append(make([]byte, 0, len(b)+8), b...)
}

// encTableSkip marks, per form and table token, the entries the matcher
// need not try: an entry whose text an earlier entry has and whose field
// bits differ from that entry's only in bits later tokens of the form
// always write. Both lead to the same text positions and, once the later
// tokens have written, to the same candidate words, which the earlier
// entry has tried already. (VMAD's type table holds ".U8" four times: the
// byte selector the register operand prints sets the bits that differ.)
var encTableSkip = sync.OnceValue(func() (p *[len(forms)][][]uint64) {
	p = new([len(forms)][][]uint64)
	for fi := range forms {
		toks := forms[fi].toks
		later := uint64(0) // bits tokens after k write on every path
		for k := len(toks) - 1; k >= 0; k-- {
			t := &toks[k]
			if t.kind == tkTable {
				texts := encTableTexts()[t.arg]
				var skip []uint64
				for v := range texts {
					if texts[v].n == math.MaxInt32 {
						continue
					}
					for u := 0; u < v; u++ {
						if texts[u].n == texts[v].n && texts[u].s == texts[v].s &&
							(setTok(t, 0, uint64(u))^setTok(t, 0, uint64(v)))&^later == 0 {
							if skip == nil {
								p[fi] = make([][]uint64, len(toks))
								skip = make([]uint64, (len(texts)+63)/64)
							}
							skip[v/64] |= 1 << (v % 64)
							break
						}
					}
				}
				if skip != nil {
					p[fi][k] = skip
				}
			}
			if alwaysWrites(t) {
				later |= setTok(t, 0, ^uint64(0))
			}
		}
	}
	return
})

// encTableChecks lists, per form and table token k, the earlier table
// tokens whose field k's field overlaps and that no token after k writes:
// their printed text is final once k has chosen its entry, so an entry
// that changes it from the text they matched cannot verify. (VMAD's
// operand selector shares bits with the type before it: ".U8" and an
// operand without a selector leave one of the four blank selectors.)
// Tokens in groups are left out: an absent group prints no text at all.
var encTableChecks = sync.OnceValue(func() (p *[len(forms)][][]uint8) {
	p = new([len(forms)][][]uint8)
	for fi := range forms {
		toks := forms[fi].toks
		if len(toks) > encMaxToks {
			panic("maxwell: a form has more tokens than the matcher's encMaxToks")
		}
		inGroup := make([]bool, len(toks))
		for k, t := range toks {
			if t.kind == tkGroup {
				for j := k + 1; j <= k+t.arg && j < len(toks); j++ {
					inGroup[j] = true
				}
			}
		}
		for k := range toks {
			t := &toks[k]
			if t.kind != tkTable || inGroup[k] {
				continue
			}
			later := uint64(0) // bits any token after k may write
			for j := k + 1; j < len(toks); j++ {
				if toks[j].kind != tkLit && toks[j].kind != tkGroup && toks[j].kind != tkPhase {
					later |= setTok(&toks[j], 0, ^uint64(0))
				}
			}
			mine := setTok(t, 0, ^uint64(0))
			for j := 0; j < k; j++ {
				e := &toks[j]
				if e.kind != tkTable || inGroup[j] {
					continue
				}
				if f := setTok(e, 0, ^uint64(0)); f&mine != 0 && f&later == 0 {
					if p[fi] == nil {
						p[fi] = make([][]uint8, len(toks))
					}
					p[fi][k] = append(p[fi][k], uint8(j))
				}
			}
		}
	}
	return
})

// encTableTextIDs numbers the texts of each table's entries: entries with
// the same text have the same number (a rejected entry one of its own).
var encTableTextIDs = sync.OnceValue(func() (p *[len(tables)][]uint16) {
	p = new([len(tables)][]uint16)
	for ti := range tables {
		texts := encTableTexts()[ti]
		p[ti] = make([]uint16, len(texts))
		for v := range texts {
			p[ti][v] = uint16(v)
			if texts[v].n == math.MaxInt32 {
				continue
			}
			for u := 0; u < v; u++ {
				if texts[u].n == texts[v].n && texts[u].s == texts[v].s {
					p[ti][v] = p[ti][u]
					break
				}
			}
		}
	}
	return
})

// alwaysWrites reports whether every match that gets past token t has
// written t's whole field (present or, in an absent group, defaulted).
// Registers with a shift and register pairs may skip theirs ("???255"),
// flags wider than a bit keep theirs when absent.
func alwaysWrites(t *tok) bool {
	switch t.kind {
	case tkTable, tkPred, tkNPred, tkHex, tkSHex, tkF32, tkF64, tkF16, tkRel, tkBitSet, tkAddr, tkUAddr:
		return true
	case tkReg:
		return t.shift == 0
	case tkFlag:
		return t.width() == 1
	}
	return false
}

var phaseTexts = [4]string{"", ".T", ".P", ".INVALIDPHASE3"}

// encPhaseMandatory marks the forms with a phase token outside optional groups.
var encPhaseMandatory = sync.OnceValue(func() (p *[len(forms)]bool) {
	p = new([len(forms)]bool)
	for fi := range forms {
		groupEnd := -1
		for k, t := range forms[fi].toks {
			switch {
			case t.kind == tkGroup:
				groupEnd = max(groupEnd, k+t.arg)
			case t.kind == tkPhase && k > groupEnd:
				p[fi] = true
			}
		}
	}
	return
})

func hasPrefix(s []byte, p string) bool {
	return len(s) >= len(p) && string(s[:len(p)]) == p
}

type matcher struct {
	f       *form
	fi      uint16
	texts   []encLit // the form's literal texts without blanks
	sm      int
	pc      uint64
	resolve Resolver
	borrow  bool   // resolve may be given a name in the text's own bytes
	text    []byte // instruction without guard, blanks and .reuse
	want    []byte // the whole squeezed text, for verification
	guard   uint64
	ctrl    Ctrl
	// ctrlRead: the phase token or verify has read ctrl in this round
	ctrlRead bool
	// a label operand: its span in text and the target it stands for
	labelAt, labelEnd int
	labelVal          int64
	// chosen: the entry each table token on the current path took
	chosen [encMaxToks]uint16
}

// encMaxToks bounds the tokens of a form (26 in the tables).
const encMaxToks = 32

// run searches the template against the text, backtracking over the choices
// (table entries, optional pieces), and verifies each complete candidate.
func (m *matcher) run(pb *printBuf) (uint64, bool) {
	w := m.f.value | m.guard<<16
	return m.match(pb, 0, 0, w)
}

func (m *matcher) verify(pb *printBuf, w uint64) bool {
	m.ctrlRead = true
	if w&m.f.mask != m.f.value {
		return false
	}
	if fi := lookup(w, m.sm); fi != int(m.fi) {
		return false
	}
	inst := Inst{Word: w, Ctrl: m.ctrl, form: m.fi}
	printed := AppendText(pb[:0], inst, m.pc)
	if m.labelEnd > 0 {
		// compare with the label replaced by the address it resolved to
		off := len(m.want) - len(m.text) - 1
		var b [encBufSize]byte
		want := append(b[:0], m.want[:off+m.labelAt]...)
		want = appendSHex(want, m.labelVal)
		want = append(want, m.want[off+m.labelEnd:]...)
		return equalSqueezed(printed, want)
	}
	return equalSqueezed(printed, m.want)
}

// equalSqueezed reports whether b without blanks equals s. It squeezes b in
// place.
func equalSqueezed(b, s []byte) bool {
	j := 0
	for _, c := range b {
		b[j] = c
		j += int(notBlank[c])
	}
	return string(b[:j]) == string(s)
}

// match matches tokens k... against text[pos:] with the fields read so far in
// w. Tokens that leave no choice advance in the loop; each choice point
// (optional piece, flag, register reading, table entry) tries its first
// alternative by recursion and, when that fails, goes on with the next.
func (m *matcher) match(pb *printBuf, k, pos int, w uint64) (uint64, bool) {
	toks := m.f.toks
	for ; k < len(toks); k++ {
		t := &toks[k]
		s := m.text[pos:]
		switch t.kind {
		case tkLit:
			lit := &m.texts[k]
			if !lit.at(m.text, pos) {
				return 0, false
			}
			pos += lit.n
		case tkGroup:
			if r, ok := m.match(pb, k+1, pos, w); ok { // present
				return r, true
			}
			// absent: its fields take their defaults
			for j := k + 1; j <= k+t.arg; j++ {
				g := &toks[j]
				switch g.kind {
				case tkLit, tkGroup, tkPhase:
				case tkFlag:
					if g.width() == 1 {
						w = setTok(g, w, g.def^1)
					}
				default:
					w = setTok(g, w, g.def)
				}
			}
			k += t.arg
		case tkFlag:
			if lit := &m.texts[k]; lit.at(m.text, pos) {
				if r, ok := m.match(pb, k+1, pos+lit.n, setTok(t, w, t.def)); ok {
					return r, true
				}
			}
			if t.width() == 1 {
				w = setTok(t, w, t.def^1)
			}
		case tkPhase: // the phase lives in the control field, which run's caller chose
			m.ctrlRead = true
			ph := phaseTexts[m.ctrl.Reuse()&3]
			if !hasPrefix(s, ph) {
				return 0, false
			}
			pos += len(ph)
		case tkReg:
			if t.shift != 0 && hasPrefix(s, "???255") {
				// the second register of a pair past R254: the first one has the number
				pos += 6
				continue
			}
			if r, n, ok := singleReg(s); ok {
				if r != 255 && r < uint64(t.shift) {
					return 0, false
				}
				w = setTok(t, w, regField(r, t.shift))
				pos += n
				continue
			}
			// with blanks squeezed out "R62 0x10" reads "R620x10": try the shorter numbers too
			rc := regChoices(s)
			last := -1
			for i := rc.n - 1; i >= 0; i-- {
				if c := rc.c[i]; c.r == 255 || c.r >= uint64(t.shift) {
					last = i
					break
				}
			}
			if last < 0 {
				return 0, false
			}
			for i := 0; i < last; i++ {
				c := rc.c[i]
				if c.r != 255 && c.r < uint64(t.shift) {
					continue
				}
				if r, ok := m.match(pb, k+1, pos+c.n, setTok(t, w, regField(c.r, t.shift))); ok {
					return r, true
				}
			}
			c := rc.c[last]
			w = setTok(t, w, regField(c.r, t.shift))
			pos += c.n
		case tkPred, tkNPred:
			neg := uint64(0)
			n0 := 0
			if t.kind == tkNPred && len(s) > 0 && s[0] == '!' {
				neg, n0 = 8, 1
			}
			p, n, ok := parsePred(s[n0:])
			if !ok {
				return 0, false
			}
			if t.kind == tkPred && t.arg == 7 {
				p ^= 7
			}
			w = setTok(t, w, p|neg)
			pos += n0 + n
		case tkTable:
			texts := encTableTexts()[t.arg]
			x := binary.LittleEndian.Uint64(m.text[pos : pos+8]) // the 8 bytes every entry starts with
			left := len(m.text) - pos
			var skip []uint64
			if sk := encTableSkip()[m.fi]; sk != nil {
				skip = sk[k]
			}
			var checks []uint8
			if ch := encTableChecks()[m.fi]; ch != nil {
				checks = ch[k]
			}
			for v := range texts {
				e := &texts[v]
				if skip != nil && skip[v/64]&(1<<(v%64)) != 0 {
					continue
				}
				if e.n > left || x&e.mask != e.lo || e.n > 8 && string(m.text[pos+8:pos+e.n]) != e.s[8:] {
					continue
				}
				w2 := setTok(t, w, uint64(v))
				if !m.keepsTexts(checks, w2) {
					continue
				}
				m.chosen[k] = uint16(v)
				if r, ok := m.match(pb, k+1, pos+e.n, w2); ok {
					return r, true
				}
			}
			return 0, false
		case tkHex, tkSHex:
			x, n, ok := parseInt(s)
			if !ok {
				return 0, false
			}
			if t.shift > 0 {
				if x&(1<<t.shift-1) != 0 {
					return 0, false
				}
				x >>= t.shift
			}
			w = setTok(t, w, uint64(x))
			pos += n
		case tkRel:
			x, n, ok := parseInt(s)
			if !ok {
				return m.matchLabel(pb, k, pos, w)
			}
			w = setTok(t, w, uint64(x-int64(m.pc)-8))
			pos += n
		case tkF32, tkF64, tkF16:
			bits, n, ok := parseFloat(s, t.kind)
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
			w = setTok(t, w, bits>>(size-t.width()))
			pos += n
		case tkRegPair:
			if hasPrefix(s, "???255") {
				if r, ok := m.match(pb, k+1, pos+6, setTok(t, w, 255)); ok {
					return r, true
				}
				pos += 6 // the number came with another operand
				continue
			}
			rc := regChoices(s)
			for _, c := range rc.c[:rc.n] {
				if c.r == 255 || c.r < uint64(t.shift) {
					continue
				}
				if r, ok := m.match(pb, k+1, pos+c.n, setTok(t, w, c.r-uint64(t.shift))); ok {
					return r, true
				}
			}
			return 0, false
		case tkBitSet:
			set, n, ok := parseBitSet(s, t.width())
			if !ok {
				return 0, false
			}
			w = setTok(t, w, set)
			pos += n
		case tkAddr, tkUAddr:
			w2, n, ok := matchAddr(t, s, w)
			if !ok {
				return 0, false
			}
			w = w2
			pos += n
		default:
			return 0, false
		}
	}
	if pos == len(m.text) && m.verify(pb, w) {
		return w, true
	}
	return 0, false
}

// keepsTexts reports whether the table tokens checks (encTableChecks)
// still print in w the texts of the entries they chose.
func (m *matcher) keepsTexts(checks []uint8, w uint64) bool {
	for _, j := range checks {
		e := &m.f.toks[j]
		ids := encTableTextIDs()[e.arg]
		if cur := e.get(w); cur >= uint64(len(ids)) || ids[cur] != ids[m.chosen[j]] {
			return false
		}
	}
	return true
}

// setTok is t.set with the common single-run field inline.
func setTok(t *tok, w, x uint64) uint64 {
	if t.n == 1 {
		p := t.parts[0]
		m := uint64(1<<p.width-1) << p.pos
		return w&^m | x<<p.pos&m
	}
	return t.set(w, x)
}

// regField is the field value of register r for an operand that holds the
// register number minus shift (RZ stays 255).
func regField(r uint64, shift uint8) uint64 {
	if r == 255 {
		return r
	}
	return r - uint64(shift)
}

// matchLabel reads a branch target given as a label (token k is tkRel).
func (m *matcher) matchLabel(pb *printBuf, k, pos int, w uint64) (uint64, bool) {
	t := &m.f.toks[k]
	name, n := parseLabel(m.text[pos:])
	if n == 0 || m.resolve == nil {
		return 0, false
	}
	var a uint64
	var found bool
	if m.borrow {
		a, found = m.resolve(unsafe.String(unsafe.SliceData(name), len(name)))
	} else {
		a, found = m.resolve(string(name))
	}
	if !found {
		return 0, false
	}
	x := int64(a)
	m.labelAt, m.labelEnd, m.labelVal = pos, pos+n, x
	r, ok := m.match(pb, k+1, pos+n, setTok(t, w, uint64(x-int64(m.pc)-8)))
	if !ok {
		m.labelEnd = 0
	}
	return r, ok
}

// matchAddr reads an address [R1+0x10], [R1], [0x10] (the brackets are
// literals around the token) into t's register and offset fields.
func matchAddr(t *tok, s []byte, w uint64) (uint64, int, bool) {
	reg := uint64(255)
	var off int64
	n := 0
	if r, rn, ok := parseReg(s); ok {
		reg, n = r, rn
		if n < len(s) && s[n] == '+' {
			x, xn, ok := parseInt(s[n+1:])
			if !ok {
				return 0, 0, false
			}
			off, n = x, n+1+xn
		}
	} else {
		x, xn, ok := parseInt(s)
		if !ok {
			return 0, 0, false
		}
		off, n = x, xn
	}
	p := t.parts[0]
	w = w&^(uint64(1<<p.width-1)<<p.pos) | reg<<p.pos
	rest := *t
	rest.parts = [3]part{t.parts[1], t.parts[2]}
	rest.n = t.n - 1
	if off&(1<<t.shift-1) != 0 {
		return 0, 0, false
	}
	return setTok(&rest, w, uint64(off>>t.shift)), n, true
}

// parseBitSet reads {5,4,0}: decimal bit numbers below width, each read as
// strconv.Atoi does (a sign and leading zeros allowed).
func parseBitSet(s []byte, width uint8) (uint64, int, bool) {
	if len(s) == 0 || s[0] != '{' {
		return 0, 0, false
	}
	end := 1
	for end < len(s) && s[end] != '}' {
		end++
	}
	if end == len(s) {
		return 0, 0, false
	}
	var set uint64
	if end == 1 {
		return 0, 2, true
	}
	for i := 1; i <= end; {
		j := i
		for j < end && s[j] != ',' {
			j++
		}
		d := s[i:j]
		neg := false
		if len(d) > 0 && (d[0] == '+' || d[0] == '-') {
			neg = d[0] == '-'
			d = d[1:]
		}
		b, ok := decimalDigits(d)
		if !ok || neg && b != 0 || b >= uint64(width) {
			return 0, 0, false
		}
		set |= 1 << b
		i = j + 1
	}
	return set, end + 1, true
}

// singleReg reads a register that has one reading only (RZ, R0-R9 not
// followed by a digit, R0 followed by anything): regChoices's answer
// without the list.
func singleReg(s []byte) (uint64, int, bool) {
	if len(s) < 2 || s[0] != 'R' {
		return 0, 0, false
	}
	if s[1] == 'Z' {
		return 255, 2, true
	}
	if s[1] < '0' || s[1] > '9' || len(s) > 2 && s[2] >= '0' && s[2] <= '9' && s[1] != '0' {
		return 0, 0, false
	}
	return uint64(s[1] - '0'), 2, true
}

type regChoice struct {
	r uint64
	n int
}

// regChoices lists the readings of a register at the start of s, longest first.
func regChoices(s []byte) regChoiceList {
	var out regChoiceList
	if hasPrefix(s, "RZ") {
		out.c[0], out.n = regChoice{255, 2}, 1
		return out
	}
	if len(s) == 0 || s[0] != 'R' {
		return out
	}
	for n := min(len(s), 4); n >= 2; n-- {
		if v, ok := decimalDigits(s[1:n]); ok && v <= 254 && (n == 2 || s[1] != '0') {
			out.c[out.n] = regChoice{v, n}
			out.n++
		}
	}
	return out
}

// regChoiceList holds up to three readings (R1, R12, R123) without allocating.
type regChoiceList struct {
	c [3]regChoice
	n int
}

// decimalDigits parses s when it is all decimal digits (at most 19).
func decimalDigits(s []byte) (uint64, bool) {
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

// parseReg reads RZ or R<decimal> up to R254 (leading zeros allowed).
func parseReg(s []byte) (uint64, int, bool) {
	if hasPrefix(s, "RZ") {
		return 255, 2, true
	}
	if len(s) == 0 || s[0] != 'R' {
		return 0, 0, false
	}
	n := 1
	var v uint64
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		v = min(v*10+uint64(s[n]-'0'), 1000) // saturates: anything past 254 fails
		n++
	}
	if n == 1 || v > 254 {
		return 0, 0, false
	}
	return v, n, true
}

func parsePred(s []byte) (uint64, int, bool) {
	if hasPrefix(s, "PT") {
		return 7, 2, true
	}
	if len(s) >= 2 && s[0] == 'P' && s[1] >= '0' && s[1] <= '6' {
		return uint64(s[1] - '0'), 2, true
	}
	return 0, 0, false
}

// parseInt reads 0x..., -0x... or a decimal number (at most 64 bits; a
// negative number is the two's complement of its magnitude).
func parseInt(s []byte) (int64, int, bool) {
	n := 0
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, n = true, 1
	}
	var v uint64
	start := n
	if hasPrefix(s[n:], "0x") {
		n += 2
		start = n
		for ; n < len(s); n++ {
			d := hexVal(s[n])
			if d > 15 {
				break
			}
			if v>>60 != 0 {
				return 0, 0, false // more than 64 bits
			}
			v = v<<4 | uint64(d)
		}
	} else {
		for ; n < len(s) && s[n] >= '0' && s[n] <= '9'; n++ {
			d := uint64(s[n] - '0')
			if v > (math.MaxUint64-d)/10 {
				return 0, 0, false
			}
			v = v*10 + d
		}
	}
	if n == start {
		return 0, 0, false
	}
	if neg {
		return -int64(v), n, true
	}
	return int64(v), n, true
}

// hexVal is the value of a hex digit, or 16 for other bytes.
func hexVal(c byte) byte { return hexVals[c] }

// buildHexVals makes hexVals (in inittables.go): the value of each hex
// digit, 16 for other bytes.
func buildHexVals() (t [256]byte) {
	for c := range t {
		switch {
		case c >= '0' && c <= '9':
			t[c] = byte(c - '0')
		case c >= 'a' && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			t[c] = byte(c - 'A' + 10)
		default:
			t[c] = 16
		}
	}
	return
}

// parseLabel reads a label reference: name, or `(name) as nvdisasm's ELF mode prints it.
func parseLabel(s []byte) ([]byte, int) {
	n := 0
	if hasPrefix(s, "`(") {
		end := 0
		for end < len(s) && s[end] != ')' {
			end++
		}
		if end == len(s) {
			return nil, 0
		}
		return s[2:end], end + 1
	}
	for n < len(s) && (s[n] == '_' || s[n] == '.' || s[n] == '$' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return s[:n], n
}

// floatSpecials are the texts nvdisasm prints for infinities and NaNs.
var floatSpecials = [...]struct {
	text string
	sign bool
	inf  bool
}{{"+INF", false, true}, {"-INF", true, true}, {"+QNAN", false, false}, {"-QNAN", true, false}}

// parseFloat reads a float immediate as nvdisasm prints it and returns its
// bits in the given format.
func parseFloat(s []byte, kind tokKind) (uint64, int, bool) {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') && len(s) > 1 && (s[1] == 'I' || s[1] == 'Q' || s[1] == 'S') {
		for _, sp := range floatSpecials {
			if hasPrefix(s, sp.text) {
				return specialBits(kind, sp.sign, sp.inf), len(sp.text), true
			}
		}
		if hasPrefix(s, "+SNAN") || hasPrefix(s, "-SNAN") {
			// quiet bit clear, the lowest mantissa bit a 20-bit immediate keeps set
			b := uint64(0x7ff0100000000000)
			if s[0] == '-' {
				b |= 1 << 63
			}
			return b, 5, kind == tkF64
		}
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
	if n == 0 || !hasDigit(s[:n]) {
		return 0, 0, false // strconv would fail, with an allocated error
	}
	x, err := strconv.ParseFloat(string(s[:n]), 64)
	if err != nil {
		return 0, 0, false
	}
	switch kind {
	case tkF64:
		return math.Float64bits(x), n, true
	case tkF16:
		b, ok := f16bits(x)
		return uint64(b), n, ok
	}
	f := float32(x)
	if float64(f) != x {
		return 0, 0, false
	}
	return uint64(math.Float32bits(f)), n, true
}

func hasDigit(s []byte) bool {
	for _, c := range s {
		if c >= '0' && c <= '9' {
			return true
		}
	}
	return false
}

func specialBits(kind tokKind, neg, inf bool) uint64 {
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

// f16bits converts an exactly representable value to IEEE half bits.
func f16bits(x float64) (uint16, bool) {
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
