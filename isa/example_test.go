package isa_test

import (
	"encoding/binary"
	"fmt"
	"os"

	"github.com/gpuisa/gpuisa/isa"
)

// toyWhy explains why a toy word does not decode, when an error is shown.
type toyWhy struct{}

func (toyWhy) Explain(raw uint64) string { return fmt.Sprintf("top bit set in %#x", raw) }

// toyPart lists a toy ISA of 4-byte words, whose top bit must be clear:
// one line a word, and for a word that does not decode a ".word" line and
// its error, recorded without making a DecodeError.
func toyPart(dst []byte, errs *isa.PartErrors, code []byte, from, to int, base uint64) ([]byte, int) {
	off := from
	for ; off < to && off+4 <= len(code); off += 4 {
		w := binary.LittleEndian.Uint32(code[off:])
		addr := base + uint64(off)
		if w>>31 != 0 {
			errs.AddInvalid(addr, 4, uint64(w), toyWhy{})
			dst = fmt.Appendf(dst, "%04x: .word %#x\n", addr, w)
			continue
		}
		dst = fmt.Appendf(dst, "%04x: op %d\n", addr, w)
	}
	return dst, off
}

// A PartFunc lists a part of the code in one call and adds the errors of
// the words that do not decode to a PartErrors; WriteParts lists the parts
// on every core and writes them in order.
func ExampleWriteParts() {
	code := binary.LittleEndian.AppendUint32(nil, 7)
	code = binary.LittleEndian.AppendUint32(code, 0x80000001)
	code = binary.LittleEndian.AppendUint32(code, 9)
	// PartStep lists a part again from where the part before it ended
	// (an instruction across the boundary: never for one length)
	toyStep := func() isa.StepFunc { return isa.PartStep(toyPart) }
	errs, err := isa.WriteParts(os.Stdout, code, 0x100, toyStep, func() isa.PartFunc { return toyPart })
	if err != nil {
		fmt.Println(err)
	}
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// 0100: op 7
	// 0104: .word 0x80000001
	// 0108: op 9
	// /*0104*/ invalid encoding: top bit set in 0x80000001
}
