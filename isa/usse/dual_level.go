package usse

import (
	"math/bits"
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
	tabs := dualTables()
	cl := tabs.tries.list(g, d.get(dfOp1), d.get(dfOp2), d.get(dfSrccfg), d.get(dfPrimus))
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
			sat = dualSourceSatWith(tabs.sats, t)
			made = true
		}
		if sat&c.req == c.req && t.n[0] >= int(c.need[0]) && t.n[1] >= int(c.need[1]) { // dualSourcesFitSat
			pass |= c.members
		}
	}
	// (the classes are shared with the combinations after the word's: their
	// members past its tries are not its tries)
	pass &= ^uint64(0) >> (64 - len(cl.tries))
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
	first := tabs.first
	var keys [2][5]dualKey // made as the tries need them
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
// search order whose operations have the same names and whose operand
// counts equal its own, and whether the search reaches the word's own at
// all. The tries are grouped twice, as bits of tries: by what the flag and
// source tests ask (classes) and by destination key (dests); the groups
// are those of the whole sequence that begin within the list, so their
// members may go past its tries.
type dualTryList struct {
	tries   []dualTry
	classes []dualTryClass
	dests   []dualDestClass
	found   bool
}

// dualSearchTables are the level search's tables at hand (one call per
// word instead of one each).
type dualSearchTables struct {
	tries *dualTryTables
	first *[2][swzRanges][dualChansKeys]uint8 // dualSwzFirst
	sats  *[dbIdx1][4][256]uint8              // dualOpndSats
}

// dualTables returns the level search's tables (read-only).
func dualTables() dualSearchTables {
	return dualSearchTables{dualTryLists(), dualSwzFirst(), dualOpndSats()}
}

// dualTryTables holds every combination's dualTryList as ranges of three
// arrays.
type dualTryTables struct {
	lists   [2][16][16][4][2]dualTryRanges
	tries   []dualTry
	classes []dualTryClass
	dests   []dualDestClass
}

// dualTryRanges is a dualTryList as ranges of dualTryTables' arrays.
type dualTryRanges struct {
	tries, classes, dests [2]uint16
	found                 bool
}

// list is the dualTryList of group g, operations i1, i2, source
// configuration cfg and primus.
func (t *dualTryTables) list(g int, i1, i2, cfg, primus uint32) dualTryList {
	r := &t.lists[g&1][i1&15][i2&15][cfg&3][primus&1]
	return dualTryList{
		tries:   t.tries[r.tries[0]:r.tries[1]],
		classes: t.classes[r.classes[0]:r.classes[1]],
		dests:   t.dests[r.dests[0]:r.dests[1]],
		found:   r.found,
	}
}

// dualTryClass is the tries of a sequence that ask the same of the flags
// and sources (dualTryEntry's used, req and need).
type dualTryClass struct {
	used    uint32
	need    [2]uint8
	req     uint64
	members uint64
}

// dualDestClass is the tries of a sequence with one destination key; rep
// is one of them.
type dualDestClass struct {
	rep     dualTry
	key     uint8
	members uint64
}

// dualTryLists holds the dualTryList of every combination (once;
// read-only afterwards). The combinations whose operations have the same
// names and whose layouts show as many operands form a sequence in search
// order (group, first and second operation, primus, configuration); each
// combination's list is the part of its sequence before it.
func buildDualTryLists() *dualTryTables {
	t := new(dualTryTables)
	// the operand counts of every pair of operations and configuration
	var counts [16][16][4][2]int
	var has [16][16][4]bool
	for j1 := range dualOps[0] {
		for j2 := range dualOps[1] {
			if dualOps[0][j1].ok && dualOps[1][j2].ok {
				for cfg := range has[j1][j2] {
					counts[j1][j2][cfg], has[j1][j2][cfg] = dualCounts(dualOps[0][j1].op, dualOps[1][j2].op, uint32(cfg))
				}
			}
		}
	}
	type seqKey struct {
		name1, name2 string
		counts       [2]int
	}
	type sequence struct {
		tries   []dualTry
		classes []dualTryClass
		dests   []dualDestClass
	}
	var seqs []sequence
	seqOf := map[seqKey]int{}
	nops := [2]int{16, 8} // the vec4 group's first operation has 3 bits
	for g := 0; g < 2; g++ {
		for i1 := 0; i1 < nops[g]; i1++ {
			for i2 := range dualOps[1] {
				if !dualOps[0][i1].ok || !dualOps[1][i2].ok {
					continue
				}
				for p := 0; p < 2; p++ {
					for c := 0; c < 4; c++ {
						if !has[i1][i2][c] {
							continue
						}
						k := seqKey{dualOps[0][i1].op.name, dualOps[1][i2].op.name, counts[i1][i2][c]}
						si, ok := seqOf[k]
						if !ok {
							si = len(seqs)
							seqOf[k] = si
							seqs = append(seqs, sequence{})
						}
						seq := &seqs[si]
						// the combination's list: its sequence so far, as the
						// sequence's number and the lengths of its three
						// arrays until the sequences are laid out (the
						// classes are the sequence's first ones, their
						// members past the list's tries dropped when used)
						r := &t.lists[g][i1][i2][c][p]
						r.found = true
						r.tries = [2]uint16{uint16(si), uint16(len(seq.tries))}
						r.classes = [2]uint16{uint16(si), uint16(len(seq.classes))}
						r.dests = [2]uint16{uint16(si), uint16(len(seq.dests))}
						// then the combination as a try of those after it
						e, ok := newDualTryEntry(dualTry{uint8(g), uint8(i1), uint8(i2), uint8(p), uint8(c)})
						if !ok {
							continue
						}
						if len(seq.tries) == maxDualTries {
							panic("usse: a dual-issue try list is longer than maxDualTries") // fixed tables: any test meets it
						}
						bit := uint64(1) << len(seq.tries)
						seq.tries = append(seq.tries, e.try)
						seq.classes = addDualTryClass(seq.classes, dualTryClass{used: e.used, need: e.need, req: e.req}, bit)
						seq.dests = addDualDestClass(seq.dests, dualDestClass{rep: e.try, key: e.destKey}, bit)
					}
				}
			}
		}
	}
	var base [][3]uint16
	for si := range seqs {
		base = append(base, [3]uint16{uint16(len(t.tries)), uint16(len(t.classes)), uint16(len(t.dests))})
		t.tries = append(t.tries, seqs[si].tries...)
		t.classes = append(t.classes, seqs[si].classes...)
		t.dests = append(t.dests, seqs[si].dests...)
	}
	if len(t.tries) > 1<<16 || len(t.classes) > 1<<16 || len(t.dests) > 1<<16 {
		panic("usse: dual-issue try tables too long for their ranges") // fixed tables: any test meets it
	}
	for g := range t.lists {
		for i1 := range t.lists[g] {
			for i2 := range t.lists[g][i1] {
				for c := range t.lists[g][i1][i2] {
					for p := range t.lists[g][i1][i2][c] {
						if r := &t.lists[g][i1][i2][c][p]; r.found {
							b := base[r.tries[0]]
							r.tries = [2]uint16{b[0], b[0] + r.tries[1]}
							r.classes = [2]uint16{b[1], b[1] + r.classes[1]}
							r.dests = [2]uint16{b[2], b[2] + r.dests[1]}
						}
					}
				}
			}
		}
	}
	return t
}

// dualTryLists returns dualTryListsTable, which inittables.go holds (buildDualTryLists computes it).
func dualTryLists() *dualTryTables { return &dualTryListsTable }

// addDualTryClass adds bit to the class of list asking what c asks, or
// appends c with it.
func addDualTryClass(list []dualTryClass, c dualTryClass, bit uint64) []dualTryClass {
	for i := range list {
		if x := &list[i]; x.used == c.used && x.need == c.need && x.req == c.req {
			x.members |= bit
			return list
		}
	}
	c.members = bit
	return append(list, c)
}

// addDualDestClass adds bit to the class of list with c's key, or appends
// c with it.
func addDualDestClass(list []dualDestClass, c dualDestClass, bit uint64) []dualDestClass {
	for i := range list {
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
			all[n] = newDualMatch(&w) // (no Raw: a rival is another combination, never the word)
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
				if i == n-1 { // the word itself, last in search order
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

// dualKey is a dualChansKey and its ok, once made.
type dualKey struct {
	key      uint32
	ok, made bool
}

// dualSwzRoundTrips reports whether try r, built from d's plain text t,
// can print t's source channels again: every source its layout reads
// through a swizzle (u 0 1) finds an entry that prints as the text
// (dualSwzRoundTrip), and every source read through 2 shows what entry 2
// prints. The tries reaching here pass the flag test, so no ext field is
// fixed when a source is read: the search ranges are the spans srcOpnd
// prints at markNone. A rival printing t writes the masks d does (maskChans
// names each mask once: TestDualMaskChansDistinct), which decide how many
// channels its sources show. False means the rival's text is not t. keys
// holds the dualChansKey of t's sources by operation and operand, made
// here as the tries need them.
func dualSwzRoundTrips(first *[2][swzRanges][dualChansKeys]uint8, t *dualText, keys *[2][5]dualKey, d *dualView, r dualTry) bool {
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
			x := &keys[k][j]
			if !x.made {
				x.key, x.ok = dualChansKey(ch)
				x.made = true
			}
			if !dualSwzRoundTrip(first, x.key, x.ok, ch, vec4, span, nch) {
				return false
			}
		}
	}
	return true
}

// dualMatch is what the marker levels test of a word the search found: its
// group and the dual fields dualConstraints can fix (0 when absent).
type dualMatch struct {
	op1  uint8
	vals [len(dualMatchFields)]uint8 // all fit: op indices, cfg, one-bit fields
}

var dualMatchFields = [...]int{dfOp1, dfOp2, dfSrccfg, dfPrimus, dfG1swzx, dfG2hi}

func newDualMatch(in *Inst) dualMatch {
	m := dualMatch{op1: forms[in.Form].op1}
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
