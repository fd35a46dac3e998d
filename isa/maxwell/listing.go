package maxwell

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"slices"

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
	l := newLayout(code, base, sm, false)
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
	if slices.Contains(misfit, true) {
		// every line should be col+25 bytes; if one ever is not, lay the
		// listing out again serially rather than return a corrupt one
		dst = dst[:start]
		for c := range l.chunks {
			dst = l.lines(dst, &l.chunks[c], l.chunks[c].first, l.chunks[c].last)
		}
	}
	return dst, l.errs
}

// WriteListing writes the listing Disassemble returns to w without holding
// all of it: the texts are printed first (they fix the hex column), then the
// lines are laid out a block at a time on every core while the previous
// blocks are written. Memory stays near the size of the texts, a fraction of
// the listing's. err is w's first write error.
func WriteListing(w io.Writer, code []byte, base uint64, sm int) (errs []*isa.DecodeError, err error) {
	l := newLayout(code, base, sm, true)
	if _, err := w.Write(l.appendHeader(nil, sm)); err != nil {
		return l.errs, err
	}
	const blockBundles = 2048 // ≈1 MB of listing for random code
	type block struct {
		ch       *chunk
		from, to int
	}
	var blocks []block
	for c := range l.chunks {
		ch := &l.chunks[c]
		for b := ch.first; b < ch.last; b += blockBundles {
			blocks = append(blocks, block{ch, b, min(b+blockBundles, ch.last)})
		}
	}
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
				return l.errs, err
			}
		}
	}
	pending.Wait()
	return l.errs, nil
}

// layout is pass 1's result: every text, and the column of the hex comments.
type layout struct {
	code     []byte
	base     uint64
	n        int // whole bundles
	chunks   []chunk
	col      int    // where every "/* 0x" starts
	noteCol  int    // where an operand printed as ??? and the rest of its line start (alignQuestions), or 0
	blankRow []byte // col blanks
	errs     []*isa.DecodeError
}

// newLayout prints the texts; capErrs keeps at most isa.MaxListedErrors
// decode errors per chunk (a stream's memory must not grow per error).
func newLayout(code []byte, base uint64, sm int, capErrs bool) *layout {
	l := &layout{code: code, base: base, n: len(code) / BundleSize}
	workers := runtime.GOMAXPROCS(0)
	if l.n < 4096 {
		workers = 1
	}
	l.chunks = make([]chunk, workers)
	per := (l.n + workers - 1) / workers
	var wg safeGroup
	for c := range l.chunks {
		ch := &l.chunks[c]
		ch.first, ch.capErrs = min(c*per, l.n), capErrs
		ch.last = min((c+1)*per, l.n)
		wg.Go(func() { ch.texts(code, base, sm) })
	}
	wg.Wait()
	maxw := 0
	quest := false
	for c := range l.chunks {
		maxw = max(maxw, l.chunks[c].maxw)
		l.errs = append(l.errs, l.chunks[c].errs...)
		quest = quest || l.chunks[c].quests > 0
	}
	l.col = 8 + 19 + maxw + 2
	if quest {
		l.col = l.alignQuestions()
	}
	l.blankRow = bytes.Repeat([]byte{' '}, l.col)
	if rest := len(code) % BundleSize; rest != 0 {
		l.errs = append(l.errs, &isa.DecodeError{Addr: base + uint64(l.n*BundleSize), Len: rest, Err: isa.ErrTruncated,
			Detail: "Unaligned instruction found"})
	}
	return l
}

// alignQuestions lays out the lines with an operand nvdisasm prints as ???
// (an out-of-range scoreboard, the register after R255 of a pair): nvdisasm
// aligns that operand, and the rest of its line, in a column of its own,
// where the widest other line would end in -raw layout (or where the
// farthest such operand lies in -raw layout); such a line's hex comment then
// comes one blank after it. It sets that column (lines puts the texts
// there) and returns the hex column. Random words only: compiled code has
// no ??? operand.
func (l *layout) alignQuestions() int {
	// raw columns are 8+19 plus address+text
	plain, far, rest := 0, 0, 0
	l.eachLine(func(al int, text []byte, q int) {
		if q >= 0 {
			far, rest = max(far, al+q), max(rest, len(text)-q)
		} else {
			plain = max(plain, al+len(text))
		}
	})
	l.noteCol = 8 + 19 + max(plain, far)
	return max(8+19+plain+2, l.noteCol+rest+1)
}

// alignRawQuestions is alignQuestions for ListRaw's texts (ends and leads
// per instruction, width the widest address+text of the other lines).
func alignRawQuestions(text []byte, ends, leads []int, base uint64, width int) ([]byte, int) {
	far, rest := 0, 0
	start := 0
	for i, end := range ends {
		if q := questAt(text[start:end]); q >= 0 {
			far, rest = max(far, addrLen(base+uint64(i/3*BundleSize+8+8*(i%3)))+q), max(rest, end-start-q)
		}
		start = end
	}
	noteCol := 8 + 19 + max(width, far)
	out := make([]byte, 0, len(text)+len(ends)*8)
	start = 0
	for i, end := range ends {
		t := text[start:end]
		start = end
		if q := questAt(t); q >= 0 {
			al := addrLen(base + uint64(i/3*BundleSize+8+8*(i%3)))
			out = append(out, t[:q]...)
			out = blanks(out, noteCol-(8+al+19-leads[i]+q))
			t = t[q:]
		}
		out = append(out, t...)
		ends[i] = len(out)
	}
	return out, max(8+19+width+2, noteCol+rest+1)
}

// eachLine calls fn with every instruction's text, address width and
// where its ??? operand starts (questAt).
func (l *layout) eachLine(fn func(al int, text []byte, q int)) {
	for c := range l.chunks {
		ch := &l.chunks[c]
		start := 0
		for i, end := range ch.ends {
			b := ch.first + i/3
			fn(addrLen(l.base+uint64(b*BundleSize+8+8*(i%3))), ch.text[start:end], int(ch.quest[i])-1)
			start = int(end)
		}
	}
}

// questAt is where the first operand printed as ??? starts in an
// instruction's text (not a modifier: ".???3"), or -1.
func questAt(text []byte) int {
	k := bytes.Index(text, []byte(" ???"))
	if k < 0 {
		return -1
	}
	return k + 1
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
	text        []byte
	ends        []uint32
	lead        []uint8  // guard length ("@!P0 " is 5)
	quest       []uint16 // 1 + questAt of the text, 0 for none
	quests      int      // texts with a ??? operand
	maxw        int
	errs        []*isa.DecodeError
	capErrs     bool
}

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
	ok        bool
}

// The cache costs more than it saves on code that does not repeat (random
// words): it is used in windows of cacheWindow bundles and switched off for
// the next window when fewer than 1 in 16 lookups hit; every 8th window
// probes again.
const cacheWindow = 512

func (ch *chunk) texts(code []byte, base uint64, sm int) {
	n := ch.last - ch.first
	// locals, not ch's fields, in the loop: they stay in registers
	text := make([]byte, 0, n*3*64) // room for long texts: growing copies the whole buffer
	ends := make([]uint32, 0, n*3)
	lead := make([]uint8, 0, n*3)
	quest := make([]uint16, 0, n*3)
	quests := 0
	maxw := 0
	cache := new(textCache)
	useCache, hits, window := true, 0, 0
	for b := ch.first; b < ch.last; b++ {
		if (b-ch.first)%cacheWindow == 0 && b > ch.first {
			window++
			useCache = hits*16 >= 3*cacheWindow || window%8 == 0
			hits = 0
		}
		bundle := code[b*BundleSize : b*BundleSize+BundleSize]
		ctrl := binary.LittleEndian.Uint64(bundle)
		// the address width is the same for a bundle's three instructions,
		// unless an unaligned base puts a 0x10000 boundary among them
		alFirst, alLast := addrLen(base+uint64(b*BundleSize+8)), addrLen(base+uint64(b*BundleSize+24))
		for s := 0; s < 3; s++ {
			addr := base + uint64(b*BundleSize+8+8*s)
			al := alFirst
			if alFirst != alLast {
				al = addrLen(addr)
			}
			w := binary.LittleEndian.Uint64(bundle[8+8*s:])
			cf := CtrlField(ctrl, s)
			start := len(text)
			var slot *cachedText
			if useCache {
				slot = &cache[(w^w>>29^uint64(cf)*0x9e3779b1)%uint64(len(cache))]
			}
			if slot != nil && slot.ok && slot.word == w && slot.ctrl == cf {
				hits++
				text = append(text, text[slot.off:slot.off+slot.size]...)
				maxw = max(maxw, al+int(slot.size))
				ends = append(ends, uint32(len(text)))
				lead = append(lead, slot.lead)
				quest = append(quest, slot.quest)
				quests += int(min(slot.quest, 1))
				continue
			}
			inst, err := Decode(w, cf, sm, addr)
			var g int
			var q uint16
			if err != nil {
				if ch.capErrs {
					ch.errs = isa.ErrorsCapped(ch.errs, err.(*isa.DecodeError))
				} else {
					ch.errs = append(ch.errs, err.(*isa.DecodeError))
				}
				text = append(text, ".word "...)
				text = isa.AppendHexNum(text, w)
			} else {
				text = appendGuard(text, inst)
				g = len(text) - start
				text = appendBody(text, inst, addr)
				if k := questAt(text[start:]); k >= 0 {
					q = uint16(k + 1)
					quests++
				}
				if slot != nil && forms[inst.form].attrs&attrPCRel == 0 {
					*slot = cachedText{w, cf, uint32(start), uint32(len(text) - start), q, uint8(g), true}
				}
			}
			// nvdisasm puts every hex comment in one column: two blanks after the
			// longest address+guard+text (the guard hangs left of the mnemonic)
			maxw = max(maxw, al+len(text)-start)
			ends = append(ends, uint32(len(text)))
			lead = append(lead, uint8(g))
			quest = append(quest, q)
		}
	}
	ch.text, ch.ends, ch.lead, ch.quest, ch.quests, ch.maxw = text, ends, lead, quest, quests, maxw
}

func addrLen(addr uint64) int {
	n := 8 // "/*" 4 digits "*/"
	for a := addr >> 16; a != 0; a >>= 4 {
		n++
	}
	return n
}

// lines lays out bundles [first, last) of ch. Every line is col+25 bytes,
// so each is filled from a row of blanks, then the address, text and hex
// comment are put in their places.
func (l *layout) lines(dst []byte, ch *chunk, first, last int) []byte {
	code, base, col := l.code, l.base, l.col
	lineLen := col + len("/* 0x0000000000000000 */\n")
	n := len(dst)
	dst = slices.Grow(dst, (last-first)*4*lineLen)[:n+(last-first)*4*lineLen]
	out := dst[n:]
	start := 0
	if first > ch.first {
		start = int(ch.ends[(first-ch.first)*3-1])
	}
	for b := first; b < last; b++ {
		bundle := code[b*BundleSize : b*BundleSize+BundleSize]
		ln := out[:lineLen]
		copy(ln, l.blankRow)
		putHexComment(ln[col:], binary.LittleEndian.Uint64(bundle))
		out = out[lineLen:]
		for s := 0; s < 3; s++ {
			i := (b-ch.first)*3 + s
			addr := base + uint64(b*BundleSize+8+8*s)
			text := ch.text[start:ch.ends[i]]
			start = int(ch.ends[i])
			g := int(ch.lead[i])
			ln := out[:lineLen]
			copy(ln, l.blankRow)
			isa.AppendAddr(ln[8:8], addr)
			at := 8 + addrLen(addr) + 19 - g
			if q := int(ch.quest[i]) - 1; q >= 0 && l.noteCol > 0 {
				// the ??? operand and the rest in their column
				copy(ln[at:col], text[:q])
				copy(ln[l.noteCol:col], text[q:])
			} else {
				copy(ln[at:col], text)
			}
			putHexComment(ln[col:], binary.LittleEndian.Uint64(bundle[8+8*s:]))
			out = out[lineLen:]
		}
	}
	return dst
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
	var errs []*isa.DecodeError
	var text []byte
	ends := make([]int, n*3)
	leads := make([]int, n*3)
	width := 0
	for i := range ends {
		addr := base + uint64(i/3*BundleSize+8+8*(i%3))
		off := i/3*BundleSize + 8 + 8*(i%3)
		start := len(text)
		inst, err := Decode(binary.LittleEndian.Uint64(code[off:]), CtrlField(binary.LittleEndian.Uint64(code[i/3*BundleSize:]), i%3), sm, addr)
		if err != nil {
			errs = append(errs, err.(*isa.DecodeError))
			text = append(text, ".word "...)
			text = isa.AppendHexNum(text, binary.LittleEndian.Uint64(code[off:]))
		} else {
			text = appendGuard(text, inst)
			leads[i] = len(text) - start
			text = appendBody(text, inst, addr)
		}
		if closes != nil && closes[i] {
			if k := len(text); k > start && text[k-1] == ';' {
				text = text[:k-1]
			}
			text = append(text, "        }"...)
		} else if opts.Raw || questAt(text[start:]) < 0 {
			width = max(width, addrLen(addr)+len(text)-start)
		}
		ends[i] = len(text)
	}
	col := 8 + 19 + width + 2
	if !opts.Raw && bytes.Contains(text, []byte(" ???")) {
		text, col = alignRawQuestions(text, ends, leads, base, width)
	}
	pendingHex := -1
	start := 0
	for b := 0; b < n; b++ {
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
			t := text[start:ends[i]]
			start = ends[i]
			g := leads[i]
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
			dst = append(dst, t...)
			switch {
			case opts.NoHex:
				dst = append(dst, '\n')
			case closes != nil && closes[i]:
				dst = append(dst, '\n')
				pendingHex = off
			default:
				dst = blanks(dst, col-(len(dst)-lineStart))
				dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[off:]))
			}
		}
	}
	if pendingHex >= 0 {
		dst = blanks(dst, col)
		dst = appendHexComment(dst, binary.LittleEndian.Uint64(code[pendingHex:]))
	}
	if rest := len(code) % BundleSize; rest != 0 {
		errs = append(errs, &isa.DecodeError{Addr: base + uint64(n*BundleSize), Len: rest, Err: isa.ErrTruncated,
			Detail: "Unaligned instruction found"})
	}
	return dst, errs
}
