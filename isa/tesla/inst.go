// Package tesla disassembles and assembles NVIDIA Tesla (G80..GT200, sm_10..sm_13)
// machine code in the syntax cuobjdump prints. Every instruction form is
// described once, in spec.txt; tables.go is generated from it.
//
// Decoder{}.Decode(code, addr) decodes the instruction at address addr of
// code (32- and 64-bit instructions mixed), the shape every ISA package of
// gpuisa shares; DecodeValue decodes an instruction value.
// Inst.Resolve gives its operands and modifiers as plain values.
package tesla

import "github.com/gpuisa/gpuisa/isa"

// Class is the instruction's encoding class, given by bits 0-1 of its first
// word (and, for a 32-bit flow word, by the word after it).
type Class uint8

const (
	ClassShort Class = iota // 32-bit
	ClassImm                // 64-bit with a 32-bit immediate
	ClassLong               // 64-bit
	ClassFlow               // 64-bit control flow
	// ClassFlow32 is a 32-bit control-flow word: bits 0-1 = 2 (envytools'
	// short control: trap, brkpt), or bits 0-1 = 3 where the word after it
	// cannot be its second half (CUDA 1.x ptxas's BAR and SSY; see spec.txt).
	ClassFlow32
)

// Inst is one decoded instruction: a plain value. Operands are read from Raw
// through the form's fields (see the accessors in operands.go).
type Inst struct {
	Raw  uint64 // word1<<32 | word0; a short instruction has word1 = 0
	Form uint16 // index into the spec's forms
	Len  uint8  // 4 or 8 bytes
}

// Class reports the encoding class.
func (i Inst) Class() Class { return forms[i.Form].class }

// Name is the mnemonic's base name, e.g. "IMAD".
func (i Inst) Name() string { return forms[i.Form].name }

// Sem is the semantic class from the spec (e.g. "iadd", "ld.global"), used
// by the emulator.
func (i Inst) Sem() string { return forms[i.Form].sem }

// Join reports the .S join marker; Exit the end-of-program marker.
func (i Inst) Join() bool { return i.Class() == ClassLong && f_mark.Get(i.Raw) == 2 }

// Exit reports the end-of-program marker that ptxas puts on the last instruction.
func (i Inst) Exit() bool {
	c := i.Class()
	return (c == ClassLong) && f_mark.Get(i.Raw) == 1
}

type opndKind uint8

type pieceKind uint8

const (
	pieceLit     pieceKind = iota // literal text
	pieceJoin                     // .S
	pieceCC                       // .C0...
	pieceEnum                     // opts[field]
	pieceFlag                     // text when field == 1
	pieceNotFlag                  // text when field == 0
	pieceOperand                  // an operand kind
)

type piece struct {
	kind  pieceKind
	opnd  opndKind
	half  bool      // operand uses 16-bit register halves
	wide  bool      // operand halves depend on field: halves when its low bit is 0
	field isa.Field // enum/flag field, or the width field of an operand
	text  string
	word  uint64 // text packed for putWord (0: too long, use text)
	opts  []string
	words []uint64  // opts packed for putWord (0: too long or empty, use opts)
	asm   *pieceAsm // what only the assembler needs, kept out of the printer's way
}

// pieceAsm is the assembler's view of a piece: the literal text and each
// option split into tokens, and the options longest first (".U16.BEXT" is
// tried before ".U16").
type pieceAsm struct {
	toks    []string
	optToks [][]string
	order   []uint8
}

type form struct {
	name   string
	class  Class
	mask   uint64 // bits fixed by the form
	value  uint64 // their values
	care   uint64 // every bit the form reads; others must be zero
	fill   uint64 // bits the hardware ignores, as the assembler writes them
	ignore uint64 // bits the hardware ignores
	// mnemMask holds the bits the mnemonic's pieces read (plus the class
	// bits): equal masked values print the same mnemonic.
	mnemMask uint64
	sem      string
	mnem     []piece
	opnds    []piece
}
