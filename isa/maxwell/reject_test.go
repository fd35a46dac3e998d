package maxwell

import "testing"

// nvdisasm 11.8 (-b SM52 -hex -novliw, fields 0x7f1) rejects CCTLT with
// operation 0 whatever its register, RZ included, and lists the IVALL form
// at 0xebf0...: the form at 0xebe87f80... is a hole of the wider one.
func TestCCTLTRejects(t *testing.T) {
	for _, tc := range []struct {
		word uint64
		ok   bool
	}{
		{0xebe87f8000070000, false},
		{0xebe87f8000000000, false},
		{0xebe87f8000010000, false},
		{0xebe87f8000080000, false},
		{0xebe87f8000070004, false},
		{0xebe87f80000700f0, false},
		{0xebe87f8000071234, false},
		{0xebf0000000070000, true},
		{0xebf0000000000000, true},
	} {
		_, err := Decode(tc.word, 0x7f1, 52, 0)
		if (err == nil) != tc.ok {
			t.Errorf("%#016x: decodes %v, nvdisasm %v", tc.word, err == nil, tc.ok)
		}
	}
}
