package usse

// Which words can print the same plain text as a dual-issue word is mostly
// decided by the operation indices and the source configuration: another
// combination can only match when its operations have the same names and
// its layout shows as many operands. Such combinations form one sequence
// in search order, and the rivals of a combination are the part of its
// sequence before it (dualTryLists, computed once from the generated
// tables, read-only afterwards); dualLevel then tries only them.

// dualForms are the form indices of the two dual-issue groups.
//
// buildDualForms computes dualForms (inittables.go holds its value).
func buildDualForms() (t [2]int) {
	t = [2]int{-1, -1}
	for fi := range forms {
		switch forms[fi].op1 {
		case 0x04:
			t[0] = fi
		case 0x05:
			t[1] = fi
		}
	}
	return t
}

// dualOpCount is the number of operands operation o shows with layout
// letters n (ssq repeats its source).
func dualOpCount(o dualOp, n int) int {
	if o.idx == 2 {
		return 1 + 2*n
	}
	return 1 + n
}

// srcOperand is the operand index of the operation's source i (ssq shows
// each source twice).
func (o *dualOp) srcOperand(i int) int {
	if o.idx == 2 {
		return 1 + 2*i
	}
	return 1 + i
}

// dualCounts gives the operand counts of both operations under cfg.
func dualCounts(o1, o2 dualOp, cfg uint32) ([2]int, bool) {
	l := enumTables[dualLayoutTables[o1.srcs-1][o2.srcs-1]][cfg]
	slash := -1
	for i := 0; i < len(l); i++ {
		if l[i] == '/' {
			slash = i
		}
	}
	if slash < 0 {
		return [2]int{}, false
	}
	return [2]int{dualOpCount(o1, slash), dualOpCount(o2, len(l)-slash-1)}, true
}

// dualSourcesFit is a quick necessary test for dualBuild: with operations
// o1, o2 and source configuration cfg, every source that the layout reads
// from an internal register (letters 0 1 2) must be written as one, and the
// unified source (u) must be a register the operation can read (its
// numbering, doubled or not), as dualAssign.source demands. It reads no
// channels, so the lite text (fillText) is enough.
func dualSourcesFit(t *dualText, o1, o2 *dualOp, cfg uint32) bool {
	return dualSourcesFitSat(dualSourceSat(t), t, o1, o2, cfg)
}

// dualSourcesFitSat is dualSourcesFit with the text's dualSourceSat: a
// look-up of what the layout demands of each operand.
func dualSourcesFitSat(sat uint64, t *dualText, o1, o2 *dualOp, cfg uint32) bool {
	r := &dualSrcReqs[o1.idx&15][o2.idx&15][cfg&3]
	return r.ok && t.n[0] >= int(r.need[0]) && t.n[1] >= int(r.need[1]) && sat&r.req == r.req
}

// What a source operand can be read as (dualSourcesFit's tests, one bit
// each in an operand's byte of dualSourceSat).
const (
	srcU1      = iota // the unified source, numbered singly
	srcU1NoAbs        // the same without |...| (the first operation has 3 sources)
	srcU2             // the unified source, numbered doubly
	srcU2NoAbs
	srcSlot0 // i0-i3 read through letter 0 (or 2 when the first operation has 2-3 sources): no |...|, no negation
	srcSlot1 // i0-i3 read through letter 1: no |...|
	srcSlot2 // i2 read through letter 2 when the first operation has 1 source
)

// dualSrcSlots is the operands per operation dualSourceSat describes
// (1-4: every source an operation shows).
const dualSrcSlots = 4

// dualSourceSat packs, for every source operand j (1-4) of operation k, the
// srcU1... tests it passes into byte k*dualSrcSlots+j-1.
func dualSourceSat(t *dualText) uint64 { return dualSourceSatWith(dualOpndSats(), t) }

// dualSourceSatWith is dualSourceSat with dualOpndSats at hand.
func dualSourceSatWith(tab *[dbIdx1][4][256]uint8, t *dualText) uint64 {
	var sat uint64
	for k := 0; k < 2; k++ {
		for j := 1; j < t.n[k] && j <= dualSrcSlots; j++ {
			p := &t.opnd[k][j]
			var b uint8
			if p.bank < dbIdx1 && p.num < 256 {
				b = tab[p.bank][b2u(p.neg)<<1|b2u(p.abs)][p.num]
			} else {
				b = dualOpndSat(p)
			}
			sat |= uint64(b) << (8 * (k*dualSrcSlots + j - 1))
		}
	}
	return sat
}

// dualOpndSat is the srcU1... tests a source operand passes.
func dualOpndSat(p *dualOpnd) uint8 {
	var b uint8
	if _, _, ok := unifiedReg(p, &dualSrcBanks, false); ok {
		b |= 1<<srcU1 | uint8(b2u(!p.abs))<<srcU1NoAbs
	}
	if _, _, ok := unifiedReg(p, &dualSrcBanks, true); ok {
		b |= 1<<srcU2 | uint8(b2u(!p.abs))<<srcU2NoAbs
	}
	if p.bank == dbI && p.num <= 3 && !p.abs {
		b |= 1<<srcSlot1 | uint8(b2u(!p.neg))<<srcSlot0 | uint8(b2u(!p.neg && p.num == 2))<<srcSlot2
	}
	return b
}

// dualOpndSats[bank][neg<<1|abs][num] is dualOpndSat of every operand of
// a bank below dbIdx1 (whose ibank and channels it does not read) numbered
// below 256 (made once, read-only afterwards).
func buildDualOpndSats() *[dbIdx1][4][256]uint8 {
	t := new([dbIdx1][4][256]uint8)
	for bank := range t {
		for na := range t[bank] {
			for num := range t[bank][na] {
				o := dualOpnd{bank: uint8(bank), neg: na>>1 != 0, abs: na&1 != 0, num: uint32(num)}
				t[bank][na][num] = dualOpndSat(&o)
			}
		}
	}
	return t
}

// dualOpndSats returns dualOpndSatsTable, which inittables.go holds (buildDualOpndSats computes it).
func dualOpndSats() *[dbIdx1][4][256]uint8 { return &dualOpndSatsTable }

// dualSrcReq is what a pair of operations and a source configuration
// demand of a text's sources: the tests (dualSourceSat's bits) and at
// least need[k] operands of operation k.
type dualSrcReq struct {
	req  uint64
	need [2]uint8
	ok   bool
}

// dualSrcReqs[i1][i2][cfg] is dualSrcReq of operations i1, i2 (read-only).
//
// buildDualSrcReqs computes dualSrcReqs (inittables.go holds its value).
func buildDualSrcReqs() (t [16][16][4]dualSrcReq) {
	for i1 := range dualOps[0] {
		for i2 := range dualOps[1] {
			if !dualOps[0][i1].ok || !dualOps[1][i2].ok {
				continue
			}
			o1, o2 := &dualOps[0][i1].op, &dualOps[1][i2].op
			for cfg := range t[i1][i2] {
				lay := &dualLayouts[o1.srcs-1][o2.srcs-1][cfg]
				if !lay.ok {
					continue
				}
				r := &t[i1][i2][cfg]
				r.ok = true
				for k, o := range [2]*dualOp{o1, o2} {
					l := lay.lay[k]
					for i := 0; i < len(l); i++ {
						j := o.srcOperand(i)
						if j > dualSrcSlots {
							r.ok = false // no text shows that many: never fits
							continue
						}
						r.need[k] = max(r.need[k], uint8(j+1))
						var kind uint
						switch l[i] {
						case 'u':
							kind = srcU1
							if o.vload {
								kind = srcU2
							}
							if o1.srcs > 2 {
								kind++ // the NoAbs test
							}
						case '0':
							kind = srcSlot0
						case '1':
							kind = srcSlot1
						case '2':
							kind = srcSlot0
							if o1.srcs < 2 {
								kind = srcSlot2
							}
						}
						r.req |= 1 << (8*(k*dualSrcSlots+j-1) + int(kind))
					}
				}
			}
		}
	}
	return t
}

// dualDestsFit is the destinations' part of that test, with primus p: the
// internal destination (operation p) is i0..i3 with a mask the group can
// encode (w only in the vec4 group), and the unified one (operation 1-p) is
// a register operation 1-p can write, showing the mask destMask gives it.
func dualDestsFit(t *dualText, o1, o2 *dualOp, p uint32, vec4 bool) bool {
	if t.n[0] == 0 || t.n[1] == 0 {
		return false
	}
	gd := &t.opnd[p][0]
	if gd.bank != dbI || gd.num > 3 || gd.neg || gd.abs {
		return false
	}
	if !vec4 {
		for c := 0; c < int(gd.chans.n); c++ {
			if gd.chans.c[c] == 'w' {
				return false
			}
		}
	}
	o := o1
	if p == 0 {
		o = o2
	}
	ud := &t.opnd[1-p][0]
	if ud.neg || ud.abs {
		return false
	}
	if _, _, ok := unifiedReg(ud, &dualDestBanks, o.vstore); !ok {
		return false
	}
	m := uint32(1)
	switch {
	case ud.bank == dbI && vec4:
		m = 15
	case ud.bank == dbI:
		m = 7
	case o.vstore && t.f16:
		m = 15
	case o.vstore || t.f16:
		m = 3
	}
	return ud.chans == maskChans[m]
}
