package maxwell

import "sync"

// A form can only encode a text whose every byte it can print, and whose
// text holds every byte of the form's mandatory literals. Both sets are
// made once from the templates; EncodeText checks them before matching, so
// most forms of a mnemonic that cannot print the text (c[..] against a
// register, 0x.. against a float, ...) are skipped without backtracking.
// The sets only skip forms whose printed text could never equal the input,
// so the result is the same as matching every form.

// byteSet is a set of ASCII bytes.
type byteSet [2]uint64

func (s *byteSet) add(text string) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < 128 {
			s[c>>6] |= 1 << (c & 63)
		}
	}
}

// encAlpha is what a form can print and what it must print (after the guard,
// without blanks, .reuse markers and the final semicolon).
type encAlpha struct {
	can, must byteSet
	any       bool // a branch target may be a label: any text
}

// Bytes the operand printers can produce, generously: a superset only makes
// the filter weaker, never wrong.
const (
	alphaReg   = "RZ0123456789?"
	alphaPred  = "!PT0123456789"
	alphaNum   = "-+0123456789abcdefABCDEFxX"
	alphaFloat = alphaNum + ".eINFQASN"
	alphaPhase = ".TPINVALIDPHASE3"
	alphaSet   = "{},0123456789"
)

var encAlphas = sync.OnceValue(func() (p *[len(forms)]encAlpha) {
	p = new([len(forms)]encAlpha)
	for fi := range forms {
		a := &p[fi]
		groupEnd := -1 // tokens up to here are inside an optional group
		for k, t := range forms[fi].toks {
			switch t.kind {
			case tkLit:
				a.can.add(t.text)
				if k > groupEnd {
					a.must.add(t.text)
				}
			case tkGroup:
				groupEnd = max(groupEnd, k+t.arg)
			case tkFlag:
				a.can.add(t.text)
			case tkTable:
				for v, e := range tables[t.arg].entries {
					if tables[t.arg].kinds[v] == 0 {
						a.can.add(e)
					} else {
						a.can.add(string(appendTable(nil, t.arg, uint64(v))))
					}
				}
			case tkReg, tkRegPair:
				a.can.add(alphaReg)
			case tkPred, tkNPred:
				a.can.add(alphaPred)
			case tkHex, tkSHex:
				a.can.add(alphaNum)
			case tkF32, tkF64, tkF16:
				a.can.add(alphaFloat)
			case tkPhase:
				a.can.add(alphaPhase)
			case tkBitSet:
				a.can.add(alphaSet)
			case tkAddr, tkUAddr:
				a.can.add(alphaReg + alphaNum)
			default: // tkRel and anything new: no filter
				a.any = true
			}
		}
		// blanks never reach the matcher
		a.must[0] &^= 1<<' ' | 1<<'\t'
	}
	return
})

// textBytes is the set of bytes of a squeezed text, and whether it has bytes
// past ASCII.
func textBytes(s []byte) (set byteSet, wide bool) {
	for _, c := range s {
		if c >= 128 {
			wide = true
			continue
		}
		set[c>>6] |= 1 << (c & 63)
	}
	return
}

// mayPrint reports whether form fi could print a text with the given bytes.
func mayPrint(fi uint16, set byteSet, wide bool) bool {
	a := &encAlphas()[fi]
	if a.must[0]&^set[0]|a.must[1]&^set[1] != 0 {
		return false
	}
	return a.any || !wide && set[0]&^a.can[0]|set[1]&^a.can[1] == 0
}
