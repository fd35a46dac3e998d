package usse

import (
	"encoding/binary"
	"math/bits"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
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
	// name and marker() packed for the printer (isa.TextWord)
	nameWord, markerWord uint64
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
	o := dualOp{idx: idx, name: t[idx], srcs: int(c[1] - '0'), vload: c[0] == 'v', vstore: c[0] == 'v' && len(c) == 2}
	o.nameWord, o.markerWord = isa.TextWord(o.name), isa.TextWord(o.marker())
	return o, true
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

// dualArgIdx is x (dualIdx) with the absent fields at MaxFields-1.
func dualArgIdx(x *[dfCount]int8) (ai [dfCount]uint8) {
	for k, i := range x {
		ai[k] = uint8(i)
		if i < 0 {
			ai[k] = MaxFields - 1
		}
	}
	return ai
}

// dualView is a decoded dual-issue word.
type dualView struct {
	f        *form
	args     [MaxFields]uint32 // the word's fields; args[MaxFields-1] is 0
	ai       [dfCount]uint8    // the dual fields' indices in args (absent: MaxFields-1)
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
	swz      [4]uint32  // the swizzle index each source letter reads (setSwizzles)
	swzOK    uint8      // layoutBit set of the letters read whose swizzle is defined
	named    uint8      // layoutBit set of the letters read whose plain swizzle text names it
}

// get is dual field k's value (0 when absent).
func (d *dualView) get(k int) uint32 { return d.args[d.ai[k]&(MaxFields-1)] }

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
		d.ai = dualArgIdxByForm[in.Form]
	} else {
		x := dualIdx(f)
		d.ai = dualArgIdx(&x)
	}
	d.args = in.Args
	// no dual-issue form has MaxFields fields (dualIdxByForm): the slot
	// the absent fields read is no field's
	d.args[MaxFields-1] = 0
	if !d.setLayout(d.get(dfOp1), d.get(dfOp2), d.get(dfSrccfg), d.get(dfPrimus)) {
		return false
	}
	d.setSwizzles()
	// every swizzle the layout reads must be defined (the letters one by
	// one only to name the first that is not)
	if !d.swizzlesDefined() {
		for k := 0; k < 2; k++ {
			for i := 0; i < len(d.lay[k]); i++ {
				if _, ok := d.srcSwizzle(d.lay[k][i]); !ok {
					d.bad = [...]int{'u': dfUswz, '0': dfG0swz, '1': dfG1swz, '2': dfG2hi}[d.lay[k][i]]
					return false
				}
			}
		}
	}
	for k := 0; k < 2; k++ {
		d.mask[k] = uint8(d.destMaskOf(k))
	}
	d.usedSet = dualUsedSets[d.c1-1][d.usesMask&15]
	// the fields printed as flags: present (absent ones read 0), unused
	// and non-zero
	d.flagSet = 0
	for rest := ^d.usedSet & (1<<dfCount - 1); rest != 0; rest &= rest - 1 {
		k := bits.TrailingZeros32(rest)
		d.flagSet |= b2u(d.get(k) != 0) << k
	}
	for k := 0; k < 2; k++ {
		d.nch[k] = uint8(d.srcChansOf(k))
	}
	return true
}

// swizzlesDefined reports whether every source letter of the layout
// reads a defined swizzle entry (srcSwizzle's ok for each).
func (d *dualView) swizzlesDefined() bool { return d.usesMask&^d.swzOK&15 == 0 }

// setLayout sets the operations, source layout and primus of d from
// those fields' values, or d.bad when they name none.
func (d *dualView) setLayout(i1, i2, cfg, primus uint32) bool {
	d.op = [2]*dualOp{}
	if i1 < 16 && dualOps[0][i1].ok {
		d.op[0] = &dualOps[0][i1].op
	} else {
		d.bad = dfOp1
		return false
	}
	if i2 < 16 && dualOps[1][i2].ok {
		d.op[1] = &dualOps[1][i2].op
	} else {
		d.bad = dfOp2
		return false
	}
	d.c1 = d.op[0].srcs
	lay := &dualLayouts[d.c1-1][d.op[1].srcs-1][cfg&3]
	if !lay.ok {
		d.bad = dfSrccfg // no source layout for these operations
		return false
	}
	d.lay, d.usesMask = lay.lay, lay.uses
	d.primus = primus != 0
	return true
}

// initLayout sets only what setLayout sets (and the group) from in, a
// word of dual-issue form f: no field values, masks or flags, and no test
// of the swizzles.
func (d *dualView) initLayout(f *form, in *Inst) bool {
	d.f, d.vec4 = f, f.op1 == 0x05
	d.bad = 0
	x := &dualIdxByForm[in.Form]
	get := func(k int) uint32 {
		if x[k] < 0 {
			return 0
		}
		return in.Args[x[k]]
	}
	return d.setLayout(get(dfOp1), get(dfOp2), get(dfSrccfg), get(dfPrimus))
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

func (d *dualView) srcChansOf(k int) int { return dualSrcChans(d.op[k], d.vec4, d.destMask(k)) }

// dualSrcChans is how many swizzle channels the sources of operation o
// show in the vec4 group or not, when it writes mask.
func dualSrcChans(o *dualOp, vec4 bool, mask uint32) int {
	switch {
	case !o.vload:
		return 1
	case o.isDot() && vec4:
		return 4
	case o.isDot():
		return 3
	}
	return maskLen(mask)
}

// srcSwizzle is the swizzle table index a source letter reads.
func (d *dualView) srcSwizzle(c byte) (int, bool) {
	b := layoutBit(c) & 3
	return int(d.swz[b]), d.swzOK>>b&1 != 0
}

// setSwizzles sets the swizzle table index each source letter reads
// (d.swz, by layoutBit), which of them are defined (swzOK) and which the
// plain text names (named: the parser reads back the entry printed).
func (d *dualView) setSwizzles() {
	u := d.get(dfUswz)
	if d.c1 < 2 {
		u += 16 * d.get(dfG2hi)
	}
	d.swz = [4]uint32{
		u,
		d.get(dfG0swz),
		d.get(dfG1swz) + 16*d.get(dfG1swzx),
		dualSwz2,
	}
	// (only the letters the layout reads: no other is asked about)
	st := &dualSwzStates[b2u(d.vec4)]
	d.swzOK, d.named = 0, 0
	for rest := uint(d.usesMask & 15); rest != 0; rest &= rest - 1 {
		b := uint(bits.TrailingZeros(rest))
		if idx := d.swz[b&3]; idx < 64 {
			x := st[b2u(d.spanAll(b))][idx]
			d.swzOK |= x & 1 << b
			d.named |= x >> 1 << b
		}
	}
}

// dualSwzStates[vec4][all][idx] is bit 0: swizzle entry idx is defined
// (dualSwzDefined), bit 1: its full text names it (dualNamed, all: among
// all 32 entries).
//
// buildDualSwzStates computes dualSwzStates (inittables.go holds its value).
func buildDualSwzStates() (t [2][2][64]uint8) {
	for v := range t {
		for all := range t[v] {
			for idx := range t[v][all] {
				t[v][all][idx] = uint8(dualSwzDefined[v] >> idx & 1)
				if idx < 32 && dualNamed[v][all][idx] {
					t[v][all][idx] |= 2
				}
			}
		}
	}
	return t
}

// spanAll reports whether the source letter numbered b (layoutBit) reads
// both halves of the swizzle table (an ext bit picks the half): u when the
// first operation has one source, and 1.
func (d *dualView) spanAll(b uint) bool { return letterSpansAll(b, d.c1) }

// letterSpansAll is spanAll of a first operation with c1 sources.
func letterSpansAll(b uint, c1 int) bool { return b == 0 && c1 < 2 || b == 2 }

// dualSwz2 is the swizzle entry letter 2 reads: xyzw / xyz.
const dualSwz2 = 4

// dualSwzDefined[vec4] has bit i set when entry i of the vec3 (0) or vec4
// (1) swizzle table is defined (not "?"): srcSwizzle's test without a
// string compare.
//
// buildDualSwzDefined computes dualSwzDefined (inittables.go holds its value).
func buildDualSwzDefined() (m [2]uint64) {
	for v, ti := range [2]int{enumDswz3, enumDswz4} {
		for i, ent := range enumTables[ti] {
			if i < 64 && ent != "?" {
				m[v] |= 1 << i
			}
		}
	}
	return m
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
	b := layoutBit(c) & 3
	*o = dualOpnd{bank: dbI}
	switch b {
	case 0: // u
		o.abs = d.c1 <= 2 && d.get(dfG2lo) != 0
		o.neg = d.get(dfUneg) != 0
		o.bank, o.ibank, o.num = dualReg(dualSrcBanks[d.get(dfUsbank)], d.get(dfUsnum), d.op[k].vload)
	case 1: // 0
		o.num = d.get(dfG0slot)
	case 2: // 1
		o.neg = d.get(dfG1neg) != 0
		o.num = d.get(dfG1slot)
	case 3: // 2
		o.num = 2
		if d.c1 >= 2 {
			o.num = d.get(dfG2hi)<<1 | d.get(dfG2lo)
		}
	}
	if level < 0 {
		return
	}
	// the channels: the parser takes the first entry with the printed
	// prefix among the entries it may mean (see dualAssign.source), so
	// print enough of them
	idx, _ := d.srcSwizzle(c)
	span := dualSpanStd
	if d.spanAll(b) {
		span = dualSpanAll + int(b2u(level >= markExt)) // dualSpanHalf
	}
	o.chans = dualSwzChans[b2u(d.vec4)][span][idx&31][min(d.nch[k&1], 4)]
}

// Entry ranges a dual-issue source swizzle is read from: the standard
// half, both halves, or the half the ext bit names.
const (
	dualSpanStd = iota
	dualSpanAll
	dualSpanHalf
)

// plainNamesWord reports whether the plain text (markNone) names every
// source swizzle: the parser reads back the entry printed, so the search
// finds the word itself at its own combination. (An entry that also
// appears earlier in its table, like dswz4's second "zwzw", is not named
// by any prefix; such words need markExt.)
func (d *dualView) plainNamesWord() bool { return d.usesMask&^d.named&15 == 0 }

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
		dst = append(isa.AppendDec(dst, uint64(o.num)), ']')
	} else {
		dst = isa.AppendDec(append(dst, dualBankNames[o.bank]...), uint64(o.num))
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
	return appendDualOpnds(dst, &ops, n)
}

// appendDualOpnds prints the first n of ops, separated by ", ": a run of
// stores in one room (roomAt) per part; the indexed bank, as rare as its
// text is long, is appendDualOpnd's.
func appendDualOpnds(dst []byte, ops *[5]dualOpnd, n int) []byte {
	n = min(n, len(ops))
	for k := 0; k < n; {
		// the operands up to a rare one (a room holds five: 15 bytes each)
		dst = reserve(dst, roomBytes)
		r, o := roomAt(dst)
		for ; k < n; k++ {
			op := &ops[k]
			if op.bank >= dbIdx1 || op.num >= 256 {
				break
			}
			o = atLit8(r, o, ','|' '<<8, int(b2u(k > 0))*2)
			r[o&roomMask] = '-'
			o += int(b2u(op.neg))
			r[o&roomMask] = '|'
			o += int(b2u(op.abs))
			w := dualRegWords[op.bank][op.num]
			o = atLit8(r, o, w, int(w>>56))
			c := &op.chans
			o = atLit8(r, o, '.'|uint64(binary.LittleEndian.Uint32(c.c[:]))<<8, (int(c.n)+1)&^(int(b2u(c.n == 0))*0xff))
			r[o&roomMask] = '|'
			o += int(b2u(op.abs))
		}
		dst = dst[:len(dst)+o]
		if k < n {
			if k > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendDualOpnd(dst, &ops[k])
			k++
		}
	}
	return dst
}

// dualRegWords[bank][num] is a register's name and number (bank below
// dbIdx1, number below 256) packed (isa.TextWord): appendDualOpnd's text.
//
// buildDualRegWords computes dualRegWords (inittables.go holds its value).
func buildDualRegWords() (t [dbIdx1][256]uint64) {
	for bank := range t {
		for num := range t[bank] {
			o := dualOpnd{bank: uint8(bank), num: uint32(num)}
			var buf [16]byte
			t[bank][num] = isa.TextWord(string(appendDualOpnd(buf[:0], &o)))
		}
	}
	return t
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
	return d.appendMnem(reserve(dst, 24), 0, level)
}

// appendMnem prints operation k's name, format and (from markScalar)
// marker into reserved room (24 bytes): three word stores.
func (d *dualView) appendMnem(dst []byte, k, level int) []byte {
	o := d.op[k]
	dst = putWord(dst, o.nameWord)
	dst = putWord(dst, dualFmtWords[b2u(d.get(dfF16) != 0)])
	if level >= markScalar {
		dst = putWord(dst, o.markerWord)
	}
	return dst
}

// putWord appends the text packed in w (isa.TextWord; 0: none) into
// reserved room (8 bytes).
func putWord(dst []byte, w uint64) []byte { return putLit8(dst, w, int(w>>56)) }

// dualFmtWords are ".f32" and ".f16" packed (isa.TextWord).
var dualFmtWords = [2]uint64{isa.TextWord(".f32"), isa.TextWord(".f16")}

// appendRest prints everything after the first mnemonic and the blank.
func (d *dualView) appendRest(dst []byte, level int) []byte {
	dst = d.appendOperands(dst, 0, level)
	return d.appendRestOps(dst, level, nil)
}

// appendRestOps is appendRest from " +" on: the second operation and its
// operands, which are ops when ops is not nil (operands(1, level, ops)).
func (d *dualView) appendRestOps(dst []byte, level int, ops *dualText) []byte {
	dst = reserve(dst, 40)
	dst = putLit8(dst, ' '|'+'<<8, 2)
	dst = d.appendMnem(dst, 1, level)
	if level >= markForm && d.vec4 {
		dst = putLit8(dst, '.'|'v'<<8|'e'<<16|'c'<<24|'4'<<32, 5)
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
	for ; show != 0; show &= show - 1 {
		k := bits.TrailingZeros32(show)
		if d.ai[k] == MaxFields-1 {
			continue // absent
		}
		// ".name" and "=" (every name has at most 6 letters), the value
		// (every field has at most 7 bits)
		dst = reserve(dst, 16)
		dst = putWord(dst, dualFlagWords[k])
		dst = putDec999(putLit8(dst, '=', 1), min(d.get(k), 999))
	}
	dst = append(dst, ' ')
	if ops != nil {
		return appendDualOpnds(dst, &ops.opnd[1], ops.n[1])
	}
	return d.appendOperands(dst, 1, level)
}

// dualFlagWords[k] is "." and dual field k's name packed (isa.TextWord).
//
// buildDualFlagWords computes dualFlagWords (inittables.go holds its value).
func buildDualFlagWords() (t [dfCount]uint64) {
	for k, n := range dualFieldNames {
		t[k] = isa.TextWord("." + n)
	}
	return t
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
	if !lite {
		d.fillFlags(t)
	}
}

// fillFlags sets t.fixed: the dual fields printed as flags.
func (d *dualView) fillFlags(t *dualText) {
	t.fixed = dualNoFlags
	for set := d.flagSet; set != 0; set &= set - 1 {
		k := bits.TrailingZeros32(set)
		t.fixed[k] = int32(d.get(k)) // printed as a flag
	}
}

// dualNoFlags is dualText.fixed with no field printed as a flag.
//
// buildDualNoFlags computes dualNoFlags (inittables.go holds its value).
func buildDualNoFlags() (f [dfCount]int32) {
	for k := range f {
		f[k] = -1
	}
	return f
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
