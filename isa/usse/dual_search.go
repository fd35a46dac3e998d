package usse

import (
	"bytes"
	"strconv"
	"strings"
)

// The dual-issue search: reading a dual-issue text into its structure,
// enumerating the words it may stand for, and resolving it (dual.go prints).

// dualText is the structure of a dual-issue text.
type dualText struct {
	name   [2]string
	f16    bool
	marker [2]string // .scalar, .ssq or ""
	vec4   bool
	fixed  [dfCount]int32
	opnd   [2][5]dualOpnd
	n      [2]int
}

// parseDualMnem reads "name.f32[.scalar|.ssq]" at the start of s.
func parseDualMnem(s string) (name string, f16 bool, marker, rest string, ok bool) {
	i := 0
	for i < len(s) && s[i] >= 'a' && s[i] <= 'z' {
		i++
	}
	name, s = s[:i], s[i:]
	switch {
	case strings.HasPrefix(s, ".f32"):
	case strings.HasPrefix(s, ".f16"):
		f16 = true
	default:
		return "", false, "", s, false
	}
	s = s[4:]
	for _, mk := range [...]string{".scalar", ".ssq"} {
		if n := len(mk); strings.HasPrefix(s, mk) && (len(s) == n || s[n] == '.' || s[n] == ' ' || s[n] == '\t') {
			marker, s = mk, s[n:]
		}
	}
	return name, f16, marker, s, name != ""
}

func parseDualOpnds(s string, out *[5]dualOpnd) (int, bool) {
	n := 0
	for more := true; more; {
		var part string
		part, s, more = strings.Cut(s, ",")
		p := strings.TrimSpace(part)
		if n == len(out) || p == "" {
			return 0, false
		}
		o := &out[n]
		*o = dualOpnd{}
		if strings.HasPrefix(p, "-") {
			o.neg, p = true, p[1:]
		}
		if strings.HasPrefix(p, "|") {
			if !strings.HasSuffix(p, "|") || len(p) < 2 {
				return 0, false
			}
			o.abs, p = true, p[1:len(p)-1]
		}
		i := 0
		for i < len(p) && p[i] >= 'a' && p[i] <= 'z' {
			i++
		}
		bank := p[:i]
		p = p[i:]
		o.bank = dbBad
		for k, name := range dualBankNames {
			if name == bank {
				o.bank = uint8(k)
			}
		}
		if strings.HasPrefix(p, "[") {
			b := -1
			for k, s := range bank4 {
				if s == bank {
					b = k
				}
			}
			end := strings.IndexByte(p, ']')
			var innerBuf [32]byte
			inner := innerBuf[:0]
			for i := 1; i < end; i++ {
				if p[i] != ' ' {
					if len(inner) == len(innerBuf) {
						return 0, false // no index text is this long
					}
					inner = append(inner, p[i])
				}
			}
			if b < 0 || end < 0 || !bytes.HasPrefix(inner, []byte("index1*2+")) {
				return 0, false
			}
			v, err := strconv.ParseUint(string(inner[len("index1*2+"):]), 10, 32)
			if err != nil {
				return 0, false
			}
			o.bank, o.ibank, o.num, p = dbIdx1, uint8(b), uint32(v), p[end+1:]
		} else {
			if o.bank == dbIdx1 {
				o.bank = dbBad // "idx1" is no bank name in the text
			}
			j := 0
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
			v, err := strconv.ParseUint(p[:j], 10, 32)
			if err != nil {
				return 0, false
			}
			o.num, p = uint32(v), p[j:]
		}
		if strings.HasPrefix(p, ".") {
			if len(p) > 5 {
				return 0, false // no swizzle or mask has more than 4 channels
			}
			o.chans.n = uint8(copy(o.chans.c[:], p[1:]))
			p = ""
		}
		if p != "" {
			return 0, false
		}
		n++
	}
	return n, true
}

// parseDualText splits "m1 OPERANDS +m2[.flags] OPERANDS".
func parseDualText(mnem1, rest string) (dualText, bool) {
	var t dualText
	for i := range t.fixed {
		t.fixed[i] = -1
	}
	var ok bool
	var tail string
	var f16b bool
	if t.name[0], t.f16, t.marker[0], tail, ok = parseDualMnem(mnem1); !ok || tail != "" {
		return t, false
	}
	// the second operation starts at a '+' outside brackets followed by its name
	plus, depth := -1, 0
	for i := 0; i < len(rest) && plus < 0; i++ {
		switch rest[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '+':
			if depth == 0 && i+1 < len(rest) && rest[i+1] >= 'a' && rest[i+1] <= 'z' {
				plus = i
			}
		}
	}
	if plus < 0 {
		return t, false
	}
	if t.n[0], ok = parseDualOpnds(rest[:plus], &t.opnd[0]); !ok {
		return t, false
	}
	second := rest[plus+1:]
	if t.name[1], f16b, t.marker[1], second, ok = parseDualMnem(second); !ok || f16b != t.f16 {
		return t, false
	}
	// flags: .vec4, .name=N
	for strings.HasPrefix(second, ".") {
		end := 1
		for end < len(second) && second[end] != '.' && second[end] != ' ' && second[end] != '\t' {
			end++
		}
		flag := second[1:end]
		second = second[end:]
		if flag == "vec4" {
			t.vec4 = true
			continue
		}
		name, val, ok := strings.Cut(flag, "=")
		v, err := strconv.ParseUint(val, 10, 32)
		k := -1
		for i, n := range dualFieldNames {
			if n == name {
				k = i
			}
		}
		if !ok || err != nil || k < 0 || t.fixed[k] >= 0 {
			return t, false
		}
		t.fixed[k] = int32(v)
	}
	if second == "" || second[0] != ' ' && second[0] != '\t' {
		return t, false
	}
	if t.n[1], ok = parseDualOpnds(second, &t.opnd[1]); !ok {
		return t, false
	}
	return t, true
}

// dualCandidates calls fn with each word of form fi that text t may stand
// for, in search order, until fn returns true. base holds the fields the
// generic syntax set (predicate, skipinv). The words passed have Form and
// Args only (dualRaw gives the bits).
func dualCandidates(fi int, base *Inst, t *dualText, cons *dualCons, fn func(Inst) bool) bool {
	f := &forms[fi]
	if cons.form >= 0 && int(f.op1) != cons.form || t.vec4 && f.op1 != 0x05 {
		return false
	}
	nops := 16
	if f.op1 == 0x05 {
		nops = 8
	} else {
		// vec3 swizzles have three channels: a source showing four is vec4
		for k := 0; k < 2; k++ {
			for j := 1; j < t.n[k]; j++ {
				if t.opnd[k][j].chans.n > 3 {
					return false
				}
			}
		}
	}
	for i1 := 0; i1 < nops; i1++ {
		o1, ok := dualInfo(enumDualop, uint32(i1))
		if !ok || o1.name != t.name[0] || t.marker[0] != "" && o1.marker() != t.marker[0] {
			continue
		}
		for i2 := 0; i2 < 16; i2++ {
			o2, ok := dualInfo(enumDualop2, uint32(i2))
			if !ok || o2.name != t.name[1] || t.marker[1] != "" && o2.marker() != t.marker[1] {
				continue
			}
			// the layout tests do not depend on primus
			fits := 0
			for cfg := uint32(0); cfg < 4; cfg++ {
				if dualCountsFit(o1, o2, cfg, t) && dualSourcesFit(t, &o1, &o2, cfg) {
					fits |= 1 << cfg
				}
			}
			for primus := uint32(0); primus < 2 && fits != 0; primus++ {
				if !dualDestsFit(t, &o1, &o2, primus, f.op1 == 0x05) {
					continue
				}
				for cfg := uint32(0); cfg < 4; cfg++ {
					if fits>>cfg&1 == 0 {
						continue
					}
					if in, ok := dualBuildArgs(fi, base, t, cons, uint32(i1), uint32(i2), primus, cfg); ok && fn(in) {
						return true
					}
				}
			}
		}
	}
	return false
}

// dualBuild is the word of form fi with operations i1, i2, primus and
// source configuration cfg that text t stands for, if there is one.
func dualBuild(fi int, base *Inst, t *dualText, cons *dualCons, i1, i2, primus, cfg uint32) (Inst, bool) {
	in, ok := dualBuildArgs(fi, base, t, cons, i1, i2, primus, cfg)
	if ok {
		in.Raw = dualRaw(&forms[fi], &in)
	}
	return in, ok
}

// dualBuildArgs is dualBuild without the word: only Form and Args are set.
func dualBuildArgs(fi int, base *Inst, t *dualText, cons *dualCons, i1, i2, primus, cfg uint32) (Inst, bool) {
	// the operation writing the internal destination names an i register
	if gd := &t.opnd[primus][0]; gd.bank != dbI || t.n[primus] == 0 {
		return Inst{}, false
	}
	f := &forms[fi]
	x := &dualIdxByForm[fi]
	in := Inst{Form: int16(fi), Args: base.Args}
	for _, k := range x {
		if k >= 0 {
			in.Args[k] = 0 // fields the dual text sets
		}
	}
	a := dualAssign{in: &in, x: x, width: &dualWidthByForm[fi]}
	for k := range t.fixed {
		if t.fixed[k] >= 0 {
			a.setf(k, uint32(t.fixed[k]))
		}
		if cons.fixed[k] >= 0 {
			a.setf(k, uint32(cons.fixed[k]))
		}
	}
	a.setf(dfOp1, i1)
	a.setf(dfOp2, i2)
	a.setf(dfPrimus, primus)
	a.setf(dfSrccfg, cfg)
	a.setf(dfF16, b2u(t.f16))
	if a.bad || !a.operands(f, t) {
		return Inst{}, false
	}
	return in, true
}

// dualRaw is the word of a dual-issue instruction built field by field:
// every field fits (setf checks widths), so the word is the fields' bits;
// its only form in the group is f.
func dualRaw(f *form, in *Inst) uint64 {
	w := f.value
	for i := range f.fields {
		w = f.fields[i].set(w, in.Args[i])
	}
	return w
}

// dualAssign sets dual fields, noting conflicts.
type dualAssign struct {
	in    *Inst
	x     *[dfCount]int8
	width *[dfCount]uint8 // the fields' widths (dualWidthByForm)
	done  [dfCount]bool
	bad   bool
}

func (a *dualAssign) setf(k int, v uint32) {
	fi := a.x[k]
	if fi < 0 {
		a.bad = a.bad || v != 0
		return
	}
	if a.done[k] && a.in.Args[fi] != v || uint64(v) >= 1<<a.width[k] {
		a.bad = true
		return
	}
	a.done[k] = true
	a.in.Args[fi] = v
}

// operands assigns the fields the written operands determine.
func (a *dualAssign) operands(f *form, t *dualText) bool {
	// the operations, layout and primus the build set (dualBuildArgs: all
	// valid); the view's other facts are its final word's (dualLevelBuilt
	// tests that with init)
	var d dualView
	if !d.initLayout(f, a.in) {
		return false
	}
	for k := 0; k < 2; k++ {
		want := 1 + len(d.lay[k])
		if d.op[k].idx == 2 {
			want = 1 + 2*len(d.lay[k])
		}
		if t.n[k] != want {
			return false
		}
		dst := &t.opnd[k][0]
		if dst.neg || dst.abs {
			return false
		}
		if d.unifiedIsDest(k) {
			bank, num, ok := unifiedReg(dst, &dualDestBanks, d.op[k].vstore)
			if !ok {
				return false
			}
			a.setf(dfUdbank, bank)
			a.setf(dfUdnum, num)
		} else {
			if dst.bank != dbI || dst.num > 3 {
				return false
			}
			a.setf(dfGdnum, dst.num)
			m := uint32(0)
			for c := 0; c < int(dst.chans.n); c++ {
				if dst.chans.c[c] == "xyzw"[c] {
					m |= 1 << c
				}
			}
			a.setf(dfWmask, m&7)
			a.setf(dfWmaskw, m>>3)
		}
		for i := 0; i < len(d.lay[k]); i++ {
			o := &t.opnd[k][1+i]
			if d.op[k].idx == 2 {
				o = &t.opnd[k][1+2*i]
			}
			if !a.source(&d, k, d.lay[k][i], o) {
				return false
			}
		}
	}
	return !a.bad
}

// unifiedReg turns a written register into bank index and number.
func unifiedReg(o *dualOpnd, banks *[4]uint8, double bool) (uint32, uint32, bool) {
	mult := uint32(1)
	if double {
		mult = 2
	}
	if o.bank == dbI {
		return 0, 124 + o.num, o.num < 4
	}
	if o.bank == dbIdx1 {
		if o.num%mult != 0 || o.num/mult >= 32 || banks[3] != dbIdx1 {
			return 0, 0, false
		}
		return 3, uint32(o.ibank)<<5 | o.num/mult, true
	}
	for i, b := range banks {
		if b == o.bank && b != dbIdx1 {
			if o.num%mult != 0 || o.num/mult >= 128 || b == dbR && o.num/mult >= 124 {
				return 0, 0, false
			}
			return uint32(i), o.num / mult, true
		}
	}
	return 0, 0, false
}

func (a *dualAssign) source(d *dualView, k int, c byte, o *dualOpnd) bool {
	// swz finds the first entry the text names: standard half first; the
	// extended half only when the ext bit exists (extField >= 0) and is not
	// fixed to 0; only the extended half when it is fixed to 1.
	swz := func(extField int) (int, bool) {
		lo, hi := 0, 16
		if extField >= 0 {
			hi = 32
			if a.done[extField] {
				lo, hi = 16*int(a.in.Args[a.x[extField]]), 16+16*int(a.in.Args[a.x[extField]])
			}
		}
		return dualSwzFind(d.vec4, lo, hi, &o.chans)
	}
	switch c {
	case 'u':
		bank, num, ok := unifiedReg(o, &dualSrcBanks, d.op[k].vload)
		if !ok || o.abs && d.c1 > 2 {
			return false
		}
		a.setf(dfUsbank, bank)
		a.setf(dfUsnum, num)
		a.setf(dfUneg, b2u(o.neg))
		if d.c1 <= 2 {
			a.setf(dfG2lo, b2u(o.abs))
		}
		ext := -1
		if d.c1 < 2 {
			ext = dfG2hi
		}
		idx, ok := swz(ext)
		if !ok {
			return false
		}
		a.setf(dfUswz, uint32(idx&15))
		if d.c1 < 2 {
			a.setf(dfG2hi, uint32(idx>>4))
		}
	case '0', '1':
		if o.bank != dbI || o.num > 3 || o.abs || o.neg && c == '0' {
			return false
		}
		ext := -1
		if c == '1' {
			ext = dfG1swzx
		}
		idx, ok := swz(ext)
		if !ok {
			return false
		}
		if c == '0' {
			a.setf(dfG0slot, o.num)
			a.setf(dfG0swz, uint32(idx))
		} else {
			a.setf(dfG1slot, o.num)
			a.setf(dfG1neg, b2u(o.neg))
			a.setf(dfG1swz, uint32(idx&15))
			a.setf(dfG1swzx, uint32(idx>>4))
		}
	case '2':
		if o.bank != dbI || o.num > 3 || o.abs || o.neg {
			return false
		}
		if d.c1 >= 2 {
			a.setf(dfG2hi, o.num>>1)
			a.setf(dfG2lo, o.num&1)
		} else if o.num != 2 {
			return false
		}
	}
	return !a.bad
}

// maxDualMatches bounds the words one plain text can stand for (the
// operation names, primus and source configuration leave at most 2*2*2*4
// per group; more matches only cost markers: see dualLevel).
const maxDualMatches = 16

// dualMatches lists, in search order (vec3 group first), the words whose
// plain text (no markers) is core, up to the word raw itself; t is core's
// structure; raw also supplies the generic fields (predicate, skipinv),
// which sit at the same bits in both groups.
func dualMatches(raw uint64, t *dualText, core []byte, out *[maxDualMatches]Inst) int {
	n := 0
	var buf [256]byte
	cons := freeCons()
	for fi := range forms {
		f := &forms[fi]
		if f.op1 != 0x04 && f.op1 != 0x05 {
			continue
		}
		base := Inst{Form: int16(fi)}
		for i := range f.fields {
			base.Args[i] = f.fields[i].get(raw)
		}
		dualCandidates(fi, &base, t, &cons, func(c Inst) bool {
			c.Raw = dualRaw(&forms[c.Form], &c)
			d, ok := newDualView(&forms[c.Form], &c)
			if !ok {
				return false
			}
			p := d.appendMnem1(buf[:0], markNone)
			p = append(p, ' ')
			p = d.appendRest(p, markNone)
			if bytes.Equal(p, core) {
				out[n] = c
				n++
			}
			// words after the searched one never decide its markers
			return n == len(out) || c.Raw == raw
		})
		if n > 0 && out[n-1].Raw == raw {
			break
		}
	}
	return n
}

// appendNormDual appends s with blanks next to ',' and '+' dropped and
// other runs collapsed to one blank.
func appendNormDual[T string | []byte](dst []byte, s T) []byte {
	lo, hi := 0, len(s)
	for lo < hi && (s[lo] == ' ' || s[lo] == '\t') {
		lo++
	}
	for hi > lo && (s[hi-1] == ' ' || s[hi-1] == '\t') {
		hi--
	}
	for i := lo; i < hi; i++ {
		c := s[i]
		if c == ' ' || c == '\t' {
			j := i
			for j < hi && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			prev := s[i-1]
			next := s[j]
			if prev != ',' && prev != '+' && next != ',' && next != '+' {
				dst = append(dst, ' ')
			}
			i = j - 1
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// dualMemo carries what parsing one dual-issue text for the vec3 group
// found over to the vec4 group (the parser tries both syntaxes in turn):
// the text's structure, and in plain mode whether a vec3 word prints it.
type dualMemo struct {
	mnem1, rest string
	t           dualText
	ok          bool
	haveT       bool
	vec3Done    bool // vec3Hit is known
	vec3Hit     bool
}

// text returns the structure of mnem1 rest, parsed once.
func (m *dualMemo) text(mnem1, rest string) (*dualText, bool) {
	if !m.haveT || m.mnem1 != mnem1 || m.rest != rest {
		*m = dualMemo{mnem1: mnem1, rest: rest, haveT: true}
		m.t, m.ok = parseDualText(mnem1, rest)
	}
	return &m.t, m.ok
}

// parseDualMode resolves a dual-issue text for form fi: mnem1 is the first
// mnemonic as written, rest everything after the blank that follows the
// generic flags. It returns the word printing exactly this text. With
// plainFast, a text that states no marker is resolved without marker
// levels: the first candidate whose plain text it is comes first in the
// search among the words printing that text, so its level is markNone
// (TestParseDualPlain checks this against the full resolution). memo (nil:
// none) carries the text's structure and the vec3 group's answer from the
// vec3 syntax to the vec4 one.
func parseDualMode(fi int, base *Inst, mnem1, rest string, plainFast bool, memo *dualMemo) (Inst, bool) {
	if memo == nil {
		memo = new(dualMemo)
	}
	tp, ok := memo.text(mnem1, rest)
	if !ok {
		return Inst{}, false
	}
	t := *tp
	plain := plainFast && !t.vec4 && t.marker == [2]string{} && t.fixed[dfSrccfg] < 0 &&
		t.fixed[dfPrimus] < 0 && t.fixed[dfG1swzx] < 0 && t.fixed[dfG2hi] < 0
	var rawBuf, wantBuf, gotBuf [256]byte
	raw := append(append(append(rawBuf[:0], mnem1...), ' '), rest...)
	want := appendNormDual(wantBuf[:0], raw)
	cons := freeCons()
	var out Inst
	var buf [256]byte
	if plain && fi == dualForms[1] && !memo.vec3Done {
		// the vec3 group comes first in the search: a vec3 word printing
		// this plain text takes it (the vec4 one would need .vec4)
		base3 := Inst{Form: int16(dualForms[0])}
		decodeFields(base3.Form, dualRaw(&forms[fi], base), &base3.Args)
		memo.vec3Done = true
		memo.vec3Hit = dualCandidates(dualForms[0], &base3, &t, &cons, func(c Inst) bool {
			var d dualView
			if !d.init(&forms[c.Form], &c) {
				return false
			}
			p := d.appendMnem1(buf[:0], markNone)
			p = d.appendRest(append(p, ' '), markNone)
			return bytes.Equal(appendNormDual(gotBuf[:0], p), want)
		})
	}
	if plain && fi == dualForms[1] && memo.vec3Hit {
		return Inst{}, false
	}
	hit := dualCandidates(fi, base, &t, &cons, func(c Inst) bool {
		f := &forms[c.Form]
		d, ok := newDualView(f, &c)
		if !ok {
			return false
		}
		level := markNone
		if !plain {
			level = dualViewLevel(&d, &c)
		}
		p := d.appendMnem1(buf[:0], level)
		p = append(p, ' ')
		p = d.appendRest(p, level)
		if bytes.Equal(appendNormDual(gotBuf[:0], p), want) {
			out = c
			return true
		}
		return false
	})
	if plain && fi == dualForms[0] {
		memo.vec3Done, memo.vec3Hit = true, hit
	}
	return out, hit
}

// dualCountsFit reports whether the layout for cfg has as many sources per
// operation as the text shows (a quick test before assigning fields).
func dualCountsFit(o1, o2 dualOp, cfg uint32, t *dualText) bool {
	lay := &dualLayouts[o1.srcs-1][o2.srcs-1][cfg&3]
	if !lay.ok {
		return false
	}
	n := [2]int{len(lay.lay[0]), len(lay.lay[1])}
	for k, o := range [2]dualOp{o1, o2} {
		want := 1 + n[k]
		if o.idx == 2 {
			want = 1 + 2*n[k]
		}
		if t.n[k] != want {
			return false
		}
	}
	return true
}
