package usse

import "slices"

// Tables derived once from the generated ones (read-only afterwards) so that
// the printer looks answers up instead of searching the swizzle and
// constant tables for every operand. print_tables_test.go checks each
// against the search it replaces.

// swzPrefixLen[t][idx][m] is how many channels of entry idx of swizzle
// table t the printer shows when the mask needs at least m: the shortest
// prefix, m or longer, whose first entry with that prefix is the entry.
//
// buildSwzPrefixLen computes swzPrefixLen (inittables.go holds its value).
func buildSwzPrefixLen() (p [len(swizzleTables)][32][5]uint8) {
	for ti, t := range swizzleTables {
		for idx, ent := range t {
			if ent == "?" {
				continue
			}
			for m := 0; m <= 4; m++ {
				n := min(m, len(ent))
				for ; n < len(ent); n++ {
					if firstWithPrefix(t, ent[:n]) == ent {
						break
					}
				}
				p[ti][idx][m] = uint8(n)
			}
		}
	}
	return p
}

// swzDotTexts[t][idx][m] is '.' and the swizzlePrefixOf text of entry idx
// of swizzle table t for a mask needing m channels.
//
// buildSwzDotTexts computes swzDotTexts (inittables.go holds its value).
func buildSwzDotTexts() (d [len(swizzleTables)][32][5]shortText) {
	for ti, t := range swizzleTables {
		for idx, ent := range t {
			if ent == "?" {
				continue
			}
			for m := range d[ti][idx] {
				d[ti][idx][m] = newShortText("." + ent[:swzPrefixLen[ti][idx][m]])
			}
		}
	}
	return d
}

// appendSwzDot appends '.' and swizzlePrefixOf(f, t, swz, ext, mask, sel,
// in) from swzDotTexts.
func appendSwzDot(dst []byte, f *form, t uint8, swz, ext, mask, sel int8, in *Inst) []byte {
	ti, idx, ok := swizzleAt(f, t, swz, ext, sel, in)
	if !ok {
		return append(dst, '.')
	}
	m := 4
	if mask >= 0 {
		m = maskLen(in.Args[mask])
	}
	return putShort(reserve(dst, 16), &swzDotTexts[ti][idx][m])
}

// v4HasPrefix[idx][n] reports whether some v4 entry starts with the first
// n channels of v3 entry idx (VMAD's ".vec3" marker test).
//
// buildV4HasPrefix computes v4HasPrefix (inittables.go holds its value).
func buildV4HasPrefix() (h [32][5]bool) {
	for idx, ent := range swizzleTables[swzV3] {
		for n := 0; n <= len(ent) && ent != "?"; n++ {
			h[idx][n] = firstWithPrefix(swizzleTables[swzV4], ent[:n]) != ""
		}
	}
	return h
}

// constFirst[t][half][k-1][n] has bit idx set when constant register n
// read through entry idx of swizzle table t (t = len(swizzleTables): the
// identity, idx 0) is the first register and entry whose first k channels
// read those values (firstConst), with all k values finite.
func constFirst() *[len(swizzleTables) + 1][2][4][64]uint32 { return &constFirstTable }

// buildConstFirst makes constFirstTable. A tuple of k values is a key of k
// 10-bit value numbers (constValueCodes) and k in one word, kept in an
// open-addressed set; an entry's tuples for k = 1..4 are prefixes of each
// other, so one pass over the registers and entries makes all four (a map
// of [4]uint32 keys per k took 3 ms, paid by every listing that prints a
// constant register).
func buildConstFirst() (c *[len(swizzleTables) + 1][2][4][64]uint32) {
	c = new([len(swizzleTables) + 1][2][4][64]uint32)
	codes := constValueCodes()
	seen := new(tupleSet)
	for ti := range c {
		ents := []string{"xyzw"} // the identity
		if ti < len(swizzleTables) {
			ents = swizzleTables[ti]
		}
		for h := 0; h < 2; h++ {
			// the first (register, entry) of each value tuple, in search order
			seen.clear()
			for n := uint32(0); n < 64; n++ {
				for idx, ent := range ents {
					if ent == "?" {
						continue
					}
					var key uint64
					fin := true
					for i := 0; i < len(ent) && i < 4; i++ {
						code := codes[h][chanIndex[ent[i]]][n]
						key |= uint64(code&constIDMask) << (10 * i)
						fin = fin && code&constNonFinite == 0
						if seen.add(key|uint64(i+1)<<40) && fin {
							c[ti][h][i][n] |= 1 << idx
						}
					}
				}
			}
		}
	}
	return c
}

// constValueCodes numbers the distinct values of constValues, per half,
// from 1 (every tuple key of buildConstFirst is then nonzero), with
// constNonFinite set for an infinity or a NaN.
func constValueCodes() (codes [2][len(swizzleChans)][64]uint16) {
	for h := range codes {
		num := map[uint32]uint16{}
		for ch := range codes[h] {
			for n, v := range constValues[h][ch] {
				id, ok := num[v]
				if !ok {
					id = uint16(len(num) + 1)
					num[v] = id
				}
				if !finite(v) {
					id |= constNonFinite
				}
				codes[h][ch][n] = id
			}
		}
	}
	return codes
}

const (
	constIDMask    = 1<<10 - 1 // at most 8 channels times 64 registers
	constNonFinite = 1 << 15
)

// tupleSet is a set of nonzero keys, open-addressed, small enough for
// the first-level cache: buildConstFirst adds at most 2,265 keys between
// clears (the fixed tables' most).
type tupleSet struct {
	slot [1 << 12]uint64
	n    int
}

func (s *tupleSet) clear() { *s = tupleSet{} }

// add adds key and reports whether it was new.
func (s *tupleSet) add(key uint64) bool {
	for i := key * 0x9e3779b97f4a7c15 >> 52; ; i = (i + 1) & uint64(len(s.slot)-1) {
		switch s.slot[i] {
		case key:
			return false
		case 0:
			if s.n++; s.n > len(s.slot)*3/4 {
				panic("usse: constant tuples overflow a tupleSet") // fixed tables: any test meets it
			}
			s.slot[i] = key
			return true
		}
	}
}

// Bank kinds, numbered for the printer's switch (bankKinds).
const (
	bkR = iota
	bkO
	bkPa
	bkSa
	bkSpecial
	bkImm
	bkIndex
	bkIdx1
	bkIdx2
	bkOther
)

// bankKinds[t][i] is the kind of entry i of bank table t.
//
// buildBankKinds computes bankKinds (inittables.go holds its value).
func buildBankKinds() (k [len(bankTables)][8]uint8) {
	names := map[string]uint8{"r": bkR, "o": bkO, "pa": bkPa, "sa": bkSa, "special": bkSpecial,
		"imm": bkImm, "index": bkIndex, "idx1": bkIdx1, "idx2": bkIdx2}
	for t, banks := range bankTables {
		for i := range k[t] {
			k[t][i] = bkOther
			if i < len(banks) {
				if x, ok := names[banks[i]]; ok {
					k[t][i] = x
				}
			}
		}
	}
	return k
}

// flagOp is one flag a syntax prints when it is not at its default: the
// field (an index into Inst.Args), its default, its prefix and whether the
// value follows the prefix.
type flagOp struct {
	def    uint32
	arg    int8
	valued bool
	digits int // -1 when the value follows the prefix, else 0 (a mask)
	prefix shortText
}

// flagOps[form][variant] are the flags of each syntax in print order,
// compiled from its flags list and the fields' names and defaults
// (flagPrefixes), not looked up per word: flagOpsTable, which
// inittables.go holds (buildFlagOps computes it).
func flagOps() *[len(forms)][][]flagOp { return &flagOpsTable }

func buildFlagOps() (t *[len(forms)][][]flagOp) {
	t = new([len(forms)][][]flagOp)
	prefixes := buildFlagPrefixes()
	for fi := range forms {
		f := &forms[fi]
		t[fi] = make([][]flagOp, len(f.variants))
		for vi := range f.variants {
			for _, a := range f.variants[vi].flags {
				p := prefixes[fi][a]
				t[fi][vi] = append(t[fi][vi], flagOp{def: f.fields[a].def, arg: a, valued: p[len(p)-1] == '=', digits: -int(b2u(p[len(p)-1] == '=')), prefix: newShortText(p)})
			}
		}
	}
	return t
}

// buildFlagPrefixes returns, for each form and field, what appendFlags
// prints before a flag's value: ".name=", or ".name" alone for a one-bit
// flag that defaults to 0 (printed bare when set).
func buildFlagPrefixes() (t *[len(forms)][]string) {
	t = new([len(forms)][]string)
	for fi := range forms {
		f := &forms[fi]
		t[fi] = make([]string, len(f.fields))
		for i := range f.fields {
			fd := &f.fields[i]
			t[fi][i] = "." + fd.name
			if fd.width > 1 || fd.def != 0 {
				t[fi][i] += "="
			}
		}
	}
	return t
}

// shortText is a text of at most 16 bytes as the 16 bytes one store
// writes (zeros past it) and its length: appending it costs no copy call,
// whose branches on the length a listing of random words mispredicts.
type shortText struct {
	b [16]byte
	n uint8
}

func newShortText(s string) shortText {
	if len(s) > 16 {
		panic("usse: shortText of " + s) // fixed tables, built at every start: any test run meets it
	}
	var t shortText
	t.n = uint8(copy(t.b[:], s))
	return t
}

// appendShort appends t to dst.
func appendShort(dst []byte, t *shortText) []byte {
	n := len(dst)
	if cap(dst)-n < 16 {
		dst = slices.Grow(dst, 16)
	}
	*(*[16]byte)(dst[n : n+16]) = t.b
	return dst[:n+int(t.n)]
}

// enumTexts[t][v] is enumTables[t][v] as a shortText.
//
// buildEnumTexts computes enumTexts (inittables.go holds its value).
func buildEnumTexts() (t [len(enumTables)][]shortText) {
	for ti, names := range enumTables {
		t[ti] = make([]shortText, len(names))
		for i, s := range names {
			t[ti][i] = newShortText(s)
		}
	}
	return t
}
