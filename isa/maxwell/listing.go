package maxwell

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/gpuisa/gpuisa/internal/pagemem"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/cfg"
	"github.com/gpuisa/gpuisa/isa/jsonl"
)

// BundleSize is the size of a control word and its three instructions.
const BundleSize = 32

// Disassemble appends the listing `nvdisasm -b SMxx -hex -novliw` prints for
// raw code loaded at base: a .headerflags line, each control word as a bare
// /* 0x... */ line and each instruction as "/*addr*/ TEXT ; /* 0xHEX */", all
// padded to the widest guard+text. Words nvdisasm rejects are listed as
// ".word 0x..." and reported in errs (nvdisasm itself prints no listing then).
// A tail shorter than a bundle is reported as truncated.
//
// Large inputs are split into chunks handled in parallel: pass 1 prints every
// text and finds the width, pass 2 lays the lines out directly into dst (every
// line's length is known once the width is).
func Disassemble(dst []byte, code []byte, base uint64, sm int) ([]byte, []*isa.DecodeError) {
	return disassemble(dst, code, base, sm, &textBound)
}

// disassemble is Disassemble deferring the texts bounds allows (none for
// nil).
func disassemble(dst []byte, code []byte, base uint64, sm int, bounds *[len(forms)]uint16) ([]byte, []*isa.DecodeError) {
	l := newLayout(code, base, sm, false, 1<<62, bounds) // every text kept
	prefix := len(dst)
	dst = l.appendHeader(dst, sm)
	start := len(dst)
	size := start + l.size(0, l.n)
	if cap(dst) < size {
		grown := make([]byte, len(dst), size)
		copy(grown, dst)
		dst = grown
	}
	dst = dst[:size]
	// each chunk's lines go straight to their final place
	var wg safeGroup
	misfit := make([]bool, len(l.chunks))
	at := start
	for c := range l.chunks {
		ch := &l.chunks[c]
		from, to := at, at+l.size(ch.first, ch.last)
		at = to
		wg.Go(func() {
			out := l.lines(dst[from:from:to], ch, ch.first, ch.last)
			misfit[c] = len(out) != to-from
		})
	}
	wg.Wait()
	if l.tooWide.Load() {
		// a deferred text was wider than its bound said: lay the
		// listing out again from texts all printed in the first pass
		l.release()
		return disassemble(dst[:prefix], code, base, sm, nil)
	}
	if slices.Contains(misfit, true) {
		// every line should be col+25 bytes; if one ever is not, lay the
		// listing out again serially rather than return a corrupt one
		dst = dst[:start]
		for c := range l.chunks {
			dst = l.lines(dst, &l.chunks[c], l.chunks[c].first, l.chunks[c].last)
		}
	}
	l.release()
	return dst, l.errs
}

// WriteListing writes the listing Disassemble returns to w without holding
// all of it: the texts are printed first (they fix the hex column), then the
// lines are laid out a block at a time on every core while the previous
// blocks are written. The first textBudget bytes of texts are kept for the
// second pass; the texts after them are printed again there, so memory
// stays within the code plus a constant however long the code is. When w
// is a regular file (or a FileWriter in front of one), the listing's
// bytes are reserved in it and its blocks are written at their offsets,
// from the file's current offset on, while the other cores lay out the
// next ones. err is w's first write error.
func WriteListing(w io.Writer, code []byte, base uint64, sm int) (errs []*isa.DecodeError, err error) {
	return writeListing(w, code, base, sm, textBudget, &textBound)
}

// WriteValidListing is WriteListing as nvdisasm -b SMxx -hex -novliw
// lists raw code: when a word does not decode, it writes nothing and
// returns every decode error (Disassemble's), which nvdisasm reports
// instead of a listing; otherwise it writes the listing, as WriteListing
// does, and returns none. The errors are known before the first byte is
// written: the first pass decodes every word.
func WriteValidListing(w io.Writer, code []byte, base uint64, sm int) (errs []*isa.DecodeError, err error) {
	return writeListingMode(w, code, base, sm, textBudget, &textBound, true)
}

// textBudget is the bytes of instruction texts WriteListing keeps between
// its passes: all of them for about 1.5M instructions (the texts of random
// code average 35 bytes, with 7 bytes of layout facts each).
const textBudget = 64 << 20

// writeListing is WriteListing keeping at most budget bytes of texts and
// deferring the texts bounds allows (none for nil).
func writeListing(w io.Writer, code []byte, base uint64, sm int, budget int, bounds *[len(forms)]uint16) (errs []*isa.DecodeError, err error) {
	return writeListingMode(w, code, base, sm, budget, bounds, false)
}

// writeListingMode is writeListing, or with valid WriteValidListing: every
// decode error kept, and nothing written when there is one.
func writeListingMode(w io.Writer, code []byte, base uint64, sm int, budget int, bounds *[len(forms)]uint16, valid bool) (errs []*isa.DecodeError, err error) {
	const blockBundles = 1024 // ≈0.8 MB of listing for random code
	f, at, ok, err := positionedFile(w)
	if err != nil {
		return nil, err
	}
	if !ok {
		// a stream cannot take back lines laid out at a column a deferred
		// text would prove wrong: every text is printed in the first pass
		bounds = nil
	}
	l := newLayout(code, base, sm, !valid, budget, bounds)
	if valid && len(l.errs) > 0 {
		l.release()
		return l.errs, nil
	}
	if ok {
		// a regular file: blocks written at their offsets
		err := l.writeListingAt(f, at, l.appendHeader(nil, sm), blockBundles, preallocate)
		if err == errTooWide {
			// written again over it from texts all printed in the first
			// pass: the column only moves right, so it covers what was
			// written
			l.release()
			l = newLayout(code, base, sm, !valid, budget, nil)
			err = l.writeListingAt(f, at, l.appendHeader(nil, sm), blockBundles, preallocate)
		}
		l.release()
		return l.errs, err
	}
	if _, err := w.Write(l.appendHeader(nil, sm)); err != nil {
		l.release()
		return l.errs, err
	}
	blocks := l.blocks(blockBundles)
	// rounds of one block per worker, double-buffered: workers lay out round
	// r+1 while round r is written
	workers := len(l.chunks)
	bufs := [2][][]byte{make([][]byte, workers), make([][]byte, workers)}
	render := func(set [][]byte, first int) *safeGroup {
		var wg safeGroup
		for k := 0; k < workers && first+k < len(blocks); k++ {
			bl := blocks[first+k]
			wg.Go(func() { set[k] = l.lines(set[k][:0], bl.ch, bl.from, bl.to) })
		}
		return &wg
	}
	pending := render(bufs[0], 0)
	for r, first := 0, 0; first < len(blocks); r, first = r+1, first+workers {
		pending.Wait()
		set := bufs[r%2]
		pending = render(bufs[(r+1)%2], first+workers)
		for k := 0; k < workers && first+k < len(blocks); k++ {
			if _, err = w.Write(set[k]); err != nil {
				pending.Wait()
				l.release()
				return l.errs, err
			}
		}
	}
	pending.Wait()
	l.release()
	return l.errs, nil
}

// errTooWide says a deferred text was wider than its form's textBound
// allows, which TestTextBound shows does not happen: the column the
// listing was laid out with is wrong. A file or a buffer is then listed
// again; a stream defers nothing, so it never meets it.
var errTooWide = errors.New("maxwell: internal error: an instruction's text is longer than its form's textBound; the listing's column is wrong")

// block is a run of bundles of one chunk that pass 2 lays out at once.
type block struct {
	ch       *chunk
	from, to int
}

// blocks splits every chunk into blocks of at most per bundles.
func (l *layout) blocks(per int) []block {
	var blocks []block
	for c := range l.chunks {
		ch := &l.chunks[c]
		for b := ch.first; b < ch.last; b += per {
			blocks = append(blocks, block{ch, b, min(b+per, ch.last)})
		}
	}
	return blocks
}

// layout is pass 1's result: every text, and the column of the hex comments.
type layout struct {
	code     []byte
	base     uint64
	sm       int
	n        int // whole bundles
	chunks   []chunk
	col      int         // where every "/* 0x" starts
	plain    int         // the widest address+text of the lines without ???: no deferred text is wider
	tooWide  atomic.Bool // a deferred text was wider than plain (a textBound too small): the listing is wrong
	noteCol  int         // where an operand printed as ??? and the rest of its line start, or 0
	blankRow []byte      // col blanks
	errs     []*isa.DecodeError
}

// newLayout prints the texts and keeps the first budget bytes of them;
// capErrs keeps at most isa.MaxListedErrors decode errors per chunk (a
// stream's memory must not grow per error).
func newLayout(code []byte, base uint64, sm int, capErrs bool, budget int, bounds *[len(forms)]uint16) *layout {
	l := &layout{code: code, base: base, sm: sm, n: len(code) / BundleSize}
	workers := runtime.GOMAXPROCS(0)
	if l.n < 4096 {
		workers = 1
	}
	l.chunks = make([]chunk, workers)
	per := (l.n + workers - 1) / workers
	var wg safeGroup
	for c := range l.chunks {
		ch := &l.chunks[c]
		ch.first, ch.capErrs, ch.bounds = min(c*per, l.n), capErrs, bounds
		ch.last = min((c+1)*per, l.n)
		wg.Go(func() { ch.texts(code, base, sm, budget/workers) })
	}
	wg.Wait()
	maxw, plain, far, rest := 0, 0, 0, 0
	quest := false
	for c := range l.chunks {
		ch := &l.chunks[c]
		maxw, plain, far, rest = max(maxw, ch.maxw), max(plain, ch.plain), max(far, ch.far), max(rest, ch.rest)
		l.errs = append(l.errs, ch.errs...)
		quest = quest || ch.quests > 0
	}
	l.col = 8 + 19 + maxw + 2
	l.plain = plain
	if quest {
		// an operand nvdisasm prints as ??? (an out-of-range scoreboard,
		// the register after R255 of a pair) and the rest of its line
		// start in a column of their own, where the widest other line
		// would end in -raw layout (or where the farthest such operand
		// lies in -raw layout); such a line's hex comment then comes one
		// blank after it. Random words only: compiled code has no ???
		// operand. Raw columns are 8+19 plus address+text.
		l.noteCol = 8 + 19 + max(plain, far)
		l.col = max(8+19+plain+2, l.noteCol+rest+1)
	}
	l.blankRow = bytes.Repeat([]byte{' '}, l.col)
	if rest := len(code) % BundleSize; rest != 0 {
		l.errs = append(l.errs, &isa.DecodeError{Addr: base + uint64(l.n*BundleSize), Len: rest, Err: isa.ErrTruncated,
			Detail: "Unaligned instruction found"})
	}
	return l
}

// questAt is where the first operand printed as ??? starts in an
// instruction's text (not a modifier: ".???3"), or -1.
func questAt(text []byte) int {
	// a '?' first (a vector search): most texts have none
	for i := 0; ; {
		k := bytes.IndexByte(text[i:], '?')
		if k < 0 {
			return -1
		}
		k += i
		if k > 0 && text[k-1] == ' ' && k+2 < len(text) && text[k+1] == '?' && text[k+2] == '?' {
			return k
		}
		i = k + 1
	}
}

func (l *layout) appendHeader(dst []byte, sm int) []byte {
	return fmt.Appendf(dst, "\t.headerflags    @\"EF_CUDA_SM%d EF_CUDA_PTX_SM(EF_CUDA_SM%d)\"\n", sm, sm)
}

// size is the listing length of bundles [first, last): every line is the
// width of the hex column plus the comment.
func (l *layout) size(first, last int) int {
	return (last - first) * 4 * (l.col + len("/* 0x0000000000000000 */\n"))
}

// chunk is a run of bundles one goroutine lists.
type chunk struct {
	first, last int // bundles
	kept        int // bundles [first, first+kept) have their texts below
	text        []byte
	facts       []textFact          // per kept instruction
	quests      int                 // texts with a ??? operand
	maxw        int                 // widest address+text
	plain       int                 // widest address+text of the lines without ???
	far, rest   int                 // farthest address+questAt, longest text from questAt on
	run         int                 // widest address+text printed so far without ???: what a deferred text must fit in
	bounds      *[len(forms)]uint16 // textBound, or nil to print every text in the first pass
	errs        []*isa.DecodeError
	capErrs     bool
	free        []func() // gives back the rooms of text and facts (layout.release)
}

// textFact is where a kept text ends in chunk.text and what its layout
// needs. A deferred text (lead deferred) is not in chunk.text: its
// instruction decoded as form quest, and the second pass prints it.
type textFact struct {
	end   uint32
	quest uint16 // 1 + questAt of the text, 0 for none; the form of a deferred text
	lead  uint8  // guard length ("@!P0 " is 5), or deferred
}

// deferred is textFact.lead of a text the second pass prints.
const deferred = 0xff

// factSize is the bytes of a textFact, which count in the budget of kept
// texts (a deferred text takes none of its own).
const factSize = int(unsafe.Sizeof(textFact{}))

// textCache remembers where the text of a recent (word, control field) pair
// was printed: real code repeats instructions a lot, and copying a text is
// cheaper than printing it. Forms with PC-relative operands are not cached.
type textCache [4096]cachedText

type cachedText struct {
	word      uint64
	ctrl      Ctrl
	off, size uint32
	quest     uint16
	lead      uint8
	state     uint8 // slotEmpty, slotSeen (a deferred text: no text) or slotText
}

const (
	slotEmpty = iota
	slotSeen
	slotText
)

// The cache costs more than it saves on code that does not repeat (random
// words): it is used in windows of cacheWindow bundles and switched off for
// the next window when fewer than 1 in 16 lookups hit; every 8th window
// probes again, deferring texts as the windows without the cache do.
const cacheWindow = 512

// texts prints the chunk's texts, finds its widths and keeps the texts of
// its first bundles while they fit in keep bytes.
func (ch *chunk) texts(code []byte, base uint64, sm int, keep int) {
	n := ch.last - ch.first
	// room for long texts (growing copies the whole buffer): a window's
	// texts may run past keep
	textRoom, freeText := pagemem.Alloc(min(n*3*64, keep+cacheWindow*3*maxText))
	facts, freeFacts := allocFacts(min(n*3, keep/16))
	text := textRoom[:0]
	ch.free = append(ch.free, freeText, freeFacts)
	cache := new(textCache)
	hits := 0
	b := ch.first
	for window := 0; b < ch.last && len(text)+len(facts)*factSize <= keep; window++ {
		useCache := hits*16 >= 3*cacheWindow
		end := min(b+cacheWindow, ch.last)
		switch {
		case useCache:
			text, facts, hits = ch.printCached(text, facts, cache, false, code, base, sm, b, end)
		case window%8 == 0:
			text, facts, hits = ch.printCached(text, facts, cache, true, code, base, sm, b, end)
		default:
			text, facts = ch.print(text, facts, code, base, sm, b, end)
			hits = 0
		}
		b = end
	}
	ch.text, ch.facts, ch.kept = text, facts, b-ch.first
	ch.measureKept(base)
	if b < ch.last {
		// the rest is measured, and printed again when it is written
		ch.measureRest(code, base, sm, b)
	}
}

// allocFacts returns room for n facts: a large room is memory of its own
// (pagemem.Alloc, in huge pages), which free gives back.
func allocFacts(n int) (facts []textFact, free func()) {
	if n*factSize < pagemem.HugeMin {
		return make([]textFact, 0, n), func() {}
	}
	b, free := pagemem.Alloc(n * factSize)
	return unsafe.Slice((*textFact)(unsafe.Pointer(unsafe.SliceData(b))), n)[:0], free
}

// release gives back the memory of l's texts and facts (the rooms of
// their first size: what grew past them is the heap's). Nothing may use l
// after it; a listing that stops on a panic leaves it to the process's
// end instead (a goroutine may still read them).
func (l *layout) release() {
	for c := range l.chunks {
		for _, free := range l.chunks[c].free {
			free()
		}
		l.chunks[c] = chunk{}
	}
}

// print appends the texts of bundles [first, end) and their facts; a
// text that cannot be wider than the widest so far is deferred.
func (ch *chunk) print(text []byte, facts []textFact, code []byte, base uint64, sm int, first, end int) ([]byte, []textFact) {
	run := ch.run
	for b := first; b < end; b++ {
		bundle := code[b*BundleSize : b*BundleSize+BundleSize]
		ctrl := binary.LittleEndian.Uint64(bundle)
		addr := base + uint64(b*BundleSize+8)
		for s := 0; s < 3; s, addr = s+1, addr+8 {
			inst, err := Decode(binary.LittleEndian.Uint64(bundle[8+8*s:]), CtrlField(ctrl, s), sm, addr)
			if err != nil {
				text = ch.wordText(text, inst.Word, err)
				facts = append(facts, textFact{uint32(len(text)), 0, 0})
				continue
			}
			al := addrLen(addr)
			if ch.deferrable(inst.form, al, run) {
				facts = append(facts, textFact{uint32(len(text)), inst.form, deferred})
				continue
			}
			start := len(text)
			var g int
			var q uint16
			text, g, q = appendInstText(text, inst, addr)
			if q == 0 {
				run = max(run, al+len(text)-start)
			}
			facts = append(facts, textFact{uint32(len(text)), q, uint8(g)})
		}
	}
	ch.run = run
	return text, facts
}

// printCached is print looking each (word, control field) pair up in
// cache first; hits counts the pairs found there (repeats), and the texts
// found are copied. With deferOK, a text not found is deferred where print
// would defer it (its pair is remembered without a text); else it is
// printed and kept.
func (ch *chunk) printCached(text []byte, facts []textFact, cache *textCache, deferOK bool, code []byte, base uint64, sm int, first, end int) ([]byte, []textFact, int) {
	hits := 0
	run := ch.run
	for b := first; b < end; b++ {
		bundle := code[b*BundleSize : b*BundleSize+BundleSize]
		ctrl := binary.LittleEndian.Uint64(bundle)
		addr := base + uint64(b*BundleSize+8)
		for s := 0; s < 3; s, addr = s+1, addr+8 {
			w := binary.LittleEndian.Uint64(bundle[8+8*s:])
			cf := CtrlField(ctrl, s)
			start := len(text)
			slot := &cache[(w^w>>29^uint64(cf)*0x9e3779b1)%uint64(len(cache))]
			if slot.state != slotEmpty && slot.word == w && slot.ctrl == cf {
				hits++
				if slot.state == slotText {
					text = append(text, text[slot.off:slot.off+slot.size]...)
					facts = append(facts, textFact{uint32(len(text)), slot.quest, slot.lead})
					continue
				}
			}
			inst, err := Decode(w, cf, sm, addr)
			if err != nil {
				text = ch.wordText(text, w, err)
				facts = append(facts, textFact{uint32(len(text)), 0, 0})
				continue
			}
			al := addrLen(addr)
			cacheable := formFacts[inst.form]&factPCRel == 0
			if deferOK && ch.deferrable(inst.form, al, run) {
				if cacheable {
					*slot = cachedText{word: w, ctrl: cf, state: slotSeen}
				}
				facts = append(facts, textFact{uint32(len(text)), inst.form, deferred})
				continue
			}
			var g int
			var q uint16
			text, g, q = appendInstText(text, inst, addr)
			if q == 0 {
				run = max(run, al+len(text)-start)
			}
			if cacheable {
				*slot = cachedText{w, cf, uint32(start), uint32(len(text) - start), q, uint8(g), slotText}
			}
			facts = append(facts, textFact{uint32(len(text)), q, uint8(g)})
		}
	}
	ch.run = run
	return text, facts, hits
}

// wordText records the decode error of word w and appends its .word text.
func (ch *chunk) wordText(text []byte, w uint64, err error) []byte {
	if ch.capErrs {
		ch.errs = isa.ErrorsCapped(ch.errs, err.(*isa.DecodeError))
	} else {
		ch.errs = append(ch.errs, err.(*isa.DecodeError))
	}
	text = append(text, ".word "...)
	return appendHexNum(text, w)
}

// measureKept finds the widths of the kept texts. nvdisasm puts every hex
// comment in one column: two blanks after the longest address+guard+text
// (the guard hangs left of the mnemonic).
func (ch *chunk) measureKept(base uint64) {
	facts := ch.facts
	maxw, plain, far, rest, quests := 0, 0, 0, 0, 0
	prev := 0
	// the address column widens at each power of 16 from 0x10000 on: a
	// run of texts at a time has one address width
	for i := 0; i < len(facts); {
		b, s := ch.first+i/3, i%3
		addr := base + uint64(b*BundleSize+8+8*s)
		al := addrLen(addr)
		next := len(facts)
		if al < 20 {
			next = min(ch.firstAt(base, uint64(1)<<(4*(al-4))), next)
		}
		top, topPlain := 0, 0
		for ; i < next; i++ {
			f := facts[i]
			tl := int(f.end) - prev
			prev = int(f.end)
			if f.lead == deferred {
				continue // no wider than a text printed before it
			}
			top = max(top, tl)
			if f.quest == 0 {
				topPlain = max(topPlain, tl)
				continue
			}
			quests++
			far, rest = max(far, al+int(f.quest)-1), max(rest, tl-int(f.quest)+1)
		}
		maxw, plain = max(maxw, al+top), max(plain, al+topPlain)
	}
	ch.maxw, ch.plain, ch.far, ch.rest, ch.quests = maxw, plain, far, rest, quests
}

// firstAt is the index in ch.facts of the first instruction whose address
// is limit or more (past the last one if none is), for limit above the
// first instruction's address.
func (ch *chunk) firstAt(base, limit uint64) int {
	b := (limit - base) / BundleSize // the bundle holding address limit
	if b >= uint64(ch.last) {
		return (ch.last - ch.first) * 3
	}
	i := (int(b) - ch.first) * 3
	for s := 0; s < 3; s++ {
		if base+b*BundleSize+8+8*uint64(s) >= limit {
			return i + s
		}
	}
	return i + 3
}

// measureRest prints the texts of bundles [first, ch.last) to measure
// them, without keeping them.
func (ch *chunk) measureRest(code []byte, base uint64, sm int, first int) {
	text := make([]byte, 0, 3*maxText)
	for b := first; b < ch.last; b++ {
		bundle := code[b*BundleSize : b*BundleSize+BundleSize]
		ctrl := binary.LittleEndian.Uint64(bundle)
		for s := 0; s < 3; s++ {
			addr := base + uint64(b*BundleSize+8+8*s)
			var g int
			var q uint16
			var err error
			text, g, q, _, err = appendLineText(text[:0], binary.LittleEndian.Uint64(bundle[8+8*s:]), CtrlField(ctrl, s), sm, addr)
			_ = g
			if err != nil {
				if ch.capErrs {
					ch.errs = isa.ErrorsCapped(ch.errs, err.(*isa.DecodeError))
				} else {
					ch.errs = append(ch.errs, err.(*isa.DecodeError))
				}
			}
			al, tl := addrLen(addr), len(text)
			ch.maxw = max(ch.maxw, al+tl)
			if q > 0 {
				ch.quests++
				ch.far, ch.rest = max(ch.far, al+int(q)-1), max(ch.rest, tl-int(q)+1)
			} else {
				ch.plain = max(ch.plain, al+tl)
			}
		}
	}
}

// buildFormFacts says per form what the listing needs to know before
// printing (formFacts, in inittables.go).
func buildFormFacts() (p [len(forms)]uint8) {
	for f := range forms {
		if forms[f].attrs&attrPCRel != 0 {
			p[f] |= factPCRel
		}
		for _, t := range forms[f].toks {
			switch {
			case t.kind == tkRegPair:
				p[f] |= factQuest
			case t.kind == tkTable && (tables[t.arg].quest || slices.Contains(tables[t.arg].kinds, 3)):
				p[f] |= factQuest
			}
		}
	}
	return
}

const (
	factQuest = 1 << iota // the text can have a ??? operand (questAt)
	factPCRel             // the text depends on the address
)

// maxText is more than the longest instruction text.
const maxText = 256

// appendLineText appends the text of word w (control field cf) at addr:
// the guard, whose length is g, and the body, or .word for a word that
// does not decode (err). q is 1 + where an operand printed as ??? starts
// (questAt), or 0; pcRel says the text depends on addr.
func appendLineText(text []byte, w uint64, cf Ctrl, sm int, addr uint64) (out []byte, g int, q uint16, pcRel bool, err error) {
	inst, err := Decode(w, cf, sm, addr)
	if err != nil {
		text = append(text, ".word "...)
		return isa.AppendHexNum(text, w), 0, 0, false, err
	}
	text, g, q = appendInstText(text, inst, addr)
	return text, g, q, formFacts[inst.form]&factPCRel != 0, nil
}

// appendInstText appends the guard and body of a decoded instruction at
// addr; g is the guard's length and q is 1 + where an operand printed as
// ??? starts (questAt), or 0.
func appendInstText(text []byte, inst Inst, addr uint64) (out []byte, g int, q uint16) {
	start := len(text)
	text = appendGuard(text, inst)
	g = len(text) - start
	text = formPrinters[inst.form](text, inst, addr, nil)
	if formFacts[inst.form]&factQuest != 0 {
		if k := questAt(text[start:]); k >= 0 {
			q = uint16(k + 1)
		}
	}
	return text, g, q
}

func addrLen(addr uint64) int {
	n := 8 // "/*" 4 digits "*/"
	for a := addr >> 16; a != 0; a >>= 4 {
		n++
	}
	return n
}

// lines lays out bundles [first, last) of ch. Every line is col+25 bytes:
// the block is filled with blanks at once, then only the address, text and
// hex comment of each line are stored in their places. The texts of
// bundles past ch.kept are printed again.
func (l *layout) lines(dst []byte, ch *chunk, first, last int) []byte {
	code, base, col, noteCol := l.code, l.base, l.col, l.noteCol
	lineLen := col + len("/* 0x0000000000000000 */\n")
	n := len(dst)
	dst = slices.Grow(dst, (last-first)*4*lineLen)[:n+(last-first)*4*lineLen]
	out := dst[n:]
	fillBlanks(out)
	kept := min(max(ch.first+ch.kept, first), last) // bundles [first, kept) have their texts in ch
	start := 0
	if k := min(first, ch.first+ch.kept) - ch.first; k > 0 {
		start = int(ch.facts[k*3-1].end)
	}
	var facts []textFact
	if kept > first {
		facts = ch.facts[(first-ch.first)*3 : (kept-ch.first)*3]
	}
	var again []byte // a deferred text
	for b := first; b < kept; b++ {
		bundle := code[b*BundleSize : b*BundleSize+BundleSize]
		ctrl := binary.LittleEndian.Uint64(bundle)
		putHexComment(out[col:lineLen], ctrl)
		out = out[lineLen:]
		addr := base + uint64(b*BundleSize+8)
		for s := 8; s < BundleSize; s += 8 {
			ln := out[:lineLen]
			f := facts[0]
			facts = facts[1:]
			if f.lead == deferred {
				if again == nil {
					again = make([]byte, 0, maxText)
				}
				inst := Inst{Word: binary.LittleEndian.Uint64(bundle[s:]), Ctrl: CtrlField(ctrl, s/8-1), form: f.quest}
				var g int
				again, g, _ = appendInstText(again[:0], inst, addr)
				al := putAddr(ln[8:], addr)
				if al+len(again) > l.plain {
					l.tooWide.Store(true) // cannot happen while textBound holds
				}
				copy(ln[8+al+19-g:col], again)
				putHexComment(ln[col:], inst.Word)
				out = out[lineLen:]
				addr += 8
				continue
			}
			text := ch.text[start:f.end]
			start = int(f.end)
			at := 8 + putAddr(ln[8:], addr) + 19 - int(f.lead)
			if q := int(f.quest) - 1; q >= 0 && noteCol > 0 {
				// the ??? operand and the rest in their column
				copy(ln[at:col], text[:q])
				copy(ln[noteCol:col], text[q:])
			} else {
				copy(ln[at:col], text)
			}
			putHexComment(ln[col:], binary.LittleEndian.Uint64(bundle[s:]))
			out = out[lineLen:]
			addr += 8
		}
	}
	if kept == last {
		return dst
	}
	if again == nil {
		again = make([]byte, 0, maxText) // a text printed again
	}
	for b := kept; b < last; b++ {
		bundle := code[b*BundleSize : b*BundleSize+BundleSize]
		ctrl := binary.LittleEndian.Uint64(bundle)
		putHexComment(out[col:lineLen], ctrl)
		out = out[lineLen:]
		for s := 0; s < 3; s++ {
			addr := base + uint64(b*BundleSize+8+8*s)
			w := binary.LittleEndian.Uint64(bundle[8+8*s:])
			// the decode error was reported by the first pass
			var g int
			var q uint16
			again, g, q, _, _ = appendLineText(again[:0], w, CtrlField(ctrl, s), l.sm, addr)
			ln := out[:lineLen]
			at := 8 + putAddr(ln[8:], addr) + 19 - g
			if q > 0 && noteCol > 0 {
				copy(ln[at:col], again[:q-1])
				copy(ln[noteCol:col], again[q-1:])
			} else {
				copy(ln[at:col], again)
			}
			putHexComment(ln[col:], w)
			out = out[lineLen:]
		}
	}
	return dst
}

// buildBlankBlock makes blankBlock (in inittables.go), what fillBlanks
// copies from: 16 KiB of blanks.
func buildBlankBlock() string { return strings.Repeat(" ", 16<<10) }

// fillBlanks sets every byte of d to a blank, 16 KiB per copy.
func fillBlanks(d []byte) {
	for len(d) > 0 {
		d = d[copy(d, blankBlock):]
	}
}

// putAddr writes the /*addr*/ column at the start of d (which has room for
// 8 bytes past it) and returns its length.
func putAddr(d []byte, addr uint64) int {
	digits := max((bits.Len64(addr)+3)>>2, 4)
	if digits > 8 || len(d) < 20 {
		return len(isa.AppendAddr(d[:0], addr))
	}
	d[0], d[1] = '/', '*'
	// the digits as one store, blanks after them
	binary.BigEndian.PutUint64(d[2:10], isa.HexDigits8(uint32(addr))<<(8*(8-digits))|0x2020202020202020&(1<<(8*(8-digits))-1))
	d[2+digits], d[3+digits] = '*', '/'
	return digits + 4
}

// putHexComment writes "/* 0x%016x */\n" at the start of d.
func putHexComment(d []byte, w uint64) {
	d = d[:25]
	copy(d[:5], "/* 0x")
	binary.BigEndian.PutUint64(d[5:13], isa.HexDigits8(uint32(w>>32)))
	binary.BigEndian.PutUint64(d[13:21], isa.HexDigits8(uint32(w)))
	copy(d[21:], " */\n")
}

func appendHexComment(dst []byte, w uint64) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 25)[:n+25]
	putHexComment(dst[n:], w)
	return dst
}

const spaces = "                                                                                                                                "

func blanks(dst []byte, n int) []byte {
	for n > len(spaces) {
		dst = append(dst, spaces...)
		n -= len(spaces)
	}
	if n > 0 {
		dst = append(dst, spaces[:n]...)
	}
	return dst
}

// Archs returns the registry entries for sm_50, sm_52 and sm_53.
func Archs() []isa.Arch {
	var out []isa.Arch
	for _, sm := range []int{50, 52, 53} {
		out = append(out, isa.Arch{
			Name:      fmt.Sprintf("sm_%d", sm),
			ISA:       "maxwell",
			SMVersion: sm,
			Disassemble: func(dst, code []byte, base uint64) ([]byte, []*isa.DecodeError) {
				return Disassemble(dst, code, base, sm)
			},
			Assemble: func(filename string, src []byte) ([]byte, error) {
				return Assemble(filename, src, sm)
			},
			WriteListing: func(w io.Writer, code []byte, base uint64) ([]*isa.DecodeError, error) {
				return WriteListing(w, code, base, sm)
			},
			Graphs: func(code []byte, base uint64, name string) ([]cfg.Function, []*isa.DecodeError) {
				return RawGraphs(code, base, sm, name)
			},
			WriteJSON: func(w *jsonl.Writer, code []byte, base uint64, function, section string) ([]*isa.DecodeError, error) {
				return WriteJSONCode(w, code, base, sm, function, section)
			},
		})
	}
	return out
}

// ListRaw appends what nvdisasm -b SMxx prints for raw code loaded at base
// with the options opts (NoHex, VLIW, Raw; the others concern cubins):
// Disassemble's listing is the one for the options -hex -novliw.
func ListRaw(dst []byte, code []byte, base uint64, sm int, opts ListOptions) ([]byte, []*isa.DecodeError) {
	if !opts.NoHex && !opts.VLIW && !opts.Raw {
		return Disassemble(dst, code, base, sm)
	}
	w := &appendWriter{b: dst}
	var errs []*isa.DecodeError
	writeRaw(w, code, base, sm, opts, func(e *isa.DecodeError) { errs = append(errs, e) })
	return w.b, errs
}

// WriteRaw writes ListRaw's listing to w as it is made (cuobjdump -sass
// lists a function so), and calls onErr with the encodings that do not
// decode, in address order, before any line is written (for the options
// -hex -novliw, WriteListing's, as it goes, the errors past
// isa.MaxListedErrors counted in the last). It returns the first error of w.
func WriteRaw(w io.Writer, code []byte, base uint64, sm int, opts ListOptions, onErr func(*isa.DecodeError)) error {
	if !opts.NoHex && !opts.VLIW && !opts.Raw {
		errs, err := WriteListing(w, code, base, sm)
		for _, e := range errs {
			onErr(e)
		}
		return err
	}
	return writeRaw(w, code, base, sm, opts, onErr)
}

// writeRaw prints every instruction twice: once to lay out the columns,
// once to write it.
func writeRaw(w io.Writer, code []byte, base uint64, sm int, opts ListOptions, onErr func(*isa.DecodeError)) error {
	o := &listOut{w: w}
	dst := make([]byte, 0, outChunk+outChunk/4)
	if opts.Raw {
		opts.NoHex = true // -raw prints neither hex comments nor the header
	} else {
		dst = (&layout{}).appendHeader(dst, sm)
	}
	n := len(code) / BundleSize
	var closes []bool
	if opts.VLIW {
		closes = closers(code[:n*BundleSize])
	}
	text := func(text []byte, i int, report bool) ([]byte, int) {
		off := i/3*BundleSize + 8 + 8*(i%3)
		word := binary.LittleEndian.Uint64(code[off:])
		inst, err := Decode(word, CtrlField(binary.LittleEndian.Uint64(code[i/3*BundleSize:]), i%3), sm, base+uint64(off))
		lead := 0
		if err != nil {
			if report {
				onErr(err.(*isa.DecodeError))
			}
			text = append(text, ".word "...)
			text = isa.AppendHexNum(text, word)
		} else {
			text = appendGuard(text, inst)
			lead = len(text)
			text = appendBody(text, inst, base+uint64(off))
		}
		if closes != nil && closes[i] {
			if k := len(text); k > 0 && text[k-1] == ';' {
				text = text[:k-1]
			}
			text = append(text, "        }"...)
		}
		return text, lead
	}
	// the hex column comes two blanks after the widest line; an operand
	// printed as ??? (random words only) and the rest of its line start in
	// a column of their own, where the widest other line or the farthest
	// such operand ends, and its hex comment one blank after it
	// a pair's closing line (no hex comment) pushes the column out to its
	// own end, without the two blanks (cuobjdump -sass and nvdisasm -b
	// agree on it)
	var t []byte
	width, closeWidth, far, rest, quest := 0, 0, 0, 0, false
	for i := range n * 3 {
		t, _ = text(t[:0], i, true)
		addr := base + uint64(i/3*BundleSize+8+8*(i%3))
		q := questAt(t)
		if q >= 0 {
			quest = true
			far, rest = max(far, addrLen(addr)+q), max(rest, len(t)-q)
		}
		switch {
		case closes != nil && vliwHidden(code, closes, i):
		case closes != nil && closes[i]:
			closeWidth = max(closeWidth, addrLen(addr)+len(t))
		case opts.Raw || q < 0:
			width = max(width, addrLen(addr)+len(t))
		}
	}
	if rest := len(code) % BundleSize; rest != 0 {
		onErr(&isa.DecodeError{Addr: base + uint64(n*BundleSize), Len: rest, Err: isa.ErrTruncated,
			Detail: "Unaligned instruction found"})
	}
	col := 8 + 19 + max(width+2, closeWidth)
	noteCol := 0
	if !opts.Raw && quest {
		noteCol = 8 + 19 + max(width, far)
		col = max(col, noteCol+rest+1)
	}
	pendingHex, pendingHidden := -1, false
	for b := 0; b < n; b++ {
		dst = o.flush(dst)
		if pendingHex >= 0 {
			dst = blanks(dst, col)
			dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[pendingHex:]))
			pendingHex = -1
		}
		if !opts.NoHex {
			dst = blanks(dst, col)
			dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[b*BundleSize:]))
		}
		for s := 0; s < 3; s++ {
			i := b*3 + s
			off := b*BundleSize + 8 + 8*s
			addr := base + uint64(off)
			if s > 0 && pendingHex >= 0 {
				dst = blanks(dst, col)
				dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[pendingHex:]))
				pendingHex = -1
			}
			if closes != nil && vliwHidden(code, closes, i) {
				if !opts.NoHex {
					pendingHex, pendingHidden = off, true // as a pair's second's (none at the end)
				}
				continue
			}
			var g int
			t, g = text(t[:0], i, false)
			lead := g
			if opts.Raw {
				g = 0
			}
			lineStart := len(dst)
			dst = blanks(dst, 8)
			dst = isa.AppendAddr(dst, addr)
			dst = blanks(dst, 19-g)
			if closes != nil && i+1 < len(closes) && closes[i+1] {
				dst[lineStart+8+addrLen(addr)+9] = '{'
			}
			if q := questAt(t); noteCol != 0 && q >= 0 {
				dst = append(dst, t[:q]...)
				dst = blanks(dst, noteCol-(8+addrLen(addr)+19-lead+q))
				dst = append(dst, t[q:]...)
			} else {
				dst = append(dst, t...)
			}
			switch {
			case opts.NoHex:
				dst = append(dst, '\n')
			case closes != nil && closes[i]:
				dst = append(dst, '\n')
				pendingHex, pendingHidden = off, false
			default:
				dst = blanks(dst, col-(len(dst)-lineStart))
				dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[off:]))
			}
		}
	}
	if pendingHex >= 0 && !pendingHidden {
		dst = blanks(dst, col)
		dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[pendingHex:]))
	}
	return o.end(dst)
}
