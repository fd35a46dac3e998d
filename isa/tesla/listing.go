package tesla

import (
	"encoding/binary"
	"io"
	"math/bits"
	"slices"

	"github.com/gpuisa/gpuisa/internal/pagemem"
	"github.com/gpuisa/gpuisa/isa"
)

// lineRoom is the room a line is written into (a textBuf): prefix (at
// most 36 bytes), text, padding and hex column with the room for their
// in-place stores.
const lineRoom = len(textBuf{})

// Disassemble appends a cuobjdump-style listing of raw Tesla code loaded at
// base. Words that do not decode are listed as ".word" lines (which the
// assembler reads back) and reported in errs; the listing goes on after them.
func Disassemble(dst []byte, code []byte, base uint64) ([]byte, []*isa.DecodeError) {
	l := newLister(nil) // no line cache: a cubin lists many small functions
	return isa.ListSteps(dst, code, base, l.step)
}

// WriteListing writes the listing Disassemble returns to w a buffer at a
// time: memory does not grow with the code.
func WriteListing(w io.Writer, code []byte, base uint64) ([]*isa.DecodeError, error) {
	return isa.WriteMarkedParts(w, code, base, newMarkStep, newListPart)
}

// WriteListingFrom is WriteListing of the code read from r as it goes
// (isa.WriteListingFromFunc).
func WriteListingFrom(w io.Writer, r io.Reader, base uint64, onErr func(*isa.DecodeError)) error {
	return isa.WriteMarkedPartsFrom(w, r, base, newMarkStep, newListPart, 8, onErr)
}

// newListPart is one streaming worker's PartFunc, with its line cache.
func newListPart() isa.PartFunc {
	return newLister(new(lineCache)).part
}

// newMarkStep is the StepFunc that lists a part's first instructions, and
// a part again from where the one before it ended: no line cache (it lists
// a few lines per part).
func newMarkStep() isa.StepFunc {
	return newLister(nil).step
}

func newLister(lines *lineCache) *lister {
	return &lister{lines: lines, mem: memTexts()}
}

// lister is what one worker keeps from line to line.
type lister struct {
	pre   prefixCache     // the address column of the last block listed
	lines *lineCache      // nil: print every line
	mem   *memTextTables  // memTexts()
	errs  *isa.PartErrors // where run adds the errors of the words that do not decode
	one   isa.PartErrors  // step's errors
	err   isa.DecodeError // the error step returns (isa.StepFunc copies it)
}

// step lists the instruction at code[pc:] (isa.StepFunc).
func (l *lister) step(dst []byte, code []byte, pc int, base uint64) ([]byte, int, *isa.DecodeError) {
	if len(code)-pc < 8 {
		return l.stepTail(dst, code, pc, base)
	}
	l.one.Reset()
	l.errs = &l.one
	dst, next := l.run(dst, code, pc, pc+1, base)
	if l.one.Len() == 0 {
		return dst, next - pc, nil
	}
	l.err = l.one.At(0)
	return dst, next - pc, &l.err
}

// part lists the instructions that start in code[from:to] (isa.PartFunc).
func (l *lister) part(dst []byte, errs *isa.PartErrors, code []byte, from, to int, base uint64) ([]byte, int) {
	pc := from
	for {
		l.errs = errs
		if dst, pc = l.run(dst, code, pc, to, base); pc >= to {
			return dst, pc
		}
		// run stops inside the part only where the code's last 8 bytes begin
		var n int
		var de *isa.DecodeError
		if dst, n, de = l.step(dst, code, pc, base); de != nil {
			errs.Add(de)
		}
		pc += max(n, 1)
	}
}

// appendInvalid lists inst, the word at code[pc:] that does not decode
// (all 8 bytes a long one may take there), as .word lines, and adds its
// error to l.errs, its detail left to invalidWhy until it is shown. Random
// bytes are mostly such words: run lists them in its loop, each decoded
// once.
func (l *lister) appendInvalid(dst []byte, code []byte, pc int, base uint64, inst Inst) []byte {
	addr, n := base+uint64(pc), int(inst.Len)
	for k := 0; k < n; k += 4 {
		dst = l.pre.appendWordLine(dst, addr+uint64(k), binary.LittleEndian.Uint32(code[pc+k:]))
	}
	l.errs.AddInvalid(addr, n, inst.Raw, invalidWhy{})
	return dst
}

// firstValue is the value Decode reads at code[pc:] (8 bytes there): one
// word, or two when the first says so, chosen without a branch (random
// code mixes the two at random).
func firstValue(code []byte, pc int) uint64 {
	w := binary.LittleEndian.Uint64(code[pc:])
	return w & (0xffffffff | -(w&1)<<32)
}

// run lists the instructions from code[pc:] on, up to to, while all 8
// bytes a long one may take are there, and returns where it stopped: the
// loop of nearly every instruction, apart from the code's last (step). The
// words that do not decode go to appendInvalid, their errors to l.errs.
func (l *lister) run(dst []byte, code []byte, pc, to int, base uint64) ([]byte, int) {
	end := min(to, len(code)-7)
	for pc >= 0 && pc < end {
		addr := base + uint64(pc)
		v := firstValue(code, pc)
		dst = slices.Grow(dst, lineRoom) // the writes below never reallocate
		n := len(dst)
		b := (*textBuf)(dst[n : n+len(textBuf{})])
		lines := l.lines.use(len(code))
		if lines != nil {
			if e := lines.find(v); e != nil {
				var p int
				if blockKey(addr) == l.pre.key { // put, inlined
					p = l.pre.putCached(b, addr)
				} else {
					p = l.pre.fill(b, addr)
				}
				*(*[lineTailRoom]byte)(b[p:]) = e.tail
				dst = dst[:n+p+int(e.size)]
				pc += int(e.len)
				continue
			}
		}
		inst, ok := matchValue(v)
		if !ok {
			dst = l.appendInvalid(dst, code, pc, base, inst)
			pc += int(inst.Len)
			continue
		}
		var p int
		if blockKey(addr) == l.pre.key { // put, inlined
			p = l.pre.putCached(b, addr)
		} else {
			p = l.pre.fill(b, addr)
		}
		q := putTail(b, p, inst, l.mem)
		if lines != nil {
			lines.put(v, inst.Len, b[p:q])
		}
		dst = dst[:n+q]
		pc += int(inst.Len)
	}
	return dst, pc
}

// putTail stores what follows the address column at b[p:]: the text, its
// padding and the hex column; it depends on the instruction's value only
// (branch targets are absolute). It returns the line's end.
func putTail(b *textBuf, p int, inst Inst, mem *memTextTables) int {
	digits := 16
	if inst.Len == 4 {
		digits = 8
	}
	q := formPrinters[inst.Form](b, p, inst.Raw, mem)
	return putSuffix(b, p, q, inst.Raw, digits)
}

// appendLine appends the line of inst at addr.
func (l *lister) appendLine(dst []byte, addr uint64, inst Inst) []byte {
	dst = slices.Grow(dst, lineRoom)
	n := len(dst)
	b := (*textBuf)(dst[n : n+len(textBuf{})])
	return dst[:n+putTail(b, putPrefix(b, addr), inst, l.mem)]
}

// The columns of isa.CuobjdumpStyle as constants (TestLineColumns checks
// putPrefix and putSuffix against its AppendPrefix and AppendSuffix).
const (
	lineIndent  = 8  // blanks before the address column
	lineGap     = 8  // blanks after it
	lineTextCol = 46 // the text padded to this width
)

// putPrefix stores the address column of addr at b[0:]
// (isa.CuobjdumpStyle.AppendPrefix) and returns its length.
func putPrefix(b *textBuf, addr uint64) int {
	if addr>>32 != 0 {
		return len(isa.CuobjdumpStyle.AppendPrefix(b[:0], addr))
	}
	digits := max((bits.Len32(uint32(addr))+3)>>2, 4)
	st(b, 0, blankWord)
	st(b, lineIndent, '/'|'*'<<8)
	binary.BigEndian.PutUint64(b[lineIndent+2:], isa.HexDigits8(uint32(addr))<<(8*(8-digits)&63))
	p := lineIndent + 2 + digits
	st(b, p, '*'|'/'<<8|0x2020202020200000) // "*/" and 6 of the gap's blanks
	st(b, p+8, blankWord)
	return p + 2 + lineGap
}

// prefixCache holds the address column (putPrefix) of the last 256-byte
// block of addresses listed: within a block only its last two digits
// change, stored from isa.HexPair (putPrefix's digits and stores cost
// about 60 host instructions a line, a tenth of a random line's).
type prefixCache struct {
	key uint64 // blockKey of col's block; 0 (no block's) in the zero value
	col [prefixRoom]byte
	n   int // col's length
}

// prefixRoom is the room an address column of 8 digits takes, rounded up
// to whole 16-byte moves.
const prefixRoom = 32

// blockKey is prefixCache's key of addr's 256-byte block: never 0.
func blockKey(addr uint64) uint64 { return addr>>8 | 1<<63 }

// put stores the address column of addr at b[0:] and returns its length.
// run spells it out: the call to fill keeps it from being inlined.
func (c *prefixCache) put(b *textBuf, addr uint64) int {
	if blockKey(addr) != c.key {
		return c.fill(b, addr)
	}
	return c.putCached(b, addr)
}

// putCached is put for an address in the cached block.
func (c *prefixCache) putCached(b *textBuf, addr uint64) int {
	*(*[prefixRoom]byte)(b[:prefixRoom]) = c.col
	// the column's last two digits end 2+lineGap bytes before its end
	binary.LittleEndian.PutUint16(b[(c.n-4-lineGap)&textMask:], isa.HexPair(uint8(addr)))
	return c.n
}

// fill is put for an address outside the cached block: it caches addr's
// block's column, unless addr needs more than 8 digits.
func (c *prefixCache) fill(b *textBuf, addr uint64) int {
	n := putPrefix(b, addr)
	if addr>>32 == 0 {
		c.col, c.n, c.key = [prefixRoom]byte(b[:prefixRoom]), n, blockKey(addr)
	}
	return n
}

// putSuffix pads the text at b[from:p] to the hex column and stores the
// column: raw in digits (8 or 16) hex digits
// (isa.CuobjdumpStyle.AppendSuffix). It returns the line's end.
func putSuffix(b *textBuf, from, p int, raw uint64, digits int) int {
	// blanks up to the column (at most 48 bytes on), or past the end
	st(b, p, blankWord)
	st(b, p+8, blankWord)
	st(b, p+16, blankWord)
	st(b, p+24, blankWord)
	st(b, p+32, blankWord)
	st(b, p+40, blankWord)
	q := max(p, from+lineTextCol)
	st(b, q, ' '|'/'<<8|'*'<<16|' '<<24|'0'<<32|'x'<<40)
	if digits == 16 {
		binary.BigEndian.PutUint64(b[(q+6)&textMask:], isa.HexDigits8(uint32(raw>>32)))
		binary.BigEndian.PutUint64(b[(q+14)&textMask:], isa.HexDigits8(uint32(raw)))
	} else {
		binary.BigEndian.PutUint64(b[(q+6)&textMask:], isa.HexDigits8(uint32(raw)))
		st(b, q+14, blankWord)
	}
	st(b, q+22, ' '|'*'<<8|'/'<<16|'\n'<<24)
	return q + 26
}

// stepTail lists the last instruction of the code, whose bytes may not
// make the 8 a long one needs.
func (l *lister) stepTail(dst []byte, code []byte, pc int, base uint64) ([]byte, int, *isa.DecodeError) {
	addr := base + uint64(pc)
	inst, err := Decode(code[pc:], addr)
	if err != nil {
		de := err.(*isa.DecodeError)
		n := de.Len
		if n <= 0 {
			n = len(code) - pc
		}
		for k := 0; k+4 <= n; k += 4 { // a truncated tail of under 4 bytes is not listed
			dst = l.pre.appendWordLine(dst, addr+uint64(k), binary.LittleEndian.Uint32(code[pc+k:]))
		}
		return dst, n, de
	}
	return l.appendLine(dst, addr, inst), int(inst.Len), nil
}

// wordTail is a ".word" line past its address column, the digits to be
// filled in: the text padded to the hex column, whose 8 digits are padded
// to 16 (isa.CuobjdumpStyle).
//
// buildWordTail computes wordTail (inittables.go holds its value).
func buildWordTail() (t [72]byte) {
	copy(t[:], ".word 0x")
	copy(t[8:], "                                      ") // up to column 46
	copy(t[46:], " /* 0x00000000         */\n")
	return
}

// appendWordLine appends the ".word 0x...;" line of w at addr (its address
// column from c), which isa.CuobjdumpStyle.AppendLine would print.
func (c *prefixCache) appendWordLine(dst []byte, addr uint64, w uint32) []byte {
	dst = slices.Grow(dst, lineRoom)
	n := len(dst)
	tb := (*textBuf)(dst[n : n+lineRoom])
	p := c.put(tb, addr) // at most 36 bytes: the tail fits in a textBuf
	b := (*[len(wordTail)]byte)(tb[p : p+len(wordTail)])
	*b = wordTail
	// the significant digits, then ';' (0x0 for zero), over the blanks
	digits := max((bits.Len32(w)+3)>>2, 1)
	binary.BigEndian.PutUint64(b[8:], isa.HexDigits8(w)<<(8*(8-digits))|blankWord>>(8*digits))
	b[8+digits] = ';'
	binary.BigEndian.PutUint64(b[52:], isa.HexDigits8(w))
	return dst[:n+p+len(wordTail)]
}

// blankWord is eight blanks as one word.
const blankWord = 0x2020202020202020

// lineCache remembers the tails (putTail) of recent lines by the
// instruction's value: real code repeats instructions (the oracle's sm_1x
// code: 2,794 values in 6,156 instructions), and a tail copied whole costs
// a few stores where printing it costs a few hundred instructions.
// Direct-mapped, so a lookup is one compare. Code that does not repeat
// (random words) would only pay for the lookups and the evicted memory
// caches, so a window of lines that finds few is followed by a pause.
type lineCache struct {
	// made when first used, sized to the code (lineSlots): a listing of a
	// few words does not clear 512 KiB for each of its workers (it cost a
	// fuzzed dis | as round trip a fifth of its time)
	slot         []lineEntry
	shift        uint8 // 64 - log2(len(slot))
	looks, found int   // in the current window
	poor         int   // poor windows in a row since the last good one or rest
	pause        int   // lines left before the cache is used again
	rest         int   // the last pause, 0 after a good window
	hits         int   // lines found in all (for tests)
}

const (
	// at most 512 KiB: on the oracle's sm_1x code listed once, 4,096 slots find
	// 48% of the lines; code that finds few lets it rest (below), so it
	// costs random code little
	lineCacheBits = 12
	lineCacheSize = 1 << lineCacheBits
	lineWindow    = 512 // lines a hit rate is judged on
	// poor windows in a row before the first rest: a cold cache finds few
	// lines at first (the oracle's code listed once: 2, 30, then 217-405
	// of each 512), and a rest taken then lasted the whole listing of the
	// oracle's code (it found 2 lines of 6,153 in all, against 2,934)
	linePoorWindows = 3
	// lines the cache rests after a poor window, doubled after each poor
	// window in a row up to linePauseMax: random code looks it up in
	// under 1% of its lines (each lookup and store misses the memory
	// caches; resting 8,192 lines, 6% of the lines cost about 7% of the
	// time), and code that starts to repeat finds it soon
	linePause    = 8192
	linePauseMax = 1 << 16
)

// lineTailRoom holds the tails of nearly every line (the text padded to
// column 46, the hex column: 72 bytes; longer texts up to 50 bytes).
const lineTailRoom = 118

type lineEntry struct {
	key  uint64 // the value step read
	len  uint8  // the instruction's bytes; 0: empty
	size uint8  // the tail's
	tail [lineTailRoom]byte
}

// use returns the cache when it is to be used for this line of code of n
// bytes (nil when it rests or there is none) and keeps its hit rate.
func (c *lineCache) use(n int) *lineCache {
	if c == nil {
		return nil
	}
	if c.pause > 0 {
		c.pause--
		return nil
	}
	if len(c.slot) < lineCacheSize {
		if k := lineSlotBits(n); len(c.slot) < 1<<k {
			c.slot, c.shift = make([]lineEntry, 1<<k), uint8(64-k)
			pagemem.TouchZeroed(c.slot) // looked up before written
		}
	}
	if c.looks++; c.looks == lineWindow {
		if c.found >= lineWindow/8 {
			c.rest, c.poor = 0, 0
		} else if c.poor++; c.poor >= linePoorWindows {
			// each rest after a poor window doubles the next; after a
			// rest, one poor window is enough
			c.rest = min(max(2*c.rest, linePause), linePauseMax)
			c.pause = c.rest
			c.poor = linePoorWindows - 1
		}
		c.looks, c.found = 0, 0
	}
	return c
}

// lineSlotBits is log2 of the cache's slots for code of n bytes: about a
// slot per instruction it may hold (4 bytes each at least), 64 to
// lineCacheSize.
func lineSlotBits(n int) int {
	return min(max(bits.Len(uint(max(n/4, 1)-1)), 6), lineCacheBits)
}

func (c *lineCache) slotOf(v uint64) *lineEntry {
	return &c.slot[v*0x9e3779b97f4a7c15>>c.shift]
}

func (c *lineCache) find(v uint64) *lineEntry {
	e := c.slotOf(v)
	if e.key == v && e.len != 0 {
		c.found++
		c.hits++
		return e
	}
	return nil
}

func (c *lineCache) put(v uint64, n uint8, tail []byte) {
	if len(tail) > lineTailRoom {
		return
	}
	e := c.slotOf(v)
	e.key, e.len, e.size = v, n, uint8(len(tail))
	copy(e.tail[:], tail)
}

// Archs returns the registry entries of the Tesla targets.
func Archs() []isa.Arch {
	var out []isa.Arch
	for _, sm := range []int{10, 11, 12, 13} {
		out = append(out, isa.Arch{
			Name:             "sm_" + string(rune('0'+sm/10)) + string(rune('0'+sm%10)),
			ISA:              "tesla",
			SMVersion:        sm,
			Disassemble:      Disassemble,
			Assemble:         Assemble,
			WriteListing:     WriteListing,
			WriteListingFrom: WriteListingFrom,
			Graphs:           Graphs,
			WriteJSON:        WriteJSON,
		})
	}
	return out
}
