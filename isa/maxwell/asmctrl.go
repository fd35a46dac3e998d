package maxwell

import (
	"encoding/binary"
	"strings"

	"github.com/gpuisa/gpuisa/isa/asm"
)

// checkGivenCtrl reports the instructions whose bundle's control line (or
// their own [B------:R-:W-:Y:S00] fields) give them a control field they cannot have (barriers on a fixed-latency
// instruction, reuse bit 3 where it is rejected): the code would not decode,
// so dis would list the instruction as a .word. Instructions that take their
// field from their text, and .word lines, are not checked.
func checkGivenCtrl(out []byte, stmts []asmStmt, ctrlGiven []bool, sm int, filename string, errs *asm.ErrorList) {
	n := 0 // instructions
	for i := range stmts {
		if stmts[i].kind != stmtCtrl {
			n = max(n, int(stmts[i].index)+1)
		}
	}
	for i := range stmts {
		st := &stmts[i]
		if st.kind == stmtCtrl {
			// the NOPs that pad the last bundle take the given fields too
			b := int(st.index) / 3
			if b >= len(ctrlGiven) {
				continue // a control line after the last instruction makes nothing
			}
			cw := binary.LittleEndian.Uint64(out[b*BundleSize:])
			for slot := 0; slot < 3; slot++ {
				if b*3+slot < n {
					continue
				}
				if _, err := Decode(nopWord, CtrlField(cw, slot), sm, 0); err != nil {
					errs.Add(asm.Pos{File: filename, Line: int(st.line), Col: 1},
						"the control word gives slot %d, a NOP that pads the bundle, the field %#x, which a NOP cannot have", slot, uint32(CtrlField(cw, slot)))
				}
			}
			continue
		}
		if st.kind == stmtWord && st.flags&flagBare != 0 {
			checkBareWord(out, st, sm, filename, errs)
			continue
		}
		if st.kind != stmtInst {
			continue
		}
		b, slot := int(st.index)/3, int(st.index)%3
		if b >= len(ctrlGiven) || !ctrlGiven[b] && st.flags&flagCtrl == 0 {
			continue // fields the assembler chose for the instruction
		}
		cw := binary.LittleEndian.Uint64(out[b*BundleSize:])
		w := binary.LittleEndian.Uint64(out[b*BundleSize+8+8*slot:])
		cf := CtrlField(cw, slot)
		if _, err := Decode(w, cf, sm, addrOf(int(st.index))); err != nil {
			errs.Add(asm.Pos{File: filename, Line: int(st.line), Col: int(st.col)},
				"the control fields give this instruction the field %#x (stall %d, write barrier %d, read barrier %d, wait %#x, reuse %#x), which it cannot have: %v: %s",
				uint32(cf), cf.Stall(), cf.WriteBarrier(), cf.ReadBarrier(), cf.WaitMask(), cf.Reuse(), err, st.text)
		}
	}
}

// checkBareWord reports a bare hex line standing where an instruction goes
// whose word does not decode. nvdisasm's VLIW layout lists some
// instructions by their hex comment alone, so such a line is an
// instruction's encoding; one that does not decode is most often the next
// bundle's control line moved up by a missing instruction line, and taking
// it as a raw word would shift every later address and branch (.word keeps
// a raw word on purpose).
func checkBareWord(out []byte, st *asmStmt, sm int, filename string, errs *asm.ErrorList) {
	b, slot := int(st.index)/3, int(st.index)%3
	cf := CtrlField(binary.LittleEndian.Uint64(out[b*BundleSize:]), slot)
	if _, err := Decode(st.value, cf, sm, addrOf(int(st.index))); err != nil {
		errs.Add(asm.Pos{File: filename, Line: int(st.line), Col: 1},
			"this bare hex line stands where instruction %d of its bundle goes, so it is that instruction's encoding, and %#016x does not decode (%v): is an instruction line missing before it? (write .word %#x to keep a raw word)",
			slot+1, st.value, err, st.value)
	}
}

// listingOrigin is the address of the listing's first byte, from the
// /*addr*/ column of its first instruction (instruction number n): the base
// dis -base printed it at. ok is false without a column, or when the
// address cannot be instruction n's at a bundle-aligned base.
func listingOrigin(line string, n int) (origin uint64, ok bool) {
	s := trimSpace(line)
	if len(s) < 5 || s[0] != '/' || s[1] != '*' || s[2] == ' ' {
		return 0, false
	}
	end := strings.Index(s[2:], "*/")
	if end < 1 {
		return 0, false
	}
	a, ok := parseHex64(s[2 : 2+end])
	if !ok || a < addrOf(n) || (a-addrOf(n))%BundleSize != 0 {
		return 0, false
	}
	return a - addrOf(n), true
}

// stripBlockComments drops /* ... */ comments left in a statement (after
// the address and hex columns are gone), e.g. a note after the ';'. The
// common line has none and costs one search.
func stripBlockComments(s string) string {
	i := strings.Index(s, "/*")
	if i < 0 {
		return s
	}
	var b strings.Builder
	for i >= 0 {
		b.WriteString(s[:i])
		end := strings.Index(s[i+2:], "*/")
		if end < 0 {
			return s // unterminated: leave it for the encoder to reject
		}
		s = s[i+2+end+2:]
		i = strings.Index(s, "/*")
	}
	b.WriteString(s)
	return trimSpace(b.String())
}
