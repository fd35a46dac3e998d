package usse

import (
	"math/bits"
	"sync"
)

// The marker level of a dual-issue word: the search for the words printing
// the same plain text (dual.go prints, dual_rivals.go narrows the search).

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
	var t dualText
	level, _ := dualViewLevelText(d, in, &t)
	return level
}

// dualViewLevelText is dualViewLevel, which leaves d's plain text in *t
// (fillText(t, false)) when it reports that it made it: the printer takes
// the operands from there.
func dualViewLevelText(d *dualView, in *Inst, t *dualText) (int, bool) {
	if !d.plainNamesWord() {
		return markExt, false // the search never finds the word without ext markers
	}
	g := 0
	if d.f.op1 == 0x05 {
		g = 1
	}
	if d.get(dfPrimus) > 1 || d.get(dfSrccfg) > 3 {
		return markExt, false // the search tries primus 0 and 1, configurations 0-3
	}
	cl := &dualTryLists()[g][d.get(dfOp1)][d.get(dfOp2)][d.get(dfSrccfg)][d.get(dfPrimus)]
	if !cl.found {
		return markExt, false
	}
	if len(cl.tries) == 0 {
		return markNone, false // no word before it can print its plain text
	}
	// the combinations before the word's own that pass the quick tests
	// (bits of cl.tries): first the layouts showing no field the word
	// prints as a flag (that field would be no flag in the rival's text)
	// and whose sources the text fits
	var pass uint64
	made := false
	var sat uint64 // dualSourceSat of the text, once made
	for i := range cl.classes {
		c := &cl.classes[i]
		if d.flagSet&c.used != 0 {
			continue
		}
		if !made {
			d.fillText(t, false)
			sat = dualSourceSat(t)
			made = true
		}
		if sat&c.req == c.req && t.n[0] >= int(c.need[0]) && t.n[1] >= int(c.need[1]) { // dualSourcesFitSat
			pass |= c.members
		}
	}
	// then the destinations (dualDestsFit reads only what a key names)
	for i := 0; i < len(cl.dests) && pass != 0; i++ {
		k := &cl.dests[i]
		if pass&k.members == 0 {
			continue
		}
		r := &k.rep
		if !dualDestsFit(t, &dualOps[0][r.i1].op, &dualOps[1][r.i2].op, uint32(r.p), r.group == 1) {
			pass &^= k.members
		}
	}
	if pass == 0 {
		return markNone, made // no word before it can print its plain text
	}
	// then the channels each source shows (dualSwzRoundTrips)
	first := dualSwzFirst()
	keys := dualTextKeys(t)
	for rest := pass; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		if !dualSwzRoundTrips(first, t, &keys, d, cl.tries[i]) {
			pass &^= 1 << i // the build would fail or print other channels
		}
	}
	if pass == 0 {
		return markNone, true
	}
	return dualLevelBuilt(d, in, t, cl.tries, pass), true
}

// dualTry is a combination the level search may build: group, operation
// indices, primus and source configuration.
type dualTry struct{ group, i1, i2, p, c uint8 }

// dualTryEntry is a combination the level search may try before a
// word's own, with what its quick tests ask of the word: used is the
// usedSet of its layout, req and need its dualSrcReq, destKey what
// dualDestsFit depends on (primus, the group, whether the operation
// writing the unified destination stores a vector).
type dualTryEntry struct {
	try     dualTry
	need    [2]uint8
	destKey uint8
	used    uint32
	req     uint64
}

// maxDualTries bounds a dualTryList (the operation names leave at most
// 2*2 operation pairs per group, each with 2 primus and 4 configurations).
const maxDualTries = 64

// dualTryList is, for a word's combination, the combinations before it in
// search order whose operand counts equal its own (each rival: primus 0
// before 1, configurations ascending) and whether the search reaches the
// word's own at all. The tries are grouped twice, as bits of tries: by
// what the flag and source tests ask (classes) and by destination key
// (dests).
type dualTryList struct {
	tries   []dualTry
	classes []dualTryClass
	dests   []dualDestClass
	found   bool
}

// dualTryClass is the tries of a list that ask the same of the flags and
// sources (dualTryEntry's used, req and need).
type dualTryClass struct {
	used    uint32
	need    [2]uint8
	req     uint64
	members uint64
}

// dualDestClass is the tries of a list with one destination key; rep is
// one of them.
type dualDestClass struct {
	rep     dualTry
	key     uint8
	members uint64
}

// dualTryLists[g][i1][i2][cfg][primus] is the dualTryList of a
// combination (from dualRivals, once; read-only afterwards).
var dualTryLists = sync.OnceValue(func() (t *[2][16][16][4][2]dualTryList) {
	t = new([2][16][16][4][2]dualTryList)
	rivals := dualRivals()
	// every list's parts in three arrays (ends[...] is where they end)
	var tries []dualTry
	var classes []dualTryClass
	var dests []dualDestClass
	var ends [2][16][16][4][2][3]int
	for g := range t {
		for i1 := range t[g] {
			for i2 := range t[g][i1] {
				for cfg := range t[g][i1][i2] {
					for primus := range t[g][i1][i2][cfg] {
						first := [3]int{len(tries), len(classes), len(dests)}
					search:
						for _, r := range rivals[g][i1][i2][cfg] {
							for p := 0; p < 2; p++ {
								for c := 0; c < 4; c++ {
									if r.cfgs>>c&1 == 0 {
										continue
									}
									if int(r.group) == g && int(r.i1) == i1 && int(r.i2) == i2 && p == primus && c == cfg {
										// the word's own combination: its plain text
										// names it (plainNamesWord), so the search
										// finds it here
										t[g][i1][i2][cfg][primus].found = true
										break search
									}
									e, ok := newDualTryEntry(dualTry{r.group, r.i1, r.i2, uint8(p), uint8(c)})
									if !ok {
										continue
									}
									if len(tries)-first[0] == maxDualTries {
										panic("usse: a dual-issue try list is longer than maxDualTries") // fixed tables: any test meets it
									}
									bit := uint64(1) << (len(tries) - first[0])
									tries = append(tries, e.try)
									classes = addDualTryClass(classes, first[1], dualTryClass{used: e.used, need: e.need, req: e.req}, bit)
									dests = addDualDestClass(dests, first[2], dualDestClass{rep: e.try, key: e.destKey}, bit)
								}
							}
						}
						ends[g][i1][i2][cfg][primus] = [3]int{len(tries), len(classes), len(dests)}
					}
				}
			}
		}
	}
	var start [3]int
	for g := range t {
		for i1 := range t[g] {
			for i2 := range t[g][i1] {
				for cfg := range t[g][i1][i2] {
					for primus := range t[g][i1][i2][cfg] {
						end := ends[g][i1][i2][cfg][primus]
						l := &t[g][i1][i2][cfg][primus]
						l.tries = tries[start[0]:end[0]:end[0]]
						l.classes = classes[start[1]:end[1]:end[1]]
						l.dests = dests[start[2]:end[2]:end[2]]
						start = end
					}
				}
			}
		}
	}
	return t
})

// addDualTryClass adds bit to the class of list[from:] asking what c asks,
// or appends c with it.
func addDualTryClass(list []dualTryClass, from int, c dualTryClass, bit uint64) []dualTryClass {
	for i := from; i < len(list); i++ {
		if x := &list[i]; x.used == c.used && x.need == c.need && x.req == c.req {
			x.members |= bit
			return list
		}
	}
	c.members = bit
	return append(list, c)
}

// addDualDestClass adds bit to the class of list[from:] with c's key, or
// appends c with it.
func addDualDestClass(list []dualDestClass, from int, c dualDestClass, bit uint64) []dualDestClass {
	for i := from; i < len(list); i++ {
		if x := &list[i]; x.key == c.key {
			x.members |= bit
			return list
		}
	}
	c.members = bit
	return append(list, c)
}

// newDualTryEntry is the entry of try r, or false when no text fits its
// source layout (dualSrcReqs).
func newDualTryEntry(r dualTry) (dualTryEntry, bool) {
	req := &dualSrcReqs[r.i1&15][r.i2&15][r.c&3]
	if !req.ok {
		return dualTryEntry{}, false
	}
	o1, o2 := &dualOps[0][r.i1].op, &dualOps[1][r.i2].op
	unified := [2]*dualOp{o1, o2}[1-r.p]
	return dualTryEntry{
		try:     r,
		need:    req.need,
		destKey: r.p<<2 | (r.group&1)<<1 | uint8(b2u(unified.vstore)),
		used:    dualLayoutUsed(r.i1, r.i2, int(r.c)),
		req:     req.req,
	}, true
}

// dualLayoutUsed is the usedSet of a view with operations i1, i2 and
// source configuration cfg (0 when there is no such layout).
func dualLayoutUsed(i1, i2 uint8, cfg int) uint32 {
	o1, o2 := &dualOps[0][i1].op, &dualOps[1][i2].op
	lay := &dualLayouts[o1.srcs-1][o2.srcs-1][cfg&3]
	if !lay.ok {
		return 0
	}
	return dualUsedSets[o1.srcs-1][lay.uses&15]
}

// dualLevelBuilt finishes dualViewLevel: it builds the words the tries
// stand for from the plain text t, keeps those printing that text, and
// finds the level at which the word (last in search order) comes first.
func dualLevelBuilt(d *dualView, in *Inst, t *dualText, tries []dualTry, pass uint64) int {
	cons := freeCons()
	var all [maxDualMatches]dualMatch
	n := 0
	var base Inst
	var tw dualText
	var dw dualView
	baseGroup := -1
	for ; pass != 0; pass &= pass - 1 {
		r := tries[bits.TrailingZeros64(pass)]
		fi := dualForms[r.group]
		if int(r.group) != baseGroup {
			base = Inst{Form: int16(fi)}
			decodeFields(int16(fi), in.Raw, &base.Args)
			baseGroup = int(r.group)
		}
		w, ok := dualBuildArgs(fi, &base, t, &cons, uint32(r.i1), uint32(r.i2), uint32(r.p), uint32(r.c))
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

// dualTextKeys is dualChansKey of every source operand of t, and
// whether it is valid, by operation and operand.
func dualTextKeys(t *dualText) (keys [2][5]dualKey) {
	for k := 0; k < 2; k++ {
		for j := 1; j < t.n[k] && j < 5; j++ {
			keys[k][j].key, keys[k][j].ok = dualChansKey(&t.opnd[k][j].chans)
		}
	}
	return keys
}

// dualKey is a dualChansKey and its ok.
type dualKey struct {
	key uint32
	ok  bool
}

// dualSwzRoundTrips reports whether try r, built from d's plain text t,
// can print t's source channels again: every source its layout reads
// through a swizzle (u 0 1) finds an entry that prints as the text
// (dualSwzRoundTrip), and every source read through 2 shows what entry 2
// prints. The tries reaching here pass the flag test, so no ext field is
// fixed when a source is read: the search ranges are the spans srcOpnd
// prints at markNone. A rival printing t writes the masks d does (maskChans
// names each mask once: TestDualMaskChansDistinct), which decide how many
// channels its sources show. False means the rival's text is not t.
func dualSwzRoundTrips(first *[2][swzRanges][5 << 12]uint8, t *dualText, keys *[2][5]dualKey, d *dualView, r dualTry) bool {
	ops := [2]*dualOp{&dualOps[0][r.i1].op, &dualOps[1][r.i2].op}
	lay := &dualLayouts[ops[0].srcs-1][ops[1].srcs-1][r.c&3]
	if !lay.ok {
		return false
	}
	vec4 := r.group == 1
	for k, o := range ops {
		nch := dualSrcChans(o, vec4, d.destMask(k))
		l := lay.lay[k]
		for i := 0; i < len(l); i++ {
			j := o.srcOperand(i)
			if j >= t.n[k] || j >= 5 {
				return false // the operand counts differ
			}
			ch := &t.opnd[k][j].chans
			b := layoutBit(l[i])
			span := dualSpanStd
			if letterSpansAll(b, ops[0].srcs) {
				span = dualSpanAll
			}
			if b == 3 { // 2: no swizzle read, entry 2 printed
				if dualSwzChans[b2u(vec4)][span][dualSwz2][min(nch, 4)] != *ch {
					return false
				}
				continue
			}
			if x := &keys[k][j]; !dualSwzRoundTrip(first, x.key, x.ok, ch, vec4, span, nch) {
				return false
			}
		}
	}
	return true
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

// dualCons restricts the search: fixed fields (by dual field number) and
// the form.
type dualCons struct {
	form  int            // -1 any, else op1 group
	fixed [dfCount]int32 // -1 free
}

func freeCons() dualCons { return dualCons{form: -1, fixed: dualNoFlags} }

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
