package maxwell

import "strings"

// Operands that name symbols of a cubin, as nvdisasm prints relocated
// instructions in ELF mode: `(sym) for an address (or a call to a function in
// another section), 32@lo(sym) and 32@hi(sym) for its halves, c[`(sym)] for a
// constant-bank object and [R1+`(sym)] for a shared-memory object. The fields
// hold zero until the relocation fills them, so the text is assembled with
// zero in their place.

// hasSymbolRef reports whether text may hold such an operand.
func hasSymbolRef(text string) bool {
	return strings.IndexByte(text, '`') >= 0 || strings.Contains(text, "32@")
}

// cutSymbolRefs replaces the symbol operands of text (those that do not name
// one of the code's labels) with the zero values they stand for, and lists
// them (Col is 1-based in text).
func cutSymbolRefs(text string, isLabel func(string) bool) (string, []CodeRef) {
	var b strings.Builder
	var refs []CodeRef
	i := 0
	for i < len(text) {
		rest := text[i:]
		kind, open, zero := RefAbs, "", ""
		switch {
		case strings.HasPrefix(rest, "c[`("):
			kind, open, zero = RefConst, "c[`(", "c[0x0][0x0]"
		case strings.HasPrefix(rest, "+`("):
			kind, open, zero = RefAbs, "+`(", ""
		case strings.HasPrefix(rest, "32@lo("):
			kind, open, zero = RefLo, "32@lo(", "0x0"
		case strings.HasPrefix(rest, "32@hi("):
			kind, open, zero = RefHi, "32@hi(", "0x0"
		case strings.HasPrefix(rest, "`("):
			kind, open, zero = RefAbs, "`(", "0x0"
		}
		if open == "" {
			b.WriteByte(text[i])
			i++
			continue
		}
		end := strings.IndexByte(rest[len(open):], ')')
		if end < 0 {
			b.WriteString(rest)
			break
		}
		name := rest[len(open) : len(open)+end]
		n := len(open) + end + 1
		if kind == RefConst {
			if !strings.HasPrefix(rest[n:], "]") {
				b.WriteByte(text[i])
				i++
				continue
			}
			n++
		}
		if kind == RefAbs && open == "`(" && isLabel(name) {
			b.WriteString(rest[:n]) // a branch to a label of this code
			i += n
			continue
		}
		refs = append(refs, CodeRef{Kind: kind, Symbol: name, Col: i + 1})
		b.WriteString(zero)
		i += n
	}
	return b.String(), refs
}
