package maxwell

import (
	"fmt"
	"strings"
	"testing"
)

// On sm_50, SUATOM.D.CAS has no predicate destination: bits 30-32 are a
// table only 0 is defined in, and nvdisasm rejects the others naming the
// form's opclass and the table (nvdisasm 11.8, 45 random words); sm_52
// reads them as the predicate.
func TestSUATOMCASDestPred50(t *testing.T) {
	for _, c := range []struct {
		word    uint64
		opclass string
	}{
		{0xeaaeedfab07800f8, "SUATOM_D_CAS_IMM"},
		{0xead0000000000000 | 5<<30 | 0xff<<39, "SUATOM_D_CAS_REG"},
	} {
		v := c.word >> 30 & 7
		_, err := Decode(c.word, NeutralCtrl, 50, 0x5058)
		want := fmt.Sprintf("Opclass '%s', undefined value 0x%x for table 'DestPred'", c.opclass, v)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("sm_50 %#x: %v, want %q", c.word, err, want)
		}
		if _, err := Decode(c.word&^(7<<30), NeutralCtrl, 50, 0); err != nil {
			t.Errorf("sm_50 %#x with the bits clear: %v", c.word, err)
		}
		if _, err := Decode(c.word, NeutralCtrl, 52, 0); err != nil {
			t.Errorf("sm_52 %#x: %v", c.word, err)
		}
	}
}
