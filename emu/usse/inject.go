package usse

import (
	"fmt"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// What fault injection (emu/inject) needs of a draw: a Probe called
// around every op an instance runs, and the words each op reads and
// writes, from its lowered operands (never from printed text).

// Probe watches (and may change) a draw op by op. With a probe the draw
// runs one quad at a time, in order: the secondary program, then quads
// 0, 1, ..., the lanes of a quad in turn at each op.
type Probe interface {
	// Before is called before an instance runs an op (its predicate not
	// yet read); After once it ran (not after a fault).
	Before(s *Step)
	After(s *Step)
}

// Step is one op of one instance, as a Probe sees it.
type Step struct {
	Code     *Code
	Op       int   // the op's index in Code (an iteration of a repeated instruction)
	Instance int   // the vertex or fragment; -1: the secondary program
	Lane     int   // its lane in the quad
	Quad     uint8 // the quad's lanes running the op (as it starts)
	T        *Instance
}

// PredWord is the word number of predicate p0..p3 in Step's word lists:
// after the register file's words.
func PredWord(p int) int { return fileWords + p }

// Words is how many words Word and SetWord reach: the register file, then
// the four predicates (0 or 1).
const Words = fileWords + 4

// Word is word w of the instance: a register file word or a predicate.
func (t *Instance) Word(w int) uint32 {
	if w >= fileWords {
		if t.P[(w-fileWords)&3] {
			return 1
		}
		return 0
	}
	return t.File[w]
}

// SetWord sets word w (a predicate holds bit 0 of v).
func (t *Instance) SetWord(w int, v uint32) {
	if w >= fileWords {
		t.P[(w-fileWords)&3] = v&1 != 0
		return
	}
	t.File[w] = v
}

// WordName names word w ("r3", "o0", "i1.z", "p2").
func WordName(w int) string {
	if w >= fileWords {
		return fmt.Sprintf("p%d", w-fileWords)
	}
	return regName(w)
}

// Memory is the memory lda/sta reach (nil: the launch gives none).
func (t *Instance) Memory() *emu.Memory { return t.mem }

func (s *Step) op() *op { return &s.Code.ops[s.Op] }

// Inst is the index of the step's instruction (its address is Inst
// times 8); len(Code.Insts) for the implicit end after the last one.
func (s *Step) Inst() int { return int(s.op().inst) }

// Counted reports whether the op is an instruction of the program (not
// the implicit end after the last one): the ops step limits count.
func (s *Step) Counted() bool { return int(s.op().inst) < len(s.Code.Insts) }

// Runs reports whether the op's predicate holds for the instance.
func (s *Step) Runs() bool { return s.T.predOK(s.op()) }

// Class says what kind of operation the step is.
type Class struct {
	Float  bool // a float data path (f32, f16) computing a value
	Load   bool // lda, or a texture sample
	Store  bool // sta
	Test   bool // writes a predicate
	Branch bool // br, ba, lapc: control flow on a predicate
	Unit   emu.Unit
}

// Class classifies the step's op.
func (s *Step) Class() Class {
	o := s.op()
	var c Class
	float := o.fmt == fF32 || o.fmt == fF16
	switch o.kind {
	case kMad, kVop, kDot, kTest, kTestMask, kDual:
		c.Float, c.Unit = float, emu.UnitFP32
	case kComplex:
		c.Float, c.Unit = float, emu.UnitSFU
	case kCmov, kMov, kLimm, kSaveLink:
		c.Unit = emu.UnitInt
	case kPack:
		c.Unit = emu.UnitSFU // conversions
	case kTestInt, kTestMaskInt, kBitwise, kIntMad, kSop:
		c.Unit = emu.UnitInt
	case kLoad, kSample:
		c.Load, c.Unit = true, emu.UnitLSU
	case kStore:
		c.Store, c.Unit = true, emu.UnitLSU
	case kBranch, kLoadPC:
		c.Branch = true
	}
	c.Test = o.kind == kTest || o.kind == kTestInt
	return c
}

// Pred is the predicate word the op's guard reads (-1: none).
func (s *Step) Pred() int {
	switch p := s.op().pred; {
	case p == 0:
		return -1
	case p == predRpt:
		return PredWord(int(s.op().it & 3))
	case p >= 9:
		return PredWord(int(p-9) & 3)
	default:
		return PredWord(int(p-1) & 3)
	}
}

// wordOf is the file word a channel names (-1: none: a constant, an
// index register, or an indexed word past its bank, which faults).
func (t *Instance) wordOf(reg uint16, index uint8, bank uint16, p part) int {
	if p == pConst {
		return -1
	}
	if index == 0 {
		return int(reg)
	}
	w := int(reg) + 2*int(t.Idx[index-1])
	if w >= int(bank)+bankWords || w >= fileWords {
		return -1
	}
	return w
}

func (t *Instance) dstWord(d *chanDst) int { return t.wordOf(d.reg, d.index, d.bank, d.part) }

func (t *Instance) srcWord(s *chanSrc) int { return t.wordOf(s.reg, s.index, s.bank, s.part) }

// add appends w unless it is -1 or already there.
func add(into []int, w int) []int {
	if w < 0 {
		return into
	}
	for _, x := range into {
		if x == w {
			return into
		}
	}
	return append(into, w)
}

// Writes appends the words the op writes when it runs: its destination
// channels' register words (a load's consecutive words), the predicate a
// test sets.
func (s *Step) Writes(into []int) []int {
	o, t := s.op(), s.T
	switch o.kind {
	case kFault, kNop, kEnd, kEmit, kKill, kDiscard, kBranch, kLoadPC, kSetLink, kStore:
		return into
	case kLoad:
		d := o.dst[0]
		for k := range int(o.words[0]) {
			dk := d
			dk.reg += uint16(k)
			into = add(into, t.dstWord(&dk))
		}
		return into
	case kDual:
		for i := range o.dual {
			d := &o.dual[i]
			for k := range int(d.n) {
				into = add(into, t.dstWord(&d.dst[k]))
			}
		}
		return into
	case kTest, kTestInt:
		into = add(into, PredWord(int(o.words[0]&3)))
		if o.n > 0 {
			into = add(into, t.dstWord(&o.dst[0]))
		}
		return into
	}
	for k := range int(o.n) {
		into = add(into, t.dstWord(&o.dst[k]))
	}
	return into
}

// Reads appends the words the op may read: its sources' channels (for
// some ops more channels than the operation uses: an over-approximation),
// the stored words of sta, the guard's predicate.
func (s *Step) Reads(into []int) []int {
	o, t := s.op(), s.T
	into = add(into, s.Pred())
	srcs := func(nsrc, nch int) {
		for i := range nsrc {
			for k := range nch {
				into = add(into, t.srcWord(&o.src[i][k]))
			}
		}
	}
	switch o.kind {
	case kFault, kNop, kEnd, kEmit, kKill, kDiscard, kLimm, kSaveLink, kBranch:
	case kLoadPC:
	case kDot:
		srcs(2, int(o.aux))
	case kComplex:
		srcs(1, 1)
	case kTest, kTestInt:
		srcs(2, 1)
	case kTestMask, kTestMaskInt:
		srcs(2, 4)
	case kBitwise, kIntMad, kSop, kSetLink:
		srcs(3, 1)
	case kSample:
		srcs(1, 3)
		srcs(2, 1)
	case kLoad:
		srcs(3, 1)
	case kStore:
		srcs(3, 1)
		d := o.dst[0]
		for k := range int(o.words[0]) {
			dk := d
			dk.reg += uint16(k)
			into = add(into, t.dstWord(&dk))
		}
	case kDual:
		for i := range o.dual {
			d := &o.dual[i]
			for j := range int(d.nsrc) {
				for k := range int(max(d.nch, d.n, 1)) {
					into = add(into, t.srcWord(&d.src[j][k]))
				}
			}
		}
	default:
		srcs(int(o.nsrc), max(int(o.n), 1))
	}
	return into
}

// StoreValue is the first register word sta stores (-1: not a store).
func (s *Step) StoreValue() int {
	if o := s.op(); o.kind == kStore {
		return s.T.dstWord(&o.dst[0])
	}
	return -1
}

// StoreAddress is the register word of sta's address source 0 (-1: not
// a store, or a constant).
func (s *Step) StoreAddress() int {
	if o := s.op(); o.kind == kStore {
		return s.AddressWord()
	}
	return -1
}

// AddressWord is the register word of lda's or sta's address source 0
// (-1: another op, or a constant).
func (s *Step) AddressWord() int {
	if o := s.op(); o.kind == kLoad || o.kind == kStore {
		return s.T.srcWord(&o.src[0][0])
	}
	return -1
}

// Addr is the byte address of instruction i of the code.
func (c *Code) Addr(i int) uint64 { return uint64(i) * usse.Len }

// OpInst is the instruction index of op i.
func (c *Code) OpInst(i int) int { return int(c.ops[i].inst) }

// StepOp is what Step and Code tell of one op for a listing: its
// instruction's address and text.
func (c *Code) Where(i int) (uint64, string) {
	inst := int(c.ops[i].inst)
	if inst >= len(c.Insts) {
		return c.Addr(inst), "(end)"
	}
	return c.Addr(inst), c.Text(inst)
}

// MemRange is the bytes lda or sta accesses when it runs: its address
// and length (ok false: not a memory op).
func (s *Step) MemRange() (addr uint64, n int, store, ok bool) {
	o, t := s.op(), s.T
	if o.kind != kLoad && o.kind != kStore {
		return 0, 0, false, false
	}
	addr = uint64(t.raw(&o.src[0][0])) + uint64(t.raw(&o.src[1][0])) + uint64(t.raw(&o.src[2][0]))
	return addr & 0xffffffff, int(o.words[1]) * int(o.words[2]), o.kind == kStore, true
}

// OutputWords are the register words a launch's outputs read from each
// instance once it ends.
func (p *Program) OutputWords(l *Launch) ([]int, error) {
	plan, err := p.outputPlan(l, 0)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, it := range plan.items {
		for i := range it.chans {
			out = add(out, int(it.chans[i].reg))
		}
	}
	return out, nil
}

// ReadsQuad reports whether the op reads the words of other lanes of its
// quad (derivatives: the same source words, of the neighbour).
func (s *Step) ReadsQuad() bool {
	o := s.op()
	return (o.kind == kVop || o.kind == kTestMask || o.kind == kTest) && (o.aux == vDsx || o.aux == vDsy)
}

// Jump reports whether the op is a br or ba (a branch whose target is in
// the code; lapc's is the link register).
func (s *Step) Jump() bool { return s.op().kind == kBranch }

// BranchTarget is the instruction a br or ba goes to when taken (-1: none).
func (s *Step) BranchTarget() int {
	if o := s.op(); o.kind == kBranch && int(o.aux) < len(s.Code.ops) {
		return int(s.Code.ops[o.aux].inst)
	}
	return -1
}

// Redirect makes the step's branch go to instruction inst when taken, for
// every lane of its quad that takes it after this call, until undo is
// called; an inst outside the code makes control leave the program (a
// fault).
func (s *Step) Redirect(inst int) (undo func()) {
	o := s.op()
	old := o.aux
	op := s.Code.opOf(inst)
	if op < 0 || inst >= len(s.Code.Insts) {
		op = len(s.Code.ops)
	}
	o.aux = uint32(op)
	return func() { o.aux = old }
}
