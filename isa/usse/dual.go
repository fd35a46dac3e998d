package usse

import (
	"strconv"
	"strings"
)

// Dual-issue words (op1 0x04 vec3, 0x05 vec4). usse.spec describes the
// fields, operation tables and source layouts; this file turns them into
// text ("mul.f32 pa3.x, i1.x, i2.x +mov.f32 i1.xyz, pa8.xyz") and back.
//
// The operand text does not always name one word (vector and scalar mul
// print alike when their operands do), so the text is resolved by search:
// the candidates a text can stand for are tried in a fixed order (vec3
// group first, operation indices ascending, then primus, then source
// configuration), and a word whose plain text would be found earlier by
// that search prints markers (.vec4, .scalar, then deciding fields) until
// the search finds it. Parsing runs the same search and accepts a word only
// when it prints exactly the input.

// dualOp is one operation of a dual-issue word.
type dualOp struct {
	idx    uint32
	name   string
	srcs   int
	vload  bool // reads vector sources
	vstore bool // writes a vector result
}

// marker is the suffix that tells an operation from an earlier one of the
// same name: the scalar mad/add/mul from the vector ones, ssq from dot.
func (o dualOp) marker() string {
	switch {
	case o.idx >= 8 && o.idx <= 10:
		return ".scalar"
	case o.idx == 2:
		return ".ssq"
	}
	return ""
}

// isDot: dot and ssq read 3 (vec3) or 4 (vec4) channels whatever the mask.
func (o dualOp) isDot() bool { return o.idx == 1 || o.idx == 2 }

// dualOps holds dualInfo for both operation tables (read-only).
var dualOps = func() (t [2][16]struct {
	op dualOp
	ok bool
}) {
	for k, table := range [2]int{enumDualop, enumDualop2} {
		for i := range t[k] {
			t[k][i].op, t[k][i].ok = dualInfoSlow(table, uint32(i))
		}
	}
	return t
}()

func dualInfo(table int, idx uint32) (dualOp, bool) {
	if idx < 16 {
		switch table {
		case enumDualop:
			return dualOps[0][idx].op, dualOps[0][idx].ok
		case enumDualop2:
			return dualOps[1][idx].op, dualOps[1][idx].ok
		}
	}
	return dualInfoSlow(table, idx)
}

func dualInfoSlow(table int, idx uint32) (dualOp, bool) {
	t := enumTables[table]
	if int(idx) >= len(t) || t[idx] == "?" {
		return dualOp{}, false
	}
	c := enumTables[enumDualcls][idx]
	if c == "?" {
		return dualOp{}, false
	}
	return dualOp{idx: idx, name: t[idx], srcs: int(c[1] - '0'), vload: c[0] == 'v', vstore: c[0] == 'v' && len(c) == 2}, true
}

var dualLayoutTables = [3][3]int{
	{enumDl11, enumDl12, enumDl13},
	{enumDl21, enumDl22, enumDl23},
	{enumDl31, enumDl32, enumDl33},
}

// dualFieldNames are the fields the dual element prints (or flags).
var dualFieldNames = [...]string{"op1", "f16", "wmaskw", "g1neg", "g1swzx", "uswz", "uneg", "op2", "primus", "g0swz", "g1swz", "udbank", "usbank", "gdnum", "udnum", "srccfg", "g2hi", "g2lo", "g1slot", "g0slot", "wmask", "usnum"}

const (
	dfOp1 = iota
	dfF16
	dfWmaskw
	dfG1neg
	dfG1swzx
	dfUswz
	dfUneg
	dfOp2
	dfPrimus
	dfG0swz
	dfG1swz
	dfUdbank
	dfUsbank
	dfGdnum
	dfUdnum
	dfSrccfg
	dfG2hi
	dfG2lo
	dfG1slot
	dfG0slot
	dfWmask
	dfUsnum
	dfCount
)

// dualIdxByForm holds dualIdx for every form, computed once from the
// generated tables (read-only afterwards).
var dualIdxByForm = func() (t [len(forms)][dfCount]int8) {
	for fi := range forms {
		t[fi] = dualIdx(&forms[fi])
	}
	return t
}()

// dualIdx maps the dual field numbers to the form's field indices (-1: absent).
func dualIdx(f *form) (x [dfCount]int8) {
	for i, n := range dualFieldNames {
		x[i] = -1
		for j := range f.fields {
			if f.fields[j].name == n {
				x[i] = int8(j)
			}
		}
	}
	return x
}

// dualView is a decoded dual-issue word.
type dualView struct {
	f        *form
	v        [dfCount]uint32 // the dual fields' values (0 when absent)
	x        [dfCount]int8
	vec4     bool
	op       [2]*dualOp // entries of dualOps
	lay      [2]string  // source letters per operation: u 0 1 2
	usesMask uint8      // layoutBit set of the letters in lay
	c1       int        // sources of the first operation
	primus   bool       // the first operation writes the unified destination
	bad      int        // when invalid: the dual field at fault
	mask     [2]uint8   // destMask per operation
	flagSet  uint32     // dual fields printed as flags at markNone (present, unused, non-zero)
	usedSet  uint32     // dual fields the operands show (used)
	nch      [2]uint8   // srcChans per operation
}

func (d *dualView) get(k int) uint32 { return d.v[k] }

// newDualView reads the dual fields of in (a snapshot: later changes to in
// are not seen).
func newDualView(f *form, in *Inst) (dualView, bool) {
	var d dualView
	ok := d.init(f, in)
	return d, ok
}

// init sets *d to newDualView(f, in) and reports whether it is valid.
func (d *dualView) init(f *form, in *Inst) bool {
	d.f, d.vec4 = f, f.op1 == 0x05
	d.bad = 0
	if in.Form >= 0 && int(in.Form) < len(forms) && &forms[in.Form] == f {
		d.x = dualIdxByForm[in.Form]
	} else {
		d.x = dualIdx(f)
	}
	nz := uint32(0) // fields that are present and non-zero
	for k, fi := range d.x {
		d.v[k] = 0
		if fi >= 0 {
			d.v[k] = in.Args[fi]
			if d.v[k] != 0 {
				nz |= 1 << k
			}
		}
	}
	d.op = [2]*dualOp{}
	if i := d.get(dfOp1); i < 16 && dualOps[0][i].ok {
		d.op[0] = &dualOps[0][i].op
	} else {
		d.bad = dfOp1
		return false
	}
	if i := d.get(dfOp2); i < 16 && dualOps[1][i].ok {
		d.op[1] = &dualOps[1][i].op
	} else {
		d.bad = dfOp2
		return false
	}
	d.c1 = d.op[0].srcs
	lay := &dualLayouts[d.c1-1][d.op[1].srcs-1][d.get(dfSrccfg)&3]
	if !lay.ok {
		d.bad = dfSrccfg // no source layout for these operations
		return false
	}
	d.lay, d.usesMask = lay.lay, lay.uses
	d.primus = d.get(dfPrimus) != 0
	// every swizzle the layout reads must be defined
	for k := 0; k < 2; k++ {
		for i := 0; i < len(d.lay[k]); i++ {
			if _, ok := d.srcSwizzle(d.lay[k][i]); !ok {
				d.bad = [...]int{'u': dfUswz, '0': dfG0swz, '1': dfG1swz, '2': dfG2hi}[d.lay[k][i]]
				return false
			}
		}
	}
	for k := 0; k < 2; k++ {
		d.mask[k] = uint8(d.destMaskOf(k))
	}
	d.usedSet = dualUsedSets[d.c1-1][d.usesMask&15]
	d.flagSet = nz &^ d.usedSet
	for k := 0; k < 2; k++ {
		d.nch[k] = uint8(d.srcChansOf(k))
	}
	return true
}

func (d *dualView) swzTable() []string {
	if d.vec4 {
		return enumTables[enumDswz4]
	}
	return enumTables[enumDswz3]
}

// uses reports whether a source letter appears in either layout.
func (d *dualView) uses(c byte) bool { return d.usesMask>>layoutBit(c)&1 != 0 }

// layoutBit numbers the source letters u 0 1 2.
func layoutBit(c byte) uint {
	if c == 'u' {
		return 0
	}
	return uint(c-'0') + 1
}

type dualLayout struct {
	lay  [2]string // source letters per operation
	uses uint8     // layoutBit set of the letters
	ok   bool
}

// dualLayouts splits the layout tables by source counts and configuration
// once (read-only afterwards).
var dualLayouts = func() (t [3][3][4]dualLayout) {
	for i := range t {
		for j := range t[i] {
			for c, l := range enumTables[dualLayoutTables[i][j]] {
				a, b, ok := strings.Cut(l, "/")
				if !ok {
					continue
				}
				x := &t[i][j][c]
				x.lay, x.ok = [2]string{a, b}, true
				for k := 0; k < len(l); k++ {
					if l[k] != '/' {
						x.uses |= 1 << layoutBit(l[k])
					}
				}
			}
		}
	}
	return t
}()

// used reports whether the operand text shows dual field k.
func (d *dualView) used(k int) bool {
	switch k {
	case dfUsbank, dfUsnum, dfUswz, dfUneg:
		return d.uses('u')
	case dfG0slot, dfG0swz:
		return d.uses('0')
	case dfG1slot, dfG1swz, dfG1swzx, dfG1neg:
		return d.uses('1')
	case dfG2hi:
		return d.c1 == 1 && d.uses('u') || d.c1 >= 2 && d.uses('2')
	case dfG2lo:
		return d.c1 <= 2 && d.uses('u') || d.c1 >= 2 && d.uses('2')
	}
	return true
}

// dualUsedSets[c1-1][uses] is the set of dual fields used reports for a
// first operation with c1 sources and layout letters uses (read-only).
var dualUsedSets = func() (t [3][16]uint32) {
	for c1 := 1; c1 <= 3; c1++ {
		for uses := 0; uses < 16; uses++ {
			d := dualView{c1: c1, usesMask: uint8(uses)}
			for k := 0; k < dfCount; k++ {
				if d.used(k) {
					t[c1-1][uses] |= 1 << k
				}
			}
		}
	}
	return t
}()

// unifiedIsDest reports whether operation k writes the unified destination.
func (d *dualView) unifiedIsDest(k int) bool { return (k == 0) == d.primus }

// destMask is the write mask of operation k.
func (d *dualView) destMask(k int) uint32 { return uint32(d.mask[k]) }

func (d *dualView) destMaskOf(k int) uint32 {
	if !d.unifiedIsDest(k) {
		return d.get(dfWmask) | d.get(dfWmaskw)<<3
	}
	f16 := d.get(dfF16) != 0
	switch {
	case d.get(dfUdbank) == 0 && d.get(dfUdnum) >= 124: // an internal register
		if d.vec4 {
			return 15
		}
		return 7
	case d.op[k].vstore && f16:
		return 15
	case d.op[k].vstore:
		return 3
	case f16:
		return 3
	}
	return 1
}

// srcChans is how many swizzle channels operation k's sources show.
func (d *dualView) srcChans(k int) int { return int(d.nch[k]) }

func (d *dualView) srcChansOf(k int) int {
	switch o := d.op[k]; {
	case !o.vload:
		return 1
	case o.isDot() && d.vec4:
		return 4
	case o.isDot():
		return 3
	}
	return maskLen(d.destMask(k))
}

// srcSwizzle is the swizzle table index a source letter reads.
func (d *dualView) srcSwizzle(c byte) (int, bool) {
	var idx int
	switch c {
	case 'u':
		idx = int(d.get(dfUswz))
		if d.c1 < 2 {
			idx += 16 * int(d.get(dfG2hi))
		}
	case '0':
		idx = int(d.get(dfG0swz))
	case '1':
		idx = int(d.get(dfG1swz)) + 16*int(d.get(dfG1swzx))
	case '2':
		idx = 4 // xyzw / xyz
	}
	t := d.swzTable()
	return idx, idx < len(t) && t[idx] != "?"
}

// Bank codes of dual-issue operands: r o pa sa as in bank4, then the
// internal registers, the indexed bank and anything else the text names.
const (
	dbR = iota
	dbO
	dbPa
	dbSa
	dbI
	dbIdx1
	dbBad
)

var dualBankNames = [...]string{"r", "o", "pa", "sa", "i", "idx1"}

var dualDestBanks = [4]uint8{dbR, dbO, dbPa, dbIdx1}
var dualSrcBanks = [4]uint8{dbR, dbO, dbPa, dbSa}

// dualReg is how a unified register prints: bank r o pa sa idx1, or i for
// the internal registers at the top of the temp bank; num as printed.
func dualReg(bank uint8, num uint32, double bool) (uint8, uint8, uint32) {
	mult := uint32(1)
	if double {
		mult = 2
	}
	switch bank {
	case dbR:
		if num >= 124 {
			return dbI, 0, num - 124
		}
	case dbIdx1:
		return bank, uint8(num >> 5), (num & 31) * mult
	}
	return bank, 0, num * mult
}

// maskChans is each write mask as operand channels (".x-z" without the dot).
var maskChans = func() (t [16]dualChans) {
	for m := range t {
		if b := appendMaskChans(nil, uint32(m)); len(b) > 0 {
			t[m].n = uint8(copy(t[m].c[:], b[1:]))
		}
	}
	return t
}()

// destOpnd sets *o to operation k's destination as printed.
func (d *dualView) destOpnd(o *dualOpnd, k int) {
	*o = dualOpnd{}
	if d.unifiedIsDest(k) {
		o.bank, o.ibank, o.num = dualReg(dualDestBanks[d.get(dfUdbank)], d.get(dfUdnum), d.op[k].vstore)
	} else {
		o.bank, o.num = dbI, d.get(dfGdnum)
	}
	o.chans = maskChans[d.destMask(k)&15]
}

// firstIndex is the first entry in t[lo:hi] starting with p, or -1.
func firstIndex(t []string, lo, hi int, p string) int {
	for i := lo; i < hi; i++ {
		if t[i] != "?" && strings.HasPrefix(t[i], p) {
			return i
		}
	}
	return -1
}

// srcOpnd sets *o to the source of operation k read through layout letter
// c, as printed at marker level level (level < 0: without its channels).
func (d *dualView) srcOpnd(o *dualOpnd, k int, c byte, level int) {
	*o = dualOpnd{bank: dbI}
	switch c {
	case 'u':
		o.abs = d.c1 <= 2 && d.get(dfG2lo) != 0
		o.neg = d.get(dfUneg) != 0
		o.bank, o.ibank, o.num = dualReg(dualSrcBanks[d.get(dfUsbank)], d.get(dfUsnum), d.op[k].vload)
	case '0':
		o.num = d.get(dfG0slot)
	case '1':
		o.neg = d.get(dfG1neg) != 0
		o.num = d.get(dfG1slot)
	case '2':
		o.num = 2
		if d.c1 >= 2 {
			o.num = d.get(dfG2hi)<<1 | d.get(dfG2lo)
		}
	}
	if level < 0 {
		return
	}
	idx, _ := d.srcSwizzle(c)
	// the parser takes the first entry with the printed prefix among the
	// entries it may mean (see dualAssign.source): print enough channels
	span := dualSpanStd
	if c == 'u' && d.c1 < 2 || c == '1' {
		span = dualSpanAll
		if level >= markExt {
			span = dualSpanHalf
		}
	}
	v := b2u(d.vec4)
	ent := d.swzTable()[idx]
	o.chans.n = uint8(copy(o.chans.c[:], ent[:dualPrefixLen[v][span][idx][min(d.srcChans(k), 4)]]))
}

// Entry ranges a dual-issue source swizzle is read from: the standard
// half, both halves, or the half the ext bit names.
const (
	dualSpanStd = iota
	dualSpanAll
	dualSpanHalf
)

// dualPrefixLen[vec4][span][idx][m] is how many channels of dual swizzle
// entry idx srcOpnd prints when the operation reads m: the shortest prefix,
// m or longer, whose first entry in the span is idx (read-only).
var dualPrefixLen = func() (p [2][3][32][5]uint8) {
	for v, ti := range [2]int{enumDswz3, enumDswz4} {
		t := enumTables[ti]
		for span := range p[v] {
			for idx, ent := range t {
				if ent == "?" {
					continue
				}
				lo, hi := 0, 16
				switch span {
				case dualSpanAll:
					hi = 32
				case dualSpanHalf:
					lo, hi = idx&16, idx&16+16
				}
				for m := 0; m <= 4; m++ {
					n := min(m, len(ent))
					for ; n < len(ent); n++ {
						if firstIndex(t, lo, hi, ent[:n]) == idx {
							break
						}
					}
					p[v][span][idx][m] = uint8(n)
				}
			}
		}
	}
	return p
}()

// dualNamed[vec4][all][idx] reports whether the full text of dual swizzle
// entry idx names it among the standard entries (all: among all 32).
var dualNamed = func() (p [2][2][32]bool) {
	for v, ti := range [2]int{enumDswz3, enumDswz4} {
		t := enumTables[ti]
		for all, hi := range [2]int{16, 32} {
			for idx := range t {
				p[v][all][idx] = t[idx] != "?" && firstIndex(t, 0, hi, t[idx]) == idx
			}
		}
	}
	return p
}()

// plainNamesWord reports whether the plain text (markNone) names every
// source swizzle: the parser reads back the entry printed, so the search
// finds the word itself at its own combination. (An entry that also
// appears earlier in its table, like dswz4's second "zwzw", is not named
// by any prefix; such words need markExt.)
func (d *dualView) plainNamesWord() bool {
	v := b2u(d.vec4)
	for k := 0; k < 2; k++ {
		for i := 0; i < len(d.lay[k]); i++ {
			c := d.lay[k][i]
			idx, _ := d.srcSwizzle(c)
			all := b2u(c == 'u' && d.c1 < 2 || c == '1')
			if idx >= 32 || !dualNamed[v][all][idx] {
				return false
			}
		}
	}
	return true
}

func appendDualOpnd(dst []byte, o *dualOpnd) []byte {
	if o.neg {
		dst = append(dst, '-')
	}
	if o.abs {
		dst = append(dst, '|')
	}
	if o.bank == dbIdx1 {
		dst = append(dst, bank4[o.ibank&3]...)
		dst = append(dst, "[index1 * 2 + "...)
		dst = append(strconv.AppendUint(dst, uint64(o.num), 10), ']')
	} else {
		dst = strconv.AppendUint(append(dst, dualBankNames[o.bank]...), uint64(o.num), 10)
	}
	if o.chans.n != 0 {
		dst = append(append(dst, '.'), o.chans.c[:o.chans.n]...)
	}
	if o.abs {
		dst = append(dst, '|')
	}
	return dst
}

// operands lists operation k's destination and sources as printed.
func (d *dualView) operands(k int, level int, out *[5]dualOpnd) int {
	d.destOpnd(&out[0], k)
	n := 1
	lay := d.lay[k]
	for i := 0; i < len(lay); i++ {
		d.srcOpnd(&out[n], k, lay[i], level)
		n++
		if d.op[k].idx == 2 { // ssq: Sony's dot of a source with itself
			out[n] = out[n-1]
			n++
		}
	}
	return n
}

// appendOperands prints operation k's destination and sources.
func (d *dualView) appendOperands(dst []byte, k int, level int) []byte {
	var ops [5]dualOpnd
	n := d.operands(k, level, &ops)
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendDualOpnd(dst, &ops[i])
	}
	return dst
}

func (d *dualView) fmtName() string {
	if d.get(dfF16) != 0 {
		return ".f16"
	}
	return ".f32"
}

// Marker levels: which facts the text states beyond the plain operands.
const (
	markNone   = iota
	markForm   // .vec4 (and the vec3 group is implied without it)
	markScalar // .scalar after scalar mad/add/mul, .ssq after dot = ssq
	markCfg    // .srccfg=N
	markPrimus // .primus=N
	markExt    // .g1swzx=N .g2hi=N
	markLevels
)

// appendMnem1 prints the first operation's name and format (and .scalar).
func (d *dualView) appendMnem1(dst []byte, level int) []byte {
	dst = append(append(dst, d.op[0].name...), d.fmtName()...)
	if level >= markScalar {
		dst = append(dst, d.op[0].marker()...)
	}
	return dst
}

// appendRest prints everything after the first mnemonic and the blank.
func (d *dualView) appendRest(dst []byte, level int) []byte {
	dst = append(d.appendOperands(dst, 0, level), " +"...)
	dst = append(append(dst, d.op[1].name...), d.fmtName()...)
	if level >= markScalar {
		dst = append(dst, d.op[1].marker()...)
	}
	if level >= markForm && d.vec4 {
		dst = append(dst, ".vec4"...)
	}
	show := d.flagSet &^ (1<<dfSrccfg | 1<<dfPrimus)
	if level >= markCfg {
		show |= 1 << dfSrccfg
	}
	if level >= markPrimus {
		show |= 1 << dfPrimus
	}
	if level >= markExt {
		show |= d.usedSet & (1<<dfG1swzx | 1<<dfG2hi)
	}
	for k := 0; show>>k != 0; k++ {
		if show>>k&1 == 0 || d.x[k] < 0 {
			continue
		}
		dst = append(append(dst, '.'), dualFieldNames[k]...)
		dst = strconv.AppendUint(append(dst, '='), uint64(d.get(k)), 10)
	}
	dst = append(dst, ' ')
	return d.appendOperands(dst, 1, level)
}

// dualLevel is the marker level a word needs: the lowest at which the
// search finds the word itself (-1 for an invalid word). Only the words
// found before it matter, and only its rivals (dual_rivals.go) can print
// its plain text.
func dualLevel(f *form, in *Inst) int {
	d, ok := newDualView(f, in)
	if !ok {
		return -1
	}
	return dualViewLevel(&d, in)
}

// dualViewLevel is dualLevel for a valid view d of in.
func dualViewLevel(d *dualView, in *Inst) int {
	if !d.plainNamesWord() {
		return markExt // the search never finds the word without ext markers
	}
	g := uint8(0)
	if d.f.op1 == 0x05 {
		g = 1
	}
	i1, i2, primus, cfg := d.get(dfOp1), d.get(dfOp2), d.get(dfPrimus), d.get(dfSrccfg)
	rivals := dualRivals[g][i1][i2][cfg]
	// the combinations before the word's own that pass the quick tests, in
	// search order (at most 8 rivals x 2 x 4 configurations)
	var tries [64]dualTry
	nt := 0
	var t dualText
	haveText := false
	found := false
search:
	for ri := range rivals {
		r := &rivals[ri]
		fits := r.cfgs // narrowed by dualSourcesFit once the text is built
		for p := uint32(0); p < 2; p++ {
			for c := uint32(0); c < 4; c++ {
				if fits>>c&1 == 0 {
					continue
				}
				if r.group == g && uint32(r.i1) == i1 && uint32(r.i2) == i2 && p == primus && c == cfg {
					// the word's own combination: its plain text names
					// it (plainNamesWord), so the search finds it here
					found = true
					break search
				}
				if !haveText {
					d.fillText(&t, true)
					haveText = true
				}
				o1, o2 := &dualOps[0][r.i1].op, &dualOps[1][r.i2].op
				if p == 0 {
					// the layout test does not depend on primus
					if !dualSourcesFit(&t, o1, o2, c) {
						fits &^= 1 << c
						continue
					}
				}
				if !dualDestsFit(&t, o1, o2, p, r.group == 1) {
					continue
				}
				tries[nt] = dualTry{uint8(ri), uint8(p), uint8(c)}
				nt++
			}
		}
	}
	if !found {
		return markExt
	}
	if nt == 0 {
		return markNone // no word before it can print its plain text
	}
	return dualLevelBuilt(d, in, &t, rivals, tries[:nt])
}

// dualTry is a rival combination the level search builds: its index in
// the rival list, primus and source configuration.
type dualTry struct{ r, p, c uint8 }

// dualLevelBuilt finishes dualViewLevel: it builds the words the tries
// stand for from the plain text (t holds its lite form), keeps those
// printing that text, and finds the level at which the word (last in
// search order) comes first.
func dualLevelBuilt(d *dualView, in *Inst, t *dualText, rivals []dualCombo, tries []dualTry) int {
	d.fillText(t, false)
	cons := freeCons()
	var all [maxDualMatches]dualMatch
	n := 0
	var base Inst
	var tw dualText
	var dw dualView
	baseGroup := -1
	for _, x := range tries {
		r := &rivals[x.r]
		fi := dualForms[r.group]
		if int(r.group) != baseGroup {
			base = Inst{Form: int16(fi)}
			decodeFields(int16(fi), in.Raw, &base.Args)
			baseGroup = int(r.group)
		}
		w, ok := dualBuildArgs(fi, &base, t, &cons, uint32(r.i1), uint32(r.i2), uint32(x.p), uint32(x.c))
		if !ok || !dw.init(&forms[w.Form], &w) {
			continue
		}
		// the plain text is a function of its structure and the parser
		// reads the structure back (TestDualTextStructure): equal
		// structures are equal texts
		if dw.fillText(&tw, false); tw == *t {
			w.Raw = dualRaw(&forms[fi], &w)
			all[n] = newDualMatch(&w)
			if n++; n == len(all) {
				return markExt // (the word itself would need the next slot)
			}
		}
	}
	if n == 0 {
		return markNone
	}
	all[n] = newDualMatch(in)
	n++
	for level := markNone; level < markExt; level++ {
		cons := dualConstraints(d, level)
		for i := 0; i < n; i++ {
			if cons.allowsMatch(&all[i]) {
				if all[i].raw == in.Raw {
					return level
				}
				break
			}
		}
	}
	// markExt states every field the operands leave open (and prints the
	// swizzles for the half the ext bits name), so it always names the word
	return markExt
}

// dualMatch is what the marker levels test of a word the search found: its
// group and the dual fields dualConstraints can fix (0 when absent).
type dualMatch struct {
	raw  uint64
	op1  uint8
	vals [len(dualMatchFields)]uint8 // all fit: op indices, cfg, one-bit fields
}

var dualMatchFields = [...]int{dfOp1, dfOp2, dfSrccfg, dfPrimus, dfG1swzx, dfG2hi}

func newDualMatch(in *Inst) dualMatch {
	m := dualMatch{raw: in.Raw, op1: forms[in.Form].op1}
	x := &dualIdxByForm[in.Form]
	for i, k := range dualMatchFields {
		if x[k] >= 0 {
			m.vals[i] = uint8(in.Args[x[k]])
		}
	}
	return m
}

// allowsMatch is allows for a dualMatch (dualConstraints fixes only
// dualMatchFields).
func (c *dualCons) allowsMatch(m *dualMatch) bool {
	if c.form >= 0 && int(m.op1) != c.form {
		return false
	}
	for i, k := range dualMatchFields {
		if v := c.fixed[k]; v >= 0 && uint32(m.vals[i]) != uint32(v) {
			return false
		}
	}
	return true
}

// dualLevelSearch is dualLevel by the full search over both groups (the
// reference the rival lists are tested against).
func dualLevelSearch(f *form, in *Inst) int {
	d, ok := newDualView(f, in)
	if !ok {
		return -1
	}
	var buf [256]byte
	core := d.appendMnem1(buf[:0], markNone)
	core = append(core, ' ')
	core = d.appendRest(core, markNone)
	t := d.text()
	var all [maxDualMatches]Inst
	n := dualMatches(in.Raw, &t, core, &all)
	for level := markNone; level < markExt; level++ {
		cons := dualConstraints(&d, level)
		for i := 0; i < n; i++ {
			if cons.allows(&all[i]) {
				if all[i].Raw == in.Raw {
					return level
				}
				break
			}
		}
	}
	return markExt
}

// allows reports whether a candidate word meets the constraints.
func (c *dualCons) allows(in *Inst) bool {
	if c.form >= 0 && int(forms[in.Form].op1) != c.form {
		return false
	}
	x := &dualIdxByForm[in.Form]
	for k, v := range c.fixed {
		if v >= 0 && (x[k] < 0 && v != 0 || x[k] >= 0 && in.Args[x[k]] != uint32(v)) {
			return false
		}
	}
	return true
}

// text is the structure of d's plain (marker-free) text, as parseDualText
// reads it back.
func (d *dualView) text() dualText {
	var t dualText
	d.fillText(&t, false)
	return t
}

// fillText sets *t to text(); lite leaves out the flags and the source
// channels (enough for dualSourcesFit).
func (d *dualView) fillText(t *dualText, lite bool) {
	level := markNone
	if lite {
		level = -1
	}
	t.name = [2]string{d.op[0].name, d.op[1].name}
	t.f16 = d.get(dfF16) != 0
	t.marker = [2]string{}
	t.vec4 = false
	for k := 0; k < 2; k++ {
		t.n[k] = d.operands(k, level, &t.opnd[k])
	}
	if lite {
		return
	}
	for k := range t.fixed {
		t.fixed[k] = -1
		if d.flagSet>>k&1 != 0 {
			t.fixed[k] = int32(d.get(k)) // printed as a flag
		}
	}
}

// dualCons restricts the search: fixed fields (by dual field number) and
// the form.
type dualCons struct {
	form  int            // -1 any, else op1 group
	fixed [dfCount]int32 // -1 free
}

func freeCons() dualCons {
	c := dualCons{form: -1}
	for i := range c.fixed {
		c.fixed[i] = -1
	}
	return c
}

func dualConstraints(d *dualView, level int) dualCons {
	c := freeCons()
	if level >= markForm {
		c.form = int(d.f.op1)
	}
	if level >= markScalar {
		c.fixed[dfOp1] = int32(d.get(dfOp1))
		c.fixed[dfOp2] = int32(d.get(dfOp2))
	}
	if level >= markCfg {
		c.fixed[dfSrccfg] = int32(d.get(dfSrccfg))
	}
	if level >= markPrimus {
		c.fixed[dfPrimus] = int32(d.get(dfPrimus))
	}
	if level >= markExt {
		c.fixed[dfG1swzx] = int32(d.get(dfG1swzx))
		c.fixed[dfG2hi] = int32(d.get(dfG2hi))
	}
	return c
}

// dualOpnd is one operand as written (no pointers: cheap to copy and
// compare).
type dualOpnd struct {
	neg, abs bool
	bank     uint8 // dbR ... dbBad
	ibank    uint8 // dbIdx1: the indexed bank (bank4)
	num      uint32
	chans    dualChans // swizzle or mask text
}

// dualChans is up to four channel letters.
type dualChans struct {
	c [4]byte
	n uint8
}

// prefixOf reports whether s starts with the (non-empty) channels.
func (ch *dualChans) prefixOf(s string) bool {
	if ch.n == 0 || len(s) < int(ch.n) {
		return false
	}
	for i := 0; i < int(ch.n); i++ {
		if s[i] != ch.c[i] {
			return false
		}
	}
	return true
}

// dualCheck is newDualView's validity test without building the view (the
// decoder's check): -1, or the dual field at fault (newDualView's d.bad).
func dualCheck(fi int16, in *Inst) int {
	x := &dualIdxByForm[fi]
	var v [dfCount]uint32
	for k, i := range x {
		if i >= 0 {
			v[k] = in.Args[i]
		}
	}
	i1, i2 := v[dfOp1], v[dfOp2]
	if i1 >= 16 || !dualOps[0][i1].ok {
		return dfOp1
	}
	if i2 >= 16 || !dualOps[1][i2].ok {
		return dfOp2
	}
	c1 := dualOps[0][i1].op.srcs
	lay := &dualLayouts[c1-1][dualOps[1][i2].op.srcs-1][v[dfSrccfg]&3]
	if !lay.ok {
		return dfSrccfg
	}
	if forms[fi].op1 == 0x05 {
		return -1 // every vec4 swizzle entry is defined
	}
	t := enumTables[enumDswz3]
	for k := 0; k < 2; k++ {
		l := lay.lay[k]
		for i := 0; i < len(l); i++ {
			var idx uint32
			var bad int
			switch l[i] {
			case 'u':
				idx, bad = v[dfUswz], dfUswz
				if c1 < 2 {
					idx += 16 * v[dfG2hi]
				}
			case '0':
				idx, bad = v[dfG0swz], dfG0swz
			case '1':
				idx, bad = v[dfG1swz]+16*v[dfG1swzx], dfG1swz
			default:
				continue // '2' reads the identity
			}
			if idx >= uint32(len(t)) || t[idx] == "?" {
				return bad
			}
		}
	}
	return -1
}
