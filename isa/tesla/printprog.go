package tesla

import (
	"encoding/binary"
	mbits "math/bits"
	"sync"

	"github.com/gpuisa/gpuisa/isa"
)

// The printer runs a program made once per form from the form's pieces
// (spec.txt's template, the same pieces the decoder and assembler read):
// the literal texts are packed into words stored whole, each one attached
// to the step before it; flags, enumerations, registers and the common
// operands become steps that read their bits with the form's class already
// known and store their text in place; the rest call the general putPiece
// and appendOperand. A text is written into textRoom bytes of room
// reserved once, so no step checks for space.

// words16 is a text of up to 16 bytes as two little-endian words.
type words16 struct {
	lo, hi uint64
	n      uint8
}

func pack16(s string) words16 {
	var b [16]byte
	copy(b[:], s)
	return words16{binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:]), uint8(len(s))}
}

// put stores t at b[p:] and returns the position after it.
func (t *words16) put(b []byte, p int) int {
	st64(b, p, t.lo)
	st64(b, p+8, t.hi)
	return p + int(t.n)
}

// st64 stores w's 8 bytes at b[p:], least significant first (b has
// textRoom bytes of room: a store may reach past the text).
func st64(b []byte, p int, w uint64) { binary.LittleEndian.PutUint64(b[p:p+8], w) }

// stepKind says what one step of a print program does.
type stepKind uint8

const (
	stLit     stepKind = iota // nothing but the text after it
	stMnem                    // the whole mnemonic, from its table
	stFlag                    // text when field f is want (flags, {join})
	stCC                      // .C0...C3 when the instruction writes a condition register
	stEnum                    // opts[field f]
	stReg                     // the register in field f
	stDstLong                 // o[f_dst] or the register in f_dst
	stS1                      // g [..] when s1 is shared, else the register in field f
	stS2Long                  // c[bank][A+s2] when c2, else R(s2)
	stS3Long                  // c[bank][A+s3] when c3, else R(s3)
	stS2Short                 // c[0x0][ss2] when sc2, else R(ss2)
	stHex                     // field f in hex
	stImm                     // the immediate class's 32-bit immediate in hex
	stGuard                   // the guard: lead, C<pr>.<cond>, trail; nothing when always
	stPiece                   // any other mnemonic piece: putPiece
	stOperand                 // any other operand: appendOperand
)

// progStep prints one piece and the literal text after it.
type progStep struct {
	kind stepKind
	// register halves: R0L..R63H when half is 1, or when wide is 1 and
	// field hf's low bit is 0
	half, wide uint64
	hf         isa.Field
	f          isa.Field // the field the step reads
	want       uint64    // stFlag: the field's value that prints text
	text       words16   // stFlag, stCC: the text (stGuard: lead; stCC: ".C")
	trail      words16   // stGuard: what follows the condition
	after      words16   // the literal text that follows the step
	opts       []words16 // stEnum
	mnem       *mnemTable
	p          *piece // stPiece, stOperand
}

// printProg prints one form.
type printProg struct {
	f     *form
	steps []progStep
}

// printProgs are made the first time a text is printed.
var printProgs = sync.OnceValue(func() *[len(forms)]printProg {
	var t [len(forms)]printProg
	for fi := range forms {
		t[fi] = compileForm(uint16(fi))
	}
	return &t
})

// condTexts are condNames packed.
var condTexts = func() (t [32]words16) {
	for i, n := range condNames {
		t[i] = pack16(n)
	}
	return
}()

// memTails close a g[] or c[] address: "]" and the access size's suffix.
var memTails = func() (t [4]uint64) {
	for i, s := range sharedTypes {
		t[i] = isa.TextWord("]" + s)
	}
	return
}()

func compileForm(fi uint16) printProg {
	f := &forms[fi]
	pg := printProg{f: f}
	// attach appends a literal to the last step's text after it, or
	// starts a step for it when it does not fit
	attach := func(s string) {
		if last := len(pg.steps) - 1; last >= 0 {
			a := &pg.steps[last].after
			if int(a.n)+len(s) <= 16 {
				*a = pack16(unpack16(*a) + s)
				return
			}
		}
		if len(s) > 16 {
			pg.steps = append(pg.steps, progStep{kind: stPiece, p: &piece{kind: pieceLit, text: s}})
			return
		}
		pg.steps = append(pg.steps, progStep{kind: stLit, after: pack16(s)})
	}
	if t := newMnemTable(fi); t != nil {
		pg.steps = append(pg.steps, progStep{kind: stMnem, mnem: t})
	} else {
		for i := range f.mnem {
			if p := &f.mnem[i]; p.kind == pieceLit {
				attach(p.text)
			} else if s, ok := compilePiece(f, p); ok {
				pg.steps = append(pg.steps, s)
			}
		}
	}
	if len(f.opnds) > 0 {
		attach(" ")
	}
	for i := range f.opnds {
		if p := &f.opnds[i]; p.kind == pieceLit {
			attach(p.text)
		} else if s, ok := compilePiece(f, p); ok {
			pg.steps = append(pg.steps, s)
		}
	}
	attach(";")
	return pg
}

// compilePiece makes the step of a piece other than a literal; false when
// the form never prints it.
func compilePiece(f *form, p *piece) (progStep, bool) {
	s := progStep{kind: stPiece, p: p}
	switch p.kind {
	case pieceJoin:
		if f.class != ClassLong {
			return s, false
		}
		s = progStep{kind: stFlag, f: f_mark, want: 2, text: pack16(".S")}
	case pieceCC:
		s = progStep{kind: stCC}
	case pieceFlag, pieceNotFlag:
		if len(p.text) <= 16 {
			s = progStep{kind: stFlag, f: p.field, text: pack16(p.text)}
			if p.kind == pieceFlag {
				s.want = 1
			}
		}
	case pieceEnum:
		if opts, ok := packOpts(p.opts); ok && len(opts) == 1<<p.field.Width {
			s = progStep{kind: stEnum, f: p.field, opts: opts}
		}
	case pieceOperand:
		s = compileOperand(f, p)
	}
	return s, true
}

func unpack16(t words16) string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], t.lo)
	binary.LittleEndian.PutUint64(b[8:], t.hi)
	return string(b[:t.n])
}

func packOpts(opts []string) ([]words16, bool) {
	out := make([]words16, len(opts))
	for i, o := range opts {
		if len(o) > 16 {
			return nil, false
		}
		out[i] = pack16(o)
	}
	return out, true
}

// compileOperand makes the step of an operand piece: what appendOperand
// does for the form's class, for the common kinds.
func compileOperand(f *form, p *piece) progStep {
	s := progStep{kind: stOperand, p: p, hf: p.field}
	if p.half {
		s.half = 1
	} else if p.wide {
		s.wide = 1
	}
	long := f.class == ClassLong
	switch p.opnd {
	case opnd_dst:
		if long {
			s.kind = stDstLong
		} else {
			s.kind, s.f = stReg, f_sdst
		}
	case opnd_s1:
		s.kind, s.f = stS1, f_ss1
		if long {
			s.f = f_s1
		}
	case opnd_s2:
		switch f.class {
		case ClassLong:
			s.kind = stS2Long
		case ClassImm:
			s.kind = stImm
		default:
			s.kind = stS2Short
		}
	case opnd_s3:
		s.kind = stS3Long
	case opnd_s3r:
		s.kind, s.f = stReg, f_s3
	case opnd_s1r:
		s.kind, s.f = stReg, f_s1
	case opnd_s2r:
		s.kind, s.f = stReg, f_s2
	case opnd_rdst:
		s.kind, s.f = stReg, f_dst
	case opnd_imm:
		s.kind = stImm
	case opnd_hex:
		s.kind, s.f = stHex, p.field
	case opnd_shc:
		s.kind, s.f = stHex, f_s2
	case opnd_barcnt:
		s.kind, s.f = stHex, f_barcnt
	case opnd_adaimm:
		s.kind, s.f = stHex, f_adaimm
	case opnd_guard:
		s.kind, s.text, s.trail = stGuard, pack16(" (C"), pack16(")")
	case opnd_fcond:
		s.kind, s.text, s.trail = stGuard, pack16("C"), pack16(", ")
	case opnd_fcond0:
		s.kind, s.text, s.trail = stGuard, pack16("C"), pack16("")
	}
	return s
}

// putText stores inst's text (with the final ';') at b[p:], which has
// textRoom bytes of room, and returns the position after it.
func (pg *printProg) putText(b []byte, p int, v uint64) int {
	for k := range pg.steps {
		s := &pg.steps[k]
		switch s.kind {
		case stLit:
		case stMnem:
			t := s.mnem
			t.once.Do(t.build)
			w := &t.texts[t.index(v)]
			st64(b, p, w[0])
			st64(b, p+8, w[1])
			st64(b, p+16, w[2])
			p += int(w[2] >> 56)
		case stFlag:
			st64(b, p, s.text.lo)
			st64(b, p+8, s.text.hi)
			if s.f.Get(v) == s.want {
				p += int(s.text.n)
			}
		case stCC:
			if f_ccw.Get(v) != 0 {
				st64(b, p, '.'|'C'<<8|('0'+f_ccr.Get(v))<<16)
				p += 3
			}
		case stEnum:
			p = s.opts[s.f.Get(v)].put(b, p)
		case stReg:
			p = s.putReg(b, p, s.f.Get(v), v)
		case stDstLong:
			if f_odst.Get(v) != 0 {
				st64(b, p, 'o'|'['<<8)
				p = putHex(b, p+2, f_dst.Get(v))
				b[p] = ']'
				p++
			} else {
				p = s.putReg(b, p, f_dst.Get(v), v)
			}
		case stS1:
			p = s.putS1(b, p, pg.f.class, v)
		case stS2Long:
			if f_c2.Get(v) != 0 {
				p = putConst(b, p, f_bank.Get(v), longAreg(v), f_ainc.Get(v), f_s2.Get(v), 3)
			} else {
				p = s.putReg(b, p, f_s2.Get(v), v)
			}
		case stS3Long:
			if f_c3.Get(v) != 0 {
				p = putConst(b, p, f_bank.Get(v), longAreg(v), f_ainc.Get(v), f_s3.Get(v), 3)
			} else {
				p = s.putReg(b, p, f_s3.Get(v), v)
			}
		case stS2Short:
			if f_sc2.Get(v) != 0 {
				p = putConst(b, p, 0, 0, 0, f_ss2.Get(v), 3)
			} else {
				p = s.putReg(b, p, f_ss2.Get(v), v)
			}
		case stHex:
			p = putHex(b, p, s.f.Get(v))
		case stImm:
			p = putHex(b, p, immValue(v))
		case stGuard:
			cond, pr := f_cond.Get(v), f_pr.Get(v)
			if cond != condAlways || pr != 0 {
				p = s.text.put(b, p)
				st64(b, p, '0'+pr|'.'<<8)
				p = condTexts[cond].put(b, p+2)
				p = s.trail.put(b, p)
			}
		case stPiece:
			p += len(putPiece(b[p:p], pg.f, s.p, v))
		case stOperand:
			half := s.half|s.wide&^s.hf.Get(v)&1 != 0
			p += len(appendOperand(b[p:p], pg.f.class, s.p, half, v))
		}
		p = s.after.put(b, p)
	}
	return p
}

// putReg stores register r (a half when the step says so).
func (s *progStep) putReg(b []byte, p int, r, v uint64) int {
	h := s.half | s.wide&^s.hf.Get(v)&1
	w := regWords[h<<7|r&127]
	st64(b, p, w)
	return p + int(w>>56)
}

// putS1 stores source 1: a shared-memory operand or a register.
func (s *progStep) putS1(b []byte, p int, c Class, v uint64) int {
	if !s1IsShared(c, v) {
		return s.putReg(b, p, s.f.Get(v), v)
	}
	m := shared1(c, v)
	st64(b, p, 'g'|' '<<8)
	inc := uint64(0)
	if m.inc {
		inc = 1
	}
	return putAddr(b, p+2, m.areg, inc, m.idx, m.typ)
}

// putAddr stores [A<areg>+idx] (+++ when inc) and the access size's
// suffix of typ (appendAddr and sharedTypes); areg < 8.
func putAddr(b []byte, p int, areg, inc, idx, typ uint64) int {
	if areg == 0 {
		b[p] = '['
		p++
	} else {
		st64(b, p, '['|'A'<<8|('0'+areg&7)<<16|'+'<<24|'+'<<32|'+'<<40)
		p += 4 + 2*int(inc&1)
	}
	p = putHex(b, p, idx)
	w := memTails[typ&3]
	st64(b, p, w)
	return p + int(w>>56)
}

// putConst stores c[bank][address] (appendConst) for a bank < 16.
func putConst(b []byte, p int, bank, areg, inc, idx, typ uint64) int {
	st64(b, p, 'c'|'['<<8|'0'<<16|'x'<<24|uint64(hexDigits[bank&15])<<32|']'<<40)
	return putAddr(b, p+6, areg, inc, idx, typ)
}

// putHex stores x as 0x and its minimal hex digits (hexNum).
func putHex(b []byte, p int, x uint64) int {
	if x>>32 != 0 {
		return p + len(hexNum(b[p:p], x))
	}
	n := (mbits.Len32(uint32(x)|1) + 3) >> 2
	st64(b, p, '0'|'x'<<8)
	binary.BigEndian.PutUint64(b[p+2:p+10], isa.HexDigits8(uint32(x))<<(8*(8-n)&63))
	return p + 2 + n
}

// A mnemonic depends on a few bits of the instruction (its flags,
// enumerations, {join} and {cc}); a form whose mnemonic reads at most
// mnemBits of them, in at most 4 runs, prints it from a table of its
// texts by those bits, made the first time the form is printed by the
// pieces' own printer (appendMnemonic).
type mnemTable struct {
	once  sync.Once
	form  uint16
	runs  [4]bitRun  // unused runs have mask 0
	texts []mnemText // by index
}

// bitRun moves the bits of v at pos (mask) to shift of the index.
type bitRun struct {
	pos, shift uint8
	mask       uint64
}

// mnemText is a mnemonic of at most 23 bytes, little-endian, with its
// length in the top byte of the last word.
type mnemText [3]uint64

const mnemBits = 10

func (t *mnemTable) index(v uint64) uint64 {
	r := &t.runs
	return v>>r[0].pos&r[0].mask<<r[0].shift | v>>r[1].pos&r[1].mask<<r[1].shift |
		v>>r[2].pos&r[2].mask<<r[2].shift | v>>r[3].pos&r[3].mask<<r[3].shift
}

// newMnemTable returns f's table, not yet filled, or nil when f's
// mnemonic is to be printed piece by piece.
func newMnemTable(fi uint16) *mnemTable {
	f := &forms[fi]
	var bits uint64 // the bits the mnemonic reads
	n := 0          // the longest text
	for i := range f.mnem {
		switch p := &f.mnem[i]; p.kind {
		case pieceLit:
			n += len(p.text)
		case pieceJoin:
			if f.class == ClassLong {
				bits |= f_mark.Mask()
				n += 2
			}
		case pieceCC:
			bits |= f_ccw.Mask() | f_ccr.Mask()
			n += 3
		case pieceFlag, pieceNotFlag:
			bits |= p.field.Mask()
			n += len(p.text)
		case pieceEnum:
			bits |= p.field.Mask()
			m := 0
			for _, o := range p.opts {
				m = max(m, len(o))
			}
			n += m
		default:
			return nil
		}
	}
	bits &^= f.mask // bits the form fixes
	if n > 23 || mbits.OnesCount64(bits) > mnemBits {
		return nil
	}
	t := &mnemTable{form: fi}
	shift := uint8(0)
	for r := 0; bits != 0; r++ {
		if r == len(t.runs) {
			return nil
		}
		pos := uint8(mbits.TrailingZeros64(bits))
		width := uint8(mbits.TrailingZeros64(^(bits >> pos)))
		t.runs[r] = bitRun{pos: pos, shift: shift, mask: 1<<width - 1}
		shift += width
		bits &^= (1<<width - 1) << pos
	}
	return t
}

// build fills the table: each index's bits put back in place over the
// bits the form fixes, printed by the mnemonic's pieces.
func (t *mnemTable) build() {
	size := 1
	for _, r := range t.runs {
		size <<= mbits.OnesCount64(r.mask)
	}
	t.texts = make([]mnemText, size)
	buf := make([]byte, 0, textRoom)
	for x := range t.texts {
		v := forms[t.form].value
		for _, r := range t.runs {
			v |= uint64(x) >> r.shift & r.mask << r.pos
		}
		s := appendMnemonic(buf[:0], Inst{Raw: v, Form: t.form})
		var w [24]byte
		copy(w[:], s)
		w[23] = byte(len(s))
		t.texts[x] = mnemText{binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:]), binary.LittleEndian.Uint64(w[16:])}
	}
}
