package usse

import (
	"strconv"
	"strings"
	"sync"
)

// Tables derived once from the generated ones (read-only afterwards): for
// each syntax, the first two letters its mnemonic can start with, so that
// the parser tries only the syntaxes a text's first two letters allow.

// leadKey numbers a mnemonic's first two bytes: letters a..z, anything
// else (or the end of the text) as 26.
type leadKey uint16

const leadKeys = 27 * 27

func leadIndex(c byte) int {
	if c >= 'a' && c <= 'z' {
		return int(c - 'a')
	}
	return 26
}

func leadOf(s string) leadKey {
	var a, b byte
	if len(s) > 0 {
		a = s[0]
	}
	if len(s) > 1 {
		b = s[1]
	}
	return leadKey(leadIndex(a)*27 + leadIndex(b))
}

type leadSet [(leadKeys + 63) / 64]uint64

func (s *leadSet) add(k leadKey)      { s[k>>6] |= 1 << (k & 63) }
func (s *leadSet) has(k leadKey) bool { return s[k>>6]>>(k&63)&1 != 0 }

// addAll adds the leads of the mnemonics t (invalid entries "?" print
// nothing); false when one is too short to have a two-letter lead.
func (s *leadSet) addAll(t []string) bool {
	for _, x := range t {
		if x == "?" {
			continue
		}
		if len(x) < 2 {
			return false
		}
		s.add(leadOf(x))
	}
	return true
}

type syntaxLead struct {
	lead leadSet // first two bytes of the mnemonic (after a predicate prefix)
	any  bool    // lead is unknown: always try
	eo   int     // eoValues
	dual bool    // a dual-issue syntax: its text has a second operation after '+'
	// hashes (mnemBit) of the mnemonic's first token ("mad") where the
	// mnemonic has one, and of its first two tokens ("mad.f32") where it
	// has more; mnemAny: the mnemonics could not be listed
	mnem1, mnem2 [2]uint64
	mnemAny      bool
}

// mnemBit numbers a mnemonic key for the syntaxes' key sets (FNV-1a).
func mnemBit(key string) uint {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return uint(h % 128)
}

// mnemKeys splits a mnemonic into its first token and first two tokens
// ("mad.f32.nosched" -> "mad", "mad.f32"; two is "" with one token).
func mnemKeys(m string) (one, two string) {
	i := strings.IndexByte(m, '.')
	if i < 0 {
		return m, ""
	}
	j := strings.IndexByte(m[i+1:], '.')
	if j < 0 {
		return m[:i], m
	}
	return m[:i], m[:i+1+j]
}

// mnemonics lists the texts the mnemonic elements of v (after the
// predicate, before mnemEnd) can print, or false when an element cannot be
// listed or there are too many.
func mnemonics(f *form, v *variant) ([]string, bool) {
	outs := []string{""}
	for i := 0; i < v.mnemEnd; i++ {
		e := &v.elems[i]
		var alts []string
		switch e.kind {
		case kPfx:
			continue
		case kLit:
			alts = []string{e.text}
		case kE, kEo:
			for _, x := range enumTables[e.table] {
				if x != "?" {
					alts = append(alts, x)
				}
			}
			if e.kind == kEo {
				alts = append(alts, "")
			}
		case kImark, kBit:
			alts = []string{"", e.text}
		case kSzmark:
			alts = []string{"", ".vec3"}
		case kPck:
			for _, d := range enumTables[e.table] {
				for _, x := range enumTables[e.table] {
					alts = append(alts, "mov."+d, "pack."+d+"."+x)
				}
			}
		case kFmt2:
			for _, d := range enumTables[e.table] {
				for _, x := range enumTables[e.table] {
					alts = append(alts, "."+d, "."+d+"."+x)
				}
			}
		case kDualm:
			for _, x := range enumTables[enumDualop] {
				alts = append(alts, x+".f32", x+".f16")
			}
		case kDec, kDec1:
			for x := 0; x < 1<<f.fields[e.f[0]].width; x++ {
				alts = append(alts, strconv.Itoa(x+int(e.kind-kDec)))
			}
		default:
			return nil, false
		}
		var next []string
		for _, o := range outs {
			for _, a := range alts {
				next = append(next, o+a)
			}
		}
		if outs = next; len(outs) > 1<<12 {
			return nil, false
		}
	}
	return outs, true
}

var parseIndex = sync.OnceValue(func() (t *[len(forms)][]syntaxLead) {
	t = new([len(forms)][]syntaxLead)
	for fi := range forms {
		f := &forms[fi]
		t[fi] = make([]syntaxLead, len(f.variants))
		for vi := range f.variants {
			v := &f.variants[vi]
			x := &t[fi][vi]
			x.eo = eoValues(v)
			for j := range v.elems {
				x.dual = x.dual || v.elems[j].kind == kDualm
			}
			ms, ok := mnemonics(f, v)
			x.mnemAny = !ok
			for _, m := range ms {
				one, two := mnemKeys(m)
				if one == "" {
					x.mnemAny = true
				}
				if two == "" {
					b := mnemBit(one)
					x.mnem1[b>>6] |= 1 << (b & 63)
				} else {
					b := mnemBit(two)
					x.mnem2[b>>6] |= 1 << (b & 63)
				}
			}
			i := 0
			for i < len(v.elems) && v.elems[i].kind == kPfx {
				i++
			}
			if i == len(v.elems) {
				x.any = true
				continue
			}
			e := &v.elems[i]
			switch e.kind {
			case kLit:
				x.any = !x.lead.addAll([]string{e.text})
			case kE, kEo:
				x.any = !x.lead.addAll(enumTables[e.table])
			case kPck:
				x.lead.add(leadOf("mov"))
				x.lead.add(leadOf("pack"))
			case kDualm:
				x.any = !x.lead.addAll(enumTables[enumDualop])
			default:
				x.any = true
			}
		}
	}
	return t
})

// textMnem is the hashed mnemonic keys of a text (up to its first blank).
type textMnem struct {
	b1, b2 uint
	has2   bool
}

func textMnemOf(text string) textMnem {
	if i := strings.IndexAny(text, " \t"); i >= 0 {
		text = text[:i]
	}
	one, two := mnemKeys(text)
	return textMnem{mnemBit(one), mnemBit(two), two != ""}
}

// mnemonicMay reports whether syntax x may print the mnemonic t: its first
// two tokens are one of x's, or its first token is one of x's one-token
// mnemonics (the rest being flags).
func (x *syntaxLead) mnemonicMay(t *textMnem) bool {
	return x.mnemAny || x.mnem1[t.b1>>6]>>(t.b1&63)&1 != 0 ||
		t.has2 && x.mnem2[t.b2>>6]>>(t.b2&63)&1 != 0
}

// afterPredicate is text after a leading predicate prefix and blanks (as
// leadKeys2 finds it), or text.
func afterPredicate(text string) string {
	for i := 0; i < len(text) && i < 4; i++ {
		if text[i] == ' ' || text[i] == '\t' {
			return strings.TrimLeft(text[i:], " \t")
		}
	}
	return text
}

// leadKeys2 are the lead of text and, when text starts with a predicate
// prefix and a blank, the lead of what follows it.
func leadKeys2(text string) (a, b leadKey) {
	a = leadOf(text)
	b = a
	for i := 0; i < len(text) && i < 4; i++ {
		if text[i] == ' ' || text[i] == '\t' {
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			b = leadOf(text[j:])
			break
		}
	}
	return a, b
}

// parseOrder lists, for each lead, the syntaxes (form<<8 | variant) whose
// mnemonic may start with it, in spec order.
var parseOrder = sync.OnceValue(func() (t *[leadKeys][]uint16) {
	t = new([leadKeys][]uint16)
	index := parseIndex()
	for k := leadKey(0); k < leadKeys; k++ {
		for fi := range forms {
			for vi := range forms[fi].variants {
				if x := &index[fi][vi]; x.any || x.lead.has(k) {
					t[k] = append(t[k], uint16(fi)<<8|uint16(vi))
				}
			}
		}
	}
	return t
})

// flagDefaults holds, per form and syntax, the word bits of the fields the
// syntax prints as flags and their values when every flag is at its
// default: a word with those bits prints no flags.
//
// buildFlagDefaults computes flagDefaults (inittables.go holds its value).
func buildFlagDefaults() (t [len(forms)][]struct{ mask, bits uint64 }) {
	for fi := range forms {
		f := &forms[fi]
		t[fi] = make([]struct{ mask, bits uint64 }, len(f.variants))
		for vi := range f.variants {
			x := &t[fi][vi]
			for _, k := range f.variants[vi].flags {
				fd := &f.fields[k]
				var m uint64
				for _, p := range fd.parts {
					m |= p.Mask()
				}
				if x.mask&m != 0 || uint64(fd.def) >= 1<<fd.width {
					// no bit pattern stands for "all defaults": never
					// skip the flags (TestFlagDefaults: does not happen)
					x.mask, x.bits = 0, 1
					break
				}
				x.mask |= m
				x.bits = fd.set(x.bits, fd.def)
			}
		}
	}
	return t
}

// hasSecondOp reports whether text has a '+' outside brackets followed by a
// letter: the second operation of a dual-issue text (parseDualText's
// split), which no other syntax prints.
func hasSecondOp(text string) bool {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '+':
			if depth == 0 && i+1 < len(text) && text[i+1] >= 'a' && text[i+1] <= 'z' {
				return true
			}
		}
	}
	return false
}
