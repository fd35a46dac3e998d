// Package jsonl is the machine-readable form of listings: one JSON object
// per instruction, one per line (JSON Lines), so a listing of any size
// streams. docs/listing-json.md documents the fields and
// docs/listing.schema.json is their JSON Schema; every ISA fills the same
// record from its decoded instruction (operands from the encoded fields,
// never from the text).
package jsonl

import (
	"encoding/json"
	"io"
)

// Instruction is one line of a JSON listing.
type Instruction struct {
	Address   uint64      `json:"address"`
	Bytes     string      `json:"bytes"` // the encoding in memory order, hex
	Text      string      `json:"text"`  // as the text listing prints it, guard included
	Mnemonic  string      `json:"mnemonic,omitempty"`
	Guard     *Operand    `json:"guard,omitempty"`
	Modifiers []string    `json:"modifiers,omitempty"`
	Operands  []Operand   `json:"operands,omitempty"`
	Control   *Control    `json:"control,omitempty"` // sm_5x: the instruction's field of the control word
	Length    int         `json:"length,omitempty"`  // sm_1x, sm_2x: 4 or 8 bytes
	End       bool        `json:"end,omitempty"`     // the program ends after it (sm_1x's end marker, USSE's end flag)
	Dual      []Operation `json:"dual,omitempty"`    // USSE dual issue: the two operations of the word
	Function  string      `json:"function,omitempty"`
	Section   string      `json:"section,omitempty"`
	Error     string      `json:"error,omitempty"` // the encoding does not decode
}

// Operand is one typed operand.
type Operand struct {
	Kind   string `json:"kind"` // reg, pred, imm, float, const, mem, target, special, cc, enum
	Reg    *int   `json:"reg,omitempty"`
	Bits   int    `json:"bits,omitempty"`
	Value  *int64 `json:"value,omitempty"` // imm, float (bits), target address, special number, const/mem offset
	Bank   *int   `json:"bank,omitempty"`
	Space  string `json:"space,omitempty"`
	Size   int    `json:"size,omitempty"`
	Signed bool   `json:"signed,omitempty"`
	Neg    bool   `json:"neg,omitempty"`
	Abs    bool   `json:"abs,omitempty"`
	Not    bool   `json:"not,omitempty"`
	Reuse  bool   `json:"reuse,omitempty"`
	Float  string `json:"float,omitempty"`  // how a float immediate is encoded
	Suffix string `json:"suffix,omitempty"` // .H1, .B2, a special register's or enum's name
	CC     bool   `json:"cc,omitempty"`     // sm_2x: the destination also sets the condition code (.CC)
	// sm_1x memory operands: the address register added to the offset (0:
	// none) and its post-increment
	Areg int  `json:"areg,omitempty"`
	Inc  bool `json:"inc,omitempty"`
	// USSE registers: the register file, the index register of an indexed
	// operand (1, 2), the swizzle, and constants read from the f16 tables
	File    string `json:"file,omitempty"`
	Index   int    `json:"index,omitempty"`
	Swizzle string `json:"swizzle,omitempty"`
	Half    bool   `json:"half,omitempty"`
}

// Operation is one operation of a USSE dual-issue word.
type Operation struct {
	Name     string    `json:"name"`
	Mask     int       `json:"mask"` // destination write mask, channels x..w in bits 0..3
	Operands []Operand `json:"operands"`
}

// Control is an sm_5x control field.
type Control struct {
	Stall        int  `json:"stall"`
	Yield        bool `json:"yield"`
	WriteBarrier int  `json:"write_barrier"` // 7: none
	ReadBarrier  int  `json:"read_barrier"`  // 7: none
	WaitMask     int  `json:"wait_mask"`
	Reuse        int  `json:"reuse"`
}

// Writer writes instructions as JSON Lines.
type Writer struct {
	enc *json.Encoder
}

func NewWriter(w io.Writer) *Writer {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Writer{enc: enc}
}

// Write writes one instruction and a newline.
func (w *Writer) Write(in *Instruction) error { return w.enc.Encode(in) }

// Int and I64 make the pointers of optional numbers.
func Int(v int) *int     { return &v }
func I64(v int64) *int64 { return &v }
