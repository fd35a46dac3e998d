package usse

import "strings"

// Tables for dual-issue words derived once from the generated ones
// (read-only afterwards), and the decoder's validity test.

// dualOps holds dualInfo for both operation tables (read-only).
//
// buildDualOps computes dualOps (inittables.go holds its value).
func buildDualOps() (t [2][16]struct {
	op dualOp
	ok bool
}) {
	for k, table := range [2]int{enumDualop, enumDualop2} {
		for i := range t[k] {
			t[k][i].op, t[k][i].ok = dualInfoSlow(table, uint32(i))
		}
	}
	return t
}

// dualIdxByForm holds dualIdx for every form, computed once from the
// generated tables (read-only afterwards).
//
// buildDualIdxByForm computes dualIdxByForm (inittables.go holds its value).
func buildDualIdxByForm() (t [len(forms)][dfCount]int8) {
	for fi := range forms {
		t[fi] = dualIdx(&forms[fi])
		if op := forms[fi].op1; (op == 0x04 || op == 0x05) && len(forms[fi].fields) >= MaxFields {
			// dualView reads absent fields at args[MaxFields-1]
			panic("usse: a dual-issue form has MaxFields fields") // fixed tables: any test meets it
		}
	}
	return t
}

// dualWidthByForm[form][k] is the width of dual field k in the form (0
// when absent; read-only).
//
// buildDualWidthByForm computes dualWidthByForm (inittables.go holds its value).
func buildDualWidthByForm() (t [len(forms)][dfCount]uint8) {
	for fi := range forms {
		for k, i := range dualIdxByForm[fi] {
			if i >= 0 {
				t[fi][k] = uint8(forms[fi].fields[i].width)
			}
		}
	}
	return t
}

// dualArgIdxByForm holds dualArgIdx of dualIdxByForm (read-only).
//
// buildDualArgIdxByForm computes dualArgIdxByForm (inittables.go holds its value).
func buildDualArgIdxByForm() (t [len(forms)][dfCount]uint8) {
	for fi := range forms {
		t[fi] = dualArgIdx(&dualIdxByForm[fi])
	}
	return t
}

// dualLayouts splits the layout tables by source counts and configuration
// once (read-only afterwards).
//
// buildDualLayouts computes dualLayouts (inittables.go holds its value).
func buildDualLayouts() (t [3][3][4]dualLayout) {
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
}

// dualUsedSets[c1-1][uses] is the set of dual fields used reports for a
// first operation with c1 sources and layout letters uses (read-only).
//
// buildDualUsedSets computes dualUsedSets (inittables.go holds its value).
func buildDualUsedSets() (t [3][16]uint32) {
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
}

// maskChans is each write mask as operand channels (".x-z" without the dot).
//
// buildMaskChans computes maskChans (inittables.go holds its value).
func buildMaskChans() (t [16]dualChans) {
	for m := range t {
		if b := appendMaskChans(nil, uint32(m)); len(b) > 0 {
			t[m].n = uint8(copy(t[m].c[:], b[1:]))
		}
	}
	return t
}

// dualPrefixLen[vec4][span][idx][m] is how many channels of dual swizzle
// entry idx srcOpnd prints when the operation reads m: the shortest prefix,
// m or longer, whose first entry in the span is idx (read-only).
//
// buildDualPrefixLen computes dualPrefixLen (inittables.go holds its value).
func buildDualPrefixLen() (p [2][3][32][5]uint8) {
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
}

// dualSwzChans[vec4][span][idx][m] is the first dualPrefixLen channels of
// dual swizzle entry idx (read-only).
//
// buildDualSwzChans computes dualSwzChans (inittables.go holds its value).
func buildDualSwzChans() (p [2][3][32][5]dualChans) {
	for v, ti := range [2]int{enumDswz3, enumDswz4} {
		t := enumTables[ti]
		for span := range p[v] {
			for idx := 0; idx < 32 && idx < len(t); idx++ {
				for m := range p[v][span][idx] {
					ch := &p[v][span][idx][m]
					ch.n = uint8(copy(ch.c[:], t[idx][:dualPrefixLen[v][span][idx][m]]))
				}
			}
		}
	}
	return p
}

// dualNamed[vec4][all][idx] reports whether the full text of dual swizzle
// entry idx names it among the standard entries (all: among all 32).
//
// buildDualNamed computes dualNamed (inittables.go holds its value).
func buildDualNamed() (p [2][2][32]bool) {
	for v, ti := range [2]int{enumDswz3, enumDswz4} {
		t := enumTables[ti]
		for all, hi := range [2]int{16, 32} {
			for idx := range t {
				p[v][all][idx] = t[idx] != "?" && firstIndex(t, 0, hi, t[idx]) == idx
			}
		}
	}
	return p
}

// dualCheck is newDualView's validity test without building the view (the
// decoder's check): -1, or the dual field at fault (newDualView's d.bad).
func dualCheck(fi int16, in *Inst) int {
	x := &dualIdxByForm[fi]
	// the fields the test reads, and no others (0 when absent)
	get := func(k int) uint32 {
		if i := x[k]; i >= 0 {
			return in.Args[i]
		}
		return 0
	}
	i1, i2 := get(dfOp1), get(dfOp2)
	if i1 >= 16 || !dualOps[0][i1].ok {
		return dfOp1
	}
	if i2 >= 16 || !dualOps[1][i2].ok {
		return dfOp2
	}
	c1 := dualOps[0][i1].op.srcs
	lay := &dualLayouts[c1-1][dualOps[1][i2].op.srcs-1][get(dfSrccfg)&3]
	if !lay.ok {
		return dfSrccfg
	}
	if forms[fi].op1 == 0x05 {
		return -1 // every vec4 swizzle entry is defined
	}
	for k := 0; k < 2; k++ {
		l := lay.lay[k]
		for i := 0; i < len(l); i++ {
			var idx uint32
			var bad int
			switch l[i] {
			case 'u':
				idx, bad = get(dfUswz), dfUswz
				if c1 < 2 {
					idx += 16 * get(dfG2hi)
				}
			case '0':
				idx, bad = get(dfG0swz), dfG0swz
			case '1':
				idx, bad = get(dfG1swz)+16*get(dfG1swzx), dfG1swz
			default:
				continue // '2' reads the identity
			}
			if idx >= 64 || dualSwzDefined[0]>>idx&1 == 0 {
				return bad
			}
		}
	}
	return -1
}
