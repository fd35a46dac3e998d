package usse

import "sync"

// Which words can print the same plain text as a dual-issue word is mostly
// decided by the operation indices and the source configuration: another
// combination can only match when its operations have the same names and
// its layout shows as many operands. dualRivals lists, for every
// combination, those combinations in search order (computed once from the
// generated tables, read-only afterwards); dualLevel then tries only them.

// dualCombo is a group (0: op1 0x04, 1: 0x05) and the operation indices;
// cfgs has bit c set when source configuration c fits.
type dualCombo struct {
	group, i1, i2, cfgs uint8
}

// dualForms are the form indices of the two dual-issue groups.
var dualForms = func() (t [2]int) {
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
}()

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

var dualRivals = sync.OnceValue(func() (t *[2][16][16][4][]dualCombo) {
	t = new([2][16][16][4][]dualCombo)
	// the operand counts of every pair of operations and configuration
	var counts [16][16][4][2]int
	var has [16][16][4]bool
	for j1 := range dualOps[0] {
		for j2 := range dualOps[1] {
			if !dualOps[0][j1].ok || !dualOps[1][j2].ok {
				continue
			}
			for cfg := 0; cfg < 4; cfg++ {
				counts[j1][j2][cfg], has[j1][j2][cfg] = dualCounts(dualOps[0][j1].op, dualOps[1][j2].op, uint32(cfg))
			}
		}
	}
	nops := [2]int{16, 8}
	for g := 0; g < 2; g++ {
		for i1 := 0; i1 < 16; i1++ {
			if !dualOps[0][i1].ok {
				continue
			}
			o1 := &dualOps[0][i1].op
			for i2 := 0; i2 < 16; i2++ {
				if !dualOps[1][i2].ok {
					continue
				}
				o2 := &dualOps[1][i2].op
				for cfg := 0; cfg < 4; cfg++ {
					if !has[i1][i2][cfg] {
						continue
					}
					n := counts[i1][i2][cfg]
					var list []dualCombo
					for g2 := 0; g2 < 2; g2++ {
						for j1 := 0; j1 < nops[g2]; j1++ {
							if !dualOps[0][j1].ok || dualOps[0][j1].op.name != o1.name {
								continue
							}
							for j2 := 0; j2 < 16; j2++ {
								if !dualOps[1][j2].ok || dualOps[1][j2].op.name != o2.name {
									continue
								}
								c := dualCombo{uint8(g2), uint8(j1), uint8(j2), 0}
								for cfg2 := 0; cfg2 < 4; cfg2++ {
									if has[j1][j2][cfg2] && counts[j1][j2][cfg2] == n {
										c.cfgs |= 1 << cfg2
									}
								}
								if c.cfgs != 0 {
									list = append(list, c)
								}
							}
						}
					}
					t[g][i1][i2][cfg] = list
				}
			}
		}
	}
	return t
})

// dualSourcesFit is a quick necessary test for dualBuild: with operations
// o1, o2 and source configuration cfg, every source that the layout reads
// from an internal register (letters 0 1 2) must be written as one, and the
// unified source (u) must be a register the operation can read (its
// numbering, doubled or not), as dualAssign.source demands. It reads no
// channels, so the lite text (fillText) is enough.
func dualSourcesFit(t *dualText, o1, o2 *dualOp, cfg uint32) bool {
	lay := &dualLayouts[o1.srcs-1][o2.srcs-1][cfg&3]
	if !lay.ok {
		return false
	}
	for k := 0; k < 2; k++ {
		o := [2]*dualOp{o1, o2}[k]
		l := lay.lay[k]
		for i := 0; i < len(l); i++ {
			j := o.srcOperand(i)
			if j >= t.n[k] {
				return false
			}
			p := &t.opnd[k][j]
			switch l[i] {
			case 'u':
				if p.abs && o1.srcs > 2 {
					return false
				}
				if _, _, ok := unifiedReg(p, &dualSrcBanks, o.vload); !ok {
					return false
				}
			case '0', '1':
				if p.bank != dbI || p.num > 3 || p.abs || p.neg && l[i] == '0' {
					return false
				}
			case '2':
				if p.bank != dbI || p.num > 3 || p.abs || p.neg || o1.srcs < 2 && p.num != 2 {
					return false
				}
			}
		}
	}
	return true
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
