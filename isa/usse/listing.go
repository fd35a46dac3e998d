package usse

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/gpuisa/gpuisa/internal/pagemem"
	"github.com/gpuisa/gpuisa/isa"
)

// lister lists words for one worker of a listing (isa.StepFunc): the
// instruction it decodes into, the room its decode errors are taken from,
// and once it has listed enough lines, a cache of line ends.
type lister struct {
	in    Inst
	pt    *printTables
	fixed bool // Style is fixedStyle: lines are written by appendPrefix, appendLineEnd
	// the prefix of the last line (appendPrefix), whose address block
	// (addr>>8) was preBlock: the next lines of the block differ from it
	// in the last two digits
	pre      [prefixRoom]byte
	preLen   int
	preBlock uint64
	lines    int        // lines listed before the cache was made
	cache    *lineCache // nil until cacheAfter lines are listed
	// the cache is tried a window of lines at a time; a window with few
	// hits (random words) turns it off for the next rest lines. A window
	// first probes (the lines are listed in batches, their words only
	// looked up and marked): a line end is stored only once a probe shows
	// repeats.
	tried, hits, rest int
	probing           bool
	b                 *batchRoom // nil until the first batch
}

func newLister() *lister {
	return &lister{pt: syntaxTables(), fixed: Style == fixedStyle, preBlock: noBlock}
}

// newStep is a StepFunc with its own lister (isa.ListSteps, and parts
// listed again).
func newStep() isa.StepFunc { return isa.PartStep(newLister().part) }

// newPart is a PartFunc with its own lister (isa.WriteParts makes one per
// worker).
func newPart() isa.PartFunc { return newLister().part }

// The line cache: a line's text, padding and hex column depend on its word
// alone (the printer takes no address: branch offsets print as encoded),
// and compiled code repeats its words (the oracle's 30,795 words of code
// are 174 distinct ones), so a line end is printed once per word and
// copied after that. Direct-mapped by a hash of the word: a random word
// costs a probe and a store.
const (
	cacheBits  = 12
	cacheSlots = 1 << cacheBits
	slotBytes  = 128 // a line end longer than this is not kept
	cacheAfter = 1024
	// a window of lines with fewer than 1/16 hits turns the cache off for
	// the next cacheRest lines: random words do not pay for its stores.
	// A window's lines are listed one by one, not in batches, at about
	// twice the cost of a batched line (random words: a window of 4,096
	// in 16 took 11% of the time), so windows are short and rare.
	cacheWindow = 1024
	cacheRest   = 63 * cacheWindow
	// probed marks a slot's word as seen by a probe, with no line end
	// (the lengths of those are 1 to slotBytes)
	probed = 0xff
)

type lineCache struct {
	words [cacheSlots]uint64
	lens  [cacheSlots]uint8 // 0: the slot is empty
	ends  [cacheSlots][slotBytes]byte
}

// newLineCache returns an empty cache whose slots' words and lengths,
// read before they are written, are faulted in for writing. The line
// ends (512 KiB) are faulted in by the stores only: a probe of random
// words stores none (storing a window's ends touched nearly every page,
// 128 page faults a worker, 3 ms of CPU time for 1M random words).
func newLineCache() *lineCache {
	c := new(lineCache)
	pagemem.TouchZeroed(c.words[:])
	pagemem.TouchZeroed(c.lens[:])
	return c
}

func cacheSlot(w uint64) uint64 { return w * 0x9e3779b97f4a7c15 >> (64 - cacheBits) }

// probe looks the words of code up in the cache as a window of the cache
// would, marking those not there as probed, and counts the hits.
func (l *lister) probe(code []byte) {
	c := l.cache
	for i := 0; i+Len <= len(code); i += Len {
		w := binary.LittleEndian.Uint64(code[i:])
		slot := cacheSlot(w)
		if c.lens[slot] == probed && c.words[slot] == w {
			l.hits++
		} else {
			c.words[slot], c.lens[slot] = w, probed
		}
	}
	if l.tried += len(code) / Len; l.tried >= cacheWindow {
		l.endWindow()
	}
}

// endWindow ends a window of the cache: with few hits the cache rests
// for cacheRest lines, then probes again; otherwise the next window
// stores and serves line ends.
func (l *lister) endWindow() {
	l.probing = l.hits < cacheWindow/16
	if l.probing {
		l.rest = cacheRest
	}
	l.tried, l.hits = 0, 0
}

// part lists the words that start in code[from:to] (isa.PartFunc): a
// loop with no call per word but the decoder's and the printer's.
func (l *lister) part(dst []byte, errs *isa.PartErrors, code []byte, from, to int, base uint64) ([]byte, int) {
	off := from
	for ; off < to; off += Len {
		if n := min((to-off+Len-1)/Len, (len(code)-off)/Len, batchWords); n >= minBatch && l.fixed &&
			(l.cache == nil || l.rest > 0 || l.probing) {
			// no line ends from the cache: a batch in op1 order
			dst = l.batch(dst, errs, code, off, n, base)
			switch {
			case l.cache == nil:
				if l.lines += n; l.lines >= cacheAfter {
					l.cache, l.probing = newLineCache(), true
				}
			case l.rest > 0:
				l.rest = max(l.rest-n, 0)
			default:
				l.probe(code[off : off+n*Len])
			}
			off += (n - 1) * Len
			continue
		}
		addr := base + uint64(off)
		if len(code)-off < Len {
			errs.Add(&isa.DecodeError{Addr: addr, Len: len(code) - off, Err: isa.ErrTruncated})
			return dst, len(code)
		}
		w := binary.LittleEndian.Uint64(code[off:])
		c := l.cache
		var slot uint64
		if c != nil && (l.rest > 0 || l.probing) {
			if l.rest > 0 {
				l.rest--
			} else {
				l.probe(code[off : off+Len])
			}
			c = nil
		} else if c != nil {
			if l.tried++; l.tried == cacheWindow {
				l.endWindow()
			}
			slot = cacheSlot(w)
			if n := int(c.lens[slot]); uint(n-1) < slotBytes && c.words[slot] == w {
				l.hits++
				if l.fixed {
					dst = l.appendPrefix(dst, addr)
				} else {
					dst = Style.AppendPrefix(dst, addr)
				}
				at := len(dst)
				if cap(dst)-at < slotBytes {
					dst = slices.Grow(dst, slotBytes)
				}
				*(*[slotBytes]byte)(dst[at : at+slotBytes]) = c.ends[slot]
				dst = dst[:at+n]
				continue
			}
		} else if l.lines++; l.lines >= cacheAfter {
			l.cache = newLineCache()
		}
		// the printer reads only the form's own fields, which decodeFields
		// all writes: no need to clear the rest
		in := &l.in
		in.Form = -1
		_, ok := decodeMatch(w, in)
		var start int
		if l.fixed {
			dst = l.appendPrefix(dst, addr)
			start = len(dst)
			dst = appendTextWith(dst, in, l.pt)
			dst = appendLineEnd(dst, len(dst)-start, w)
		} else {
			dst = Style.AppendPrefix(dst, addr)
			start = len(dst)
			dst = append(appendTextWith(dst, in, l.pt), " ;"...)
			dst = Style.AppendSuffix(dst, len(dst)-start, w, 16)
		}
		if !ok {
			errs.AddInvalid(addr, Len, w, invalidWhy{})
			continue
		}
		if n := len(dst) - start; c != nil && n <= slotBytes {
			c.words[slot], c.lens[slot] = w, uint8(n)
			copy(c.ends[slot][:], dst[start:])
		}
	}
	return dst, off
}

// Batches: random words run a different printer (and decoder path) from
// one word to the next, which the instruction cache and the branch
// predictors do not keep up with; listed in the order of their op1 group
// (a counting sort), the words of a group run one after the other through
// the same code: 1M random words took 40% less CPU time sorted. A batch
// prints its words' texts in that order, then writes the lines in
// address order, each copying its text.
const (
	batchWords = 1024 // words in a batch: texts of about 90 KB
	minBatch   = 64   // fewer words are listed one by one
	copyBytes  = 128  // the copy of a text of at most that many bytes
	// textPerWord is the text room of a batch's word at the start
	textPerWord = 96
)

// batchRoom is a batch's scratch, kept by the lister.
type batchRoom struct {
	order [batchWords]uint16 // the batch's word indices in op1 order
	texts [batchWords]batchText
	text  []byte
}

// batchText is where a batch word's text is in batchRoom.text and whether
// it decoded (one 8-byte entry: written in op1 order, read in address order).
type batchText struct {
	start int32
	size  uint16
	ok    bool
}

// batch lists the n words at code[from:] (n <= batchWords) in Style's
// fixed layout.
func (l *lister) batch(dst []byte, errs *isa.PartErrors, code []byte, from, n int, base uint64) []byte {
	if l.b == nil {
		// room for the texts of random valid words at once (68-87 KB a
		// batch): grown from nothing, each larger buffer is fresh memory
		// to fault in and copy into
		l.b = &batchRoom{text: make([]byte, 0, batchWords*textPerWord+copyBytes)}
	}
	b := l.b
	words := code[from : from+n*Len]
	// the op1 groups' counts, then where each group's words go in order
	var at [32]int32
	for i := 0; i < n; i++ {
		at[words[i*Len+7]>>3]++
	}
	sum := int32(0)
	for g := range at {
		at[g], sum = sum, sum+at[g]
	}
	for i := 0; i < n; i++ {
		g := words[i*Len+7] >> 3
		b.order[at[g]] = uint16(i)
		at[g]++
	}
	text := b.text[:0]
	in := &l.in
	for _, i := range b.order[:n] {
		w := binary.LittleEndian.Uint64(words[int(i)*Len:])
		in.Form = -1
		_, ok := decodeMatch(w, in)
		start := len(text)
		text = appendTextWith(text, in, l.pt)
		b.texts[i] = batchText{start: int32(start), size: uint16(len(text) - start), ok: ok}
	}
	// a text is copied as copyBytes bytes (one fixed-size copy) when
	// there are that many after its start
	text = slices.Grow(text, copyBytes)
	b.text = text
	all := text[:cap(text)]
	for i := 0; i < n; i++ {
		off := from + i*Len
		addr, w := base+uint64(off), binary.LittleEndian.Uint64(words[i*Len:])
		bt := &b.texts[i]
		s, size := int(bt.start), int(bt.size)
		if size <= copyBytes && addr>>8 == l.preBlock && cap(dst)-len(dst) >= lineRoom {
			dst = l.appendLine(dst, addr, w, (*[copyBytes]byte)(all[s:s+copyBytes]), size)
		} else {
			dst = l.appendPrefix(dst, addr)
			if at := len(dst); size <= copyBytes && cap(dst)-at >= copyBytes {
				copy128((*[copyBytes]byte)(dst[at:at+copyBytes]), (*[copyBytes]byte)(all[s:s+copyBytes]))
				dst = dst[:at+size]
			} else {
				dst = append(dst, text[s:s+size]...)
			}
			dst = appendLineEnd(dst, size, w)
		}
		if !bt.ok {
			errs.AddInvalid(addr, Len, w, invalidWhy{})
		}
	}
	return dst
}

// lineRoom is the room appendLine's stores take.
const lineRoom = prefixRoom + copyBytes + lineEndRoom

// appendLine is appendPrefix, the text (size <= copyBytes bytes at the
// start of text) and appendLineEnd in one call, for the common case: addr
// in the last line's block (addr>>8 == l.preBlock) and lineRoom bytes of
// room. One call instead of three saves the calls' spills and room checks
// (about a tenth of a batch's own host instructions).
func (l *lister) appendLine(dst []byte, addr, w uint64, text *[copyBytes]byte, size int) []byte {
	at := len(dst)
	b := (*[lineRoom]byte)(dst[at : at+lineRoom])
	*(*[prefixRoom]byte)(b[:]) = l.pre
	binary.LittleEndian.PutUint16(b[(l.preLen-12)&63:], isa.HexPair(uint8(addr)))
	t := l.preLen & 63
	copy128((*[copyBytes]byte)(b[t:]), text)
	return dst[:at+t+size+putLineEnd((*[lineEndRoom]byte)(b[t+size:]), size, w)]
}

// copy128 copies 128 bytes as eight 16-byte moves: the compiler copies
// a [128]byte (or [64]byte) between two slices by a call to memmove,
// which took 3% of a random listing's time.
func copy128(d, s *[copyBytes]byte) {
	*(*[16]byte)(d[0:]) = *(*[16]byte)(s[0:])
	*(*[16]byte)(d[16:]) = *(*[16]byte)(s[16:])
	*(*[16]byte)(d[32:]) = *(*[16]byte)(s[32:])
	*(*[16]byte)(d[48:]) = *(*[16]byte)(s[48:])
	*(*[16]byte)(d[64:]) = *(*[16]byte)(s[64:])
	*(*[16]byte)(d[80:]) = *(*[16]byte)(s[80:])
	*(*[16]byte)(d[96:]) = *(*[16]byte)(s[96:])
	*(*[16]byte)(d[112:]) = *(*[16]byte)(s[112:])
}

// invalidWhy explains why a word does not decode (isa.Explainer): it
// decodes the word again. A listing leaves the detail of its errors to it
// until they are shown (random words have one for every third word, and
// show a hundred).
type invalidWhy struct{}

func (invalidWhy) Explain(w uint64) string {
	var in Inst
	bad, _ := decodeMatch(w, &in)
	return string(bad.appendDetail(nil, w))
}

// The columns of a line in Style's layout with its numbers as constants:
// appendLinePrefix is Style.AppendPrefix and appendLineEnd is " ;" then
// Style.AppendSuffix of a 16-digit word, each a few whole-word stores
// into room checked once (the general methods read the layout from the
// style and branch on it: a tenth of a random line's cost).
// TestLineColumns checks them against Style's methods.

// fixedStyle is the layout appendLinePrefix and appendLineEnd write
// (Style's own); a lister made while Style is another uses Style's
// methods.
var fixedStyle = isa.LineStyle{Indent: 8, Gap: 8, TextCol: 64, HexWidth: 16}

// lineEndRoom is the room appendLineEnd's stores take: " ;", padding of
// at most 62 (stored as 64 blanks), " /* 0x" (a word), 16 digits and
// " */\n".
const lineEndRoom = 2 + 64 + 8 + 16 + 4

// blankWord is eight blanks as one little-endian word.
const blankWord = 0x2020202020202020

var blanks64 = [64]byte{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}

// appendLinePrefix appends "        /*addr*/        " (fixedStyle: at
// least four digits).
func appendLinePrefix(dst []byte, addr uint64) []byte {
	l := len(dst)
	if addr>>32 != 0 || cap(dst)-l < prefixRoom {
		return fixedStyle.AppendPrefix(dst, addr)
	}
	n := max((bits.Len32(uint32(addr))+3)>>2, 4)
	b := (*[prefixRoom]byte)(dst[l : l+prefixRoom])
	// blanks and "/*"; the digits (the word's top n bytes); "*/" and
	// blanks, over what the digits' word wrote past them
	binary.LittleEndian.PutUint64(b[0:], blankWord)
	binary.LittleEndian.PutUint16(b[8:], '/'|'*'<<8)
	binary.BigEndian.PutUint64(b[10:], isa.HexDigits8(uint32(addr))<<(8*(8-n)))
	e := (*[16]byte)(b[10+n&15:])
	binary.LittleEndian.PutUint64(e[0:], '*'|'/'<<8|blankWord&^0xffff)
	binary.LittleEndian.PutUint64(e[8:], blankWord)
	return dst[:l+20+n]
}

// prefixRoom is the room appendLinePrefix's stores take.
const prefixRoom = 40

// noBlock is no address block (addr>>8 is below it for every address).
const noBlock = ^uint64(0)

// appendPrefix is appendLinePrefix: a line's prefix is the last one's
// (consecutive words share all but the address's last two digits) with
// those two digits stored over it.
func (l *lister) appendPrefix(dst []byte, addr uint64) []byte {
	at := len(dst)
	if addr>>8 != l.preBlock || cap(dst)-at < prefixRoom {
		dst = appendLinePrefix(dst, addr)
		l.preBlock = noBlock
		if addr>>32 == 0 && len(dst)-at <= prefixRoom {
			l.preLen = copy(l.pre[:], dst[at:])
			l.preBlock = addr >> 8
		}
		return dst
	}
	b := (*[prefixRoom]byte)(dst[at : at+prefixRoom])
	*b = l.pre
	// the digits end 10 bytes before the prefix ("*/" and 8 blanks)
	binary.LittleEndian.PutUint16(b[(l.preLen-12)&63:], isa.HexPair(uint8(addr)))
	return dst[:at+l.preLen]
}

// appendLineEnd appends " ;" after a text of textLen bytes, the padding
// to the hex column, and the column holding w (fixedStyle).
func appendLineEnd(dst []byte, textLen int, w uint64) []byte {
	l := len(dst)
	if cap(dst)-l < lineEndRoom {
		dst = slices.Grow(dst, lineEndRoom)
	}
	return dst[:l+putLineEnd((*[lineEndRoom]byte)(dst[l:l+lineEndRoom]), textLen, w)]
}

// putLineEnd stores appendLineEnd's bytes into b and returns how many
// there are.
func putLineEnd(b *[lineEndRoom]byte, textLen int, w uint64) int {
	binary.LittleEndian.PutUint16(b[0:], ' '|';'<<8)
	*(*[64]byte)(b[2:]) = blanks64 // the padding, and blanks the column overwrites
	pad := max(62-textLen, 0)
	h := (*[28]byte)(b[2+pad&63:])
	binary.LittleEndian.PutUint64(h[0:], ' '|'/'<<8|'*'<<16|' '<<24|'0'<<32|'x'<<40)
	binary.BigEndian.PutUint64(h[6:], isa.HexDigits8(uint32(w>>32)))
	binary.BigEndian.PutUint64(h[14:], isa.HexDigits8(uint32(w)))
	binary.LittleEndian.PutUint32(h[22:], ' '|'*'<<8|'/'<<16|'\n'<<24)
	return 2 + pad + 26
}
