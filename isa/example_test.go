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

// toyStep lists one word with toyPart (what lists a part again from where
// the part before it ended).
func toyStep() isa.StepFunc {
	var one isa.PartErrors
	var err isa.DecodeError
	return func(dst []byte, code []byte, off int, base uint64) ([]byte, int, *isa.DecodeError) {
		one.Reset()
		dst, next := toyPart(dst, &one, code, off, off+1, base)
		if one.Len() == 0 {
			return dst, next - off, nil
		}
		err = one.At(0)
		return dst, next - off, &err
	}
}

// A PartFunc lists a part of the code in one call and adds the errors of
// the words that do not decode to a PartErrors; WriteParts lists the parts
// on every core and writes them in order.
func ExampleWriteParts() {
	code := binary.LittleEndian.AppendUint32(nil, 7)
	code = binary.LittleEndian.AppendUint32(code, 0x80000001)
	code = binary.LittleEndian.AppendUint32(code, 9)
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
