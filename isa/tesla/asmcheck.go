package tesla

import (
	"errors"

	"github.com/gpuisa/gpuisa/isa"
)

// checkEncoded reports an instruction the assembler encoded that the
// decoder rejects (an operand combination the spec's checks forbid, such as
// a negated g[] operand of a 16-bit IADD32): dis would list it as .word, so
// it is an error at its statement rather than code nobody can read back.
func checkEncoded(ai asmInst) error {
	if ai.raw {
		return nil
	}
	if _, err := DecodeValue(ai.v, ai.addr); err != nil {
		var de *isa.DecodeError
		if errors.As(err, &de) && de.Detail != "" {
			return errors.New("no valid instruction has these operands: " + de.Detail)
		}
		return errors.New("no valid instruction has these operands")
	}
	return nil
}
