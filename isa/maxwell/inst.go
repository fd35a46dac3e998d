// Package maxwell disassembles and assembles NVIDIA Maxwell (sm_50, sm_52,
// sm_53) machine code exactly as NVIDIA's nvdisasm prints it.
//
// Code comes in 32-byte bundles: a control word, then three 64-bit
// instructions. Each instruction has a 21-bit field of the control word
// (stall, yield, barriers, wait mask, operand reuse) that changes both the text
// (.reuse, texture phase, "X;" versus "X ;") and whether nvdisasm accepts it.
//
// Every instruction form is described once in spec.txt; `go generate` turns it
// into tables.go, which the decoder, printer and assembler share, and into
// operands_gen.go, the typed operand view.
//
// # Decoding
//
// Decoder{SM: 52}.Decode(code, addr) decodes the instruction at address addr
// of code, with the control field its bundle gives it: the shape every ISA
// package of gpuisa shares (tesla, fermi and usse have a Decoder too).
// Decode(word, ctrl, sm, addr) is the word-level decoder under it.
//
// # Operands
//
// Inst.Operands(pc) gives the instruction as typed values in the shape of
// golang.org/x/arch's Inst{Op, Args}: the mnemonic, the guard predicate, the
// modifiers (Mod: named as spec.txt's flags and tables name them, with the
// field's value) and the operands (Arg: registers with their width, RZ;
// predicates with negation, PT; integer immediates with their value, sign
// and field width; float immediates with their encoding; constant-bank
// references c[bank][Rn+offset]; memory addresses with their space and
// access size; branch targets; special registers). Every value is read from
// its encoded field as the spec declares it, so it does not depend on how
// nvdisasm prints it: IADD3's 20-bit immediate 0xffff0 is -16 (nvdisasm
// prints the raw field), and 0x10.NEG is 16 with Neg set.
package maxwell

import "github.com/gpuisa/gpuisa/isa"

//go:generate go run ./internal/gen
//go:generate go test -tags initboot -run TestInitTables -inittables

// Inst is one decoded instruction: the raw word, its control field and the
// spec form it matched.
type Inst struct {
	Word uint64
	Ctrl Ctrl
	form uint16
}

// Op is the mnemonic, e.g. "FADD".
func (i Inst) Op() string { return forms[i.form].name }

// Ctrl is an instruction's 21-bit field of the bundle's control word.
type Ctrl uint32

// NeutralCtrl is stall 1, yield, no barriers, no reuse: the field under which
// every valid instruction decodes with its plain text.
const NeutralCtrl Ctrl = 0x7f1

// Stall cycles (0-15).
func (c Ctrl) Stall() int { return int(c & 0xf) }

// Yield bit.
func (c Ctrl) Yield() bool { return c&0x10 != 0 }

// WriteBarrier is the barrier set when the result is written (7: none).
func (c Ctrl) WriteBarrier() int { return int(c>>5) & 7 }

// ReadBarrier is the barrier set when the sources are read (7: none).
func (c Ctrl) ReadBarrier() int { return int(c>>8) & 7 }

// WaitMask is the set of barriers waited on before issue.
func (c Ctrl) WaitMask() int { return int(c>>11) & 0x3f }

// Reuse is the operand reuse mask (bit 0 a, 1 b, 2 c, 3 d).
func (c Ctrl) Reuse() int { return int(c>>17) & 0xf }

// CtrlField returns slot's (0..2) field of a bundle's control word.
func CtrlField(ctrlWord uint64, slot int) Ctrl {
	return Ctrl(ctrlWord>>(21*uint(slot))) & 0x1fffff
}

// MakeCtrl is the inverse of the accessors.
func MakeCtrl(stall int, yield bool, wbar, rbar, wait, reuse int) Ctrl {
	c := Ctrl(stall&0xf) | Ctrl(wbar&7)<<5 | Ctrl(rbar&7)<<8 | Ctrl(wait&0x3f)<<11 | Ctrl(reuse&0xf)<<17
	if yield {
		c |= 0x10
	}
	return c
}

// The generated tables are made of these types.
type tokKind uint8

const (
	tkLit tokKind = iota
	tkReg
	tkPred
	tkNPred
	tkFlag
	tkTable
	tkHex
	tkSHex
	tkF32
	tkF64
	tkF16
	tkRel
	tkPhase
	tkBitSet  // {5,4,0}
	tkRegPair // register of a CAS pair: RZ or past R254 prints ???255
	tkAddr    // parts[0] register, parts[1:] signed offset
	tkUAddr   // parts[0] register, parts[1:] unsigned offset
	tkGroup   // arg tokens follow that print only if one of their fields is not its default
)

type part struct{ pos, width uint8 }

type tok struct {
	kind  tokKind
	text  string
	arg   int
	shift uint8
	def   uint64 // value an omitted optional field stands for
	n     uint8
	parts [3]part
}

// get extracts the (possibly split) field value.
func (t *tok) get(w uint64) uint64 {
	if t.n == 1 { // most fields are one run of bits
		p := t.parts[0]
		return w >> p.pos & (1<<p.width - 1)
	}
	var x uint64
	var sh uint8
	for k := 0; k < int(t.n); k++ {
		p := t.parts[k]
		x |= (w >> p.pos & (1<<p.width - 1)) << sh
		sh += p.width
	}
	return x
}

// set scatters x into the field.
func (t *tok) set(w, x uint64) uint64 {
	for k := 0; k < int(t.n); k++ {
		p := t.parts[k]
		m := uint64(1<<p.width-1) << p.pos
		w = w&^m | (x<<p.pos)&m
		x >>= p.width
	}
	return w
}

// addr splits an address field into its register and offset.
func (t *tok) addr(w uint64) (reg uint64, off int64) {
	p := t.parts[0]
	reg = w >> p.pos & (1<<p.width - 1)
	var x uint64
	var sh uint8
	for k := 1; k < int(t.n); k++ {
		p := t.parts[k]
		x |= (w >> p.pos & (1<<p.width - 1)) << sh
		sh += p.width
	}
	if t.kind == tkAddr {
		return reg, isa.SignExtend(x, sh) << t.shift
	}
	return reg, int64(x << t.shift)
}

// offMask is the mask of an address's offset bits (after the shift).
func (t *tok) offMask() uint64 {
	var sh uint8
	for k := 1; k < int(t.n); k++ {
		sh += t.parts[k].width
	}
	return (1<<sh - 1) << t.shift
}

// width is the field's total width.
func (t *tok) width() uint8 {
	var n uint8
	for k := 0; k < int(t.n); k++ {
		n += t.parts[k].width
	}
	return n
}

type table struct {
	name    string
	quest   bool
	hex     bool // INVALID<name><n> with n in hex
	nonum   bool // INVALID<name> alone
	dot     bool // out-of-range values of modifier tables print with a dot
	entries []string
	kinds   []uint8 // 0 text, 1 out of range, 2 rejected, 3 printed ???N, 4 rejected as an unknown operation
}

const (
	attrVar     = 1 << iota // variable latency
	attrTex                 // reuse bits are the texture phase
	attrSM52                // not on sm_50
	attrNoGuard             // nvdisasm prints no guard predicate
	attrSM50                // only sm_50 (where nvdisasm -b SM50 prints it differently)
	attrCF                  // control flow: no barriers, but reuse bit 3 is accepted
	attrNoR3                // variable latency, yet reuse bit 3 is rejected
	attrReuse               // reuse bits print as .reuse on register operands
	attrBad                 // nvdisasm rejects these encodings (carved out of a wider form)
	attrPCRel               // the text depends on the address (set by the generator)
	attrNoCtrl              // the control field does not matter: the all-zero word
)

type form struct {
	name        string
	value, mask uint64
	attrs       uint16
	opclass     string // nvdisasm's name of the form in its rejections, when not opclass's
	line        int
	toks        []tok
}
