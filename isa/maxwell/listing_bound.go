package maxwell

// The raw listing's first pass has to know the widest line of the file, but
// not every text: an instruction whose text cannot be longer than the widest
// line already printed cannot move the hex column, so the first pass only
// decodes it, and the second pass prints it straight into its line
// (deferred texts: no text kept between the passes, and the printing moves
// to the pass that also writes, where the writer's core has room).
// textBound[f] is the longest text form f can print (guard, body and the
// closing " ;") under any word, control field and address, read off the
// form's tokens the way the generated printers print them.

// noBound marks a form whose texts are always printed in the first pass.
const noBound = 0xffff

// buildTextBound makes textBound (in inittables.go): the longest text of
// each form, or noBound.
func buildTextBound() (b [len(forms)]uint16) {
	facts := buildFormFacts()
	tableMax := make([]int, len(tables))
	for ti := range tables {
		tableMax[ti] = -1
	}
	for f := range forms {
		b[f] = formTextBound(f, facts[f], tableMax)
	}
	return
}

// f16TextMax is the longest text appendF16 prints (-1.0073184967041015625e-05:
// 20 digits and a sign; TestF16TextMax checks every half), floatTextMax the
// longest of appendF32 and appendF64 (%.20e from 1e9 up: sign, 21 digits,
// the point and a three-digit exponent).
const (
	f16TextMax   = 26
	floatTextMax = 28
)

// formTextBound is textBound[f], facts formFacts[f]; tableMax caches each
// table's longest entry text.
func formTextBound(f int, facts uint8, tableMax []int) uint16 {
	fm := &forms[f]
	if facts&factQuest != 0 {
		return noBound // its layout depends on where ??? starts
	}
	n := len(" ;")
	if fm.attrs&attrNoGuard == 0 {
		n += len("@!PT ")
	}
	for k := range fm.toks {
		t := &fm.toks[k]
		switch t.kind {
		case tkLit, tkFlag:
			n += len(t.text)
		case tkReg:
			// a name (RZ, R254), or ???255 past R254 for a shifted one;
			// then .reuse where the form prints it
			if t.shift != 0 {
				n += len("???255")
			} else {
				n += len("R254")
			}
			if fm.attrs&attrReuse != 0 && t.arg >= 0 {
				n += len(".reuse")
			}
		case tkPred:
			n += len("PT")
		case tkNPred:
			n += len("!PT")
		case tkTable:
			if tableMax[t.arg] < 0 {
				tableMax[t.arg] = longestEntry(t.arg)
			}
			n += tableMax[t.arg]
		case tkHex:
			n += len("0x") + hexDigitsMax(int(t.width())+int(t.shift))
		case tkSHex:
			n += len("-0x") + hexDigitsMax(int(t.width())+int(t.shift))
		case tkRel:
			n += len("-0x") + 16
		case tkF32, tkF64:
			n += floatTextMax
		case tkF16:
			n += f16TextMax
		case tkAddr, tkUAddr:
			// R254+-0x..., or an offset alone, or RZ
			off := int(t.width()-t.parts[0].width) + int(t.shift)
			n += len("R254+-0x") + hexDigitsMax(off)
		case tkBitSet:
			n += len(tokBitSet(nil, t, ^uint64(0)))
		case tkPhase:
			n += len(".INVALIDPHASE3")
		case tkGroup:
			// its tokens follow and are counted as if all printed
		default:
			return noBound
		}
	}
	return uint16(min(n, noBound-1))
}

// hexDigitsMax is how many hex digits a value of the given bit width
// takes at most (one for a zero width).
func hexDigitsMax(width int) int {
	return max((min(width, 64)+3)/4, 1)
}

// longestEntry is the longest text appendTable prints for table ti.
func longestEntry(ti int) int {
	longest := 0
	buf := make([]byte, 0, 64)
	for v := range tables[ti].kinds {
		longest = max(longest, len(appendTableSlow(buf[:0], ti, uint64(v))))
	}
	return longest
}

// deferrable says whether the text of form f at an address whose column
// is al bytes wide cannot be wider than plain, the widest address+text so
// far.
func (ch *chunk) deferrable(f uint16, al, plain int) bool {
	return ch.bounds != nil && al+int(ch.bounds[f]) <= plain
}
