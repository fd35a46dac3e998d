package maxwell

import (
	"strings"
	"unsafe"
)

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
// them (Col is 1-based in text) after refs. The new text is written to
// arena; text itself comes back when it has no such operand.
func cutSymbolRefs(arena *textArena, text string, isLabel func(string) bool, refs []CodeRef) (string, []CodeRef) {
	start := arena.begin()
	copied := 0 // text[:copied] is in the arena
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
			i++
			continue
		}
		end := strings.IndexByte(rest[len(open):], ')')
		if end < 0 {
			break
		}
		name := rest[len(open) : len(open)+end]
		n := len(open) + end + 1
		if kind == RefConst {
			if !strings.HasPrefix(rest[n:], "]") {
				i++
				continue
			}
			n++
		}
		if kind == RefAbs && open == "`(" && isLabel(name) {
			i += n // a branch to a label of this code
			continue
		}
		refs = append(refs, CodeRef{Kind: kind, Symbol: name, Col: i + 1})
		arena.write(text[copied:i])
		arena.write(zero)
		i += n
		copied = i
	}
	if copied == 0 {
		return text, refs
	}
	arena.write(text[copied:])
	return arena.end(start), refs
}

// textArena holds the instruction texts the assembler rewrites (symbol
// operands zeroed, annotations cut), back to back. Its bytes are only
// appended, never changed: the strings made from them stay valid (the
// encoder's cache keeps them) when it grows, and it grows by doubling, so
// a rewritten line allocates nothing of its own.
type textArena struct{ buf []byte }

func (a *textArena) begin() int     { return len(a.buf) }
func (a *textArena) write(s string) { a.buf = append(a.buf, s...) }
func (a *textArena) end(start int) string {
	b := a.buf[start:len(a.buf):len(a.buf)]
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
